"""Per-kernel roofline figures (mfu.md §6), vectorised: intensity, bandwidth, bound, attainable and lost time.

With ``P`` the chip's peak for the kernel's dtype (TFLOP/s) and ``BW`` its HBM bandwidth (GB/s)::

    intensity     I  = FLOPs / bytes                          (FLOP/byte)
    achieved BW      = bytes / t                              (GB/s)
    bandwidth util   = achieved BW / BW
    attainable    t* = max(FLOPs / P, bytes / BW)            (a kernel without FLOPs: bytes / BW)
    bound            = compute when FLOPs / P > bytes / BW, else memory
    roof util        = t* / t                                 (MFU when compute-bound, bandwidth util when memory-bound)
    lost time        = t − t*                                 (≥ 0; negative flags an impossible figure)

The ridge point is ``P / BW`` FLOP/byte (910B2 BF16: 353.9e12 / 1.6e12 ≈ 221).
"""

from __future__ import annotations

import numpy as np

#: The ``bound`` column's categories.
BOUNDS = ("compute", "memory")


def roofline(flops: np.ndarray, nbytes: np.ndarray, dur_us: np.ndarray, peak_tflops: np.ndarray,
             bw_gbs: float | None) -> dict[str, np.ndarray]:
    """Roofline columns for every kernel (NaN where an input is unknown).

    Args:
        flops: Model FLOPs per kernel (NaN: none).
        nbytes: Minimum bytes per kernel (NaN: unknown).
        dur_us: Durations (µs).
        peak_tflops: The peak for each kernel's dtype (NaN: none).
        bw_gbs: The chip's HBM bandwidth (GB/s), ``None`` when unknown.

    Returns:
        ``intensity``, ``achieved_gbs``, ``bw_util``, ``attainable_us``, ``bound`` (0 compute,
        1 memory, −1 unknown), ``roof_util`` and ``roof_lost_us``.
    """
    bw = float(bw_gbs) if bw_gbs else np.nan
    has_flops = np.isfinite(flops) & (flops > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        intensity = np.where(has_flops & (nbytes > 0), flops / nbytes, np.nan)
        achieved_gbs = np.where(dur_us > 0, nbytes / dur_us / 1e3, np.nan)
        bw_util = achieved_gbs / bw
        memory_us = nbytes / (bw * 1e3)  # bytes / (GB/s), in µs
        compute_us = np.where(has_flops, flops / (peak_tflops * 1e6), 0.0)  # NaN when the peak is unknown
        attainable = np.maximum(compute_us, memory_us)  # NaN when either is unknown
        attainable = np.where(np.isnan(memory_us) & has_flops, compute_us, attainable)
        roof_util = np.where(dur_us > 0, attainable / dur_us, np.nan)
        compute_bound = has_flops & np.isfinite(compute_us) & (~np.isfinite(memory_us) | (compute_us > memory_us))
    memory_bound = np.isfinite(memory_us) & ~compute_bound & (~has_flops | np.isfinite(compute_us))
    bound = np.full(len(flops), -1, dtype=np.int8)
    bound[compute_bound] = 0
    bound[memory_bound] = 1
    return {
        "intensity": intensity,
        "achieved_gbs": achieved_gbs,
        "bw_util": bw_util,
        "attainable_us": attainable,
        "bound": bound,
        "roof_util": roof_util,
        "roof_lost_us": dur_us - attainable,
    }


def ridge_point(peak_tflops: float, bw_gbs: float) -> float:
    """The intensity (FLOP/byte) where the compute and bandwidth roofs meet."""
    return peak_tflops * 1e12 / (bw_gbs * 1e9)
