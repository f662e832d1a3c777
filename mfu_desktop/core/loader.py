"""Load ranks: read each rank's files once (text or db, never both), concurrently, with a cache.

A rank's parsed data (canonical kernel frame, step trace, communication matrix, chip
evidence) is cached in the per-user cache folder, keyed by the engine version and the size
and modification time of every input file, so a second analysis of an unchanged folder
skips parsing. Nothing is ever written inside a profiler folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from mfu_desktop import __version__
from mfu_desktop.core.paths import user_cache_dir
from mfu_desktop.core.profiler.communication import CommMatrix
from mfu_desktop.core.profiler.info import CaptureConfig, DeviceInfo, ParallelGroups
from mfu_desktop.core.profiler.kernels_db import DbExtras
from mfu_desktop.core.profiler.step_trace import StepTrace
from mfu_desktop.core.progress import Cancelled, Progress, check
from mfu_desktop.core.readers import ENRICHERS, reader_named
from mfu_desktop.core.readers.base import RankFolder
from mfu_desktop.core.readers.files import fingerprint

#: Bump when the parsed format changes: old cache entries are then ignored.
CACHE_VERSION = f"{__version__}-4"
#: Cache entries beyond this total size are pruned, oldest first.
CACHE_LIMIT_BYTES = 4 << 30
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


def cache_key(folder: RankFolder) -> str:
    """Cache key of a rank: engine version + resolved paths, sizes and mtimes of its inputs."""
    payload = json.dumps([CACHE_VERSION, str(folder.path.resolve()), fingerprint(folder.input_files())])
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _cache_file(key: str, kind: str = "ranks") -> Path:
    return user_cache_dir() / kind / f"{key}.pkl"


def cache_read(key: str, kind: str = "ranks") -> object | None:
    """A cached object, or ``None`` (missing, unreadable or from another version)."""
    path = _cache_file(key, kind)
    try:
        with path.open("rb") as fh:
            data = pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError,
            ModuleNotFoundError, IndexError, MemoryError):
        return None
    try:
        os.utime(path)  # LRU
    except OSError:
        pass
    return data


def _cache_read(key: str) -> RankData | None:
    data = cache_read(key)
    if not isinstance(data, RankData):
        return None
    data.from_cache = True
    return data


def cache_write(key: str, data: object, kind: str = "ranks") -> None:
    """Store an object in the per-user cache (atomic; failures are silent: the cache is optional)."""
    path = _cache_file(key, kind)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        return
    _prune(path.parent)


def _prune(folder: Path) -> None:
    """Drop the least recently used entries beyond :data:`CACHE_LIMIT_BYTES` (per cache kind)."""
    try:
        entries = sorted((e.stat().st_mtime, e.stat().st_size, Path(e.path)) for e in os.scandir(folder)
                         if e.name.endswith(".pkl"))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    for _, size, path in entries:
        if total <= CACHE_LIMIT_BYTES:
            break
        try:
            path.unlink()
            total -= size
        except OSError:
            pass


def clear_cache() -> int:
    """Delete every cached rank; returns how many entries were removed."""
    removed = 0
    for kind in ("ranks", "analysis"):
        folder = user_cache_dir() / kind
        for entry in folder.glob("*.pkl") if folder.exists() else []:
            try:
                entry.unlink()
                removed += 1
            except OSError:
                pass
    return removed


def load_rank(folder: RankFolder, use_cache: bool = True, progress: Progress | None = None) -> RankData:
    """Read one rank folder; every failure becomes ``error`` or ``problems``, never an exception.

    Raises:
        Cancelled: When ``progress`` reports a cancellation.
    """
    started = time.perf_counter()
    key = cache_key(folder) if use_cache else ""
    if use_cache:
        cached = _cache_read(key)
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
