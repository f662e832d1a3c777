"""``mfu timeline PATH --rank N [--step K] --out FILE.json``: a rank's timeline as a Chrome trace.

The file opens in Perfetto (ui.perfetto.dev), chrome://tracing and MindStudio Insight: kernels on
their lanes with their MFU, bandwidth utilisation, lost time and FLOP source as ``args``, the
host operators and their launches, the steps and the step breakdown, the memory curve
(:mod:`mfu_desktop.core.report.chrome_trace`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.cli.common import EXIT_NOTHING, EXIT_OK, EXIT_USAGE, json_default
from mfu_desktop.cli.profile_options import (
    ConsoleProgress,
    NoPath,
    add_analysis_options,
    analysis_options,
    nothing_analysed,
    profile_paths,
)
from mfu_desktop.core.report.json_contract import stamped

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.rank import RankAnalysis
    from mfu_desktop.core.cluster.folder import FolderAnalysis


def _error(text: str, code: int = EXIT_USAGE) -> int:
    print(f"mfu timeline: error: {text}", file=sys.stderr)
    return code


def _chosen_rank(result: FolderAnalysis, rank: int | None) -> RankAnalysis | str:
    """The rank to export, or why there is none (several ranks and no ``--rank``, an unknown rank)."""
    ranks = {r.rank: r for r in result.ranks}
    listed = ", ".join(str(k) for k in sorted(ranks))
    if rank is None:
        if len(ranks) == 1:
            return next(iter(ranks.values()))
        return f"argument --rank: the profile has {len(ranks)} ranks ({listed}): name one"
    if rank not in ranks:
        return f"argument --rank: no rank {rank} in the profile (its ranks: {listed})"
    return ranks[rank]


def _load(args: argparse.Namespace) -> FolderAnalysis | int:
    """The analysed profile, or the exit code of what went wrong (printed)."""
    from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError
    from mfu_desktop.core.pipeline.analyze import analyze_paths
    from mfu_desktop.core.store.summaries import is_summary

    try:
        paths = profile_paths(args, args.paths)
    except NoPath as exc:
        return _error(str(exc))
    if any(is_summary(p) for p in paths):
        return _error("a cluster summary holds no kernels: export the timeline from the rank's own folder")
    catalog = ChipCatalog.load(extra_files=list(args.catalog or []))
    progress = ConsoleProgress(sys.stderr.isatty() and not args.json)
    try:
        result = analyze_paths(paths, analysis_options(args), catalog, progress, use_cache=not args.no_cache)
    except UnknownChipError as exc:
        return _error(f"argument --chip: {exc}")
    if progress.enabled:
        print(file=sys.stderr)
    if not result.ranks:
        return nothing_analysed("timeline", result.warnings)
    return result


def cmd_timeline(args: argparse.Namespace) -> int:
    """Write one rank's Chrome trace (see the module docstring)."""
    from mfu_desktop.core.analysis.memory import memory_of
    from mfu_desktop.core.readers.host_ops import read_host_ops
    from mfu_desktop.core.report.chrome_trace import write_chrome_trace
    from mfu_desktop.core.writing import ExportError, forbid_inside

    result = _load(args)
    if isinstance(result, int):
        return result
    chosen = _chosen_rank(result, args.rank)
    if isinstance(chosen, str):
        return _error(chosen)
    host = None if args.no_host else read_host_ops(chosen.folder, chosen.kernels)
    try:
        forbid_inside(args.out, [*result.discovery.roots, *(r.folder.path for r in result.ranks)])
        export = write_chrome_trace(chosen, args.out, args.step, host, memory_of(chosen))
    except ExportError as exc:
        return _error(f"argument --out: {exc}")
    except ValueError as exc:
        return _error(f"argument --step: {exc}")
    payload = {"path": str(export.path), "rank": chosen.rank, "step": export.step, "kernels": export.kernels,
               "kernel_time_us": export.kernel_time_us, "host_ops": export.host_ops,
               "origin_unix_ns": export.origin_ns, "notes": export.notes}
    if args.json:
        print(json.dumps(stamped(payload), ensure_ascii=False, default=json_default))
    else:
        step = f"step {export.step}" if export.step is not None else "every step"
        print(f"wrote {export.path}: rank {chosen.rank}, {step}, {export.kernels:,} kernels "
              f"({export.kernel_time_us:,.1f} µs of kernel time), {export.host_ops:,} host operators")
        print("open it in Perfetto (https://ui.perfetto.dev), chrome://tracing or MindStudio Insight")
        for note in export.notes:
            print(f"note: {note}")
    return EXIT_OK if export.kernels else EXIT_NOTHING


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``timeline`` on the ``mfu`` parser."""
    p = sub.add_parser("timeline", help="one rank's timeline as a Chrome trace (Perfetto, MindStudio Insight)")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="profiler folder(s) or file(s), as for mfu analyze")
    p.add_argument("--demo", action="store_true", help="the demo profile shipped with MFU Desktop")
    p.add_argument("--rank", type=int, metavar="N", help="the rank to export (needed when the profile has several)")
    p.add_argument("--step", metavar="K", help="export only step K (default: the whole capture)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.json",
                   help="the trace file to write (never inside PATH)")
    p.add_argument("--no-host", action="store_true", help="leave the host operators out (no second read of the files)")
    add_analysis_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-cache", action="store_true", help="parse again even when a cached copy exists")
    p.set_defaults(func=cmd_timeline)
