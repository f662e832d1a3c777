"""Exports of an analysis: the same numbers as the screen, to CSV, Parquet, XLSX, JSON and Markdown."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.advisor.advice import Advice
from mfu_desktop.core.analysis.kernel_names import short_name, short_names
from mfu_desktop.core.numbers import calls, pct, pct_range, sig
from mfu_desktop.core.report.advice_report import advice_document, advice_markdown, findings_table
from mfu_desktop.core.writing import (
    XLSX_MAX_ROWS,
    check_output_folder,
    mark_output_folder,
    markdown_code,
    markdown_text,
    refuse_profile_destination,
    write_csv,
    write_json,
    write_parquet,
    write_text,
    write_xlsx,
)


def _fmt(value: object, kind: str = "num") -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "–"
    if kind == "pct":
        return pct(float(value))
    return sig(float(value))


def markdown_summary(result: object, advice: Advice | None = None, lang: str = "en") -> str:
    """A Markdown report of a :class:`~mfu_desktop.core.cluster.folder.FolderAnalysis`.

    Leads with the ranks, then the advisor's findings (what to fix first, when ``advice`` is
    given), then the top kernels by lost time (measured − roofline-attainable) of every rank;
    states the conventions and the fallback tier of every rank. Text from the profile
    (operator types, shapes, reasons, warnings) is escaped: it is shown, never read as Markdown.
    """
    from mfu_desktop.core.analysis.steps import PER_STEP_CONVENTION

    lines = ["# MFU Desktop report", "", f"Reading the numbers: {PER_STEP_CONVENTION}.", ""]
    ranks = getattr(result, "ranks", [])
    lines += ["## Ranks", "",
              "| rank | chip | kernels (total) | counted (total) | steps | step time (µs) | achieved TFLOP/s "
              "| operator MFU | step MFU | cube util | tier |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [_rank_row(r.summary) for r in ranks]
    if advice is not None:
        lines += ["", *advice_markdown(advice, lang)]
    for r in ranks:
        lines += _rank_section(r)
    options = getattr(result, "options", None)
    if options is not None:
        lines += ["", "## Conventions", ""] + [f"- {markdown_text(c)}" for c in options.describe()]
    warnings = getattr(result, "warnings", [])
    if warnings:
        lines += ["", "## Warnings", ""] + [f"- {markdown_text(w)}" for w in warnings]
    return "\n".join(lines) + "\n"


def _rank_row(s: object) -> str:
    """A rank's line of the Ranks table (its MFU as a range while the chip is not confirmed)."""
    mfu = _fmt(s.mfu_ops, "pct") if s.mfu_ops is not None else (
        pct_range(*s.mfu_ops_range) if s.mfu_ops_range else "–")
    step = _fmt(s.mfu_step, "pct") if s.mfu_step is not None else (
        pct_range(*s.mfu_step_range) if s.mfu_step_range else "–")
    return (f"| {s.rank} | {markdown_text(s.chip or 'not confirmed')} | {s.kernels} | {s.countable_kernels} | "
            f"{s.steps} | {_fmt(s.step_time_us)} | {_fmt(s.achieved_tflops)} | {mfu} | {step} | "
            f"{_fmt(s.cube_utilization, 'pct')} | {s.tier.tier} ({markdown_text(s.tier.label)}) |")


def _rank_section(r: object) -> list[str]:
    """A rank's section: its peak and roofline, top kernels by lost time, exclusions and warnings."""
    from mfu_desktop.core.analysis.roofline_figures import judged_figure, roofline_text
    from mfu_desktop.core.cluster.rank_document import rank_roofline

    s = r.summary
    lines = ["", f"## Rank {s.rank}: top kernels by lost time (measured − roofline-attainable)", "",
             f"Peak: {markdown_text(s.peak_source)}", ""]
    roof = roofline_text(rank_roofline(r))
    if roof:
        lines += [f"Roofline: {roof}", ""]
    if not r.hot_by_lost.empty:
        lines += ["| type | input shapes | kernels/step | time (µs/step) | MFU / BW | lost (µs/step) |",
                  "|---|---|---|---|---|---|"]
        for row in r.hot_by_lost.to_dict("records"):
            label, value = judged_figure(row)
            figure = f"{label} {_fmt(value, 'pct')}" if value is not None else "–"
            lines.append(f"| {markdown_text(short_name(str(row['type'])))} | {markdown_code(row['input_shapes'])} | "
                         f"{calls(row['count'])} | {_fmt(row['time_us'])} | {figure} | {_fmt(row['lost_us'])} |")
    else:
        lines.append("No kernel has a lost time (no FLOPs-based MFU and no bytes). "
                     + markdown_text(" ".join(s.tier.why)))
    if not r.excluded.empty:
        lines += ["", "Excluded from FLOPs-based MFU (per step):", ""]
        lines += [f"- {markdown_text(short_name(str(row.type)))} × {calls(row.count)} ({_fmt(row.time_us)} µs): "
                  f"{markdown_text(row.reason)}" for row in r.excluded.itertuples(index=False)]
    if r.warnings:
        lines += ["", "Warnings:", ""] + [f"- {markdown_text(w)}" for w in r.warnings]
    return lines


#: The tables of an analysis export, in the order they are written.
TABLES = ("kernels", "by_type", "by_shape", "excluded", "steps", "hot_by_lost", "hot_by_time", "cluster", "findings")


def analysis_export_names(formats: Iterable[str]) -> list[str]:
    """The files :func:`export_analysis` writes for ``formats`` (to check the folder before anything is written)."""
    formats = set(formats)
    names = [f"{t}.csv" for t in TABLES] if "csv" in formats else []
    names += ["kernels.parquet"] if "parquet" in formats else []
    names += ["mfu_report.xlsx"] if "xlsx" in formats else []
    return [*names, "summary.json", "advice.json", "summary.md"]


def analysis_sources(result: object) -> list[Path]:
    """The paths an analysis read (its ranks and the dropped roots): never written into, nor above."""
    return [r.folder.path for r in result.ranks] + list(result.discovery.roots)


#: The column of each table that holds a kernel or operator name, and where its display name goes.
NAME_COLUMNS = (("name", "display_name"), ("type", "display_type"))


def with_display_names(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the short display name beside every full name (:func:`short_names`, once per category).

    The kernels get ``display_name`` beside ``name``; the aggregate tables ``display_type`` beside
    ``type``. The full names stay as they are.
    """
    for full, display in NAME_COLUMNS:
        if full in frame.columns and display not in frame.columns:
            frame.insert(frame.columns.get_loc(full) + 1, display, short_names(frame[full]))
    return frame


def export_analysis(result: object, folder: Path, formats: Iterable[str] = ("csv", "parquet"),
                    lang: str = "en", force: bool = False, also: Iterable[str] = ()) -> list[Path]:
    """Write the annotated kernels, every aggregate and the advisor's findings of an analysis into ``folder``.

    Args:
        result: A :class:`~mfu_desktop.core.cluster.folder.FolderAnalysis`.
        folder: Target folder (created; never inside or above a profile; new, empty or an earlier export).
        formats: Any of ``csv``, ``parquet``, ``xlsx`` for the tables; JSON and Markdown are
            always written (``summary.json``, ``advice.json``, ``summary.md``).
        lang: Language of the findings' texts (``en`` or ``zh_CN``).
        force: Replace the files of an earlier export in ``folder``.
        also: Files the caller writes there too (the window's charts), checked with these.

    Raises:
        ExportError: For a target inside or above a profile, a folder holding what MFU Desktop did
            not write, an earlier export without ``force`` (:class:`OverwriteRefused`), or an
            unwritable folder.
    """
    from mfu_desktop.core.advisor.advice import advise
    from mfu_desktop.core.cluster.folder import analysis_json

    formats = set(formats)
    refuse_profile_destination(folder, analysis_sources(result))
    check_output_folder(folder, [*analysis_export_names(formats), *also], force)
    written: list[Path] = []

    labels = [name.label for name in result.labels()] if hasattr(result, "labels") else []

    def tagged(name: str) -> pd.DataFrame:
        parts = []
        for i, r in enumerate(result.ranks):
            frame = getattr(r, name)
            if frame is None or frame.empty:
                continue
            frame = with_display_names(frame.copy(deep=False))
            frame.insert(0, "rank", r.rank)
            frame.insert(1, "rank_label", labels[i] if i < len(labels) else f"rank {r.rank}")
            parts.append(frame)
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    tables = {name: tagged(name) for name in TABLES[:-2]}
    tables["cluster"] = result.cluster.table
    advice = advise(result)
    tables["findings"] = findings_table(advice, lang)
    for name, frame in tables.items():
        if "csv" in formats:
            written.append(write_csv(frame, folder / f"{name}.csv"))
        if "parquet" in formats and name == "kernels":
            written.append(write_parquet(frame, folder / "kernels.parquet"))
    if "xlsx" in formats:
        path, _ = write_xlsx({k: v for k, v in tables.items() if k != "kernels" or len(v) <= XLSX_MAX_ROWS},
                             folder / "mfu_report.xlsx")
        written.append(path)
    written.append(write_json(analysis_json(result), folder / "summary.json"))
    written.append(write_json(advice_document(advice, lang), folder / "advice.json"))
    written.append(write_text(markdown_summary(result, advice, lang), folder / "summary.md"))
    written.append(mark_output_folder(folder, "analysis export", written))
    return written
