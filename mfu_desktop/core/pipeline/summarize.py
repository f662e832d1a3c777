"""``mfu summarize``: one task per rank on a Dask cluster (or a local pool); only summaries travel back.

Where the ranks live (a cluster's shared file system), workers read them, analyse them and
return a rank's summary document (tens of KB) — never a kernel frame. The client merges the
documents into a summary folder (:mod:`mfu_desktop.core.store.summaries`), reusing every rank
whose files and options did not change since the last run.

Executors: ``scheduler="tcp://host:8786"`` joins an existing Dask cluster (started by
dask-jobqueue under Slurm, the Dask Kubernetes operator, or ``dask scheduler`` / ``dask
worker`` by hand); ``workers=N`` starts a ``LocalCluster`` of N single-threaded worker
processes; neither runs on a thread pool in this process. Dask is the optional extra
``mfu-desktop[cluster]``.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import as_completed as futures_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.readers.base import RankFolder
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.store.cache import analysis_key
from mfu_desktop.core.store.summaries import (
    DOCUMENTS,
    RankEntry,
    SummaryError,
    is_summary,
    read_manifest,
    write_document,
    write_summary,
)


def cluster_extra_hint() -> str:
    """How to install Dask into the environment this MFU Desktop runs from (the package is on no index).

    From a checkout (the package's own folder holds ``pyproject.toml``): the ``cluster`` extra of
    that checkout; otherwise Dask itself, with the interpreter running ``mfu`` so that it lands in
    the same environment; the frozen bundle cannot take Dask.
    """
    if getattr(sys, "frozen", False):
        return ("Dask is not installed and the bundled app cannot take it: run mfu summarize from a pip install "
                "(in a checkout: pip install \".[cluster]\"), or drop --scheduler/--workers")
    python = sys.executable or "python3"
    checkout = Path(__file__).resolve().parents[3]
    if (checkout / "pyproject.toml").is_file():
        return (f'Dask is not installed: {python} -m pip install -e "{checkout}[cluster]" '
                "(or drop --scheduler/--workers)")
    return (f'Dask is not installed: {python} -m pip install "dask[distributed]>=2024.1" (what the cluster extra '
            'holds; from a checkout: pip install ".[cluster]"), or drop --scheduler/--workers')


class MissingExtra(RuntimeError):
    """An optional dependency is not installed (the message says what to install)."""


# --- runners ------------------------------------------------------------------------------------


class Runner:
    """Submit tasks and collect them as they finish (a thread pool, or a Dask client)."""

    description = "a thread pool in this process"

    def __init__(self, workers: int | None = None) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers or min(8, os.cpu_count() or 2)))

    def share(self, value: Any) -> Any:
        """An argument every task gets (a Dask cluster ships it to each worker once)."""
        return value

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Start ``fn(*args)``; returns a future."""
        return self._pool.submit(fn, *args)

    def forget(self, future: Any) -> None:
        """A collected future: let its result go (the client's memory stays flat)."""

    def completed(self, futures: list[Any]) -> Iterator[Any]:
        """The futures, as they finish."""
        return futures_completed(futures)

    @staticmethod
    def result(future: Any) -> Any:
        """A finished future's value."""
        return future.result()

    def cancel(self, futures: list[Any]) -> None:
        """Cancel what has not run yet."""
        for f in futures:
            f.cancel()

    def close(self) -> None:
        """Release the executor."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class DaskRunner(Runner):
    """Tasks on a Dask distributed cluster (an existing scheduler, or a LocalCluster started here)."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise MissingExtra(cluster_extra_hint()) from None
        self._cluster = None
        if scheduler:
            self._client = Client(scheduler, timeout="30s")
            self.description = f"the Dask scheduler at {scheduler}"
        else:
            self._cluster = LocalCluster(n_workers=max(1, workers or 1), threads_per_worker=1, processes=True,
                                         dashboard_address=None)
            self._client = Client(self._cluster)
            self.description = f"a local Dask cluster of {max(1, workers or 1)} worker process(es)"

    def share(self, value: Any) -> Any:
        return self._client.scatter(value, broadcast=True)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self._client.submit(fn, *args, pure=False)

    def forget(self, future: Any) -> None:
        future.release()

    def completed(self, futures: list[Any]) -> Iterator[Any]:
        from distributed import as_completed

        return iter(as_completed(futures))

    def cancel(self, futures: list[Any]) -> None:
        self._client.cancel(futures)

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_runner(scheduler: str | None = None, workers: int | None = None) -> Runner:
    """The executor the options ask for (see the module docstring).

    Raises:
        MissingExtra: When Dask is asked for and not installed.
    """
    if scheduler or workers:
        return DaskRunner(scheduler, workers)
    return Runner()


# --- one rank (runs on a worker) ----------------------------------------------------------------


def summarize_rank(folder: RankFolder, options: AnalysisOptions, catalog: ChipCatalog) -> dict[str, Any]:
    """Analyse one rank where it lives and return its summary document, or why it failed (never raises)."""
    try:
        from mfu_desktop.core.analysis.rank import analyze_rank
        from mfu_desktop.core.cluster.rank_document import rank_document
        from mfu_desktop.core.pipeline.summary_document import summary_document
        from mfu_desktop.core.store.ranks import load_rank

        data = load_rank(folder, use_cache=False)
        if data.error is not None:
            return {"status": "failed", "reason": data.error}
        result = analyze_rank(data, options, catalog)
        return {"status": "ok", "document": summary_document(result, rank_document(result, options.top_n))}
    except Exception as exc:  # a broken rank must not stop the others
        return {"status": "failed", "reason": f"analysis failed: {type(exc).__name__}: {exc}"}


# --- the whole run ------------------------------------------------------------------------------


@dataclass
class SummarizeResult:
    """What a run did."""

    manifest: Path
    ranks: int
    summarised: int
    reused: int
    failed: list[RankEntry] = field(default_factory=list)
    cancelled: bool = False
    runner: str = ""
    analysed: list[str] = field(default_factory=list)  # paths of the ranks analysed in this run
    #: What discovery said about the paths given (a path that does not exist, a folder without ranks …).
    warnings: list[str] = field(default_factory=list)
    #: Every rank folder found (summarised, reused or failed).
    rank_paths: list[str] = field(default_factory=list)


def _options_record(options: AnalysisOptions, catalog: ChipCatalog) -> dict[str, Any]:
    return {"analysis": dataclasses.asdict(options), "describe": options.describe(),
            "catalog_chips": len(catalog.chips)}


def _previous(out: Path) -> set[str]:
    """Keys of the ranks an existing summary at ``out`` holds a document for (empty when there is none)."""
    if not is_summary(out):
        return set()
    try:
        manifest = read_manifest(out)
    except SummaryError:
        return set()
    return {str(row.get("key")) for row in manifest.get("ranks", [])
            if row.get("status") == "ok" and (out / DOCUMENTS / f"{row.get('key')}.json").is_file()}


def summarize(paths: list[Path], out: Path, options: AnalysisOptions, catalog: ChipCatalog, runner: Runner,
              progress: Callable[[int, int, int], None] | None = None) -> SummarizeResult:
    """Summarise every rank under ``paths`` into the summary folder ``out`` (incrementally).

    Args:
        paths: Profiler folders (cluster roots, rank folders, traces).
        out: Summary folder to write (an existing summary there is updated).
        options: Analysis options (one option set per summary).
        catalog: Chip catalog.
        runner: Where the ranks are analysed.
        progress: ``progress(done, failed, total)`` after each rank.

    Returns:
        Counts, failures and where the manifest is. On Ctrl+C the ranks done so far are
        written, the others listed as cancelled (a re-run completes them).
    """
    found = discover(list(paths))
    entries, todo, futures, reused = _submit_ranks(found.ranks, _previous(out), options, catalog, runner)
    done, failed, analysed, cancelled = _collect_ranks(runner, futures, todo, out, progress, reused, len(entries))
    manifest = write_summary(out, entries, [str(p) for p in found.roots], _options_record(options, catalog),
                             options.describe(), options.top_n, list(found.warnings))
    return SummarizeResult(manifest, len(entries), done - failed, reused, [e for e in entries if e.status != "ok"],
                           cancelled, runner.description, analysed + [e.path for e in todo.values()],
                           list(found.warnings), [e.path for e in entries])


def _submit_ranks(folders: list[RankFolder], previous: set[str], options: AnalysisOptions, catalog: ChipCatalog,
                  runner: Runner) -> tuple[list[RankEntry], dict[Any, RankEntry], list[Any], int]:
    """One manifest entry per rank folder; a task on the runner for each rank the summary does not hold yet.

    Args:
        folders: The rank folders found.
        previous: Keys of the ranks the existing summary holds a document for (reused, not even read).
        options: Analysis options.
        catalog: Chip catalog (shared with the workers once).
        runner: Where the ranks are analysed.

    Returns:
        ``(entries, todo, futures, reused)``: every entry ("cancelled" until its task finishes,
        "ok" when reused), the entry of each submitted task, the tasks in submission order, and
        the number of ranks reused.
    """
    entries: list[RankEntry] = []
    todo: dict[Any, RankEntry] = {}
    futures = []
    reused = 0
    shared_catalog = runner.share(catalog) if folders else catalog
    for folder in folders:
        key = analysis_key(folder, options, catalog)
        rank = folder.rank if folder.rank is not None else folder.placeholder
        entry = RankEntry(rank, str(folder.path), key, "cancelled", "not summarised (cancelled)")
        entries.append(entry)
        if key in previous:  # its document stays on disk: not even read
            entry.status, entry.reason = "ok", ""
            reused += 1
            continue
        future = runner.submit(summarize_rank, folder, options, shared_catalog)
        todo[future] = entry
        futures.append(future)
    return entries, todo, futures, reused


def _collect_ranks(runner: Runner, futures: list[Any], todo: dict[Any, RankEntry], out: Path,
                   progress: Callable[[int, int, int], None] | None, reused: int,
                   total: int) -> tuple[int, int, list[str], bool]:
    """Collect the tasks as they finish: each rank's outcome into its entry, its document to disk at once.

    On Ctrl+C the tasks still pending are cancelled and their entries stay "cancelled".

    Args:
        runner: Where the ranks are analysed.
        futures: The tasks, in submission order.
        todo: The entry of each task not collected yet; emptied as tasks finish.
        out: The summary folder.
        progress: ``progress(done, failed, total)`` after each rank.
        reused: Ranks reused from the existing summary (counted as done in the progress).
        total: Every rank of the summary.

    Returns:
        ``(done, failed, analysed, cancelled)``: tasks collected, of which failed, the paths of
        the ranks collected, and whether Ctrl+C stopped the run.
    """
    done = failed = 0
    cancelled = False
    analysed: list[str] = []
    try:
        for future in runner.completed(futures):
            entry = todo.pop(future)
            analysed.append(entry.path)
            try:
                outcome = runner.result(future)
            except Exception as exc:  # a worker lost, a task killed
                outcome = {"status": "failed", "reason": f"the task failed on its worker: {type(exc).__name__}: {exc}"}
            entry.status = outcome["status"]
            entry.reason = outcome.get("reason", "")
            if entry.status == "ok":  # written at once, then dropped: the client's memory stays flat
                write_document(out, entry.key, outcome["document"])
            runner.forget(future)
            done += 1
            failed += entry.status != "ok"
            if progress is not None:
                progress(done + reused, failed, total)
    except KeyboardInterrupt:
        cancelled = True
        runner.cancel([f for f, e in todo.items() if e.status == "cancelled"])
    return done, failed, analysed, cancelled
