"""Level of detail for a timeline: a lane's kernels as one value per pixel column, at any zoom.

A million kernels cannot be drawn one by one, and at most zoom levels most of them are
narrower than a pixel. Each lane is reduced to the columns of the screen instead: per column,
how much of its time the lane's kernels cover (**coverage**, 1 = busy all along), the
time-weighted mean of the colour figure over the kernels that have one (**value**), and for a
categorical colouring the kernel at the column's centre (**category**). A kernel several
pixels wide then fills its columns with its own figure; a column packed with tiny kernels
shows their time-weighted mean and how busy it was.

The integrals come from prefix sums (:class:`LaneIndex`): the time the lane's kernels spend
before a time ``b`` is ``Σ_{s<b} (b − s) − Σ_{e<b} (b − e)`` over kernel starts ``s`` and ends
``e``, so every column boundary costs two binary searches whatever the number of kernels —
a frame of a 1M-kernel lane costs the same as one of a hundred kernels. When few kernels are
visible the sums are taken over those alone, relative to the view's start (exact to the ns at
any zoom).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Below this many visible kernels a lane is reduced from its visible kernels alone (exact at deep zoom).
LOCAL_LIMIT = 20_000
#: A kernel at least this many pixels wide gets a darker first column (its edge).
EDGE_PX = 4.0


def _prefix(values: np.ndarray) -> np.ndarray:
    """Cumulative sums with a leading 0 (``out[k]`` = the sum of the first ``k`` values)."""
    out = np.empty(len(values) + 1, dtype=np.float64)
    out[0] = 0.0
    np.cumsum(values, out=out[1:])
    return out


class _Sums:
    """Prefix sums of a weight and of weight × time, over kernels sorted by one of their ends."""

    def __init__(self, times: np.ndarray, weight: np.ndarray | None) -> None:
        self.times = times
        if weight is None:
            self.count: np.ndarray | None = None
            self.weighted = _prefix(times)
        else:
            self.count = _prefix(weight)
            self.weighted = _prefix(weight * times)

    def before(self, bounds: np.ndarray) -> np.ndarray:
        """``Σ w · (b − t)`` over the kernels whose time ``t`` is before each bound ``b``."""
        k = np.searchsorted(self.times, bounds, side="left")
        n = k.astype(np.float64) if self.count is None else self.count[k]
        return bounds * n - self.weighted[k]

    def how_many(self, bounds: np.ndarray, side: str) -> np.ndarray:
        """The summed weight (0/1 weights: an exact count) of the kernels whose time is before each bound."""
        k = np.searchsorted(self.times, bounds, side=side)
        return k.astype(np.float64) if self.count is None else self.count[k]


class LaneIndex:
    """A lane's kernels, sorted by start, ready to be reduced to pixel columns at any zoom.

    Args:
        start: Kernel starts (µs from the origin), sorted ascending.
        end: Kernel ends (≥ starts).
        value: The colour figure per kernel (NaN: none), or ``None`` for a categorical colouring.
        category: The colour category per kernel (−1: none), or ``None``.
    """

    def __init__(self, start: np.ndarray, end: np.ndarray, value: np.ndarray | None = None,
                 category: np.ndarray | None = None) -> None:
        self.start = np.asarray(start, dtype=np.float64)
        self.end = np.asarray(end, dtype=np.float64)
        self.value = None if value is None else np.asarray(value, dtype=np.float64)
        self.category = None if category is None else np.asarray(category, dtype=np.int64)
        self.end_max = np.maximum.accumulate(self.end) if len(self.end) else self.end
        self.end_max_at = _running_argmax(self.end)
        self._global: _Integrals | None = None
        self._longest: tuple[np.ndarray, np.ndarray] | None = None

    def longest(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions of the kernels from the longest down, and their durations (descending)."""
        if self._longest is None:
            dur = self.end - self.start
            order = np.argsort(-dur, kind="stable")
            self._longest = (order, dur[order])
        return self._longest

    def __len__(self) -> int:
        return len(self.start)

    def prepare(self) -> LaneIndex:
        """Build the prefix sums over every kernel now (they are otherwise built at the first zoomed-out frame)."""
        if self._global is None:
            self._global = _Integrals(self.start, self.end, self.value, 0.0)
            self.longest()
        return self

    def visible(self, t0: float, t1: float) -> tuple[int, int]:
        """The slice of kernels that may show between ``t0`` and ``t1`` (some of its first may end before t0)."""
        return int(np.searchsorted(self.end_max, t0, side="right")), int(np.searchsorted(self.start, t1, side="left"))

    def integrals(self, bounds: np.ndarray, first: int | None = None, last: int | None = None) -> _Columns:
        """Busy time and value integrals between consecutive ``bounds`` (all kernels, or a slice of them)."""
        if first is None:
            return self.prepare()._global.columns(bounds)
        shift = float(bounds[0])
        part = _Integrals(self.start[first:last], self.end[first:last],
                          None if self.value is None else self.value[first:last], shift)
        return part.columns(bounds)


class _Integrals:
    """Prefix sums of one set of kernels (times shifted by ``shift`` for precision)."""

    def __init__(self, start: np.ndarray, end: np.ndarray, value: np.ndarray | None, shift: float) -> None:
        self.shift = shift
        s = start - shift
        e = end - shift
        e_order = np.argsort(e, kind="stable")
        self.busy = (_Sums(s, None), _Sums(e[e_order], None))
        self.judged = self.valued = None
        if value is not None:
            weight = np.isfinite(value).astype(np.float64)
            v = np.where(weight > 0, value, 0.0)
            self.judged = (_Sums(s, weight), _Sums(e[e_order], weight[e_order]))
            self.valued = (_Sums(s, v), _Sums(e[e_order], v[e_order]))

    def columns(self, bounds: np.ndarray) -> _Columns:
        b = bounds - self.shift

        def integral(pair: tuple[_Sums, _Sums]) -> np.ndarray:
            starts, ends = pair
            return np.maximum(np.diff(starts.before(b) - ends.before(b)), 0.0)

        def touching(pair: tuple[_Sums, _Sums]) -> np.ndarray:
            # The integrals are differences of large sums: where no kernel touches a column (an exact count of the
            # kernels started before its end minus those ended by its start) their rounding noise is dropped.
            starts, ends = pair
            return (starts.how_many(b[1:], "left") - ends.how_many(b[:-1], "right")) > 0

        busy = np.where(touching(self.busy), integral(self.busy), 0.0)
        if self.judged is None:
            return _Columns(busy, None, None)
        judged_here = touching(self.judged)
        return _Columns(busy, np.where(judged_here, integral(self.judged), 0.0),
                        np.where(judged_here, integral(self.valued), 0.0))


@dataclass
class _Columns:
    busy: np.ndarray
    judged: np.ndarray | None
    valued: np.ndarray | None


def _running_argmax(values: np.ndarray) -> np.ndarray:
    """For each position, the index of the largest value up to it (the first on ties)."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    running = np.maximum.accumulate(values)
    new_max = np.concatenate([[True], values[1:] > running[:-1]])
    at = np.where(new_max, np.arange(len(values)), 0)
    return np.maximum.accumulate(at)


@dataclass
class LaneColumns:
    """One lane reduced to pixel columns.

    Attributes:
        coverage: Share of each column's time the lane's kernels cover (0–1; overlapping kernels clipped at 1).
        value: Time-weighted mean colour figure per column (NaN: no kernel with a figure), or ``None``.
        category: The colour category per column (−1: none), or ``None``.
        edges: Columns where a kernel at least :data:`EDGE_PX` wide starts.
    """

    coverage: np.ndarray
    value: np.ndarray | None
    category: np.ndarray | None
    edges: np.ndarray


def column_bounds(t0: float, t1: float, width: int) -> np.ndarray:
    """The ``width + 1`` boundaries of ``width`` equal columns from ``t0`` to ``t1``."""
    return np.linspace(t0, t1, int(width) + 1)


def reduce_lane(lane: LaneIndex, t0: float, t1: float, width: int) -> LaneColumns:
    """Reduce one lane to ``width`` pixel columns between ``t0`` and ``t1`` (see the module docstring)."""
    width = max(int(width), 1)
    bounds = column_bounds(t0, t1, width)
    px = (t1 - t0) / width
    first, last = lane.visible(t0, t1)
    if last <= first or px <= 0:
        empty = np.zeros(width, dtype=np.float32)
        return LaneColumns(empty, None if lane.value is None else np.full(width, np.nan, np.float32),
                           None if lane.category is None else np.full(width, -1, np.int64),
                           np.zeros(width, dtype=bool))
    cols = lane.integrals(bounds, first, last) if last - first <= LOCAL_LIMIT else lane.integrals(bounds)
    coverage = np.clip(cols.busy / px, 0.0, 1.0).astype(np.float32)
    value = None
    if cols.valued is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(cols.judged > 0, cols.valued / cols.judged, np.nan).astype(np.float32)
    category = _categories(lane, bounds) if lane.category is not None else None
    return LaneColumns(coverage, value, category, _edges(lane, first, last, t0, px, width))


def _categories(lane: LaneIndex, bounds: np.ndarray) -> np.ndarray:
    """The category of the kernel at each column's centre, else of one that overlaps the column (−1: none)."""
    n = len(lane)
    centre = (bounds[:-1] + bounds[1:]) / 2.0
    out = np.full(len(centre), -1, dtype=np.int64)
    for probe, reach in ((bounds[1:], bounds[:-1]), (centre, centre)):  # the centre's kernel wins: applied last
        k = np.searchsorted(lane.start, probe, side="left") - 1
        ok = k >= 0
        holder = lane.end_max_at[np.clip(k, 0, n - 1)]
        ok &= lane.end[holder] > reach
        out = np.where(ok, lane.category[holder], out)
    return out


def _edges(lane: LaneIndex, first: int, last: int, t0: float, px: float, width: int) -> np.ndarray:
    """Columns where a visible kernel at least :data:`EDGE_PX` pixels wide starts.

    Zoomed out, few kernels are that wide: they are taken from the lane's kernels sorted by duration
    rather than by scanning every visible kernel.
    """
    edges = np.zeros(width, dtype=bool)
    order, dur = lane.longest()
    wide_count = int(np.searchsorted(-dur, -EDGE_PX * px, side="right"))
    if wide_count < last - first:
        picked = order[:wide_count]
        s = lane.start[picked[(picked >= first) & (picked < last)]]
    else:
        s = lane.start[first:last]
        s = s[(lane.end[first:last] - s) >= EDGE_PX * px]
    if len(s):
        col = np.floor((s - t0) / px).astype(np.int64)
        edges[col[(col >= 0) & (col < width)]] = True
    return edges


def mark_columns(start: np.ndarray, end: np.ndarray, t0: float, t1: float, width: int) -> np.ndarray:
    """Columns touched by the intervals (a kernel narrower than a pixel still marks its column)."""
    width = max(int(width), 1)
    out = np.zeros(width + 1, dtype=np.int64)
    px = (t1 - t0) / width
    if len(start) == 0 or px <= 0:
        return np.zeros(width, dtype=bool)
    seen = (end >= t0) & (start <= t1)
    c0 = np.clip(np.floor((start[seen] - t0) / px), 0, width - 1).astype(np.int64)
    c1 = np.clip(np.floor((end[seen] - t0) / px), 0, width - 1).astype(np.int64)
    np.add.at(out, c0, 1)
    np.add.at(out, c1 + 1, -1)
    return np.cumsum(out[:-1]) > 0


def hit(lane: LaneIndex, t: float, tolerance: float) -> int:
    """The kernel (position in the lane) under time ``t``, else the nearest within ``tolerance``; −1 when none.

    Of overlapping kernels the latest started wins.
    """
    n = len(lane)
    if n == 0:
        return -1
    k = int(np.searchsorted(lane.start, t, side="right")) - 1
    if k >= 0:
        if lane.end[k] >= t:
            return k
        holder = int(lane.end_max_at[k])
        if lane.end[holder] >= t:
            return holder
    best, gap = -1, tolerance
    if k >= 0 and t - lane.end_max[k] <= gap:
        best, gap = int(lane.end_max_at[k]), t - lane.end_max[k]
    if k + 1 < n and lane.start[k + 1] - t <= gap:
        best = k + 1
    return best


def counter_columns(time_us: np.ndarray, values: np.ndarray, t0: float, t1: float, width: int) -> np.ndarray:
    """A counter (memory MB) per pixel column: the highest sample in the column, else the last one before it.

    Peaks survive any zoom (a column's maximum, never an average). NaN before the first sample.

    Args:
        time_us: Sample times, sorted ascending.
        values: The counter at each time (it holds until the next sample).
        t0: View start.
        t1: View end.
        width: Columns.
    """
    width = max(int(width), 1)
    out = np.full(width, np.nan)
    if len(time_us) == 0:
        return out
    bounds = column_bounds(t0, t1, width)
    k = np.searchsorted(time_us, bounds, side="left")  # first sample at or after each boundary
    held = values[np.clip(k[:-1] - 1, 0, None)]  # the level entering the column
    out = np.where(k[:-1] > 0, held, np.nan)
    filled = k[1:] > k[:-1]
    if filled.any():
        # Samples of consecutive columns are consecutive: reduceat over the samples up to t1 gives
        # each filled column its own run.
        peaks = np.fmax.reduceat(np.asarray(values[: k[-1]], dtype=np.float64), k[:-1][filled])
        out[filled] = np.fmax(out[filled], peaks)
    return out
