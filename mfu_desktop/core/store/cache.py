"""The per-user cache: parsed ranks, analyses and rank documents, keyed by their inputs.

Entries live in ``<user cache>/<kind>/<key>.<suffix>``: a rank's kernel frame as an Arrow file
(``.arrow``, :mod:`mfu_desktop.core.store.frames`) beside a small pickle of everything else
(``.pkl``), and per analysis a JSON rank document (``.json``) that the command line prints
from without importing pandas. A key covers the engine version (:data:`CACHE_VERSION`), the
rank's input files (path, size, mtime) and, for analyses, the options and the chip catalog:
a changed input is a new key, an old cache format is ignored (never misread).

This module is light (no numpy/pandas): the command line's cached path uses it.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop import __version__
from mfu_desktop.core.paths import file_mode, user_cache_dir
from mfu_desktop.core.readers.files import fingerprint

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.chips.catalog import ChipCatalog
    from mfu_desktop.core.readers.base import RankFolder

#: Bump when a cached format changes: old entries are then ignored.
CACHE_VERSION = f"{__version__}-10"
#: Cache entries beyond this total size (per kind) are pruned, least recently used first.
CACHE_LIMIT_BYTES = 4 << 30
#: The kinds of entries.
KINDS = ("ranks", "analysis")
_SUFFIXES = (".pkl", ".arrow", ".json")


def cache_key(folder: RankFolder) -> str:
    """Key of a rank: engine version + resolved path, sizes and mtimes of its input files."""
    payload = json.dumps([CACHE_VERSION, str(folder.path.resolve()), fingerprint(folder.input_files())])
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


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
    """A cached object, or ``None`` (missing, unreadable or from another version)."""
    path = entry(key, kind, ".pkl")
    try:
        with path.open("rb") as fh:
            data = pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError,
            ModuleNotFoundError, IndexError, MemoryError):
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
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("cache_version") != CACHE_VERSION:
        return None
    touch(path)
    return doc


def write_document(key: str, doc: dict, kind: str = "analysis") -> bool:
    """Store a JSON document (stamped with :data:`CACHE_VERSION`)."""
    payload = json.dumps({**doc, "cache_version": CACHE_VERSION}, ensure_ascii=False, allow_nan=False)
    return write_atomic(entry(key, kind, ".json"), lambda p: p.write_text(payload, encoding="utf-8"))


def prune(folder: Path, limit: int = CACHE_LIMIT_BYTES) -> None:
    """Drop the least recently used entries (all files of a key together) beyond ``limit`` bytes."""
    groups: dict[str, list[tuple[float, int, Path]]] = {}
    try:
        for e in os.scandir(folder):
            if e.name.endswith(_SUFFIXES):
                st = e.stat()
                groups.setdefault(e.name.split(".", 1)[0], []).append((st.st_mtime, st.st_size, Path(e.path)))
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


def clear() -> int:
    """Delete every cached entry; returns how many files were removed."""
    removed = 0
    for kind in KINDS:
        folder = user_cache_dir() / kind
        if not folder.exists():
            continue
        for path in folder.iterdir():
            if path.name.endswith((*_SUFFIXES, ".tmp")):
                try:
                    path.unlink()
                    removed += 1
                except OSError:
                    pass
    return removed
