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
from mfu_desktop.core.profile_analysis import FolderAnalysis, RankAnalysis, analyze_paths
from mfu_desktop.core.report import ExportError, export_analysis

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


def _print_rank(r: RankAnalysis, top: int) -> None:
    s = r.summary
    print(f"== rank {s.rank}  {r.folder.path}")
    print(f"   capture     : {r.folder.config.describe()}; {r.data.kernel_source}")
    print(f"   chip / peak : {s.chip or 'not confirmed'} — {s.peak_source}")
    print(f"   kernels     : {s.kernels:,} ({s.countable_kernels:,} counted for FLOPs-based MFU, "
          f"{sig(s.countable_time_us)} µs)")
    print(f"   achieved    : {sig(s.achieved_tflops)} TFLOP/s" if s.achieved_tflops else "   achieved    : n/a")
    print(f"   operator MFU: {_range(s.mfu_ops, s.mfu_ops_range)}   (算子达成率: Σ FLOPs/peak over their own time)")
    step = f"{sig(s.step_time_us)} µs" if s.step_time_us else "no step trace"
    print(f"   step MFU    : {_range(s.mfu_step, s.mfu_step_range)}   (端到端, step time {step})")
    print(f"   cube util   : {pct(s.cube_utilization) if s.cube_utilization is not None else 'n/a'}"
          "   (hardware counter, not MFU)")
    value = s.tier.value
    shown = pct(value) if value is not None else "n/a"
    print(f"   tier        : {s.tier.tier} — {s.tier.label}: {shown}")
    for why in s.tier.why:
        print(f"                 · {why}")
    if not r.hot_by_lost.empty:
        print(f"   top {min(top, len(r.hot_by_lost))} by lost time (time × (1 − MFU)):")
        for row in r.hot_by_lost.head(top).itertuples(index=False):
            print(f"     {row.lost_us:12.1f} µs lost  {pct(row.mfu):>8}  {calls(row.count):>6}×  {row.type}  "
                  f"[{row.input_shapes}]")
    if not r.hot_by_time.empty:
        print(f"   top {min(top, len(r.hot_by_time))} by time:")
        for row in r.hot_by_time.head(top).itertuples(index=False):
            mfu = pct(row.mfu) if row.mfu == row.mfu else "–"
            print(f"     {row.time_us:12.1f} µs  {row.time_share * 100:5.1f} %  {mfu:>8}  {calls(row.count):>6}×  "
                  f"{row.type}")
    if not r.excluded.empty:
        print("   excluded from FLOPs-based MFU:")
        for row in r.excluded.itertuples(index=False):
            print(f"     {calls(row.count):>6}× {row.type} ({sig(row.time_us)} µs): {row.reason}")
    for w in r.warnings:
        print(f"   warning: {w}")


def _print_analysis(result: FolderAnalysis, top: int) -> None:
    for r in result.ranks:
        _print_rank(r, top)
        print()
    cluster = result.cluster
    if len(result.ranks) > 1:
        print(f"== cluster: {len(result.ranks)} ranks")
        for row in cluster.table.itertuples(index=False):
            mark = "  SLOW" if getattr(row, "slow", False) else ""
            step = f"{row.step_time_us:12.1f} µs" if row.step_time_us == row.step_time_us and row.step_time_us else \
                "     no trace"
            mfu = pct(row.mfu_ops) if row.mfu_ops == row.mfu_ops and row.mfu_ops is not None else "–"
            print(f"   rank {row.rank:4d}  step {step}  operator MFU {mfu:>8}{mark}")
        if cluster.threshold_us:
            print(f"   slow = step time above min + 5 % ({cluster.threshold_us:.1f} µs): {cluster.slow or 'none'}")
    for w in result.warnings:
        print(f"warning: {w}")


def cmd_analyze(args: argparse.Namespace) -> int:
    """``mfu analyze PATH``."""
    options = _options(args)
    catalog = ChipCatalog.load(extra_files=list(args.catalog or []))
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    progress = ConsoleProgress(sys.stderr.isatty() and not args.json)
    try:
        result = analyze_paths(args.paths, options, catalog, progress, use_cache=not args.no_cache)
    except UnknownChipError as exc:
        print(f"mfu analyze: error: argument --chip: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if progress.enabled:
        print(file=sys.stderr)
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
        _print_analysis(result, args.top)
    return EXIT_OK if result.ranks else EXIT_NOTHING


def add_profile_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``analyze`` (and ``predict`` when available) on the ``mfu`` parser."""
    analyze = sub.add_parser("analyze", help="MFU per operator, type, rank and step of profiler folders")
    analyze.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                         help="profiler folder(s): a cluster root, *_ascend_pt rank folders, ASCEND_PROFILER_OUTPUT")
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
