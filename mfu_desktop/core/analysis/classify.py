"""The one kernel classification: which unit a kernel ran on (analysis, prediction and views share it).

A kernel's class comes from its accelerator core (``Accelerator Core`` / ``Task Type`` on
Ascend, the reader's own label for other vendors) and, for communication, from ``hcom_*``
operator types. ``cube`` is the matrix unit whatever the vendor calls it (Ascend Cube,
NVIDIA/AMD tensor or matrix cores); ``vector`` the vector/SIMT units.
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.grouping import codes_of, lookup
from mfu_desktop.core.readers import columns as C


class KernelClass(StrEnum):
    """What kind of unit a kernel ran on."""

    CUBE = "cube"
    VECTOR = "vector"
    MIX = "mix"
    AICPU = "aicpu"
    COMM = "comm"
    OTHER = "other"
    UNKNOWN = "unknown"


#: Class names in code order (a kernel frame stores the class as a categorical of these).
CLASSES: list[str] = [k.value for k in KernelClass]
#: Classes whose time the cross-chip prediction rescales (prediction.md §2).
COMPUTE_CLASSES = (KernelClass.CUBE, KernelClass.VECTOR, KernelClass.MIX)

#: Accelerator core label → class. Labels not listed are ``other``; a missing label is ``unknown``.
CORE_CLASS: dict[str, KernelClass] = {
    "AI_CORE": KernelClass.CUBE,
    "AI_VECTOR_CORE": KernelClass.VECTOR,
    "MIX_AIC": KernelClass.MIX,
    "MIX_AIV": KernelClass.MIX,
    "AI_CPU": KernelClass.AICPU,
    "HCCL": KernelClass.COMM,
    "COMMUNICATION": KernelClass.COMM,
    "DSA_SQE": KernelClass.OTHER,
    # GPU readers label their kernels with these (vendor-neutral) cores.
    "GPU_MATRIX": KernelClass.CUBE,
    "GPU_VECTOR": KernelClass.VECTOR,
    "GPU_COMM": KernelClass.COMM,
    "GPU_COPY": KernelClass.OTHER,
}

#: How an excluded (non-compute) core is named in the prediction's "excluded" list.
EXCLUDED_LABEL: dict[str, str] = {"AI_CPU": "AI CPU", "DSA_SQE": "DSA", "HCCL": "communication",
                                  "COMMUNICATION": "communication", "GPU_COMM": "communication",
                                  "GPU_COPY": "memory copy/set"}


def class_of_core(core: str | None, op_type: str | None = None) -> KernelClass:
    """Class of one kernel from its core label (and ``hcom_*`` operator types)."""
    if op_type is not None and str(op_type).startswith("hcom_"):
        return KernelClass.COMM
    if core is None or core == "" or core == "N/A":
        return KernelClass.UNKNOWN
    return CORE_CLASS.get(str(core), KernelClass.OTHER)


def class_codes(frame: pd.DataFrame) -> np.ndarray:
    """Class code per row (index into :data:`CLASSES`), vectorised over category codes."""
    n = len(frame)
    unknown = CLASSES.index(KernelClass.UNKNOWN.value)
    if C.CORE_TYPE in frame.columns:
        codes, cats = codes_of(frame[C.CORE_TYPE])
        table = np.array([CLASSES.index(class_of_core(str(c)).value) for c in cats] + [unknown], dtype=np.int8)
        out = lookup(table, codes)
    else:
        out = np.full(n, unknown, dtype=np.int8)
    if C.OP_TYPE in frame.columns:
        codes, cats = codes_of(frame[C.OP_TYPE])
        is_comm = np.array([str(c).startswith("hcom_") for c in cats] + [False])
        out = np.where(lookup(is_comm, codes), np.int8(CLASSES.index(KernelClass.COMM.value)), out)
    return out.astype(np.int8)


def excluded_label(core: str) -> str:
    """Name of a non-compute core in the prediction's excluded list."""
    if core in ("", "N/A"):
        return "unknown (N/A)"
    return EXCLUDED_LABEL.get(core, f"other ({core})")
