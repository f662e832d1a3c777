"""``mfu summarize``: summarise a cluster's ranks where they live (Dask), into a summary folder."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.cli.common import EXIT_CANCELLED, EXIT_NOTHING, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from mfu_desktop.cli.profile_options import add_analysis_options, nothing_analysed, split_sources
from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.runners import Runner
    from mfu_desktop.core.pipeline.summarize import SummarizeResult
    from mfu_desktop.core.readers.base import Discovery


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
    """Run ``mfu summarize``: every input is checked and the ranks found before a folder is made or Dask started."""
    from mfu_desktop.cli.profile_options import analysis_options
    from mfu_desktop.core.readers.discovery import discover

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
    found = discover(list(args.paths))
    if not found.ranks:
        return nothing_analysed("summarize", found.warnings)
    runner = _runner(args)
    if isinstance(runner, int):
        return runner
    started = time.perf_counter()
    result = _run_summary(args, options, catalog, runner, found)
    if isinstance(result, int):
        return result
    return _report(args, result, time.perf_counter() - started)


def _check_destination(args: argparse.Namespace) -> int | None:
    """Refuse a worker count below 1, and a summary folder inside or above a profile or holding something else.

    Returns:
        :data:`EXIT_USAGE` after printing the error, ``None`` when the arguments are fine.
    """
    if args.workers is not None and args.workers < 1:
        print("mfu summarize: error: argument --workers: must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    from mfu_desktop.core.store.summaries import SummaryError, check_summary_destination
    from mfu_desktop.core.writing import ExportError, refuse_profile_destination

    try:
        refuse_profile_destination(args.out, args.paths)  # the app never writes into a profiler folder
        check_summary_destination(args.out)
    except (ExportError, SummaryError) as exc:
        print(f"mfu summarize: error: argument --out: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return None


def _runner(args: argparse.Namespace) -> Runner | int:
    """The executor ``--scheduler`` / ``--workers`` ask for, or an exit code (printed) when it cannot start.

    An address that is not a scheduler's is a usage error (2); a scheduler that cannot be
    reached, does not answer or has no workers is a failure to run (1).
    """
    from mfu_desktop.core.pipeline.runners import MissingExtra, SchedulerError, make_runner

    try:
        return make_runner(args.scheduler, args.workers)
    except MissingExtra as exc:
        print(f"mfu summarize: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SchedulerError as exc:
        print(f"mfu summarize: error: argument --scheduler: {exc}", file=sys.stderr)
        return EXIT_USAGE if exc.bad_address else EXIT_NOTHING


def _run_summary(args: argparse.Namespace, options: AnalysisOptions, catalog: ChipCatalog, runner: Runner,
                 found: Discovery) -> SummarizeResult | int:
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
        result = summarize(args.paths, args.out, options, catalog, runner, progress, found)
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
        :data:`EXIT_OK`; :data:`EXIT_PARTIAL` when a path held no profile or a rank failed (ranks lost with
        their workers included: a re-run completes them); :data:`EXIT_NOTHING` when nothing was
        summarised; :data:`EXIT_CANCELLED` on Ctrl+C.
    """
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
    if result.lost:
        print(f"mfu summarize: error: {result.lost} rank(s) lost: their tasks never came back (a worker lost, or no "
              "worker left); the summary holds the others: run again to complete it", file=sys.stderr)
    _, skipped = split_sources([str(p) for p in args.paths], result.rank_paths)
    return EXIT_PARTIAL if skipped or result.failed else EXIT_OK
