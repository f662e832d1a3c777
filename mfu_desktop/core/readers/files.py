"""Small file-system helpers the readers share (listing that never raises, regular files, file fingerprints)."""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path


def list_dir(path: Path) -> list[os.DirEntry]:
    """A folder's entries sorted by name; an unreadable folder is empty (:func:`list_dir_or_reason` says why)."""
    return list_dir_or_reason(path)[0]


def list_dir_or_reason(path: Path) -> tuple[list[os.DirEntry], str | None]:
    """A folder's entries sorted by name and ``None``, or no entries and why the folder cannot be listed."""
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name), None
    except OSError as exc:
        return [], exc.strerror or str(exc)


def is_regular_file(path: Path | os.DirEntry) -> bool:
    """True for a regular file (links followed); a FIFO, socket or device — which could block a read — is not."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def not_regular(path: Path | os.DirEntry) -> str:
    """What a path that is not a regular file is, in words ("a folder", "a FIFO", "a broken link" …)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a broken link" if os.path.islink(path) else "missing"
    except (OSError, ValueError) as exc:
        return f"unreadable ({getattr(exc, 'strerror', None) or exc})"
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def is_folder(path: Path) -> bool:
    """``path.is_dir()`` that never raises (a folder that cannot be reached is not one)."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def within(path: Path | str, boundary: Path) -> bool:
    """Whether ``path``, links resolved, stays inside the (resolved) folder ``boundary``."""
    try:
        resolved = Path(path).resolve()
    except (OSError, RuntimeError):
        return False
    return resolved == boundary or boundary in resolved.parents


def safe_is_dir(entry: os.DirEntry) -> bool:
    """``entry.is_dir()`` that treats an unreadable entry as a file."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def safe_is_file(entry: os.DirEntry) -> bool:
    """``entry.is_file()`` that treats an unreadable entry as not a file."""
    try:
        return entry.is_file()
    except OSError:
        return False


def describe_error(exc: BaseException) -> str:
    """An exception in words a user understands (the OS's reason, or what kind of damage)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, zlib.error) or type(exc).__name__ in ("BadGzipFile", "BadZipFile"):
        return f"damaged compressed data: {exc}"
    if isinstance(exc, UnicodeError):
        return "not text in a known encoding"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return f"unexpected {type(exc).__name__}: {exc}"


def fingerprint(paths: list[Path]) -> list[tuple[str, int, int]]:
    """Path, size and mtime of each file (``-1`` when it cannot be read): a change means a new file."""
    out = []
    for p in paths:
        try:
            st = p.stat()
            out.append((str(p), st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((str(p), -1, -1))
    return out
