"""Opening a profiler's SQLite database so that SQLite writes nothing, anywhere near it.

``?mode=ro`` is not enough: a WAL-mode database (torch_npu writes some) makes SQLite create
``…db-shm`` and ``…db-wal`` beside it, and in a read-only folder the open then fails with
"attempt to write a readonly database". Every reader opens its databases here instead:

* no writer's side file beside the database (the usual finished capture) → ``immutable=1``:
  SQLite takes no lock and creates, reads and writes no side file. A writer that holds a lock
  but has written nothing outside the file leaves it in its last committed state: it is read,
  and named;
* a non-empty ``-wal`` or ``-journal`` beside it (a writer is active, or stopped before it
  checkpointed) → the database and that side file are copied to a private temporary folder and
  the copy is opened there, so SQLite recovers the last committed state in the copy; the
  profile folder is still never touched. The copy is deleted when the connection closes.

:func:`lock_holder` names the process that holds the database open (Linux), for messages.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import struct
import sys
import tempfile
import weakref
from pathlib import Path

#: Side files a writer leaves beside a database while (or after) it writes.
WRITER_SIDE_FILES = ("-wal", "-journal")
#: SQLite's lock bytes in the database file (``PENDING_BYTE`` … the shared range).
_LOCK_START = 0x40000000
_LOCK_LENGTH = 512


class DatabaseConnection(sqlite3.Connection):
    """A connection that may read a private copy; ``snapshot_note`` says so, closing deletes the copy."""

    snapshot_note: str | None = None
    _cleanup: weakref.finalize | None = None

    def close(self) -> None:
        super().close()
        if self._cleanup is not None:
            self._cleanup()


def open_database(path: Path, timeout_s: float = 2.0) -> DatabaseConnection:
    """A read-only connection to ``path`` that makes SQLite write nothing beside it.

    Args:
        path: The database file.
        timeout_s: How long a query waits for a lock (only a private copy can have one).

    Returns:
        The connection; ``snapshot_note`` says when another process held the database (locked, or
        being written and read from a private copy).

    Raises:
        sqlite3.OperationalError: When the path is not a regular file, or a copy cannot be made.
    """
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise sqlite3.OperationalError(f"{path.name} cannot be opened ({exc.strerror or exc})") from None
    if not stat.S_ISREG(mode):
        raise sqlite3.OperationalError(f"{path.name} is not a regular file")
    side = live_side_files(path)
    if side:
        return _private_copy(path, side, timeout_s)
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    conn = sqlite3.connect(uri, uri=True, timeout=timeout_s, factory=DatabaseConnection)
    holder = lock_holder(path)
    if holder:  # locked, but nothing written outside the file yet: the file holds the last committed state
        conn.snapshot_note = f"{path.name} was locked by {holder} while read: read as last committed"
    return conn


def live_side_files(path: Path) -> list[Path]:
    """The writer's side files beside ``path`` that hold data (a non-empty ``-wal`` or ``-journal``)."""
    out = []
    for suffix in WRITER_SIDE_FILES:
        side = path.with_name(path.name + suffix)
        try:
            st = side.stat()
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size > 0:
            out.append(side)
    return out


def _private_copy(path: Path, side: list[Path], timeout_s: float) -> DatabaseConnection:
    """Copy the database and its side files to a temporary folder and open the copy there."""
    holder = lock_holder(path)
    writer = f" by {holder}" if holder else ""
    folder = tempfile.mkdtemp(prefix="mfu-db-")
    try:
        copy = Path(folder) / path.name
        shutil.copyfile(path, copy)
        for file in side:
            shutil.copyfile(file, Path(folder) / file.name)
        conn = sqlite3.connect(copy.as_uri(), uri=True, timeout=timeout_s, factory=DatabaseConnection)
    except (OSError, sqlite3.Error) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise sqlite3.OperationalError(
            f"{path.name} is locked: it is being written{writer} ({', '.join(s.name for s in side)} beside it) and "
            f"a private copy could not be made ({getattr(exc, 'strerror', None) or exc}); wait until the writer "
            "finishes") from None
    conn._cleanup = weakref.finalize(conn, shutil.rmtree, folder, True)
    conn.snapshot_note = (f"{path.name} was being written{writer} ({', '.join(s.name for s in side)} beside it): "
                          "read from a private copy of its last committed state")
    return conn


def lock_holder(path: Path) -> str | None:
    """The process holding SQLite's locks on ``path`` (``"process 1234 (python3)"``), or ``None`` when unknown.

    Asks the kernel which process holds a lock on SQLite's lock bytes (``F_GETLK``, Linux only);
    takes no lock itself.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        import fcntl

        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (ImportError, OSError):
        return None
    try:
        query = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, _LOCK_START, _LOCK_LENGTH, 0)
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, query)
        kind, _, _, _, pid = struct.unpack("hhqqi4x", answer)
    except (OSError, struct.error):
        return None
    finally:
        os.close(fd)
    if kind == fcntl.F_UNLCK or pid <= 0:
        return None
    try:
        name = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        name = ""
    return f"process {pid}" + (f" ({name})" if name else "")
