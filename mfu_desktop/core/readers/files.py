"""Small file-system helpers the readers share (listing that never raises, file fingerprints)."""

from __future__ import annotations

import os
from pathlib import Path


def list_dir(path: Path) -> list[os.DirEntry]:
    """A folder's entries sorted by name; an unreadable folder is empty."""
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


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
