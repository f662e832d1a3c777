"""Kernels no capture can hold are left out, counted by reason: whatever the reader, before any figure sees them.

A duration of ``1e309`` is +inf after parsing: it turned operator MFU into 0 with no word, a
time total into inf and the JSON into ``Infinity``; ``1e308`` gave an MFU of 7e-304. A kernel
runs inside the capture: a negative duration, an infinite one, or one longer than the
capture's span of kernel starts plus :data:`LONGEST_KERNEL_US` (no accelerator kernel runs
that long: the runtime's watchdogs end it first) is not a measurement. A missing duration
stays missing (the readers count those cells; the analysis excludes them with a reason).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfu_desktop.core.readers import columns as C

#: The longest a single kernel is believed to run (µs): beyond the span of the capture's starts plus this, a
#: duration is absurd.
LONGEST_KERNEL_US = 60e6
#: Kernels named in the message, at most.
NAMED = 3


def screen_kernels(frame: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """The kernels without the impossible durations, and one message counting each reason (``None``: none left out).

    Args:
        frame: A canonical kernel frame (:data:`C.DURATION_US`, maybe :data:`C.START_NS` with ``-1`` = unknown).
    """
    if frame is None or frame.empty or C.DURATION_US not in frame.columns:
        return frame, None
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)
    infinite = np.isinf(dur)
    negative = dur < 0
    limit = _capture_limit_us(frame)
    absurd = np.isfinite(dur) & (dur > limit)
    drop = infinite | negative | absurd
    if not drop.any():
        return frame, None
    reasons = [(int(infinite.sum()), "an infinite duration"), (int(negative.sum()), "a negative duration"),
               (int(absurd.sum()), f"a duration longer than the capture could hold (> {limit / 1e6:,.0f} s)")]
    counted = ", ".join(f"{n} with {why}" for n, why in reasons if n)
    names = ""
    if C.NAME in frame.columns:
        listed = [str(v) for v in frame[C.NAME].to_numpy(dtype=object)[drop][:NAMED]]
        names = f" ({', '.join(listed)}{' …' if int(drop.sum()) > NAMED else ''})"
    message = f"{int(drop.sum())} kernel(s) left out{names}: {counted}"
    return frame.loc[~drop].reset_index(drop=True), message


def _capture_limit_us(frame: pd.DataFrame) -> float:
    """The longest duration a kernel of this capture can have: the span of its known starts plus the longest kernel."""
    if C.START_NS not in frame.columns:
        return LONGEST_KERNEL_US
    starts = pd.to_numeric(frame[C.START_NS], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    known = starts[np.isfinite(starts) & (starts >= 0)]
    span_us = float(known.max() - known.min()) / 1000.0 if len(known) else 0.0
    return span_us + LONGEST_KERNEL_US
