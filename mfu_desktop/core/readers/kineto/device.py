"""The GPU of a PyTorch profiler trace, from its ``deviceProperties`` (profiler-formats.md §13)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: The first NVIDIA architecture with TF32 tensor cores (Ampere, compute capability 8.0).
TF32_MIN_COMPUTE_MAJOR = 8


@dataclass
class GpuDevice:
    """One GPU as ``deviceProperties`` describes it."""

    name: str
    vendor: str
    sms: int | None = None
    memory_gb: float | None = None
    compute: str = ""

    @property
    def compute_major(self) -> int | None:
        """The compute capability's major number (``8`` for ``8.0``), ``None`` when not recorded."""
        major = self.compute.split(".", 1)[0]
        return int(major) if major.isdigit() else None

    @property
    def predates_tf32(self) -> bool:
        """True for an NVIDIA GPU older than Ampere (no TF32 tensor cores: FP32 matmuls run on CUDA cores)."""
        major = self.compute_major
        return self.vendor == "NVIDIA" and major is not None and major < TF32_MIN_COMPUTE_MAJOR


def device_of(header: dict[str, Any], device_ids: np.ndarray) -> GpuDevice | None:
    """The GPU most kernels ran on, from ``deviceProperties``."""
    props = header.get("deviceProperties")
    if not isinstance(props, list) or not props:
        return None
    ids = device_ids[device_ids >= 0]
    main = None
    if len(ids):  # np.unique, not bincount: a garbage id (10**15) must not allocate a table that long
        values, counts = np.unique(ids, return_counts=True)
        main = int(values[int(np.argmax(counts))])
    chosen = next((p for p in props if isinstance(p, dict) and p.get("id") == main), None) or props[0]
    if not isinstance(chosen, dict):
        return None
    name = str(chosen.get("name", "unknown GPU"))
    vendor = "AMD" if "AMD" in name.upper() or "hip_runtime_version" in header else (
        "NVIDIA" if "NVIDIA" in name.upper() or "cuda_runtime_version" in header else "GPU")
    mem = chosen.get("totalGlobalMem")
    sms = chosen.get("numSms")
    return GpuDevice(name, vendor, int(sms) if isinstance(sms, int) else None,
                     float(mem) / 2**30 if isinstance(mem, (int, float)) else None,
                     f"{chosen.get('computeMajor', '')}.{chosen.get('computeMinor', '')}")
