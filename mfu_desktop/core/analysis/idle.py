"""Device idle time between kernels, and the time the device was busy.

A device is busy while any kernel runs on it — compute, communication or copy, on any stream —
and idle otherwise. The idle time *before* a kernel is the time between the latest end of every
kernel that started before it and its own start (0 when it started while another was still
running). Where the profiler recorded the kernel's own wait (``Wait Time(us)``: how long its
stream waited for it), the idle time is at most that wait: a kernel list cut out of a longer
capture (a test fixture, a filtered export) leaves gaps that never happened on the device.

Summed inside a step the idle time is the step's free time seen from the kernels; the gaps
before short kernels are the launch overhead the host could not hide (the advisor's host-bound
and small-kernel rules). Vectorised: one sort by start time and a running maximum of the ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mfu_desktop.core.readers import columns as C


@dataclass(frozen=True)
class DeviceTime:
    """The device's busy time over a capture and its idle time before each kernel.

    Attributes:
        busy_us: Total time (µs) at least one kernel was running (the union of the kernels' intervals).
        idle_us: Per kernel (frame rows), the idle µs just before it; NaN for the first kernel of the
            capture, the first kernel of each step (the time between two steps is the host's, not a
            launch gap) and kernels without a start time or duration.
    """

    busy_us: float
    idle_us: np.ndarray

    @property
    def idle_total_us(self) -> float:
        """Σ idle time before the kernels (µs)."""
        return float(np.nansum(self.idle_us))


def device_time(kernels: pd.DataFrame) -> DeviceTime:
    """Busy time and idle-before-each-kernel of a kernel frame (see the module docstring).

    Args:
        kernels: A kernel frame with ``start_ns`` and ``duration_us`` (``step_id`` and ``wait_us`` optional).
    """
    n = len(kernels)
    idle = np.full(n, np.nan)
    if n == 0 or C.START_NS not in kernels.columns or C.DURATION_US not in kernels.columns:
        return DeviceTime(0.0, idle)
    start = kernels[C.START_NS].to_numpy(dtype=np.float64) / 1000.0
    dur = kernels[C.DURATION_US].to_numpy(dtype=np.float64)
    valid = np.flatnonzero((start >= 0) & np.isfinite(start) & np.isfinite(dur) & (dur >= 0))
    if len(valid) == 0:
        return DeviceTime(0.0, idle)
    order = valid[np.argsort(start[valid], kind="stable")]
    s, e = start[order], start[order] + dur[order]
    busy_until = np.maximum.accumulate(e)
    before = np.concatenate([[-np.inf], busy_until[:-1]])
    busy = float(np.clip(e - np.maximum(s, before), 0.0, None).sum())
    gaps = np.maximum(s - before, 0.0)
    gaps[0] = np.nan
    step = _step_codes(kernels)
    if step is not None:
        ordered = step[order]
        gaps[1:][ordered[1:] != ordered[:-1]] = np.nan
    if C.WAIT_US in kernels.columns:
        wait = kernels[C.WAIT_US].to_numpy(dtype=np.float64)[order]
        gaps = np.where(np.isfinite(gaps) & np.isfinite(wait) & (wait >= 0), np.minimum(gaps, wait), gaps)
    idle[order] = gaps
    return DeviceTime(busy, idle)


def _step_codes(kernels: pd.DataFrame) -> np.ndarray | None:
    """Step Id per row as codes (−1: none), or ``None`` when the frame has no Step Id."""
    if C.STEP_ID not in kernels.columns or not kernels[C.STEP_ID].notna().any():
        return None
    codes, _ = pd.factorize(kernels[C.STEP_ID], use_na_sentinel=True)
    return codes
