"""``mfu summarize``: one task per rank on a Dask cluster (or a local pool); only summaries travel back.

Where the ranks live (a cluster's shared file system), workers read them, analyse them and
return a rank's summary document (tens of KB) — never a kernel frame. The client merges the
documents into a summary folder (:mod:`mfu_desktop.core.store.summaries`), reusing every rank
whose files and options did not change since the last run. Where the tasks run is a
:mod:`~mfu_desktop.core.pipeline.runners` runner; a task that never comes back (its worker
lost, the cluster left without workers) makes its rank *lost*, which a re-run completes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.pipeline.runners import Runner
from mfu_desktop.core.readers.base import Discovery, RankFolder
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.store.cache import analysis_key
from mfu_desktop.core.store.summaries import (
    DOCUMENTS,
    RankEntry,
    SummaryError,
    is_summary,
    manifest_entry,
    read_manifest,
    write_document,
    write_summary,
)

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
    lost: int = 0  # ranks whose task never came back (worker lost, no worker left): a re-run completes them
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
    entries = [manifest_entry(row) for row in manifest.get("ranks", [])]
    return {e.key for e in entries if e.status == "ok" and (out / DOCUMENTS / f"{e.key}.json").is_file()}


def summarize(paths: list[Path], out: Path, options: AnalysisOptions, catalog: ChipCatalog, runner: Runner,
              progress: Callable[[int, int, int], None] | None = None,
              found: Discovery | None = None) -> SummarizeResult:
    """Summarise every rank under ``paths`` into the summary folder ``out`` (incrementally).

    Args:
        paths: Profiler folders (cluster roots, rank folders, traces).
        out: Summary folder to write (an existing summary there is updated).
        options: Analysis options (one option set per summary).
        catalog: Chip catalog.
        runner: Where the ranks are analysed.
        progress: ``progress(done, failed, total)`` after each rank.
        found: The ranks under ``paths`` when the caller discovered them already (before starting a runner).

    Returns:
        Counts, failures and where the manifest is. On Ctrl+C the ranks done so far are
        written, the others listed as cancelled (a re-run completes them).
    """
    found = found if found is not None else discover(list(paths))
    previous = _previous(out)
    entries, todo, futures, reused = _submit_ranks(found.ranks, previous, options, catalog, runner)
    done, failed, analysed, cancelled = _collect_ranks(runner, futures, todo, out, progress, reused, len(entries))
    manifest = write_summary(out, entries, [str(p) for p in found.roots], _options_record(options, catalog),
                             options.describe(), options.top_n, list(found.warnings), previous)
    return SummarizeResult(manifest, len(entries), done - failed, reused, [e for e in entries if e.status != "ok"],
                           cancelled, runner.description, analysed + [e.path for e in todo.values()],
                           lost=sum(e.status == "lost" for e in entries), warnings=list(found.warnings),
                           rank_paths=[e.path for e in entries])


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
            except BaseException as exc:  # a worker lost, a task killed or cancelled: the rank itself is not at fault
                if isinstance(exc, KeyboardInterrupt):
                    raise
                outcome = {"status": "lost", "reason": f"its task did not come back ({type(exc).__name__}"
                           f"{': ' + str(exc)[:200] if str(exc) else ''}): run again to summarise it"}
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
