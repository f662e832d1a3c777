"""Times that cannot be right: which trace events are excluded, and why (counted per kind of event).

A kernel is excluded when its start or duration is missing, not a number, infinite or negative,
or its start lies beyond what a clock in nanoseconds can hold (> 9.2e15 µs); a CPU op, a launch
or a step range when its start or duration is missing, not a number or infinite, or its
duration negative. Then any of them longer than the capture could hold — the span of all event
starts plus a minute, which no kernel runs (the runtime's watchdogs end it first) — is excluded
too (a 1e300 µs duration would otherwise become the step time). The same minute bounds every
reader's kernels (``readers/kernel_checks.py`` where it exists): one notion of "longer than the capture".
"""

from __future__ import annotations

from collections import Counter

import numpy as np

#: What is counted (the warnings name these).
KERNELS = "GPU kernels"
OPS = "CPU ops"
LAUNCHES = "runtime launches"
STEPS = "ProfilerStep ranges"

NOT_A_NUMBER = "start or duration missing or not a number"
INFINITE = "infinite start or duration"
NEGATIVE = "negative start or duration"
BEYOND_CLOCK = "start beyond any clock (> 9.2e15 µs)"
TOO_LONG = "longer than the capture could hold"
#: Reason codes (0 = kept).
REASONS = ["", NOT_A_NUMBER, INFINITE, NEGATIVE, BEYOND_CLOCK, TOO_LONG]
_NAN, _INF, _NEG, _CLOCK, _LONG = 1, 2, 3, 4, 5

#: Kernel starts become int64 nanoseconds: later starts (µs) cannot be held.
MAX_START_US = 9.2e15
#: The longest a single kernel is believed to run (µs): a duration beyond the span of the capture's starts
#: plus this is absurd.
LONGEST_KERNEL_US = 60e6


def kernel_time_reasons(ts: np.ndarray, dur: np.ndarray) -> np.ndarray:
    """Per kernel: 0 when its times are usable, else the code of the first reason in :data:`REASONS`."""
    with np.errstate(invalid="ignore"):
        out = np.where(ts >= MAX_START_US, _CLOCK, 0).astype(np.int8)
        out[(ts < 0) | (dur < 0)] = _NEG
    out[np.isinf(ts) | np.isinf(dur)] = _INF
    out[np.isnan(ts) | np.isnan(dur)] = _NAN
    return out


def span_time_reasons(ts: np.ndarray, dur: np.ndarray) -> np.ndarray:
    """Per op, launch or range: 0 when usable (finite start, finite duration ≥ 0), else a reason code."""
    with np.errstate(invalid="ignore"):
        out = np.where(dur < 0, _NEG, 0).astype(np.int8)
    out[np.isinf(ts) | np.isinf(dur)] = _INF
    out[np.isnan(ts) | np.isnan(dur)] = _NAN
    return out


def too_long(dur: np.ndarray, capture_us: float) -> np.ndarray:
    """Durations longer than the capture could hold: its span of starts plus :data:`LONGEST_KERNEL_US`."""
    return dur > capture_us + LONGEST_KERNEL_US


def count(excluded: dict[str, Counter[str]], what: str, reasons: np.ndarray) -> None:
    """Add the nonzero reason codes to ``excluded[what]``."""
    codes, counts = np.unique(reasons[reasons > 0], return_counts=True)
    if len(codes):
        tally = excluded.setdefault(what, Counter())
        for code, n in zip(codes.tolist(), counts.tolist()):
            tally[REASONS[code]] += n


def count_too_long(excluded: dict[str, Counter[str]], what: str, n: int) -> None:
    """Count ``n`` events of ``what`` longer than the capture."""
    if n:
        excluded.setdefault(what, Counter())[TOO_LONG] += n


def describe(excluded: dict[str, Counter[str]], kept: dict[str, int]) -> list[str]:
    """One sentence per kind of event: how many were excluded of how many, and why."""
    notes = []
    for what, reasons in excluded.items():
        total = sum(reasons.values())
        why = ", ".join(f"{n:,} {reason}" for reason, n in reasons.most_common())
        notes.append(f"{total:,} of {total + kept.get(what, 0):,} {what} excluded: {why}")
    return notes
