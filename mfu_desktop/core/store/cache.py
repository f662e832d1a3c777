"""The per-user cache: parsed ranks, analyses and rank documents, keyed by their inputs.

Entries live in ``<user cache>/<kind>/<key>.<suffix>``: a rank's kernel frame as an Arrow file
(``.arrow``, :mod:`mfu_desktop.core.store.frames`) beside a small pickle of everything else
(``.pkl``), and per analysis a JSON rank document (``.json``) that the command line prints
from without importing pandas. A key covers the engine version (:data:`CACHE_VERSION`), the
rank's input files (:func:`input_identity`: path, size, mtime, inode, ctime and a sample of
the content), whether the profiler's finished marker was there and, for analyses, the options
and the chip catalog: a changed input is a new key, an old cache format is ignored (never
misread). An entry that cannot be read, for whatever reason, is a miss and is written again.

This module is light (no numpy/pandas): the command line's cached path uses it.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop import __version__
from mfu_desktop.core.numbers import json_text
from mfu_desktop.core.paths import file_mode, user_cache_dir

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.chips.catalog import ChipCatalog
    from mfu_desktop.core.readers.base import RankFolder

#: Bump when a cached format changes: old entries are then ignored.
CACHE_VERSION = f"{__version__}-11"
#: Cache entries beyond this total size (per kind) are pruned, least recently used first.
CACHE_LIMIT_BYTES = 4 << 30
#: The kinds of entries.
KINDS = ("ranks", "analysis")
_SUFFIXES = (".pkl", ".arrow", ".json")


#: Bytes hashed at each end of an input file, and the size of each sample between them.
_END_BYTES = 256 << 10
_SAMPLE_BYTES = 16 << 10
#: Samples taken between the two ends of a large file (evenly spaced).
_SAMPLES = 16


def cache_key(folder: RankFolder) -> str:
    """Key of a rank: engine version, resolved path, the identity of every input file and the finished marker."""
    payload = json.dumps([CACHE_VERSION, str(folder.path.resolve()), [input_identity(p) for p in folder.input_files()],
                          folder.analyse_done])
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def input_identity(path: Path) -> list[object]:
    """What says a file is unchanged: path, size, mtime, inode, ctime and a hash of a sample of its bytes.

    Size and mtime alone let an edit that kept the size and restored the mtime (``touch -r``,
    copy tools) be served from the cache; the inode and the ctime cannot be set by ``touch``,
    and the sample (its first and last 256 KiB and :data:`_SAMPLES` blocks between) catches a
    file replaced in place (768 KiB read per large file). ``-1`` stands for what cannot be read.
    """
    try:
        st = path.stat()
    except OSError:
        return [str(path), -1]
    return [str(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, _content_sample(path, st.st_size)]


def _content_sample(path: Path, size: int) -> str:
    """A hash of the file's two ends and evenly spaced blocks between (the whole file when small)."""
    digest = hashlib.blake2b(digest_size=16)
    try:
        with path.open("rb") as fh:
            if size <= 2 * _END_BYTES + _SAMPLES * _SAMPLE_BYTES:
                digest.update(fh.read())
            else:
                digest.update(fh.read(_END_BYTES))
                step = (size - 2 * _END_BYTES) // (_SAMPLES + 1)
                for i in range(1, _SAMPLES + 1):
                    fh.seek(_END_BYTES + i * step)
                    digest.update(fh.read(_SAMPLE_BYTES))
                fh.seek(size - _END_BYTES)
                digest.update(fh.read(_END_BYTES))
    except OSError:
        return "unreadable"
    return digest.hexdigest()


def analysis_key(folder: RankFolder, options: AnalysisOptions, catalog: ChipCatalog) -> str:
    """Key of an analysis: the rank's key, its id, the options and every catalog value."""
    chips = [(c.identifier, sorted((k, v) for k, v in c.values.items() if v is not None)) for c in catalog.chips]
    payload = repr((CACHE_VERSION, cache_key(folder), folder.rank, folder.placeholder, options, chips))
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def entry(key: str, kind: str, suffix: str) -> Path:
    """Where an entry lives."""
    return user_cache_dir() / kind / f"{key}{suffix}"


def touch(path: Path) -> None:
    """Mark an entry as used (least-recently-used pruning)."""
    try:
        os.utime(path)
    except OSError:
        pass


def write_atomic(path: Path, write: Callable[[Path], None], shared: bool = False) -> bool:
    """Write through a temporary file in the same folder, then rename; ``False`` on any OS error.

    ``shared`` files (a summary others open) get the user's umask mode; cache files stay private.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        os.close(fd)
        try:
            write(Path(tmp))
            if shared:
                os.chmod(tmp, file_mode())
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        return False
    return True


def read_pickle(key: str, kind: str) -> object | None:
    """A cached object, or ``None`` (missing, damaged — whatever the unpickler raises — or from another version)."""
    path = entry(key, kind, ".pkl")
    try:
        with path.open("rb") as fh:
            data = pickle.load(fh)
    except Exception:  # a damaged entry raises anything (KeyError, OverflowError …): a miss, rewritten later
        return None
    touch(path)
    return data


def write_pickle(key: str, kind: str, data: object) -> bool:
    """Store a (small) object; failures are silent — the cache is optional."""
    def dump(p: Path) -> None:
        with p.open("wb") as fh:
            pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)

    ok = write_atomic(entry(key, kind, ".pkl"), dump)
    if ok:
        prune(user_cache_dir() / kind)
    return ok


def read_document(key: str, kind: str = "analysis") -> dict | None:
    """A cached JSON document (a rank's analysis as the command line prints it), or ``None``."""
    path = entry(key, kind, ".json")
    try:
        with path.open("r", encoding="utf-8") as fh:
            doc = json.load(fh)
    except Exception:  # damaged: a miss (OSError, ValueError, RecursionError …)
        return None
    if not isinstance(doc, dict) or doc.get("cache_version") != CACHE_VERSION:
        return None
    touch(path)
    return doc


def write_document(key: str, doc: dict, kind: str = "analysis") -> bool:
    """Store a JSON document (stamped with :data:`CACHE_VERSION`)."""
    payload = json_text({**doc, "cache_version": CACHE_VERSION}, ensure_ascii=False)
    return write_atomic(entry(key, kind, ".json"), lambda p: p.write_text(payload, encoding="utf-8"))


#: A temporary file older than this (seconds) is left from an interrupted write: pruned.
STALE_TMP_SECONDS = 3600


def prune(folder: Path, limit: int = CACHE_LIMIT_BYTES) -> None:
    """Drop the least recently used entries (all files of a key together) beyond ``limit`` bytes.

    Temporary files of writes interrupted more than :data:`STALE_TMP_SECONDS` ago go too (a
    write in progress elsewhere is younger).
    """
    groups: dict[str, list[tuple[float, int, Path]]] = {}
    stale_before = time.time() - STALE_TMP_SECONDS
    try:
        for e in os.scandir(folder):
            if e.name.endswith(_SUFFIXES):
                st = e.stat()
                groups.setdefault(e.name.split(".", 1)[0], []).append((st.st_mtime, st.st_size, Path(e.path)))
            elif e.name.endswith(".tmp") and e.stat().st_mtime < stale_before:
                _unlink(Path(e.path))
    except OSError:
        return
    ordered = sorted(groups.values(), key=lambda files: max(f[0] for f in files))
    total = sum(f[1] for files in ordered for f in files)
    for files in ordered:
        if total <= limit:
            break
        for _, size, path in files:
            try:
                path.unlink()
                total -= size
            except OSError:
                pass


def size_of(key: str, kind: str) -> int:
    """Bytes an entry takes on disk (all its files)."""
    total = 0
    for suffix in _SUFFIXES:
        try:
            total += entry(key, kind, suffix).stat().st_size
        except OSError:
            pass
    return total


def _entries() -> list[os.DirEntry]:
    """Every file the cache holds (entries of each kind and their temporary files)."""
    found = []
    for kind in KINDS:
        try:
            entries = list(os.scandir(user_cache_dir() / kind))
        except OSError:
            continue
        found += [e for e in entries if e.name.endswith((*_SUFFIXES, ".tmp"))]
    return found


def clear() -> int:
    """Delete every cached entry; returns how many files were removed."""
    return sum(_unlink(Path(e.path)) for e in _entries())


def _unlink(path: Path) -> bool:
    """Delete a file; ``False`` when it could not be."""
    try:
        path.unlink()
    except OSError:
        return False
    return True


def cache_size() -> tuple[int, int]:
    """Bytes and files the cache takes (every kind, temporary files included)."""
    total = files = 0
    for e in _entries():
        try:
            total += e.stat().st_size
            files += 1
        except OSError:
            pass
    return total, files
