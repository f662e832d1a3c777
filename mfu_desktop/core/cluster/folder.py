"""What the user dropped, analysed: the ranks, the failures, and the cluster figures as frames for the window."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.aggregates import Rate
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.rank import RankAnalysis, RankFailure
from mfu_desktop.core.analysis.steps import AcrossRanks
from mfu_desktop.core.cluster import documents as summary
from mfu_desktop.core.cluster.memory import ROW_FIELDS as MEMORY_ROW_FIELDS
from mfu_desktop.core.cluster.rank_document import rank_document
from mfu_desktop.core.cluster.rank_labels import RankLabel, rank_labels
from mfu_desktop.core.readers.base import Discovery
from mfu_desktop.core.readers.step_trace import StepTrace, read_cluster_step_trace


@dataclass
class ClusterSummary:
    """All ranks side by side; slow ranks marked (step time above min + 5 %)."""

    table: pd.DataFrame
    slow: list[int]
    threshold_us: float | None
    rate: Rate
    cluster_trace: pd.DataFrame | None = None
    hot_by_lost: pd.DataFrame = field(default_factory=pd.DataFrame)
    hot_by_time: pd.DataFrame = field(default_factory=pd.DataFrame)
    mfu_step_range: tuple[float, float] | None = None
    cube_utilization_mean: float | None = None
    step_time: AcrossRanks = field(default_factory=lambda: AcrossRanks(None, None, None, 0))

    #: The cluster document these figures come from (:func:`~.documents.cluster_document`).
    document: dict = field(default_factory=dict)

    def slow_rank_excess(self) -> list[tuple[int, float]]:
        """Each slow rank with its step time over the fastest rank's, as a fraction (0.094 = +9.4 %)."""
        return summary.slow_rank_excess(self.document) if self.document else []

    def slow_rank_text(self) -> str:
        """"rank 5 (+9.4 % step time vs the fastest rank)", or "none"."""
        return summary.slow_rank_text(self.document) if self.document else "none"


@dataclass
class FolderAnalysis:
    """The result of analysing what the user dropped."""

    discovery: Discovery
    ranks: list[RankAnalysis]
    failures: list[RankFailure]
    cluster: ClusterSummary
    options: AnalysisOptions
    warnings: list[str] = field(default_factory=list)
    #: One rank document per analysed rank (:func:`rank_document`), in ``ranks`` order.
    documents: list[dict] = field(default_factory=list)
    #: The summary folder this analysis was read from (its ranks are lite), or ``None``.
    summary_root: Path | None = None
    #: The folders rank labels are relative to when not the opened roots (a summary: the profiles it summarised).
    label_roots: list[str] | None = None

    def document(self) -> dict:
        """The folder document: what ``mfu analyze`` prints (:func:`~.documents.folder_document`)."""
        failed = [{"path": str(f.folder.path), "rank": f.folder.rank, "reason": f.reason} for f in self.failures]
        base = [w for w in self.warnings if w != summary.mixed_chips_warning(self.documents)]
        return summary.folder_document([str(p) for p in self.discovery.roots], self.documents, failed, base,
                                       self.options.describe(), self.options.top_n, self.label_roots)

    def to_json(self, top_n: int | None = None) -> dict[str, object]:
        """The ``mfu analyze --json`` object (contract in the README)."""
        return analysis_json(self, top_n)

    def labels(self) -> list[RankLabel]:
        """Each rank's display label, in ``ranks`` order (ranks that share an id told apart: :func:`rank_labels`)."""
        return rank_labels(self.documents, self.label_roots or [str(p) for p in self.discovery.roots])


def cluster_summary(ranks: list[RankAnalysis], discovery: Discovery, options: AnalysisOptions,
                    documents: list[dict] | None = None, label_roots: list[str] | None = None) -> ClusterSummary:
    """Every rank's MFU, step time and breakdown, slow ranks marked: the cluster document as frames for the window."""
    docs = documents if documents is not None else [rank_document(r, options.top_n) for r in ranks]
    c = summary.cluster_document(docs, options.top_n)
    table = pd.DataFrame(c["rows"])
    if len(table):
        labels = rank_labels(docs, label_roots or [str(p) for p in discovery.roots])
        table.insert(1, "label", [name.label for name in labels])
        table["source"] = [name.source for name in labels]
    for column in ("mfu_ops", "mfu_step", "mfu_ops_lo", "mfu_ops_hi", "cube_utilization", "step_time_us",
                   *summary.BREAKDOWN, *MEMORY_ROW_FIELDS):  # None → NaN, never object
        if column in table:
            table[column] = pd.to_numeric(table[column], errors="coerce").astype(np.float64)
    rate = c["rate"]
    cluster_trace = None
    for path in discovery.cluster_dirs:
        trace_file = path / "cluster_step_trace_time.csv"
        if trace_file.exists():
            trace: StepTrace = read_cluster_step_trace(trace_file)
            if not trace.empty:
                cluster_trace = trace.frame
                break
    st = c["step_time"]
    return ClusterSummary(
        table, c["slow_ranks"], c["slow_threshold_us"],
        Rate(rate["flops"], rate["time_us"], rate["achieved_tflops"], rate["mfu"],
             tuple(rate["mfu_range"]) if rate["mfu_range"] else None),
        cluster_trace, _hot_frame(c["hot_by_lost"]), _hot_frame(c["hot_by_time"]),
        tuple(c["mfu_step_range"]) if c["mfu_step_range"] else None, c["cube_utilization_mean"],
        AcrossRanks(st["mean"], st["slowest_rank"], st["slowest_value"], st["ranks"]), c,
    )


def _hot_frame(rows: list[dict]) -> pd.DataFrame:
    """The cluster's hot rows with every figure a rank's hot table has (the chart colours both alike)."""
    frame = pd.DataFrame(rows, columns=list(summary.HOT_FIELDS))
    for column in ("count", "time_us", "lost_us", "mfu", "bw_util", "roof_util"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(np.float64)
    return frame


def analysis_json(result: FolderAnalysis, top_n: int | None = None) -> dict[str, object]:
    """The whole ``mfu analyze --json`` object."""
    folder = result.document()
    if top_n is not None:
        folder["top_n"] = top_n
    return summary.analysis_json(folder)
