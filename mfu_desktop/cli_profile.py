"""``mfu analyze`` and ``mfu predict``: the profiler commands of the ``mfu`` command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from mfu_desktop.core.analysis import AnalysisOptions
from mfu_desktop.core.chips import ChipCatalog, UnknownChipError
from mfu_desktop.core.flops_registry import FlopOptions
from mfu_desktop.core.json_contract import stamped
from mfu_desktop.core.numbers import calls, pct, sig
from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.profile_analysis import FolderAnalysis, RankAnalysis, analyze_paths
from mfu_desktop.core.report import ExportError, export_analysis
from mfu_desktop.core.steps import PER_STEP_CONVENTION

EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2


class ConsoleProgress:
    """Progress on stderr (only when it is a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._last = 0.0

    def set_progress(self, fraction: float, text: str = "") -> None:
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.2 or fraction >= 1.0):
            self._last = now
            print(f"\r{fraction * 100:5.1f} % {text[:60]:<60}", end="", file=sys.stderr, flush=True)

    def was_cancelled(self) -> bool:
        return False


def _options(args: argparse.Namespace) -> AnalysisOptions:
    mode = args.fa_sparse_mode
    return AnalysisOptions(
        chip=args.chip,
        hf32=args.hf32,
        flops=FlopOptions(fa_sparse_mode=mode if mode == "auto" else int(mode), fa_layout=args.fa_layout,
                          fa_backward=args.fa_backward),
        top_n=args.top,
    )


def _range(value: float | None, span: tuple[float, float] | None) -> str:
    if value is not None:
        return pct(value)
    if span is not None:
        return f"{pct(span[0])} – {pct(span[1])} (chip not confirmed)"
    return "n/a"


def _us(value: float | None) -> str:
    """µs with thousands separators and one decimal ("–" when unknown)."""
    return "–" if value is None or value != value else f"{value:,.1f}"


def _print_hot(title: str, table, top: int, by: str) -> None:
    if table is None or table.empty:
        return
    print(f"   {title}")
    print(f"     {'lost µs/step' if by == 'lost_us' else 'time µs/step':>14} {'share':>7} {'MFU':>9} {'calls/step':>10}"
          "  type [input shapes]")
    for row in table.head(top).itertuples(index=False):
        value = row.lost_us if by == "lost_us" else row.time_us
        fraction = getattr(row, "time_share", float("nan"))  # merged cluster tables have no share
        share = f"{fraction * 100:.1f} %" if fraction == fraction else ""
        mfu = pct(row.mfu) if row.mfu == row.mfu else "–"
        shapes = f" [{row.input_shapes}]" if row.input_shapes else ""
        print(f"     {_us(value):>14} {share:>7} {mfu:>9} {calls(row.count):>10}  {row.type}{shapes}")


def _print_rank(r: RankAnalysis, top: int) -> None:
    s = r.summary
    print(f"== rank {s.rank}  {r.folder.path}")
    print(f"   capture      {r.folder.config.describe()}; {r.data.kernel_source}")
    print(f"   chip / peak  {s.chip or 'not confirmed'} — {s.peak_source}")
    print(f"   kernels      {s.kernels:,} in the capture ({s.countable_kernels:,} counted for FLOPs-based MFU); "
          f"{s.steps} step(s) ({s.steps_source})")
    print(f"   achieved     {sig(s.achieved_tflops)} TFLOP/s" if s.achieved_tflops else "   achieved     n/a")
    print(f"   operator MFU {_range(s.mfu_ops, s.mfu_ops_range)}   (算子达成率: Σ FLOPs/peak over their own time)")
    step = f"{_us(s.step_time_us)} µs per step" if s.step_time_us else "no step trace"
    print(f"   step MFU     {_range(s.mfu_step, s.mfu_step_range)}   (端到端; step time {step})")
    print(f"   cube util    {pct(s.cube_utilization) if s.cube_utilization is not None else 'n/a'}"
          "   (hardware counter, not MFU)")
    value = s.tier.value
    print(f"   tier         {s.tier.tier} — {s.tier.label}: {pct(value) if value is not None else 'n/a'}")
    for why in s.tier.why:
        print(f"                · {why}")
    _print_hot(f"top {min(top, len(r.hot_by_lost))} by lost time (time × (1 − MFU)), per step:", r.hot_by_lost,
               top, "lost_us")
    _print_hot(f"top {min(top, len(r.hot_by_time))} by time, per step:", r.hot_by_time, top, "time_us")
    if not r.excluded.empty:
        print("   excluded from FLOPs-based MFU (per step):")
        print(f"     {'calls/step':>10} {'time µs/step':>14}  type: reason")
        for row in r.excluded.itertuples(index=False):
            print(f"     {calls(row.count):>10} {_us(row.time_us):>14}  {row.type}: {row.reason}")
    for w in r.warnings:
        print(f"   warning: {w}")


#: Above this many ranks, only some rank blocks are printed unless ``--ranks all``.
RANK_BLOCKS_SHOWN = 4


def _chosen_ranks(result: FolderAnalysis, choice: str | None) -> tuple[list[RankAnalysis], str]:
    """The rank blocks to print: all, a list, or (many ranks) the slowest, the fastest and the slow ones."""
    ranks = result.ranks
    if choice == "all" or (choice is None and len(ranks) <= RANK_BLOCKS_SHOWN):
        return ranks, ""
    if choice:
        wanted = {int(x) for x in choice.split(",") if x.strip().lstrip("-").isdigit()}
        return [r for r in ranks if r.rank in wanted], ""
    timed = [r for r in ranks if r.summary.step_time_us]
    keep: list[RankAnalysis] = []
    if timed:
        keep += [max(timed, key=lambda r: r.summary.step_time_us), min(timed, key=lambda r: r.summary.step_time_us)]
    keep += [r for r in ranks if r.rank in result.cluster.slow]
    unique = {id(r): r for r in (keep or ranks[:2])}
    keep = list(unique.values())[:RANK_BLOCKS_SHOWN]
    keep.sort(key=lambda r: r.rank)
    return keep, (f"({len(ranks) - len(keep)} more rank blocks: --ranks all prints every rank, --ranks 0,3 "
                  "chosen ones)")


def _print_cluster(result: FolderAnalysis, top: int) -> None:
    c = result.cluster
    ranks = result.ranks
    roots = ", ".join(str(p) for p in result.discovery.roots)
    print(f"MFU Desktop — {len(ranks)} rank(s) from {roots}")
    print(f"{PER_STEP_CONVENTION}")
    print()
    print("== cluster" if len(ranks) > 1 else "== profile")
    rate = c.rate
    print(f"   operator MFU {_range(rate.mfu, rate.mfu_range)}   (算子达成率, all ranks; "
          f"{sig(rate.achieved_tflops)} TFLOP/s)" if rate.achieved_tflops else
          "   operator MFU n/a (no counted kernel)")
    if c.mfu_step_range:
        lo, hi = c.mfu_step_range
        text = pct(lo) if abs(hi - lo) < 1e-12 else f"{pct(lo)} – {pct(hi)} over ranks"
        print(f"   step MFU     {text}   (端到端)")
    st = c.step_time
    if st.mean is not None:
        line = f"   step time    {_us(st.mean)} µs per step"
        if st.differs:
            line += f", mean per rank; slowest rank {st.slowest_rank}: {_us(st.slowest_value)} µs"
        print(line)
    if len(ranks) > 1:
        print(f"   slow ranks   {c.slow_rank_text()}")
    if c.cube_utilization_mean is not None:
        print(f"   cube util    {pct(c.cube_utilization_mean)}   (mean over ranks; hardware counter, not MFU)")
    if len(ranks) > 1 and not c.table.empty:
        print()
        print(f"   {'rank':>5} {'steps':>5} {'step µs':>12} {'computing µs':>13} {'comm µs':>11} {'free µs':>10} "
              f"{'operator MFU':>13} {'step MFU':>10} {'tier':>4}")
        for row in c.table.itertuples(index=False):
            mark = "  slow" if getattr(row, "slow", False) else ""
            print(f"   {row.rank:>5} {row.steps:>5} {_us(row.step_time_us):>12} {_us(row.computing):>13} "
                  f"{_us(row.comm_not_overlapped):>11} {_us(row.free):>10} {_pct_or_dash(row.mfu_ops):>13} "
                  f"{_pct_or_dash(row.mfu_step):>10} {row.tier:>4}{mark}")
        _print_hot(f"top {min(top, len(c.hot_by_lost))} by lost time, per step (mean per rank):", c.hot_by_lost,
                   top, "lost_us")


def _pct_or_dash(value: float | None) -> str:
    return pct(value) if value is not None and value == value else "–"


def _print_analysis(result: FolderAnalysis, top: int, ranks_choice: str | None) -> None:
    _print_cluster(result, top)
    chosen, more = _chosen_ranks(result, ranks_choice)
    for r in chosen:
        print()
        _print_rank(r, top)
    if more:
        print()
        print(more)
    for w in result.warnings:
        print(f"warning: {w}")


def nothing_analysed(command: str, result: FolderAnalysis) -> int:
    """Every reason nothing could be analysed, as ``error:`` lines (``mfu analyze`` and ``mfu predict`` alike)."""
    reasons = result.warnings or ["no profiler rank could be read"]
    for reason in reasons:
        print(f"mfu {command}: error: {reason}", file=sys.stderr)
    return EXIT_NOTHING


def profile_paths(args: argparse.Namespace, paths: list[Path]) -> list[Path]:
    """The paths given, plus the bundled demo profile with ``--demo``.

    Raises:
        _NoPath: When neither a path nor ``--demo`` was given.
    """
    out = list(paths)
    if getattr(args, "demo", False):
        out.append(demo_profile_dir())
    if not out:
        raise _NoPath("give a profiler folder (PATH) or --demo for the bundled demo profile")
    return out


class _NoPath(Exception):
    pass


def cmd_analyze(args: argparse.Namespace) -> int:
    """``mfu analyze PATH``."""
    options = _options(args)
    try:
        paths = profile_paths(args, args.paths)
    except _NoPath as exc:
        print(f"mfu analyze: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    catalog = ChipCatalog.load(extra_files=list(args.catalog or []))
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    progress = ConsoleProgress(sys.stderr.isatty() and not args.json)
    try:
        result = analyze_paths(paths, options, catalog, progress, use_cache=not args.no_cache)
    except UnknownChipError as exc:
        print(f"mfu analyze: error: argument --chip: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if progress.enabled:
        print(file=sys.stderr)
    if not result.ranks:
        if args.json:
            print(json.dumps(stamped(result.to_json(args.top)), ensure_ascii=False))
        return nothing_analysed("analyze", result)
    if args.export:
        try:
            written = export_analysis(result, args.export, formats=("csv", "parquet"))
            if not args.json:
                print(f"exported {len(written)} files to {args.export}")
        except ExportError as exc:
            print(f"mfu analyze: error: argument --export: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.json:
        print(json.dumps(stamped(result.to_json(args.top)), ensure_ascii=False))
    else:
        _print_analysis(result, args.top, args.ranks)
    return EXIT_OK


def add_profile_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``analyze`` (and ``predict`` when available) on the ``mfu`` parser."""
    analyze = sub.add_parser("analyze", help="MFU per operator, type, rank and step of profiler folders")
    analyze.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                         help="profiler folder(s) or file(s): a cluster root, *_ascend_pt rank folders, "
                         "ASCEND_PROFILER_OUTPUT, PyTorch profiler traces (*.pt.trace.json[.gz])")
    analyze.add_argument("--demo", action="store_true", help="analyse the demo profile shipped with MFU Desktop")
    analyze.add_argument("--ranks", metavar="all|N,M",
                         help=f"rank blocks to print (default: all up to {RANK_BLOCKS_SHOWN} ranks, else the slowest, "
                              "the fastest and the slow ones)")
    analyze.add_argument("--chip", help="chip that ran the profile (overrides detection)")
    analyze.add_argument("--hf32", action="store_true", help="FP32 matmuls ran with HF32 (uses the HF32 peak)")
    analyze.add_argument("--fa-sparse-mode", choices=["auto", "0", "2", "3"], default="auto",
                         help="FlashAttention sparse_mode for every FA kernel (default: inferred from the mask)")
    analyze.add_argument("--fa-layout", choices=["auto", "BNSD", "BSND", "BSH", "SBH"], default="auto",
                         help="FlashAttention input_layout (default: inferred from softmax_max)")
    analyze.add_argument("--fa-backward", choices=["model", "executed"], default="model",
                         help="FlashAttention backward FLOPs: model (2×, default) or executed (2.5×, HFU view)")
    analyze.add_argument("--catalog", type=Path, action="append", default=[], help="extra chip catalog CSV")
    analyze.add_argument("--json", action="store_true", help="print one JSON object")
    analyze.add_argument("--export", type=Path, metavar="DIR",
                         help="write annotated kernels (CSV + Parquet) and aggregates to DIR (never inside PATH)")
    analyze.add_argument("--top", type=int, default=10, metavar="N", help="rows in the hot-operator lists")
    analyze.add_argument("--no-cache", action="store_true", help="parse again even when a cached copy exists")
    analyze.set_defaults(func=cmd_analyze)
    try:
        from mfu_desktop.cli_predict import add_predict_command
    except ImportError:  # pragma: no cover
        return
    add_predict_command(sub)
