"""Operator categories of the accuracy report and of calibration: matmul, attention, element-wise.

One definition, used by ``tools/accuracy.py``, ``mfu predict --calibrate`` and the Prediction
tab. The categories group the operator families (:mod:`~mfu_desktop.core.analysis.families`) by
what limits them: matmuls and convolutions (the cube / tensor cores), attention (fused
attention kernels), and everything else a step runs on the vector units — element-wise,
norms, softmax, reductions, copies — which is mostly bound by memory bandwidth.
"""

from __future__ import annotations

from functools import lru_cache

from mfu_desktop.core.analysis.families import family_of

#: The categories, in report order.
CATEGORIES = ("matmul", "attention", "element-wise")
_BY_FAMILY = {"matmul": "matmul", "convolution": "matmul", "attention": "attention",
              "attention backward": "attention"}


@lru_cache(maxsize=4096)
def category_of(op_type: str) -> str:
    """The category of one operator type (``element-wise`` for anything not matmul or attention)."""
    return _BY_FAMILY.get(family_of(op_type), "element-wise")
