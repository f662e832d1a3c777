"""Opening profiler databases: SQLite writes nothing beside them, whatever their journal mode or writer.

Before: every reader opened its database with ``?mode=ro``, which still makes SQLite create
``…db-shm`` and ``…db-wal`` beside a WAL-mode database (and fail in a read-only folder).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mfu_desktop.core.readers.database import lock_holder, open_database


def _wal_database(path: Path, rows: int) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (a INTEGER)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(rows)])
    conn.commit()
    conn.close()  # the last connection checkpoints and removes -wal and -shm
    return path


def _count(path: Path) -> int:
    conn = open_database(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM t").fetchone()[0]
    finally:
        conn.close()


def test_a_wal_database_is_read_without_side_files(tmp_path):
    db = _wal_database(tmp_path / "ascend_pytorch_profiler_0.db", 7)
    assert db.read_bytes()[18:20] == b"\x02\x02"  # WAL mode in the header
    assert _count(db) == 7
    assert sorted(os.listdir(tmp_path)) == [db.name]  # no -shm, no -wal (mode=ro created both)


def test_a_wal_database_whose_side_files_cannot_be_created_still_reads(tmp_path):
    """A read-only folder, as root sees it: the place of ``-wal`` is taken, so SQLite cannot create it."""
    db = _wal_database(tmp_path / "w.db", 3)
    (tmp_path / "w.db-wal").mkdir()
    legacy = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    with pytest.raises(sqlite3.Error):
        legacy.execute("SELECT COUNT(*) FROM t").fetchone()
    legacy.close()
    assert _count(db) == 3


def test_committed_rows_still_in_the_wal_are_read_from_a_private_copy(tmp_path):
    """A writer that has not checkpointed: its committed rows live in ``-wal``; they are read, nothing is written."""
    db = tmp_path / "live.db"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t (a INTEGER)")
    writer.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(5)])
    writer.commit()
    try:
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        assert (tmp_path / "live.db-wal").stat().st_size > 0
        conn = open_database(db)
        copy_folder = Path(conn.execute("PRAGMA database_list").fetchone()[2]).parent
        assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 5  # immutable=1 alone would see 0 rows
        assert "private copy" in conn.snapshot_note
        conn.close()
        assert not copy_folder.exists()  # the copy is deleted with the connection
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    finally:
        writer.close()


def test_a_lock_holder_is_named(tmp_path):
    db = _wal_database(tmp_path / "held.db", 2)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('BEGIN EXCLUSIVE')\n"
        "print('locked', flush=True); sys.stdin.read()")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        if sys.platform.startswith("linux"):
            assert lock_holder(db).startswith(f"process {holder.pid}")
        conn = open_database(db)
        assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 2
        if sys.platform.startswith("linux"):
            assert f"locked by process {holder.pid}" in conn.snapshot_note
        conn.close()
    finally:
        holder.kill()
        holder.wait()
    assert lock_holder(db) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "ascend_pytorch_profiler_0.db"
    os.mkfifo(fifo)
    with pytest.raises(sqlite3.OperationalError, match="not a regular file"):
        open_database(fifo)
