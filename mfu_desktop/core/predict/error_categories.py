"""The categories the accuracy report measures errors in, and the Prediction tab quotes bands for.

Six categories, by what limits a kernel (issue 23)::

    GEMM compute-bound   matmuls and convolutions whose roofline time on the source chip is F / P
    GEMM memory-bound    matmuls and convolutions whose roofline time is B / BW (decode GEMMs, thin shapes)
    attention            fused attention kernels (FlashAttention, SDPA)
    element-wise         element-wise arithmetic, activations, comparisons
    norm                 RMSNorm / LayerNorm
    other                softmax, copies, gathers, reductions and everything else

The operator family (:mod:`~mfu_desktop.core.analysis.families`) gives the first four words; a
GEMM is split by its bound on the **source** chip (the chip the user measured), so a user reads
the band of the kernels as their profile shows them.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from mfu_desktop.core.analysis.families import family_of

#: The report's categories, in report order.
ERROR_CATEGORIES = ("GEMM compute-bound", "GEMM memory-bound", "attention", "element-wise", "norm", "other")
#: Base categories (before a GEMM is split by its bound).
BASE_CATEGORIES = ("gemm", "attention", "element-wise", "norm", "other")
_BY_FAMILY = {"matmul": "gemm", "convolution": "gemm", "attention": "attention", "attention backward": "attention",
              "element-wise": "element-wise", "norm": "norm"}


@lru_cache(maxsize=4096)
def base_category(op_type: str) -> str:
    """``gemm``, ``attention``, ``element-wise``, ``norm`` or ``other`` for one operator type."""
    return _BY_FAMILY.get(family_of(op_type), "other")


def error_categories(base: np.ndarray, compute_us: np.ndarray, memory_us: np.ndarray) -> np.ndarray:
    """Each kernel's report category (an index into :data:`ERROR_CATEGORIES`), vectorised.

    Args:
        base: Base category per kernel (strings of :data:`BASE_CATEGORIES`).
        compute_us: F / P on the source chip (NaN: no FLOPs).
        memory_us: B / BW on the source chip (NaN: no bytes).

    Returns:
        ``int8`` indices. A GEMM is memory-bound when B / BW ≥ F / P, or when only its bytes are known.
    """
    base = np.asarray(base, dtype=object)
    with np.errstate(invalid="ignore"):
        memory_bound = np.where(np.isnan(compute_us), np.isfinite(memory_us), memory_us >= compute_us)
    gemm = np.where(memory_bound, 1, 0)
    lookup = {"attention": 2, "element-wise": 3, "norm": 4, "other": 5}
    out = np.array([lookup.get(b, 5) for b in base], dtype=np.int8)
    return np.where(base == "gemm", gemm, out).astype(np.int8)
