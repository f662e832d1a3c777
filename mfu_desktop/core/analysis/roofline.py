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
    n = len(dur_us)
    # float32 throughout: 7 significant digits is what these per-kernel figures are shown with, and half
    # the memory traffic of float64 over millions of kernels (sums recompute from bytes and FLOPs)
    nbytes, dur_us, peak_tflops = (np.asarray(a, dtype=np.float32) for a in (nbytes, dur_us, peak_tflops))
    flops = np.array(flops, dtype=np.float32)  # a copy: zero FLOPs become NaN (no FLOPs) below
    nan = np.float32(np.nan)
    has_flops = flops > 0  # NaN → False
    np.copyto(flops, nan, where=~has_flops)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_t = np.float32(1.0) / dur_us  # per µs
        np.copyto(inv_t, nan, where=~(dur_us > 0))
        memory_us = nbytes * np.float32(1e-3 / bw_gbs) if bw_gbs else np.full(n, nan)  # bytes / (GB/s), µs
        compute_us = flops / (peak_tflops * np.float32(1e6))  # NaN: no FLOPs or no peak
        achieved_gbs = nbytes * inv_t
        achieved_gbs *= np.float32(1e-3)
        attainable = np.fmax(compute_us, memory_us)  # the known one when the other is unknown …
        unknown_peak = has_flops & np.isnan(compute_us)
        np.copyto(attainable, nan, where=unknown_peak)  # … but FLOPs without a peak have no attainable time
        compute_bound = (compute_us > memory_us) | (np.isfinite(compute_us) & np.isnan(memory_us))
        memory_bound = np.isfinite(memory_us) & ~compute_bound & ~unknown_peak
        intensity = flops / nbytes
    # 0 compute-bound, 1 memory-bound, −1 unknown (bool arrays viewed as 0/1 bytes: no masked writes)
    bound = memory_bound.view(np.int8) - (~(compute_bound | memory_bound)).view(np.int8)
    return {
        "intensity": intensity,
        "achieved_gbs": achieved_gbs,
        "bw_util": achieved_gbs * np.float32(1.0 / bw_gbs) if bw_gbs else np.full(n, nan),
        "attainable_us": attainable,
        "bound": bound,
        "roof_util": attainable * inv_t,
        "roof_lost_us": dur_us - attainable,
    }


def ridge_point(peak_tflops: float, bw_gbs: float) -> float:
    """The intensity (FLOP/byte) where the compute and bandwidth roofs meet."""
    return peak_tflops * 1e12 / (bw_gbs * 1e9)
