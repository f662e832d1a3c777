"""``mfu summarize``: summarise a cluster's ranks where they live (Dask), into a summary folder."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.cli.common import EXIT_CANCELLED, EXIT_NOTHING, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from mfu_desktop.cli.profile_options import add_analysis_options, split_sources
from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.summarize import Runner, SummarizeResult


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``summarize`` on the ``mfu`` parser (with the analysis options of ``analyze``)."""
    p = sub.add_parser("summarize", help="summarise many ranks (on a Dask cluster) into a summary folder")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="profiler folders: cluster roots or ranks")
    p.add_argument("--out", type=Path, required=True, metavar="SUMMARY",
                   help="summary folder to write (an existing one is updated: unchanged ranks are reused)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="an existing Dask scheduler, e.g. tcp://10.0.0.5:8786 (Slurm: dask-jobqueue; "
                            "Kubernetes: the Dask operator)")
    where.add_argument("--workers", type=int, metavar="N", help="start a local Dask cluster of N worker processes")
    add_analysis_options(p)
    p.set_defaults(func=cmd_summarize)


def cmd_summarize(args: argparse.Namespace) -> int:
    """Run ``mfu summarize``."""
    from mfu_desktop.cli.profile_options import analysis_options

    if (code := _check_destination(args)) is not None:
        return code
    options = analysis_options(args)
    catalog = ChipCatalog.load(extra_files=list(args.catalog or []))
    try:
        if options.chip:
            catalog.find(options.chip)
    except UnknownChipError as exc:
        print(f"mfu summarize: error: argument --chip: {exc}", file=sys.stderr)
        return EXIT_USAGE
    runner = _runner(args)
    if isinstance(runner, int):
        return runner
    started = time.perf_counter()
    result = _run_summary(args, options, catalog, runner)
    if isinstance(result, int):
        return result
    return _report(args, result, time.perf_counter() - started)


def _check_destination(args: argparse.Namespace) -> int | None:
    """Refuse a worker count below 1 and a summary folder inside a profiler folder.

    Returns:
        :data:`EXIT_USAGE` after printing the error, ``None`` when the arguments are fine.
    """
    if args.workers is not None and args.workers < 1:
        print("mfu summarize: error: argument --workers: must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    from mfu_desktop.core.writing import ExportError, forbid_inside

    try:
        forbid_inside(args.out, args.paths)  # the app never writes into a profiler folder
    except ExportError as exc:
        print(f"mfu summarize: error: argument --out: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return None


def _runner(args: argparse.Namespace) -> Runner | int:
    """The executor ``--scheduler`` / ``--workers`` ask for, or :data:`EXIT_USAGE` (printed) when it cannot start."""
    from mfu_desktop.core.pipeline.summarize import MissingExtra, make_runner

    try:
        return make_runner(args.scheduler, args.workers)
    except MissingExtra as exc:
        print(f"mfu summarize: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # the scheduler cannot be reached
        print(f"mfu summarize: error: argument --scheduler: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _run_summary(args: argparse.Namespace, options: AnalysisOptions, catalog: ChipCatalog,
                 runner: Runner) -> SummarizeResult | int:
    """Summarise the ranks with a progress line on a terminal; the runner is closed whatever happens.

    Returns:
        The result, or :data:`EXIT_USAGE` (printed) when the summary folder cannot be written.
    """
    from mfu_desktop.core.pipeline.summarize import summarize

    tty = sys.stderr.isatty()

    def progress(done: int, failed: int, total: int) -> None:
        if tty:
            print(f"\r{done}/{total} ranks summarised ({failed} failed)", end="", file=sys.stderr, flush=True)

    try:
        result = summarize(args.paths, args.out, options, catalog, runner, progress)
    except OSError as exc:
        print(f"mfu summarize: error: cannot write {args.out}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        runner.close()
    if tty:
        print(file=sys.stderr)
    return result


def _report(args: argparse.Namespace, result: SummarizeResult, elapsed: float) -> int:
    """Print what was summarised, reused and not, and where the summary is; the exit code says how it went.

    Returns:
        :data:`EXIT_OK`; :data:`EXIT_PARTIAL` when a path held no profile or a rank failed;
        :data:`EXIT_NOTHING` when nothing was summarised; :data:`EXIT_CANCELLED` on Ctrl+C.
    """
    if not result.ranks:
        print(f"mfu summarize: error: no profiler ranks found in {', '.join(str(p) for p in args.paths)}",
              file=sys.stderr)
        return EXIT_NOTHING
    print(f"{result.ranks} rank(s): {result.summarised} summarised, {result.reused} unchanged since the last run, "
          f"{len(result.failed)} not summarised — {elapsed:.1f} s on {result.runner}")
    for entry in result.failed:
        print(f"   rank {entry.rank} ({entry.path}): {entry.reason}")
    print(f"summary: {result.manifest.parent}  (open it with mfu analyze, mfu predict or the window)")
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if result.cancelled:
        print("mfu summarize: cancelled: the ranks done so far are written; run again to complete",
              file=sys.stderr)
        return EXIT_CANCELLED
    if not result.summarised + result.reused:
        return EXIT_NOTHING
    _, skipped = split_sources([str(p) for p in args.paths], result.rank_paths)
    return EXIT_PARTIAL if skipped or result.failed else EXIT_OK
