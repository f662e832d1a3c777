"""One rank on a timeline: its kernels on lanes, its steps and where in each step the time goes.

Lanes (profiler-formats.md §3.5, §13):

* **Ascend**: one lane per accelerator core type and stream (``AI_CORE · stream 2``,
  ``AI_VECTOR_CORE · stream 2``, ``HCCL`` …), compute cores first, communication last;
* **GPU traces**: one lane per CUDA/HIP stream (every kernel class of the stream on it);
* **host**: one lane per thread and nesting depth of the framework operators, when the rank's
  files have them (:func:`mfu_desktop.core.readers.host_ops.read_host_ops`).

Times are µs from the timeline's origin, the rank's first kernel start. Under the lanes, the
step windows and the breakdown of each step (:mod:`.timeline_steps`). Everything is built once
per rank on a worker thread; drawing reduces each lane to pixel columns (:mod:`.timeline_lod`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.classify import CLASSES, KernelClass, class_codes
from mfu_desktop.core.analysis.grouping import codes_of
from mfu_desktop.core.analysis.timeline_colors import KernelColors
from mfu_desktop.core.analysis.timeline_lod import LaneIndex
from mfu_desktop.core.analysis.timeline_steps import breakdown_frame, step_windows
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.host_records import HostOps

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.memory import RankMemory

#: Lanes of these cores come first, in this order; other cores follow by name, communication last.
CORE_ORDER = ("AI_CORE", "MIX_AIC", "MIX_AIV", "AI_VECTOR_CORE", "AI_CPU", "DSA_SQE")
#: Host operators deeper than this are left off the host lanes (the note says how many).
MAX_HOST_DEPTH = 4


@dataclass(frozen=True)
class Lane:
    """One row of the timeline.

    Attributes:
        label: What the lane shows (``AI_CORE · stream 2``, ``stream 7``, ``host thread 1 · depth 0``).
        kind: ``device`` (kernels) or ``host`` (framework operators).
        core: The accelerator core of a device lane (``""`` for a GPU stream and for host lanes).
        stream: The stream (−1: none recorded).
        thread: A host lane's thread (−1 for device lanes).
        depth: A host lane's nesting depth.
    """

    label: str
    kind: str
    core: str = ""
    stream: int = -1
    thread: int = -1
    depth: int = -1


@dataclass
class LaneItems:
    """A lane's items sorted by start: their positions in the rank's frame (or host ops) and their times.

    Attributes:
        rows: Kernel-frame rows (device lanes) or host-op indexes (host lanes).
        index: The items' times, ready for level-of-detail reduction (no colouring until :meth:`colored`).
    """

    rows: np.ndarray
    index: LaneIndex

    def colored(self, colors: KernelColors | None) -> LaneIndex:
        """The lane's index with each item's colour figure or category."""
        if colors is None:
            return self.index
        value = None if colors.value is None else colors.value[self.rows]
        category = None if colors.category is None else colors.category[self.rows]
        return LaneIndex(self.index.start, self.index.end, value, category)


@dataclass
class RankTimeline:
    """A rank's timeline (see the module docstring).

    Attributes:
        rank: The rank id shown.
        origin_ns: The origin on the capture clock (the first kernel start).
        lanes: Every lane, device lanes first.
        items: Each lane's items, in lane order.
        steps: Step windows: ``step``, ``start_us``, ``end_us``.
        steps_source: Where the windows come from.
        breakdown: Breakdown segments: ``step``, ``kind``, ``start_us``, ``end_us``.
        start_us: Every kernel's start (NaN: no start time), frame order.
        end_us: Every kernel's end.
        host: The host operators, when read.
        notes: What is missing or left out.
    """

    rank: int
    origin_ns: int
    lanes: list[Lane]
    items: list[LaneItems]
    steps: pd.DataFrame
    steps_source: str
    breakdown: pd.DataFrame
    start_us: np.ndarray
    end_us: np.ndarray
    host: HostOps | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def span(self) -> tuple[float, float]:
        """The first start and the last end over every lane (µs from the origin)."""
        starts = [it.index.start[0] for it in self.items if len(it.index)]
        ends = [it.index.end_max[-1] for it in self.items if len(it.index)]
        return (min(starts), max(ends)) if starts else (0.0, 1.0)

    def lane_of_kernel(self) -> np.ndarray:
        """Each kernel-frame row's lane (−1: not on the timeline)."""
        out = np.full(len(self.start_us), -1, dtype=np.int64)
        for i, (lane, items) in enumerate(zip(self.lanes, self.items)):
            if lane.kind == "device":
                out[items.rows] = i
        return out

    def step_of(self, step: str) -> tuple[float, float] | None:
        """The window of step ``step`` (µs from the origin), ``None`` when there is no such step."""
        hit = self.steps[self.steps["step"] == step]
        return (float(hit["start_us"].iloc[0]), float(hit["end_us"].iloc[0])) if len(hit) else None


def kernel_times(kernels: pd.DataFrame) -> tuple[int, np.ndarray, np.ndarray]:
    """The origin (first start, ns) and every kernel's start and end in µs from it (NaN: no start time)."""
    start_ns = kernels[C.START_NS].to_numpy(dtype=np.int64) if C.START_NS in kernels.columns else \
        np.full(len(kernels), -1, dtype=np.int64)
    dur = kernels[C.DURATION_US].to_numpy(dtype=np.float64)
    timed = (start_ns >= 0) & np.isfinite(dur) & (dur >= 0)
    origin = int(start_ns[timed].min()) if timed.any() else 0
    start = np.where(timed, (start_ns - origin) / 1000.0, np.nan)
    return origin, start, start + np.where(timed, dur, np.nan)


def _device_lane_codes(kernels: pd.DataFrame) -> tuple[np.ndarray, list[Lane]]:
    """Each kernel's device lane (index into the lanes) and the lanes, ordered (see :data:`CORE_ORDER`)."""
    n = len(kernels)
    core_codes, core_cats = codes_of(kernels[C.CORE_TYPE]) if C.CORE_TYPE in kernels.columns else \
        (np.full(n, -1, dtype=np.int64), [])
    cores = np.array([str(c) for c in core_cats] + [""], dtype=object)
    gpu = np.array([c.startswith("GPU_") for c in cores])
    none = len(cores) - 1
    core_key = np.where(core_codes < 0, none, core_codes)
    core_key = np.where(gpu[core_key], none, core_key)  # a GPU stream holds every kernel class
    stream = (pd.to_numeric(kernels[C.STREAM_ID], errors="coerce").fillna(-1).to_numpy(np.int64)
              if C.STREAM_ID in kernels.columns else np.full(n, -1, dtype=np.int64))
    stream = np.where((stream >= 0) & (stream < 1 << 31), stream, -1)
    # one int64 key per (core, stream), numbered by hashing: no sort of a million rows (a structured-array unique
    # sorted them in Python-object comparisons, holding the interpreter lock for seconds)
    key = core_key.astype(np.int64) * (1 << 32) + (stream + 1)
    lane, unique_keys = pd.factorize(key, sort=False)
    uniques = np.stack([unique_keys // (1 << 32), unique_keys % (1 << 32) - 1], axis=1)
    comm = class_codes(kernels) == CLASSES.index(KernelClass.COMM.value)
    comm_share = np.bincount(lane, weights=comm, minlength=len(uniques)) / np.maximum(
        np.bincount(lane, minlength=len(uniques)), 1)
    lanes = [_lane(str(cores[k]), int(s), bool(c > 0.5)) for (k, s), c in zip(uniques.tolist(), comm_share)]
    order = sorted(range(len(lanes)), key=lambda i: _lane_rank(lanes[i], bool(comm_share[i] > 0.5)))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return position[lane], [lanes[i] for i in order]


def _lane(core: str, stream: int, comm: bool) -> Lane:
    stream_text = f"stream {stream}" if stream >= 0 else ""
    core_text = "" if core in ("", "N/A") else core
    label = " · ".join(t for t in (core_text, stream_text) if t) or ("communication" if comm else "kernels")
    return Lane(label, "device", core_text, stream)


def _lane_rank(lane: Lane, comm: bool) -> tuple[int, int, str, int]:
    known = CORE_ORDER.index(lane.core) if lane.core in CORE_ORDER else len(CORE_ORDER)
    return (int(comm), known, lane.core, lane.stream)


def _lane_items(lane_code: np.ndarray, start: np.ndarray, end: np.ndarray, lanes: int) -> list[LaneItems]:
    """Each lane's rows sorted by start (one lexsort for all lanes)."""
    timed = np.flatnonzero(np.isfinite(start) & (lane_code >= 0))
    order = timed[np.lexsort((start[timed], lane_code[timed]))]
    bounds = np.searchsorted(lane_code[order], np.arange(lanes + 1))
    out = []
    for i in range(lanes):  # a few dozen lanes
        rows = order[bounds[i]:bounds[i + 1]]
        out.append(LaneItems(rows, LaneIndex(start[rows], end[rows])))
    return out


def host_lanes(host: HostOps, origin_ns: int) -> tuple[list[Lane], list[LaneItems], list[str]]:
    """Lanes of the host operators: one per thread and nesting depth (to :data:`MAX_HOST_DEPTH`)."""
    start = (host.start_ns - origin_ns) / 1000.0
    end = start + host.dur_us
    shown = host.depth < MAX_HOST_DEPTH
    key = host.thread * MAX_HOST_DEPTH + np.minimum(host.depth, MAX_HOST_DEPTH - 1)
    uniques, code = np.unique(np.where(shown, key, -1), return_inverse=True)
    keep = uniques >= 0
    lanes = [Lane(f"host thread {k // MAX_HOST_DEPTH} · depth {k % MAX_HOST_DEPTH}", "host",
                  thread=int(k // MAX_HOST_DEPTH), depth=int(k % MAX_HOST_DEPTH)) for k in uniques[keep]]
    remap = np.cumsum(keep) - 1
    items = _lane_items(np.where(keep[code], remap[code], -1), start, end, len(lanes))
    notes = [] if shown.all() else [f"{int((~shown).sum()):,} host operators nested deeper than {MAX_HOST_DEPTH} "
                                    "levels are not drawn"]
    return lanes, items, notes


def build_timeline(kernels: pd.DataFrame, rank: int, host: HostOps | None = None) -> RankTimeline:
    """A rank's timeline from its annotated kernel frame (see the module docstring).

    Args:
        kernels: The rank's (annotated) kernel frame.
        rank: The rank id shown.
        host: Its host operators, when read.
    """
    origin, start, end = kernel_times(kernels)
    lane_code, lanes = _device_lane_codes(kernels)
    items = _lane_items(lane_code, start, end, len(lanes))
    notes = []
    untimed = int((~np.isfinite(start)).sum())
    if untimed:
        notes.append(f"{untimed:,} kernel(s) without a start time or a duration are not on the timeline")
    if host is not None and len(host):
        h_lanes, h_items, h_notes = host_lanes(host, origin)
        lanes, items = [*lanes, *h_lanes], [*items, *h_items]
        notes += [*host.notes, *h_notes]
    windows, source = step_windows(kernels, start, end)
    comm = class_codes(kernels) == CLASSES.index(KernelClass.COMM.value)
    breakdown = breakdown_frame(windows, start, end, comm)
    return RankTimeline(rank, origin, lanes, items, windows, source, breakdown, start, end, host, notes)


def memory_series(memory: RankMemory | None, origin_ns: int) -> pd.DataFrame | None:
    """The allocator's curve on a timeline's clock: ``time_us`` (µs from ``origin_ns``), allocated and reserved MB.

    The memory engine keeps its curve in µs from its own origin (the peak's step start,
    :class:`~mfu_desktop.core.analysis.memory.RankMemory`); the kernels' and the memory's clocks are
    the same capture clock. ``None`` when the rank has no usable curve.
    """
    if memory is None or not memory.available or memory.curve.empty or memory.origin_us is None or not memory.timed:
        return None
    curve = memory.curve.sort_values("time_us", kind="stable")
    time_us = curve["time_us"].to_numpy(np.float64) + memory.origin_us - origin_ns / 1000.0
    ok = np.isfinite(time_us)
    return pd.DataFrame({"time_us": time_us[ok], "allocated_mb": curve["allocated_mb"].to_numpy(np.float64)[ok],
                         "reserved_mb": curve["reserved_mb"].to_numpy(np.float64)[ok]})
