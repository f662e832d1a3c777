"""A kernel's attainable time on one chip from its FLOPs and bytes (the roofline model, issue 23).

With ``F`` FLOPs, ``B`` bytes, the chip's effective peak ``P`` (TFLOP/s) and bandwidth ``BW``
(GB/s), and its latency floor ``L`` (µs)::

    T̂ = (t_c^p + t_m^p)^(1/p) + L        t_c = F / P,  t_m = B / BW   (µs)

``p = ∞`` is the roofline's ``max(t_c, t_m)``; ``p = 1`` adds them (no overlap of compute and
memory); values between are the smooth forms. A term whose quantity is unknown (no FLOPs, no
bytes) is left out; with neither, ``T̂`` is NaN. A kernel without pipe counters is predicted as
``measured × T̂_target / T̂_source``.
"""

from __future__ import annotations

import numpy as np

#: µs per (FLOP / (TFLOP/s)) and per (byte / (GB/s)).
_US_PER_FLOP_AT_1_TFLOPS = 1e-6
_US_PER_BYTE_AT_1_GBS = 1e-3


def roofline_terms(flops: np.ndarray, nbytes: np.ndarray, peak_tflops: np.ndarray | float,
                   bw_gbs: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """``t_c = F / P`` and ``t_m = B / BW`` in µs (NaN where the quantity or the rate is unknown or zero)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.asarray(flops, dtype=np.float64)
        b = np.asarray(nbytes, dtype=np.float64)
        t_c = np.where(f > 0, f * _US_PER_FLOP_AT_1_TFLOPS / peak_tflops, np.nan)
        t_m = np.where(b > 0, b * _US_PER_BYTE_AT_1_GBS / bw_gbs, np.nan)
    t_c[~np.isfinite(t_c)] = np.nan
    t_m[~np.isfinite(t_m)] = np.nan
    return t_c, t_m


def combine(t_c: np.ndarray, t_m: np.ndarray, power: float) -> np.ndarray:
    """``(t_c^p + t_m^p)^(1/p)`` (``max`` for ``p = ∞``), NaN only where both terms are unknown."""
    both_unknown = np.isnan(t_c) & np.isnan(t_m)
    c, m = np.nan_to_num(t_c), np.nan_to_num(t_m)
    if np.isinf(power):
        out = np.maximum(c, m)
    elif power == 1.0:
        out = c + m
    else:
        out = (c**power + m**power) ** (1.0 / power)
    return np.where(both_unknown, np.nan, out)


def attainable_us(flops: np.ndarray, nbytes: np.ndarray, peak_tflops: np.ndarray | float,
                  bw_gbs: np.ndarray | float, floor_us: np.ndarray | float, power: float) -> np.ndarray:
    """``T̂`` of every kernel (µs): the combined roofline terms plus the latency floor."""
    t_c, t_m = roofline_terms(flops, nbytes, peak_tflops, bw_gbs)
    return combine(t_c, t_m, power) + floor_us
