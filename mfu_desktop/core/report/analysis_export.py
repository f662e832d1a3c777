"""Exports of an analysis: the same numbers as the screen, to CSV, Parquet, XLSX, JSON and Markdown."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.advisor.advice import Advice
from mfu_desktop.core.analysis.kernel_names import short_name, short_names
from mfu_desktop.core.numbers import calls, pct, sig
from mfu_desktop.core.report.advice_report import advice_document, advice_markdown, findings_table
from mfu_desktop.core.writing import (
    XLSX_MAX_ROWS,
    forbid_inside,
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
    states the conventions and the fallback tier of every rank.
    """
    from mfu_desktop.core.analysis.roofline_figures import judged_figure, roofline_text
    from mfu_desktop.core.analysis.steps import PER_STEP_CONVENTION
    from mfu_desktop.core.cluster.rank_document import rank_roofline

    lines = ["# MFU Desktop report", "", f"Reading the numbers: {PER_STEP_CONVENTION}.", ""]
    ranks = getattr(result, "ranks", [])
    lines += ["## Ranks", "",
              "| rank | chip | kernels (total) | counted (total) | steps | step time (µs) | achieved TFLOP/s "
              "| operator MFU | step MFU | cube util | tier |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in ranks:
        s = r.summary
        mfu = _fmt(s.mfu_ops, "pct") if s.mfu_ops is not None else (
            f"{pct(s.mfu_ops_range[0])}–{pct(s.mfu_ops_range[1])}" if s.mfu_ops_range else "–")
        step = _fmt(s.mfu_step, "pct") if s.mfu_step is not None else (
            f"{pct(s.mfu_step_range[0])}–{pct(s.mfu_step_range[1])}" if s.mfu_step_range else "–")
        lines.append(f"| {s.rank} | {s.chip or 'not confirmed'} | {s.kernels} | {s.countable_kernels} | {s.steps} | "
                     f"{_fmt(s.step_time_us)} | {_fmt(s.achieved_tflops)} | {mfu} | {step} | "
                     f"{_fmt(s.cube_utilization, 'pct')} | "
                     f"{s.tier.tier} ({s.tier.label}) |")
    if advice is not None:
        lines += ["", *advice_markdown(advice, lang)]
    for r in ranks:
        s = r.summary
        lines += ["", f"## Rank {s.rank}: top kernels by lost time (measured − roofline-attainable)", "",
                  f"Peak: {s.peak_source}", ""]
        roof = roofline_text(rank_roofline(r))
        if roof:
            lines += [f"Roofline: {roof}", ""]
        if not r.hot_by_lost.empty:
            lines += ["| type | input shapes | kernels/step | time (µs/step) | MFU / BW | lost (µs/step) |",
                      "|---|---|---|---|---|---|"]
            for row in r.hot_by_lost.to_dict("records"):
                label, value = judged_figure(row)
                figure = f"{label} {_fmt(value, 'pct')}" if value is not None else "–"
                lines.append(f"| {short_name(str(row['type']))} | `{row['input_shapes']}` | {calls(row['count'])} | "
                             f"{_fmt(row['time_us'])} | {figure} | {_fmt(row['lost_us'])} |")
        else:
            lines.append("No kernel has a lost time (no FLOPs-based MFU and no bytes). " + " ".join(s.tier.why))
        if not r.excluded.empty:
            lines += ["", "Excluded from FLOPs-based MFU (per step):", ""]
            for row in r.excluded.itertuples(index=False):
                lines.append(f"- {short_name(str(row.type))} × {calls(row.count)} ({_fmt(row.time_us)} µs): "
                             f"{row.reason}")
        if r.warnings:
            lines += ["", "Warnings:", ""] + [f"- {w}" for w in r.warnings]
    options = getattr(result, "options", None)
    if options is not None:
        lines += ["", "## Conventions", ""] + [f"- {c}" for c in options.describe()]
    warnings = getattr(result, "warnings", [])
    if warnings:
        lines += ["", "## Warnings", ""] + [f"- {w}" for w in warnings]
    return "\n".join(lines) + "\n"


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
                    lang: str = "en") -> list[Path]:
    """Write the annotated kernels, every aggregate and the advisor's findings of an analysis into ``folder``.

    Args:
        result: A :class:`~mfu_desktop.core.cluster.folder.FolderAnalysis`.
        folder: Target folder (created; must not be inside a profiler folder).
        formats: Any of ``csv``, ``parquet``, ``xlsx`` for the tables; JSON and Markdown are
            always written (``summary.json``, ``advice.json``, ``summary.md``).
        lang: Language of the findings' texts (``en`` or ``zh_CN``).

    Raises:
        ExportError: For a target inside a profile, or an unwritable folder.
    """
    from mfu_desktop.core.advisor.advice import advise
    from mfu_desktop.core.cluster.folder import analysis_json

    roots = [r.folder.path for r in result.ranks] + list(result.discovery.roots)
    forbid_inside(folder, roots)
    formats = set(formats)
    written: list[Path] = []

    def tagged(name: str) -> pd.DataFrame:
        parts = []
        for r in result.ranks:
            frame = getattr(r, name)
            if frame is None or frame.empty:
                continue
            frame = with_display_names(frame.copy(deep=False))
            frame.insert(0, "rank", r.rank)
            parts.append(frame)
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    tables = {name: tagged(name) for name in ("kernels", "by_type", "by_shape", "excluded", "steps", "hot_by_lost",
                                              "hot_by_time")}
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
    return written
