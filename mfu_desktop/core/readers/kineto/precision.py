"""FP32 matmuls that ran on TF32 tensor cores (profiler-formats.md §13, "TF32").

With ``torch.backends.cuda.matmul.allow_tf32`` (the default for cuDNN convolutions, and what many
training scripts set for matmuls), an FP32 GEMM on Ampere or later runs on the tensor cores at
the TF32 rate — 156 TFLOP/s on an A100 against 19.5 for FP32 on CUDA cores. The op still records
``float`` inputs, so only the kernel's name tells: CUTLASS ``…tensorop_s1688gemm…`` /
``…s16816gemm…`` / ``tensorop_s*gemm``, cuBLAS ``…tf32…`` (``sm80_xmma_gemm_…tf32…``), AMD's
``…xf32…`` (MI300's XF32). Such kernels are marked in the ``hf32_eligible`` column as ``TF32``:
the analysis judges them against the catalog's HF32/TF32 peak — the concept Ascend calls HF32
(``--hf32``) — whatever the switch says. FP32 GEMMs whose names show CUDA cores (``sgemm``,
CUTLASS ``simt``), and every FP32 GEMM on a GPU older than Ampere, are marked ``NO``: ``--hf32``
does not turn them into TF32.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from mfu_desktop.core.chips.vendor_terms import vendor_terms
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.kineto.device import GpuDevice

#: FP32 GEMM kernels that run on TF32/XF32 tensor cores, by name.
TENSOR_CORE_FP32_GEMM = re.compile(r"tf32|xf32|tensorop_\w*?s\d+gemm|s16\d{2,3}gemm", re.IGNORECASE)
#: FP32 GEMM kernels that run on CUDA cores (SIMT), by name.
CUDA_CORE_FP32_GEMM = re.compile(r"sgemm|simt", re.IGNORECASE)

#: The ``hf32_eligible`` values a trace gives a kernel, in category-code order.
_VALUES = [C.HF32_RAN, C.HF32_NO]


def _flags(names: list[str], pattern: re.Pattern[str]) -> np.ndarray:
    return np.array([bool(pattern.search(n)) for n in names] + [False], dtype=bool)


def fp32_inputs(texts: list[str], dtype_codes: np.ndarray) -> np.ndarray:
    """Per kernel: whether its op's first input is ``float`` (FP32); ``dtype_codes`` index ``texts`` (−1 = none)."""
    first_float = np.array([t.split(";", 1)[0].strip().lower() == "float" for t in texts] + [False], dtype=bool)
    return first_float[np.where(dtype_codes >= 0, dtype_codes, len(texts))]


def tf32_column(names: list[str], k_name: np.ndarray, fp32: np.ndarray, ruled: np.ndarray,
                device: GpuDevice | None) -> pd.Categorical:
    """``TF32`` / ``NO`` / missing per kernel, for the kernels of FP32 ops with a FLOP rule.

    An op ran as TF32 when one of its kernels has a tensor-core FP32 GEMM name; all its kernels
    (split-K reductions, memsets sharing its FLOPs) then take the TF32 peak.

    Args:
        names: The trace's interned texts (kernel names among them).
        k_name: Per kernel, the code of its name in ``names``.
        fp32: Per kernel, whether its op's first input is FP32.
        ruled: Per kernel, the op that carries its FLOPs (−1: none).
        device: The GPU, when ``deviceProperties`` says which.
    """
    n = len(k_name)
    values = np.full(n, -1, dtype=np.int8)
    rows = (ruled >= 0) & fp32
    if not rows.any():
        return pd.Categorical.from_codes(values, categories=_VALUES)
    if device is not None and device.predates_tf32:
        values[rows] = 1
        return pd.Categorical.from_codes(values, categories=_VALUES)
    tensor = _flags(names, TENSOR_CORE_FP32_GEMM)[k_name] & rows
    simt = _flags(names, CUDA_CORE_FP32_GEMM)[k_name] & rows & ~tensor
    op_tf32 = np.zeros(int(ruled.max()) + 1, dtype=bool)
    op_tf32[ruled[tensor]] = True
    ran = rows & op_tf32[np.clip(ruled, 0, None)]
    values[simt & ~ran] = 1
    values[ran] = 0
    return pd.Categorical.from_codes(values, categories=_VALUES)


def tf32_note(column: pd.Categorical, vendor: str) -> str | None:
    """The rank note that says which kernels were judged against the TF32 peak, or ``None``."""
    count = int((column.codes == 0).sum())
    if not count:
        return None
    terms = vendor_terms(vendor)
    return (f"{count:,} kernels of FP32 matmuls ran as {terms.reduced_fp32} on the {terms.matrix_unit}s (their names "
            "say so: CUTLASS tensorop_s1688gemm / s16816gemm, cuBLAS …tf32…, …xf32…; FP32 inputs with allow_tf32 on "
            f"Ampere or later): judged against the {terms.reduced_fp32} peak (the catalog's HF32/TF32 column), not the "
            "FP32 one")
