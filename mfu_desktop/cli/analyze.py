"""``mfu analyze``: cluster and rank figures of profiler folders, from the cache when every rank is there.

Light on purpose: printing works on documents (:mod:`mfu_desktop.core.cluster.documents`), so that a
cached re-open imports no numpy/pandas. The analysis itself is imported only when it has to run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mfu_desktop.cli.common import EXIT_NOTHING, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, UsageError
from mfu_desktop.cli.profile_options import (
    ConsoleProgress,
    NoPath,
    add_analysis_options,
    analysis_options,
    nothing_analysed,
    profile_paths,
    split_sources,
)
from mfu_desktop.core.analysis import memory_text
from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.core.analysis.roofline_figures import judged_figure, roofline_text
from mfu_desktop.core.analysis.steps import PER_STEP_CONVENTION
from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError
from mfu_desktop.core.chips.vendor_terms import vendor_terms
from mfu_desktop.core.cluster import documents as summary
from mfu_desktop.core.numbers import calls, pct, sig
from mfu_desktop.core.report.json_contract import stamped

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.cluster.folder import FolderAnalysis


def _range(value: float | None, span: tuple[float, float] | None) -> str:
    if value is not None:
        return pct(value)
    if span is not None:
        return f"{pct(span[0])} – {pct(span[1])} (chip not confirmed)"
    return "n/a"


def _us(value: float | None) -> str:
    """µs with thousands separators and one decimal ("–" when unknown)."""
    return "–" if value is None or value != value else f"{value:,.1f}"


def _print_hot(title: str, rows: list[dict[str, Any]], top: int, by: str) -> None:
    if not rows:
        return
    print(f"   {title}")
    print(f"     {'lost µs/step' if by == 'lost_us' else 'time µs/step':>14} {'share':>7} {'MFU / BW':>10} "
          f"{'kernels/step':>12}  type [input shapes]")
    for row in rows[:top]:
        fraction = summary.number(row.get("time_share"))  # merged cluster rows have no share
        share = f"{fraction * 100:.1f} %" if fraction is not None else ""
        label, value = judged_figure(row)
        figure = f"{label} {pct(value)}" if value is not None else "–"
        shapes = f" [{row['input_shapes']}]" if row.get("input_shapes") else ""
        print(f"     {_us(row.get(by)):>14} {share:>7} {figure:>10} "
              f"{calls(row.get('count') or 0):>12}  {short_name(str(row.get('type')))}{shapes}")


def _print_rank(d: dict[str, Any], top: int) -> None:
    print(f"== rank {d['rank']}  {d['path']}")
    print(f"   capture      {d['capture']}; {d['kernel_source']}")
    print(f"   chip / peak  {d['chip'] or 'not confirmed'} — {d['peak_source']}")
    print(f"   kernels      {d['kernels']:,} in the capture ({d['countable_kernels']:,} counted for FLOPs-based MFU); "
          f"{d['steps']} step(s) ({d['steps_source']})")
    print(f"   achieved     {sig(d['achieved_tflops'])} TFLOP/s" if d["achieved_tflops"] else "   achieved     n/a")
    print(f"   operator MFU {_range(d['mfu_ops'], d['mfu_ops_range'])}"
          "   (算子达成率: Σ FLOPs/peak over their own time)")
    step = f"{_us(d['step_time_us'])} µs per step" if d["step_time_us"] else "no step trace"
    print(f"   step MFU     {_range(d['mfu_step'], d['mfu_step_range'])}   (端到端; step time {step})")
    cube = d["cube_utilization"]
    if cube is not None or not vendor_terms(d.get("vendor")).gpu:  # a PyTorch trace has no counters: the tier says so
        print(f"   cube util    {pct(cube) if cube is not None else 'n/a'}   (hardware counter, not MFU)")
    value = d["tier_value"]
    print(f"   tier         {d['tier']} — {d['tier_label']}: {pct(value) if value is not None else 'n/a'}")
    for why in d["tier_why"]:
        print(f"                · {why}")
    lost, hot = d["hot_by_lost"], d["hot_by_time"]
    roof = roofline_text(d.get("roofline"))
    if roof:
        print(f"   roofline     {roof}")
    for line in memory_text.rank_lines(d):
        print(line)
    _print_hot(f"top {min(top, len(lost))} by lost time (measured − roofline-attainable), per step:", lost, top,
               "lost_us")
    _print_hot(f"top {min(top, len(hot))} by time, per step:", hot, top, "time_us")
    if d["excluded"]:
        print("   excluded from FLOPs-based MFU (per step):")
        print(f"     {'kernels/step':>12} {'time µs/step':>14}  type: reason")
        for row in d["excluded"]:
            print(f"     {calls(row['count'] or 0):>12} {_us(row['time_us']):>14}  {short_name(str(row['type']))}: "
                  f"{row['reason']}")
    for w in d["warnings"]:
        print(f"   warning: {w}")


#: Above this many ranks, only some rank blocks are printed unless ``--ranks all``.
RANK_BLOCKS_SHOWN = 4


def rank_choice(text: str) -> str | list[int]:
    """``--ranks``: ``all`` or comma-separated rank ids (−1, −2 … for traces without a rank id)."""
    if text.strip().lower() == "all":
        return "all"
    parts = [p.strip() for p in text.split(",")]
    if not all(re.fullmatch(r"-?\d+", p) for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r} is neither 'all' nor comma-separated rank ids (0,3)")
    return [int(p) for p in parts]


def _chosen_ranks(folder: dict[str, Any], choice: str | list[int] | None) -> tuple[list[dict[str, Any]], str]:
    """The rank blocks to print: all, a list, or (many ranks) the slowest, the fastest and the slow ones.

    Raises:
        UsageError: When ``--ranks`` names a rank the profile does not have.
    """
    ranks = folder["ranks"]
    if choice == "all" or (choice is None and len(ranks) <= RANK_BLOCKS_SHOWN):
        return ranks, ""
    if isinstance(choice, list):
        have = [d["rank"] for d in ranks]
        missing = [r for r in choice if r not in have]
        if missing:
            raise UsageError(f"argument --ranks: {', '.join(map(str, missing))} not in the profile (its ranks: "
                             f"{_rank_span(have)})")
        return [d for d in ranks if d["rank"] in choice], ""
    timed = [d for d in ranks if d["step_time_us"]]
    keep: list[dict[str, Any]] = []
    if timed:
        keep += [max(timed, key=lambda d: d["step_time_us"]), min(timed, key=lambda d: d["step_time_us"])]
    keep += [d for d in ranks if d["rank"] in folder["cluster"]["slow_ranks"]]
    unique = {id(d): d for d in (keep or ranks[:2])}
    keep = list(unique.values())[:RANK_BLOCKS_SHOWN]
    keep.sort(key=lambda d: d["rank"])
    return keep, (f"({len(ranks) - len(keep)} more rank blocks: --ranks all prints every rank, --ranks 0,3 "
                  "chosen ones)")


def _rank_span(ranks: list[int]) -> str:
    """``0–7`` for consecutive ids, else the list."""
    ids = sorted(ranks)
    if ids and ids == list(range(ids[0], ids[-1] + 1)) and len(ids) > 2:
        return f"{ids[0]}–{ids[-1]}"
    return ", ".join(map(str, ids))


def _print_cluster(folder: dict[str, Any], top: int, sources: list[str]) -> None:
    c = folder["cluster"]
    n = c["ranks"]
    print(f"MFU Desktop — {n} rank(s) from {', '.join(sources)}")
    print(f"{PER_STEP_CONVENTION}")
    print()
    print("== cluster" if n > 1 else "== profile")
    rate = c["rate"]
    span = tuple(rate["mfu_range"]) if rate["mfu_range"] else None
    print(f"   operator MFU {_range(rate['mfu'], span)}   (算子达成率, all ranks; "
          f"{sig(rate['achieved_tflops'])} TFLOP/s)" if rate["achieved_tflops"] else
          "   operator MFU n/a (no counted kernel)")
    if c["mfu_step_range"]:
        lo, hi = c["mfu_step_range"]
        text = pct(lo) if abs(hi - lo) < 1e-12 else f"{pct(lo)} – {pct(hi)} over ranks"
        print(f"   step MFU     {text}   (端到端)")
    st = c["step_time"]
    if st["mean"] is not None:
        line = f"   step time    {_us(st['mean'])} µs per step"
        if st["ranks"] > 1:
            line += f", mean per rank; slowest rank {st['slowest_rank']}: {_us(st['slowest_value'])} µs"
        print(line)
    if n > 1:
        print(f"   slow ranks   {summary.slow_rank_text(c)}")
    if c["cube_utilization_mean"] is not None:
        print(f"   cube util    {pct(c['cube_utilization_mean'])}   (mean over ranks; hardware counter, not MFU)")
    roof = roofline_text(c.get("roofline"))
    if roof:
        print(f"   roofline     {roof}" + ("  (mean per rank)" if n > 1 else ""))
    memory = memory_text.cluster_line(c)
    if memory:
        print(memory)
    if n > 1 and c["rows"]:
        print()
        print(f"   {'rank':>5} {'steps':>5} {'step µs':>12} {'computing µs':>13} {'comm µs':>11} {'free µs':>10} "
              f"{'operator MFU':>13} {'step MFU':>10} {'tier':>4}")
        for row in c["rows"]:
            mark = "  slow" if row["slow"] else ""
            print(f"   {row['rank']:>5} {row['steps']:>5} {_us(row['step_time_us']):>12} {_us(row['computing']):>13} "
                  f"{_us(row['comm_not_overlapped']):>11} {_us(row['free']):>10} {_pct_or_dash(row['mfu_ops']):>13} "
                  f"{_pct_or_dash(row['mfu_step']):>10} {row['tier']:>4}{mark}")
        lost = c["hot_by_lost"]
        _print_hot(f"top {min(top, len(lost))} by lost time, per step (mean per rank):", lost, top, "lost_us")


def _pct_or_dash(value: float | None) -> str:
    return pct(value) if value is not None and value == value else "–"


def _print_analysis(folder: dict[str, Any], top: int, ranks_choice: str | list[int] | None,
                    sources: list[str]) -> None:
    chosen, more = _chosen_ranks(folder, ranks_choice)  # a bad --ranks is an error before anything is printed
    _print_cluster(folder, top, sources)
    for d in chosen:
        print()
        _print_rank(d, top)
    if more:
        print()
        print(more)


def cmd_analyze(args: argparse.Namespace) -> int:
    """``mfu analyze PATH``: from the cache when every rank's analysis is there, else analysed."""
    options = analysis_options(args)
    try:
        paths = profile_paths(args, args.paths)
    except NoPath as exc:
        print(f"mfu analyze: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from mfu_desktop.core.store.summaries import is_summary

    if any(is_summary(p) for p in paths):
        return _analyze_summary(paths, args, options)
    catalog = ChipCatalog.load(extra_files=list(args.catalog or []))
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not args.no_cache and not args.export:
        from mfu_desktop.core.store.cached_documents import cached_folder_document

        folder = cached_folder_document(paths, options, catalog)
        if folder is not None:
            return _show(folder, args)
    return _analyze_profiles(paths, options, catalog, args)


def _analyze_summary(paths: list[Path], args: argparse.Namespace, options: AnalysisOptions) -> int:
    """Show a summary folder (alone: no other path, no export), read back from its documents.

    An analysis option the summary was not made with (``--chip`` of another chip …) is refused.
    """
    from mfu_desktop.core.pipeline.from_summary import summary_conflict
    from mfu_desktop.core.store.summaries import SummaryError, read_summary

    if len(paths) > 1 or args.export:
        print("mfu analyze: error: a summary folder is analysed alone (no other PATH, no --export: its "
              "kernels stay where the ranks are)", file=sys.stderr)
        return EXIT_USAGE
    try:
        summary = read_summary(paths[0])
        conflict = summary_conflict(summary, options, ChipCatalog.load(extra_files=list(args.catalog or [])))
    except SummaryError as exc:
        print(f"mfu analyze: error: {exc}", file=sys.stderr)
        return EXIT_NOTHING
    except UnknownChipError as exc:
        print(f"mfu analyze: error: argument --chip: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if conflict:
        print(f"mfu analyze: error: {conflict}", file=sys.stderr)
        return EXIT_USAGE
    folder = summary.folder_document()
    if not folder["ranks"]:
        return nothing_analysed("analyze", folder["warnings"])
    return _show(folder, args, summary.root)


def _analyze_profiles(paths: list[Path], options: AnalysisOptions, catalog: ChipCatalog,
                      args: argparse.Namespace) -> int:
    """Analyse the profiles (the heavy path), export them when asked, and show the result.

    Args:
        paths: The profiler folders or files.
        options: The analysis options.
        catalog: The chip catalog.
        args: The parsed ``mfu analyze`` arguments.
    """
    from mfu_desktop.core.pipeline.analyze import analyze_paths

    progress = ConsoleProgress(sys.stderr.isatty() and not args.json)
    try:
        result = analyze_paths(paths, options, catalog, progress, use_cache=not args.no_cache)
    except UnknownChipError as exc:
        print(f"mfu analyze: error: argument --chip: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if progress.enabled:
        print(file=sys.stderr)
    folder = result.document()
    if not result.ranks:
        if args.json:
            print(json.dumps(stamped(summary.analysis_json(folder)), ensure_ascii=False))
        return nothing_analysed("analyze", result.warnings)
    if args.export and (code := _export(result, args)) is not None:
        return code
    return _show(folder, args)


def _export(result: FolderAnalysis, args: argparse.Namespace) -> int | None:
    """Write the annotated kernels and aggregates to ``--export``; :data:`EXIT_USAGE` (printed) when it cannot."""
    from mfu_desktop.core.report.analysis_export import export_analysis
    from mfu_desktop.core.writing import ExportError

    try:
        written = export_analysis(result, args.export, formats=("csv", "parquet"))
        if not args.json:
            print("wrote " + ", ".join(str(p) for p in written))
    except ExportError as exc:
        print(f"mfu analyze: error: argument --export: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return None


def _show(folder: dict[str, Any], args: argparse.Namespace, summary_root: Path | None = None) -> int:
    """Print a folder document as JSON or text; its warnings go to stderr.

    Args:
        folder: The folder document.
        args: The parsed arguments.
        summary_root: The summary folder the document was read from (its ranks live elsewhere).

    Returns:
        :data:`EXIT_OK`, or :data:`EXIT_PARTIAL` when a path given held no profile or a rank failed.
    """
    if summary_root is not None:
        sources, skipped = [str(summary_root)], []
    else:
        given = [str(p) for p in profile_paths(args, args.paths)]
        sources, skipped = split_sources(given, [str(d["path"]) for d in folder["ranks"]])
    if args.json:
        if isinstance(args.ranks, list):
            _chosen_ranks(folder, args.ranks)
        print(json.dumps(stamped(summary.analysis_json(folder)), ensure_ascii=False))
    else:
        _print_analysis(folder, args.top, args.ranks, sources)
    for w in folder["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    return EXIT_PARTIAL if skipped or folder["failed"] else EXIT_OK


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``analyze`` on the ``mfu`` parser."""
    analyze = sub.add_parser("analyze", help="MFU per operator, type, rank and step of profiler folders")
    analyze.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                         help="profiler folder(s) or file(s): a cluster root, *_ascend_pt rank folders, "
                         "ASCEND_PROFILER_OUTPUT, PyTorch profiler traces (*.pt.trace.json[.gz])")
    analyze.add_argument("--demo", action="store_true", help="analyse the demo profile shipped with MFU Desktop")
    analyze.add_argument("--ranks", type=rank_choice, metavar="all|N,M",
                         help=f"rank blocks to print (default: all up to {RANK_BLOCKS_SHOWN} ranks, else the slowest, "
                              "the fastest and the slow ones)")
    add_analysis_options(analyze)
    analyze.add_argument("--json", action="store_true", help="print one JSON object")
    analyze.add_argument("--export", type=Path, metavar="DIR",
                         help="write the annotated kernels (CSV + Parquet), every aggregate (CSV), summary.json and "
                              "summary.md to DIR, never inside PATH; every file written is listed")
    analyze.add_argument("--no-cache", action="store_true", help="parse again even when a cached copy exists")
    analyze.set_defaults(func=cmd_analyze)
