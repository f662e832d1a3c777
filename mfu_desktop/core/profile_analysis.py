"""Analyse dropped folders end to end: discover → load (concurrently, cached) → annotate → summarise.

This is the single entry point the CLI (``mfu analyze``) and the GUI call. A rank that
cannot be read is a :class:`RankFailure` with its reason; the others still load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core import summary
from mfu_desktop.core.analysis.aggregates import (
    AnalysisOptions,
    RankSummary,
    Rate,
    Tier,
)
from mfu_desktop.core.analysis.chip_resolution import ChipResolution
from mfu_desktop.core.analysis.kernel_roofline import chip_bandwidth, roofline_summary
from mfu_desktop.core.analysis.rank import RankAnalysis, RankFailure, analyze_rank
from mfu_desktop.core.analysis.steps import AcrossRanks
from mfu_desktop.core.analysis_cache import read_analysis, write_analysis
from mfu_desktop.core.cache import analysis_key, cache_key
from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError, default_catalog
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.loader import load_ranks
from mfu_desktop.core.numbers import finite_number
from mfu_desktop.core.progress import Progress, check
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.ascend.info import CaptureConfig
from mfu_desktop.core.readers.discovery import Discovery, RankFolder, discover
from mfu_desktop.core.readers.rank_data import RankData, adopt
from mfu_desktop.core.readers.step_trace import StepTrace, read_cluster_step_trace
from mfu_desktop.core.summary_store import Summary


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

    #: The cluster document these figures come from (:func:`mfu_desktop.core.summary.cluster_document`).
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

    def document(self) -> dict:
        """The folder document: what ``mfu analyze`` prints (:func:`mfu_desktop.core.summary.folder_document`)."""
        failed = [{"path": str(f.folder.path), "rank": f.folder.rank, "reason": f.reason} for f in self.failures]
        base = [w for w in self.warnings if w != summary.mixed_chips_warning(self.documents)]
        return summary.folder_document([str(p) for p in self.discovery.roots], self.documents, failed, base,
                                       self.options.describe(), self.options.top_n)

    def to_json(self, top_n: int | None = None) -> dict[str, object]:
        """The ``mfu analyze --json`` object (contract in the README)."""
        return analysis_json(self, top_n)


def _step_mean(steps: pd.DataFrame, column: str) -> float:
    """Mean per complete step of one step-trace column (NaN without a trace)."""
    if steps.empty or column not in steps.columns:
        return np.nan
    valid = steps[steps["step_time_us"].notna()] if "step_time_us" in steps.columns else steps
    return float(valid[column].mean()) if len(valid) else np.nan


def cluster_summary(ranks: list[RankAnalysis], discovery: Discovery, options: AnalysisOptions,
                    documents: list[dict] | None = None) -> ClusterSummary:
    """Every rank's MFU, step time and breakdown, slow ranks marked: the cluster document as frames for the window."""
    docs = documents if documents is not None else [rank_document(r, options.top_n) for r in ranks]
    c = summary.cluster_document(docs, options.top_n)
    table = pd.DataFrame(c["rows"])
    for column in ("mfu_ops", "mfu_step", "mfu_ops_lo", "mfu_ops_hi", "cube_utilization", "step_time_us",
                   *summary.BREAKDOWN):  # None → NaN, never object
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
    frame = pd.DataFrame(rows, columns=["type", "input_shapes", "count", "time_us", "lost_us", "mfu"])
    for column in ("count", "time_us", "lost_us", "mfu"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(np.float64)
    return frame


def analyze_paths(
    paths: list[Path | str],
    options: AnalysisOptions | None = None,
    catalog: ChipCatalog | None = None,
    progress: Progress | None = None,
    use_cache: bool = True,
) -> FolderAnalysis:
    """Analyse everything under the dropped paths.

    Args:
        paths: Folders (or files) the user dropped.
        options: Chip choice and conventions.
        catalog: Chip catalog (default: shipped + user).
        progress: Progress/cancel callbacks.
        use_cache: Use and fill the per-user parse cache.

    Raises:
        UnknownChipError: When ``options.chip`` names no catalog row.
        Cancelled: When cancelled through ``progress``.
    """
    options = options or AnalysisOptions()
    catalog = catalog or default_catalog()
    if options.chip:
        catalog.find(options.chip)  # fail early on a typo, before any parsing
    if progress is not None:
        progress.set_progress(0.0, "looking for rank folders")
    found = discover(list(paths))
    check(progress)
    results: dict[int, RankAnalysis | RankFailure] = {}
    keys: dict[int, str] = {}
    if use_cache:
        for i, folder in enumerate(found.ranks):
            keys[i] = analysis_key(folder, options, catalog)
            cached = read_analysis(keys[i])
            if isinstance(cached, RankAnalysis):
                adopt(folder, cached.data)
                cached.data.from_cache = True
                results[i] = cached
    pending = [i for i in range(len(found.ranks)) if i not in results]
    loaded = load_ranks([found.ranks[i] for i in pending], use_cache=use_cache, progress=progress)
    for n, (i, data) in enumerate(zip(pending, loaded)):
        check(progress)
        try:
            result = analyze_rank(data, options, catalog)
        except Exception as exc:  # one broken rank must not stop the others
            result = RankFailure(data.folder, f"analysis failed: {type(exc).__name__}: {exc}")
        results[i] = result
        if use_cache and isinstance(result, RankAnalysis) and i in keys and not data.changed_while_read:
            write_analysis(keys[i], cache_key(found.ranks[i]), result, rank_document(result, options.top_n))
        if progress is not None:
            progress.set_progress(0.8 + 0.2 * (n + 1) / max(len(pending), 1), f"analysed {n + 1}/{len(pending)} ranks")
    ranks = [r for i in sorted(results) if isinstance(r := results[i], RankAnalysis)]
    failures = [r for i in sorted(results) if isinstance(r := results[i], RankFailure)]
    warnings = list(found.warnings)
    for failure in failures:
        warnings.append(f"{failure.folder.label}: not analysed — {failure.reason}")
    documents = [rank_document(r, options.top_n) for r in ranks]
    mixed = summary.mixed_chips_warning(documents)
    if mixed:
        warnings.append(mixed)
    return FolderAnalysis(found, ranks, failures, cluster_summary(ranks, found, options, documents), options,
                          warnings, documents)


class _SummaryCapture(CaptureConfig):
    """The capture configuration of a summarised rank, as its document describes it."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text

    def describe(self) -> str:
        return self._text


def _frame(rows: list[dict] | None) -> pd.DataFrame:
    frame = pd.DataFrame(rows or [])
    for column in frame.columns:
        if frame[column].dtype == object:
            numeric = pd.to_numeric(frame[column], errors="coerce")
            if numeric.notna().sum() == frame[column].notna().sum() and frame[column].notna().any():
                frame[column] = numeric.astype(np.float64)
    return frame


def summary_rank(doc: dict, catalog: ChipCatalog, root: Path | None = None) -> RankAnalysis:
    """A rank of a cluster summary as a (lite) analysis: summary, tier, warnings; tables on demand.

    Its kernels are empty: the window loads them from the rank's path when it is reachable
    (:func:`fill_summary_tables` turns the document's tables into frames when first shown).
    """
    rank = int(doc["rank"])
    folder = RankFolder(path=Path(doc["path"]), root=root or Path(doc["path"]).parent,
                        producer=str(doc.get("format", "")),
                        reader=str(doc.get("reader") or doc.get("format") or ""), vendor=str(doc.get("vendor") or ""),
                        rank=rank if rank >= 0 else None, rank_origin=str(doc.get("rank_origin", "")),
                        config=_SummaryCapture(str(doc.get("capture", ""))))
    folder.placeholder = rank if rank < 0 else -1
    data = RankData(folder=folder, kernel_source=str(doc.get("kernel_source", "")),
                    incomplete=list(doc.get("incomplete") or []), from_cache=True)
    chip = None
    if doc.get("confirmed") and doc.get("chip_id"):
        try:
            chip = catalog.find(doc["chip_id"])
        except UnknownChipError:
            chip = None
    resolution = ChipResolution(chip, bool(doc.get("confirmed")) and chip is not None, str(doc.get("peak_source", "")))
    span = doc.get("mfu_ops_range")
    step_span = doc.get("mfu_step_range")
    tier = Tier(int(doc.get("tier") or 3), str(doc.get("tier_label", "")), doc.get("tier_value"),
                list(doc.get("tier_why") or []))
    s = RankSummary(rank=rank, path=str(doc["path"]), chip=doc.get("chip"), peak_source=str(doc.get("peak_source", "")),
                    kernels=int(doc.get("kernels") or 0), countable_kernels=int(doc.get("countable_kernels") or 0),
                    flops=float(doc.get("flops") or 0.0), countable_time_us=float(doc.get("countable_time_us") or 0.0),
                    achieved_tflops=doc.get("achieved_tflops"), mfu_ops=doc.get("mfu_ops"),
                    mfu_ops_range=tuple(span) if span else None, step_time_us=doc.get("step_time_us"),
                    mfu_step=doc.get("mfu_step"), mfu_step_range=tuple(step_span) if step_span else None,
                    cube_utilization=doc.get("cube_utilization"), tier=tier,
                    device_busy_proxy=doc.get("device_busy_proxy"), hw_flops_ratio=doc.get("hw_flops_ratio"),
                    steps=int(doc.get("steps") or 1), steps_source=str(doc.get("steps_source", "")))
    empty = pd.DataFrame()
    return RankAnalysis(data, rank, resolution, pd.DataFrame({C.DURATION_US: [], "mfu": []}), s, empty, empty, empty,
                        empty, empty, empty, list(doc.get("warnings") or []), list(doc.get("notes") or []),
                        document=doc)


def fill_summary_tables(r: RankAnalysis) -> None:
    """Turn a summarised rank's document tables into frames (once; cheap enough for the GUI thread)."""
    doc = r.document
    if doc is None or getattr(r, "_tables_filled", False):
        return
    r.by_type = _frame(doc.get("by_type"))
    r.by_shape = _frame(doc.get("by_shape"))
    r.excluded = _frame(doc.get("excluded"))
    r.hot_by_time = _frame(doc.get("hot_by_time"))
    r.hot_by_lost = _frame(doc.get("hot_by_lost"))
    r.steps = _frame(doc.get("step_rows"))
    r.__dict__["_tables_filled"] = True


def summary_options(manifest: dict) -> AnalysisOptions:
    """The analysis options a summary was made with (defaults for what it does not record)."""
    recorded = (manifest.get("options") or {}).get("analysis") or {}
    flops = {k: v for k, v in (recorded.get("flops") or {}).items() if k in FlopOptions.__annotations__}
    try:
        return AnalysisOptions(chip=recorded.get("chip"), hf32=bool(recorded.get("hf32", False)),
                               flops=FlopOptions(**flops),
                               include_suspicious=bool(recorded.get("include_suspicious", False)),
                               top_n=int(recorded.get("top_n", manifest.get("top_n", 10))))
    except (TypeError, ValueError):
        return AnalysisOptions(top_n=int(manifest.get("top_n", 10)))


def analysis_from_summary(summary: Summary, catalog: ChipCatalog | None = None) -> FolderAnalysis:
    """A cluster summary as a folder analysis: lite ranks, the cluster from the documents, failures listed."""
    catalog = catalog or default_catalog()
    docs = summary.documents
    ranks = [summary_rank(d, catalog, summary.root) for d in docs]
    found = Discovery(roots=[summary.root])
    failures = [RankFailure(RankFolder(path=Path(e.path), root=summary.root, producer="summary",
                                       rank=e.rank if e.rank is not None and e.rank >= 0 else None),
                            e.reason or e.status) for e in summary.failed]
    folder = summary.folder_document()
    options = summary_options(summary.manifest)
    return FolderAnalysis(found, ranks, failures, cluster_summary(ranks, found, options, docs), options,
                          list(folder["warnings"]), docs, summary.root)


def _records(frame: pd.DataFrame, columns: dict[str, str]) -> list[dict[str, object]]:
    out = []
    for row in frame.itertuples(index=False):
        values = row._asdict()
        record: dict[str, object] = {}
        for src, dst in columns.items():
            value = values.get(src)
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                record[dst] = int(value)
            elif isinstance(value, (float, np.floating)):
                record[dst] = finite_number(value)
            else:
                record[dst] = None if value is None or (isinstance(value, float) and math.isnan(value)) else value
        out.append(record)
    return out


def _hot_rows(frame: pd.DataFrame, top: int) -> list[dict[str, object]]:
    return _records(frame.head(top), {"type": "type", "input_shapes": "input_shapes", "count": "count",
                                      "time_us": "time_us", "mfu": "mfu", "lost_us": "lost_us",
                                      "bw_util": "bw_util", "roof_util": "roof_util", "bound": "bound",
                                      "time_share": "time_share", "klass": "klass"})


def rank_document(r: RankAnalysis, top_n: int | None = None) -> dict[str, object]:
    """One rank as a document: the ``mfu analyze --json`` rank object plus what the console and the cluster need."""
    s = r.summary
    top = top_n or 10
    mfu_col = "mfu" if "mfu" in r.by_type.columns else "mfu_lo"
    by_type_cols = {"type": "type", "count": "count", "flops": "flops", "time_us": "time_us",
                    "achieved_tflops": "achieved_tflops", mfu_col: "mfu"}
    return {
        "rank": s.rank,
        "path": s.path,
        "vendor": r.folder.vendor,
        "format": r.folder.reader,
        "chip": s.chip,
        "peak_source": s.peak_source,
        "kernels": s.kernels,
        "countable_kernels": s.countable_kernels,
        "steps": s.steps,
        "steps_source": s.steps_source,
        "flops": float(s.flops),
        "countable_time_us": float(s.countable_time_us),
        "achieved_tflops": finite_number(s.achieved_tflops),
        "mfu_ops": finite_number(s.mfu_ops),
        "step_time_us": finite_number(s.step_time_us),
        "mfu_step": finite_number(s.mfu_step),
        "cube_utilization": finite_number(s.cube_utilization),
        "tier": s.tier.tier,
        "by_type": [
            {**rec, "mfu": rec.get("mfu") if mfu_col == "mfu" else None}
            for rec in _records(r.by_type, by_type_cols)
        ],
        "excluded": _records(r.excluded, {"type": "type", "reason": "reason", "count": "count", "time_us": "time_us"}),
        "step_breakdown": {col: finite_number(_step_mean(r.steps, col)) for col in summary.BREAKDOWN},
        **_comm_split(r),
        # extras beyond the contract
        "mfu_ops_range": [finite_number(v) for v in s.mfu_ops_range] if s.mfu_ops_range else None,
        "mfu_step_range": [finite_number(v) for v in s.mfu_step_range] if s.mfu_step_range else None,
        "tier_label": s.tier.label,
        "tier_value": finite_number(s.tier.value),
        "tier_why": list(s.tier.why),
        "device_busy_proxy": finite_number(s.device_busy_proxy),
        "hw_flops_ratio": finite_number(s.hw_flops_ratio),
        "roofline": rank_roofline(r),
        "kernel_source": r.data.kernel_source,
        "capture": r.folder.config.describe(),
        "rank_origin": r.folder.rank_origin,
        "incomplete": list(r.data.incomplete),
        "hot_by_time": _hot_rows(r.hot_by_time, top),
        "hot_by_lost": _hot_rows(r.hot_by_lost, top),
        "warnings": list(r.warnings),
        # internal (not in the contract): what the cluster and the console need
        "confirmed": bool(r.chip.confirmed),
        "chip_id": r.chip.chip.identifier if r.chip.chip is not None else None,
        "notes": [n for n in r.notes if n],
        "document_version": summary.DOCUMENT_VERSION,
    }


def rank_roofline(r: RankAnalysis) -> dict[str, float | None] | None:
    """The rank's roofline figures (:func:`~.kernel_roofline.roofline_summary`), kept by a summary."""
    if r.document is not None:
        return r.document.get("roofline")
    fields = roofline_summary(r.kernels, chip_bandwidth(r.chip), r.summary.steps)
    return {k: finite_number(v) for k, v in fields.items()}


def _comm_split(r: RankAnalysis) -> dict[str, float | None]:
    """Not-overlapped communication split into real transfer and waiting (means per step; prediction.md §4.1)."""
    if r.document is not None:
        return {k: r.document.get(k) for k in ("comm_transfer_us", "comm_wait_us")}
    from mfu_desktop.core.analysis.measured_step import measured_step

    measured, _ = measured_step(r.data.step_trace, r.data.comm)
    if measured is None:
        return {"comm_transfer_us": None, "comm_wait_us": None}
    return {"comm_transfer_us": finite_number(measured.transfer_us), "comm_wait_us": finite_number(measured.wait_us)}


def analysis_json(result: FolderAnalysis, top_n: int | None = None) -> dict[str, object]:
    """The whole ``mfu analyze --json`` object."""
    folder = result.document()
    if top_n is not None:
        folder["top_n"] = top_n
    return summary.analysis_json(folder)
