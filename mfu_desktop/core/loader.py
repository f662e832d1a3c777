"""Load ranks: read each rank's files once (text or db, never both), concurrently, with a cache.

A rank's parsed data (canonical kernel frame, step trace, communication matrix, chip
evidence) is cached in the per-user cache folder, keyed by the engine version and the size
and modification time of every input file, so a second analysis of an unchanged folder
skips parsing. Nothing is ever written inside a profiler folder.
"""

from __future__ import annotations

import copy
import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

import pandas as pd

from mfu_desktop.core.cache import cache_key, clear, entry, read_pickle, touch, write_atomic, write_pickle
from mfu_desktop.core.frame_store import read_frame, write_frame
from mfu_desktop.core.profiler.communication import CommMatrix
from mfu_desktop.core.profiler.info import CaptureConfig, DeviceInfo, ParallelGroups
from mfu_desktop.core.profiler.kernels_db import DbExtras
from mfu_desktop.core.profiler.step_trace import StepTrace
from mfu_desktop.core.progress import Cancelled, Progress, check
from mfu_desktop.core.readers import ENRICHERS, reader_named
from mfu_desktop.core.readers.base import RankFolder
from mfu_desktop.core.readers.files import fingerprint

#: Ranks parsed at once (pyarrow parses each file with its own threads too).
MAX_PARALLEL_RANKS = min(8, (os.cpu_count() or 2))


@dataclass
class RankData:
    """Everything read from one rank folder (parsed, not yet analysed).

    Attributes:
        folder: The discovered rank.
        kernels: Canonical kernel frame, or ``None`` when nothing could be read.
        kernel_source: What the kernels came from and why (text vs db).
        step_trace: Step breakdown, when present.
        comm: Communication matrix (longest links), when present.
        error: Why the rank could not be analysed at all (``None`` when it could).
        problems: Non-fatal problems (skipped rows, unreadable side files …).
        notes: What else was read (MSTX marks tied to kernels …), shown with the rank's notes.
        incomplete: Reasons to think the folder is not whole (marker missing, file growing).
        from_cache: True when served from the cache.
    """

    folder: RankFolder
    kernels: pd.DataFrame | None = None
    kernel_source: str = ""
    missing_columns: list[str] = field(default_factory=list)
    step_trace: StepTrace | None = None
    comm: CommMatrix | None = None
    device_infos: list[DeviceInfo] = field(default_factory=list)
    db_extras: DbExtras | None = None
    groups: ParallelGroups | None = None
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    from_cache: bool = False
    load_seconds: float = 0.0
    changed_while_read: bool = False
    device_name: str | None = None
    device: object | None = None  # a GPU's deviceProperties (chip detection), when the reader has them
    #: What the reader learnt about the rank folder itself (vendor, capture configuration): kept
    #: here so that a result served from the cache tells the folder the same (:func:`adopt`).
    vendor: str | None = None
    config: CaptureConfig | None = None


def adopt(folder: RankFolder, data: RankData) -> None:
    """Make ``data`` (possibly from the cache) describe ``folder``, and the folder what its reader learnt."""
    data.folder = folder
    if data.vendor:
        folder.vendor = data.vendor
    if data.config is not None:
        folder.config = data.config


def cache_read(key: str) -> RankData | None:
    """A cached rank (its frame from the Arrow file, the rest from the pickle), or ``None``."""
    data = read_pickle(key, "ranks")
    if not isinstance(data, RankData):
        return None
    if data.kernels is None and data.error is None:
        frame_path = entry(key, "ranks", ".arrow")
        data.kernels = read_frame(frame_path)
        if data.kernels is None:
            return None
        touch(frame_path)
    data.from_cache = True
    return data


def cache_write(key: str, data: RankData) -> None:
    """Cache a parsed rank: the kernel frame as an Arrow file, everything else pickled (failures are silent)."""
    rest = copy.copy(data)
    if data.kernels is not None:
        if not write_atomic(entry(key, "ranks", ".arrow"), lambda p: write_frame(data.kernels, p)):
            return
        rest.kernels = None
    write_pickle(key, "ranks", rest)


def clear_cache() -> int:
    """Delete every cached rank and analysis; returns how many files were removed."""
    return clear()


def load_rank(folder: RankFolder, use_cache: bool = True, progress: Progress | None = None) -> RankData:
    """Read one rank folder; every failure becomes ``error`` or ``problems``, never an exception.

    Raises:
        Cancelled: When ``progress`` reports a cancellation.
    """
    started = time.perf_counter()
    key = cache_key(folder) if use_cache else ""
    if use_cache:
        cached = cache_read(key)
        if cached is not None:
            adopt(folder, cached)
            cached.load_seconds = time.perf_counter() - started
            return cached
    check(progress)
    data = RankData(folder=folder, problems=list(folder.problems))
    inputs_before = fingerprint(folder.input_files())
    try:
        reader = reader_named(folder.reader)
    except KeyError:
        data.error = f"no reader for {folder.path} ({folder.reader or 'unknown format'})"
        return data
    reader.read(folder, data)
    for enricher in ENRICHERS:
        if data.error is None and enricher.applies(folder, data):
            enricher.enrich(folder, data)
    check(progress)
    data.load_seconds = time.perf_counter() - started
    unchanged = fingerprint(folder.input_files()) == inputs_before
    data.changed_while_read = not unchanged
    if use_cache and data.error is None and unchanged:
        cache_write(key, data)
    return data


def load_ranks(folders: list[RankFolder], use_cache: bool = True, progress: Progress | None = None,
               max_workers: int = MAX_PARALLEL_RANKS) -> list[RankData]:
    """Load ranks concurrently; results keep the input order.

    Raises:
        Cancelled: When ``progress`` reports a cancellation (pending ranks are skipped).
    """
    results: dict[int, RankData] = {}
    if not folders:
        return []
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, min(max_workers, len(folders)))) as pool:
        futures = {pool.submit(load_rank, f, use_cache, progress): i for i, f in enumerate(folders)}
        try:
            for future in as_completed(futures):
                i = futures[future]
                try:
                    results[i] = future.result()
                except Cancelled:
                    raise
                except Exception as exc:  # a reader bug must not stop the other ranks
                    results[i] = RankData(folder=folders[i], error=f"unexpected error while reading: "
                                          f"{type(exc).__name__}: {exc}")
                done += 1
                if progress is not None:
                    progress.set_progress(done / len(folders) * 0.8, f"read {done}/{len(folders)} ranks")
                check(progress)
        except Cancelled:
            for future in futures:
                future.cancel()
            raise
    return [results[i] for i in range(len(folders))]
