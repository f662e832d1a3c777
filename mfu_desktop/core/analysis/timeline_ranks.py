"""Every rank's same step side by side, aligned on the step's start: where a slow rank spends its extra time.

One row per rank: its kernels of the step (all device lanes merged, coloured like the rank's
timeline) and the breakdown of the step (computing, communication not overlapped, free; see
:mod:`.timeline_steps`), both in µs from the step's start. A rank read from a cluster summary
has no kernels: its row is the breakdown alone, laid end to end from the step's figures
(computing, then communication not overlapped, then free) — their lengths, not their places.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.classify import CLASSES, KernelClass, class_codes
from mfu_desktop.core.analysis.timeline import kernel_times
from mfu_desktop.core.analysis.timeline_colors import KernelColors, kernel_colors
from mfu_desktop.core.analysis.timeline_lod import LaneIndex
from mfu_desktop.core.analysis.timeline_steps import BREAKDOWN_KINDS, breakdown_frame, step_windows
from mfu_desktop.core.readers import columns as C

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.rank import RankAnalysis


@dataclass
class RankRow:
    """One rank's step (times in µs from the step's start).

    Attributes:
        rank: The rank id.
        step_us: The step window's length (``None`` when the rank lacks the step).
        breakdown: Segments ``kind``, ``start_us``, ``end_us``.
        index: The step's kernels of every device lane, sorted by start (``None``: a summary rank).
        rows: Their kernel-frame rows.
        summary: True when the row is a summary rank's breakdown alone.
    """

    rank: int
    step_us: float | None
    breakdown: pd.DataFrame
    index: LaneIndex | None = None
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    summary: bool = False


@dataclass
class ClusterTimeline:
    """The chosen step of every rank (see the module docstring).

    Attributes:
        step: The step shown.
        steps: Every step some rank has, in order.
        rows: One row per rank, in rank order.
        notes: Ranks without the step, summaries shown as bands alone.
    """

    step: str
    steps: list[str]
    rows: list[RankRow]
    notes: list[str] = field(default_factory=list)

    @property
    def longest_us(self) -> float:
        """The longest step window over the ranks (µs)."""
        lengths = [r.step_us for r in self.rows if r.step_us]
        return max(lengths) if lengths else 1.0


def _empty_breakdown() -> pd.DataFrame:
    return pd.DataFrame({"kind": np.zeros(0, np.int8), "start_us": [], "end_us": []})


def _step_labels(r: RankAnalysis) -> list[str]:
    """The steps a rank has (its Step Ids, or its summary's step rows)."""
    if r.lite:
        return [str(row.get("step", "")) for row in (r.document or {}).get("step_rows") or []]
    if C.STEP_ID not in r.kernels.columns:
        return [""]
    ids = pd.to_numeric(r.kernels[C.STEP_ID], errors="coerce").dropna().unique()
    return [f"{u:g}" for u in np.sort(ids)] or [""]


def _summary_row(r: RankAnalysis, step: str) -> RankRow:
    """A summary rank's step figures laid end to end."""
    rows = (r.document or {}).get("step_rows") or []
    row = next((x for x in rows if str(x.get("step", "")) == step), None)
    if row is None:
        return RankRow(r.rank, None, _empty_breakdown(), summary=True)
    lengths = np.array([float(row.get(k) or 0.0) for k in BREAKDOWN_KINDS])
    ends = np.cumsum(lengths)
    frame = pd.DataFrame({"kind": np.arange(3, dtype=np.int8), "start_us": ends - lengths, "end_us": ends})
    return RankRow(r.rank, float(ends[-1]), frame[frame["end_us"] > frame["start_us"]].reset_index(drop=True),
                   summary=True)


def _kernel_row(r: RankAnalysis, step: str, colors: KernelColors | None) -> RankRow:
    """A rank's kernels and breakdown of one step, shifted to the step's start."""
    kernels = r.kernels
    _, start, end = kernel_times(kernels)
    windows, _ = step_windows(kernels, start, end)
    hit = windows[windows["step"] == step]
    if hit.empty:
        return RankRow(r.rank, None, _empty_breakdown())
    lo, hi = float(hit["start_us"].iloc[0]), float(hit["end_us"].iloc[0])
    comm = class_codes(kernels) == CLASSES.index(KernelClass.COMM.value)
    breakdown = breakdown_frame(hit, start, end, comm).drop(columns="step")
    breakdown[["start_us", "end_us"]] -= lo
    inside = np.flatnonzero(np.isfinite(start) & (end > lo) & (start < hi))
    rows = inside[np.argsort(start[inside], kind="stable")]
    value = category = None
    if colors is not None:
        value = None if colors.value is None else colors.value[rows]
        category = None if colors.category is None else colors.category[rows]
    index = LaneIndex(start[rows] - lo, end[rows] - lo, value, category)
    return RankRow(r.rank, hi - lo, breakdown, index, rows)


def cluster_timeline(ranks: list[RankAnalysis], step: str | None = None, mode: str | None = "lost") -> ClusterTimeline:
    """The same step of every rank, aligned on its start (see the module docstring).

    Args:
        ranks: The analysed ranks (full or from a summary).
        step: The step to show; by default the first step every rank has (else the first any rank has).
        mode: The kernels' colouring (:data:`~mfu_desktop.core.analysis.timeline_colors.COLOR_MODES`), ``None``: none.
    """
    labels = [_step_labels(r) for r in ranks]
    every = sorted(set().union(*labels), key=_step_key) if labels else []
    common = [s for s in every if all(s in mine for mine in labels)]
    chosen = step if step is not None else (common or every or [""])[0]
    rows, notes = [], []
    for r in ranks:
        if r.lite:
            rows.append(_summary_row(r, chosen))
        else:
            rows.append(_kernel_row(r, chosen, kernel_colors(r.kernels, mode) if mode else None))
        if rows[-1].step_us is None:
            notes.append(f"rank {r.rank} has no step {chosen}")
    if any(row.summary for row in rows):
        notes.append("ranks from a cluster summary show their step breakdown alone (no kernels on this machine): "
                     "computing, communication not overlapped and free laid end to end")
    return ClusterTimeline(chosen, every, rows, notes)


def _step_key(label: str) -> tuple[int, float, str]:
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)
