"""Load ranks: read each rank's files once (text or db, never both), concurrently, with a cache."""

from __future__ import annotations

import copy
import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from mfu_desktop.core.progress import Cancelled, Progress, check
from mfu_desktop.core.readers.base import RankData, RankFolder, adopt
from mfu_desktop.core.readers.files import describe_error
from mfu_desktop.core.readers.load import read_rank
from mfu_desktop.core.store.cache import cache_key, clear, entry, read_pickle, touch, write_atomic, write_pickle
from mfu_desktop.core.store.frames import read_frame, write_frame

#: Ranks parsed at once (pyarrow parses each file with its own threads too).
MAX_PARALLEL_RANKS = min(8, (os.cpu_count() or 2))


def cache_read(key: str) -> RankData | None:
    """A cached rank (its frame from the Arrow file, the rest from the pickle), or ``None`` — whatever is damaged."""
    try:
        return _cache_read(key)
    except Exception:  # a damaged entry is a miss: the rank is read again and the entry rewritten
        return None


def _cache_read(key: str) -> RankData | None:
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
    data = read_rank(folder)
    check(progress)
    data.load_seconds = time.perf_counter() - started
    if use_cache and data.error is None and not data.changed_while_read:
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
                    results[i] = RankData(folder=folders[i], error=f"{folders[i].path.name} could not be read "
                                          f"({describe_error(exc)})")
                done += 1
                if progress is not None:
                    progress.set_progress(done / len(folders) * 0.8, f"read {done}/{len(folders)} ranks")
                check(progress)
        except Cancelled:
            for future in futures:
                future.cancel()
            raise
    return [results[i] for i in range(len(folders))]
