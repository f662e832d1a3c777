"""Where in each step the time goes: step windows and the breakdown as intervals on the time axis.

The step breakdown the tables show (computing, communication not overlapped, free) is a sum
of lengths; a timeline needs *where* each part lies. :func:`breakdown_segments` gives the
intervals of one step window by the same interval arithmetic as the step trace
(profiler-formats.md §6, §13): **computing** = the union of the non-communication kernels,
**communication not overlapped** = the union of the communication kernels minus computing,
**free** = the rest of the window. Kernels are clipped to the window. Vectorised: one sweep
over the sorted interval ends, no Python loop over kernels.

Step windows (:func:`step_windows`) run from each ``Step Id``'s first kernel start to its last
kernel end (without step ids the whole capture is one window).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mfu_desktop.core.readers import columns as C

#: The breakdown's parts, in code order (the ``kind`` of a segment indexes this).
BREAKDOWN_KINDS = ("computing", "comm_not_overlapped", "free")
COMPUTING, COMM_NOT_OVERLAPPED, FREE = range(3)


@dataclass(frozen=True)
class Segments:
    """Consecutive intervals of one step window, each of one kind (index into :data:`BREAKDOWN_KINDS`)."""

    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray

    def total(self, kind: int) -> float:
        """The summed length of the segments of ``kind``."""
        mine = self.kind == kind
        return float((self.end[mine] - self.start[mine]).sum())


def _active(starts: np.ndarray, ends: np.ndarray, at: np.ndarray) -> np.ndarray:
    """How many intervals ``[start, end)`` contain each time of ``at``."""
    return (np.searchsorted(np.sort(starts), at, side="right")
            - np.searchsorted(np.sort(ends), at, side="right"))


def breakdown_segments(start: np.ndarray, end: np.ndarray, comm: np.ndarray, lo: float, hi: float) -> Segments:
    """The window ``[lo, hi]`` cut into computing, communication-not-overlapped and free intervals.

    Args:
        start: Kernel starts (any unit, the window's).
        end: Kernel ends.
        comm: True for communication kernels.
        lo: Window start.
        hi: Window end.

    Returns:
        Adjacent segments covering the window, neighbours of the same kind merged.
    """
    if not hi > lo:
        return Segments(np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int8))
    s = np.clip(np.asarray(start, dtype=np.float64), lo, hi)
    e = np.clip(np.asarray(end, dtype=np.float64), lo, hi)
    keep = e > s
    s, e, comm = s[keep], e[keep], np.asarray(comm, dtype=bool)[keep]
    bounds = np.unique(np.concatenate([s, e, [lo, hi]]))
    mid = (bounds[:-1] + bounds[1:]) / 2.0
    computing = _active(s[~comm], e[~comm], mid) > 0
    communicating = _active(s[comm], e[comm], mid) > 0
    kind = np.where(computing, COMPUTING, np.where(communicating, COMM_NOT_OVERLAPPED, FREE)).astype(np.int8)
    change = np.concatenate([[True], kind[1:] != kind[:-1]])
    first = np.flatnonzero(change)
    last = np.concatenate([first[1:], [len(kind)]]) - 1
    return Segments(bounds[:-1][first], bounds[1:][last], kind[first])


def step_windows(kernels: pd.DataFrame, start_us: np.ndarray, end_us: np.ndarray) -> tuple[pd.DataFrame, str]:
    """Each step's window on the timeline (µs from the origin) and where the windows come from.

    A step's window is the device span of its kernels (its first kernel start to its last kernel
    end), as the step trace's step time is (``Stage``, profiler-formats.md §6): the breakdown of a
    window then adds up to the step time the tables show.

    Args:
        kernels: The rank's kernel frame (its ``Step Id`` column).
        start_us: Kernel starts, µs from the origin (NaN: no start time).
        end_us: Kernel ends.

    Returns:
        A frame ``step`` (text), ``start_us``, ``end_us`` sorted by start, and the windows' source.
    """
    timed = np.isfinite(start_us)
    if C.STEP_ID in kernels.columns and kernels[C.STEP_ID].notna().any():
        ids = pd.to_numeric(kernels[C.STEP_ID], errors="coerce").to_numpy(np.float64)
        use = timed & np.isfinite(ids)
        codes, uniques = pd.factorize(ids[use], sort=True)
        order = np.argsort(codes, kind="stable")  # kernels grouped by step: one reduceat per bound
        first = np.searchsorted(codes[order], np.arange(len(uniques)))
        lo = np.minimum.reduceat(start_us[use][order], first) if len(order) else np.zeros(0)
        hi = np.maximum.reduceat(end_us[use][order], first) if len(order) else np.zeros(0)
        frame = pd.DataFrame({"step": [f"{u:g}" for u in uniques], "start_us": lo, "end_us": hi})
        return (frame.sort_values("start_us", kind="stable").reset_index(drop=True),
                "each step from its first kernel start to its last kernel end")
    if not timed.any():
        return pd.DataFrame({"step": [], "start_us": [], "end_us": []}), "no kernel has a start time"
    return (pd.DataFrame({"step": [""], "start_us": [float(np.nanmin(start_us))],
                          "end_us": [float(np.nanmax(end_us))]}),
            "no step information: the capture is one window")


def breakdown_frame(windows: pd.DataFrame, start_us: np.ndarray, end_us: np.ndarray,
                    comm: np.ndarray) -> pd.DataFrame:
    """The breakdown segments of every step window: ``step``, ``kind`` (a :data:`BREAKDOWN_KINDS` code), times.

    Args:
        windows: The step windows (:func:`step_windows`).
        start_us: Kernel starts (NaN: no start time).
        end_us: Kernel ends.
        comm: True for communication kernels.
    """
    timed = np.isfinite(start_us) & np.isfinite(end_us)
    order = np.argsort(np.where(timed, start_us, np.inf), kind="stable")[: int(timed.sum())]
    s, e, m = start_us[order], end_us[order], np.asarray(comm, dtype=bool)[order]
    end_max = np.maximum.accumulate(e) if len(e) else e
    parts = []
    for step, lo, hi in windows[["step", "start_us", "end_us"]].itertuples(index=False):  # a handful of steps
        first = int(np.searchsorted(end_max, lo, side="right"))
        last = int(np.searchsorted(s, hi, side="left"))
        seg = breakdown_segments(s[first:last], e[first:last], m[first:last], float(lo), float(hi))
        parts.append(pd.DataFrame({"step": step, "kind": seg.kind, "start_us": seg.start, "end_us": seg.end}))
    if not parts:
        return pd.DataFrame({"step": [], "kind": np.zeros(0, np.int8), "start_us": [], "end_us": []})
    return pd.concat(parts, ignore_index=True)
