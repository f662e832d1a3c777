"""What the timeline chart draws, prepared off the GUI thread: one row per track, top to bottom.

A **track** is one row: a lane of kernels or host operators (reduced to pixel columns by
:mod:`mfu_desktop.core.analysis.timeline_lod`), the step windows, the step breakdown, or a
counter (memory). :func:`rank_scene` lays out one rank — steps, breakdown, device lanes, host
lanes, memory —; :func:`cluster_scene` one row pair per rank (its kernels of the step, merged,
and its breakdown). No widget here (only the thread-safe translation): both run on the worker
pool; the chart only draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from PySide6.QtCore import QCoreApplication

from mfu_desktop.core.analysis.memory import RankMemory
from mfu_desktop.core.analysis.timeline import Lane, RankTimeline, memory_series
from mfu_desktop.core.analysis.timeline_colors import KernelColors
from mfu_desktop.core.analysis.timeline_lod import LaneIndex
from mfu_desktop.core.analysis.timeline_ranks import ClusterTimeline

translate = QCoreApplication.translate  # thread-safe: the scene is built on the worker pool

#: Track kinds.
KERNELS, HOST, STEPS, BREAKDOWN, COUNTER = "kernels", "host", "steps", "breakdown", "counter"


@dataclass
class Track:
    """One row of the chart.

    Attributes:
        label: The row's name on the left axis.
        kind: One of :data:`KERNELS`, :data:`HOST`, :data:`STEPS`, :data:`BREAKDOWN`, :data:`COUNTER`.
        index: Its items for level-of-detail reduction (a figure or category per item), ``None`` for a counter.
        rows: Kernel-frame rows (kernels), host-op indexes (host), step numbers (steps) per item.
        rank: The rank the row belongs to (the cluster view), else ``None``.
        series: A counter's samples: ``time_us`` and one array per curve (MB).
        detail: What the row shows beyond its label (a counter's allocator).
    """

    label: str
    kind: str
    index: LaneIndex | None = None
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rank: int | None = None
    series: dict[str, np.ndarray] = field(default_factory=dict)
    detail: str = ""


@dataclass
class Scene:
    """Everything the chart draws (times in µs; the chart shows them in seconds with SI prefixes).

    Attributes:
        tracks: The rows, top to bottom.
        span: The time range to fit (µs).
        mode: The kernels' colouring (:data:`~mfu_desktop.core.analysis.timeline_colors.COLOR_MODES`).
        labels: The colouring's category names (family, stream colourings).
        steps: Step windows (``step``, ``start_us``, ``end_us``) for labels, boundaries and "zoom to step".
        kernels: The rank's kernel frame (tooltips), ``None`` for the cluster view.
        host_names: Host-op names (tooltips).
        host_dur_us: Host-op durations.
        host_launches: How many kernels each host op launched.
        kernel_track: For each kernel-frame row, its track (−1: none).
        kernel_start: Each kernel-frame row's start (µs; NaN: not on the timeline).
        kernel_end: Its end.
        cluster: True for the every-rank view (times from each rank's step start).
        steps_all: The every-rank view's choice of steps.
        notes: What is missing or left out.
    """

    tracks: list[Track]
    span: tuple[float, float]
    mode: str
    labels: tuple[str, ...]
    steps: pd.DataFrame
    kernels: pd.DataFrame | None = None
    host_names: pd.Categorical | None = None
    host_dur_us: np.ndarray | None = None
    host_launches: np.ndarray | None = None
    kernel_track: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    kernel_start: np.ndarray = field(default_factory=lambda: np.zeros(0))
    kernel_end: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cluster: bool = False
    steps_all: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def lane_label(lane: Lane) -> str:
    """A lane's name in the interface's language (core types stay as the profiler writes them)."""
    if lane.kind == "host":
        return translate("Timeline", "host thread {0} · depth {1}").format(lane.thread, lane.depth)
    stream = translate("Timeline", "stream {0}").format(lane.stream) if lane.stream >= 0 else ""
    text = " · ".join(t for t in (lane.core, stream) if t)
    return text or (translate("Timeline", "communication") if lane.label == "communication"
                    else translate("Timeline", "kernels"))


def _step_track(steps: pd.DataFrame) -> Track:
    """The step windows, alternately shaded (category = step position % 2)."""
    start = steps["start_us"].to_numpy(np.float64)
    order = np.argsort(start, kind="stable")
    index = LaneIndex(start[order], steps["end_us"].to_numpy(np.float64)[order],
                      category=np.arange(len(order)) % 2)
    return Track(translate("Timeline", "steps"), STEPS, index, order.astype(np.int64))


def _breakdown_track(breakdown: pd.DataFrame, label: str, rank: int | None = None) -> Track:
    """The breakdown segments (category = kind: computing, communication not overlapped, free)."""
    start = breakdown["start_us"].to_numpy(np.float64)
    order = np.argsort(start, kind="stable")
    index = LaneIndex(start[order], breakdown["end_us"].to_numpy(np.float64)[order],
                      category=breakdown["kind"].to_numpy(np.int64)[order])
    return Track(label, BREAKDOWN, index, order.astype(np.int64), rank)


def memory_track(memory: RankMemory | None, origin_ns: int) -> Track | None:
    """The allocator's allocated and reserved MB on the timeline's clock, when the rank has a memory curve."""
    series = memory_series(memory, origin_ns)
    if series is None:
        return None
    return Track(translate("Timeline", "memory"), COUNTER, series={
        "time_us": series["time_us"].to_numpy(), "allocated": series["allocated_mb"].to_numpy(),
        "reserved": series["reserved_mb"].to_numpy()}, detail=memory.allocator)


def rank_scene(tl: RankTimeline, colors: KernelColors | None, kernels: pd.DataFrame,
               memory: RankMemory | None = None) -> Scene:
    """One rank: steps, breakdown, its device lanes, its host lanes, its memory (see the module docstring)."""
    tracks = [_step_track(tl.steps), _breakdown_track(tl.breakdown, translate("Timeline", "breakdown"))]
    kernel_track = np.full(len(kernels), -1, dtype=np.int64)
    for lane, items in zip(tl.lanes, tl.items):
        if lane.kind == "device":
            kernel_track[items.rows] = len(tracks)
            tracks.append(Track(lane_label(lane), KERNELS, items.colored(colors), items.rows))
        else:
            tracks.append(Track(lane_label(lane), HOST, items.index, items.rows))
    counter = memory_track(memory, tl.origin_ns)
    if counter is not None:
        tracks.append(counter)
    host = tl.host
    mode, labels = (colors.mode, colors.labels) if colors is not None else ("lost", ())
    launches = None
    if host is not None:
        linked = host.kernel_op[host.kernel_op >= 0]
        launches = np.bincount(linked, minlength=len(host))
    for track in tracks:
        if track.index is not None:
            track.index.prepare()  # the prefix sums, here on the worker thread rather than at the first frame
    return Scene(tracks, tl.span, mode, labels, tl.steps, kernels, None if host is None else host.name,
                 None if host is None else host.dur_us, launches, kernel_track, tl.start_us, tl.end_us,
                 notes=list(tl.notes))


def cluster_scene(ct: ClusterTimeline, mode: str, labels: tuple[str, ...] = ()) -> Scene:
    """Every rank's step: a kernel row (when it has kernels) and a breakdown row per rank.

    Args:
        ct: Every rank's step (its kernels coloured by ``mode``).
        mode: The colouring.
        labels: Its category names (the family colouring's; a stream colouring numbers each rank's own streams).
    """
    tracks = []
    for row in ct.rows:
        if row.index is not None:
            tracks.append(Track(translate("Timeline", "rank {0}").format(row.rank), KERNELS, row.index, row.rows,
                                row.rank))
        label = (translate("Timeline", "rank {0} breakdown") if row.index is not None
                 else translate("Timeline", "rank {0} (summary)")).format(row.rank)
        tracks.append(_breakdown_track(row.breakdown, label, row.rank))
    steps = pd.DataFrame({"step": [ct.step], "start_us": [0.0], "end_us": [ct.longest_us]})
    for track in tracks:
        track.index.prepare()
    return Scene(tracks, (0.0, ct.longest_us), mode, labels, steps, cluster=True, steps_all=list(ct.steps),
                 notes=list(ct.notes))
