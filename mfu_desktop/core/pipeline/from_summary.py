"""A cluster summary folder as a folder analysis: lite ranks (figures and tables, no kernels), the same cluster."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.aggregates import RankSummary, Tier
from mfu_desktop.core.analysis.chip_resolution import ChipResolution
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.rank import RankAnalysis, RankFailure
from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError, default_catalog
from mfu_desktop.core.cluster.folder import FolderAnalysis, cluster_summary
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.base import Discovery, RankData, RankFolder
from mfu_desktop.core.readers.records import CaptureConfig
from mfu_desktop.core.store.summaries import Summary


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
    folder = _summary_folder(doc, rank, root)
    data = RankData(folder=folder, kernel_source=str(doc.get("kernel_source", "")),
                    incomplete=list(doc.get("incomplete") or []), from_cache=True)
    resolution = _summary_chip(doc, catalog)
    s = _summary_figures(doc, rank)
    empty = pd.DataFrame()
    return RankAnalysis(data, rank, resolution, pd.DataFrame({C.DURATION_US: [], "mfu": []}), s, empty, empty, empty,
                        empty, empty, empty, list(doc.get("warnings") or []), list(doc.get("notes") or []),
                        document=doc)


def _summary_folder(doc: dict, rank: int, root: Path | None) -> RankFolder:
    """The rank folder a summarised rank was read from, as its document describes it.

    Args:
        doc: The rank's summary document.
        rank: Its rank (negative: a placeholder for an unknown rank id).
        root: The cluster root (default: the rank folder's parent).
    """
    folder = RankFolder(path=Path(doc["path"]), root=root or Path(doc["path"]).parent,
                        producer=str(doc.get("format", "")),
                        reader=str(doc.get("reader") or doc.get("format") or ""), vendor=str(doc.get("vendor") or ""),
                        rank=rank if rank >= 0 else None, rank_origin=str(doc.get("rank_origin", "")),
                        config=_SummaryCapture(str(doc.get("capture", ""))))
    folder.placeholder = rank if rank < 0 else -1
    return folder


def _summary_chip(doc: dict, catalog: ChipCatalog) -> ChipResolution:
    """The chip of a summarised rank: its catalog row when the document confirmed one the catalog still has."""
    chip = None
    if doc.get("confirmed") and doc.get("chip_id"):
        try:
            chip = catalog.find(doc["chip_id"])
        except UnknownChipError:
            chip = None
    return ChipResolution(chip, bool(doc.get("confirmed")) and chip is not None, str(doc.get("peak_source", "")))


def _summary_figures(doc: dict, rank: int) -> RankSummary:
    """The figures of a summarised rank (its tier included), read back from its document."""
    span = doc.get("mfu_ops_range")
    step_span = doc.get("mfu_step_range")
    tier = Tier(int(doc.get("tier") or 3), str(doc.get("tier_label", "")), doc.get("tier_value"),
                list(doc.get("tier_why") or []))
    return RankSummary(rank=rank, path=str(doc["path"]), chip=doc.get("chip"),
                       peak_source=str(doc.get("peak_source", "")),
                       kernels=int(doc.get("kernels") or 0), countable_kernels=int(doc.get("countable_kernels") or 0),
                       flops=float(doc.get("flops") or 0.0),
                       countable_time_us=float(doc.get("countable_time_us") or 0.0),
                       achieved_tflops=doc.get("achieved_tflops"), mfu_ops=doc.get("mfu_ops"),
                       mfu_ops_range=tuple(span) if span else None, step_time_us=doc.get("step_time_us"),
                       mfu_step=doc.get("mfu_step"), mfu_step_range=tuple(step_span) if step_span else None,
                       cube_utilization=doc.get("cube_utilization"), tier=tier,
                       device_busy_proxy=doc.get("device_busy_proxy"), hw_flops_ratio=doc.get("hw_flops_ratio"),
                       steps=int(doc.get("steps") or 1), steps_source=str(doc.get("steps_source", "")))


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


def summary_conflict(summary: Summary, asked: AnalysisOptions, catalog: ChipCatalog,
                     option: str = "--chip") -> str | None:
    """Why a summary cannot be shown with the options asked for (``None`` when it can).

    A summary keeps each rank's figures and its longest (type, shape) groups, not every kernel:
    its MFU cannot be recomputed for another chip or other FLOP conventions. An option that
    differs from what the summary was made with is refused with the command that gives the
    figures asked for — never ignored.

    Args:
        summary: The summary folder, read.
        asked: The analysis options given on the command line.
        catalog: The chip catalog (to compare chip names).
        option: How the command calls its chip option (``--chip``, ``--chip-new`` …).

    Raises:
        UnknownChipError: When the chip asked for is not in the catalog.
    """
    made = (summary.manifest.get("options") or {}).get("analysis") or {}
    redo = (f"summarise again with it (mfu summarize PATH --out {summary.root} …) or analyse the profiles "
            "(mfu analyze PATH …)")
    if asked.chip:
        chip = catalog.find(asked.chip).identifier
        docs = summary.documents
        ran_on = sorted({str(d.get("chip_id")) for d in docs if d.get("confirmed") and d.get("chip_id")})
        if ran_on != [chip] or not all(d.get("confirmed") for d in docs):
            shown = ", ".join(ran_on) or "an unconfirmed chip (MFU as a range)"
            return (f"argument {option}: the summary {summary.root.name} holds MFU for {shown}; it keeps groups, not "
                    f"kernels, so it cannot be recomputed for {chip}: {redo}")
    defaults = FlopOptions()
    asked_flops = {"fa_sparse_mode": asked.flops.fa_sparse_mode, "fa_layout": asked.flops.fa_layout,
                   "fa_backward": asked.flops.fa_backward}
    for key, value in asked_flops.items():
        recorded = (made.get("flops") or {}).get(key, getattr(defaults, key))
        if value != getattr(defaults, key) and str(value) != str(recorded):
            return (f"argument --{key.replace('_', '-')}: the summary {summary.root.name} was made with {recorded}; "
                    f"its FLOPs cannot be recomputed for {value}: {redo}")
    if asked.hf32 and not made.get("hf32"):
        return f"argument --hf32: the summary {summary.root.name} was made without it: {redo}"
    return None
