"""The SQLite export reader (profiler-formats.md §8)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys

import pytest

from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.ascend.kernels_csv import KernelFileError
from mfu_desktop.core.readers.ascend.kernels_db import read_kernel_db

DB = "msinsight/test/data/pytorch/db"


def test_level2_kernels_pmu_steps(samples):
    path = samples / DB / "level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"
    table, extras = read_kernel_db(path)
    f = table.frame
    assert len(f) == 191  # 187 compute tasks + 4 communication operators
    assert extras.npu_name == "Ascend910B" and extras.aicore_mhz == 1800 and extras.rank_id == 0
    mm = f[f[C.START_NS] == 1736414119662232892].iloc[0]
    assert mm[C.OP_TYPE] == "MatMulV2"
    assert mm[C.DURATION_US] == pytest.approx((1736414119662605819 - 1736414119662232892) / 1000)  # ns → µs
    assert mm[C.INPUT_SHAPES] == "32,9216;4096,9216;4096"
    assert mm["aic_mac_time_us"] == pytest.approx(51.942292, rel=1e-6)  # TASK_PMU_INFO ns → µs
    assert (f[C.STEP_ID] == 50).all()
    assert (f[C.CORE_TYPE] == "HCCL").sum() == 4


def test_level0_has_no_shapes_and_no_pmu(samples):
    table, _ = read_kernel_db(samples / DB / "level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
                              / "ascend_pytorch_profiler_0.db")
    assert C.INPUT_SHAPES in table.missing_columns
    assert any("no TASK_PMU_INFO" in p for p in table.problems)


def test_resaved_db_with_extra_columns(samples):
    table, _ = read_kernel_db(samples / DB / "level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
                              / "ascend_pytorch_profiler_0.db")
    assert len(table.frame) == 191


def test_database_is_opened_read_only(samples, tmp_path):
    src = samples / DB / "level2/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db"
    path = tmp_path / src.name
    shutil.copy(src, path)
    before = path.read_bytes()
    read_kernel_db(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [src.name]  # no -journal / -wal / -shm left


def test_corrupt_and_incomplete_databases(tmp_path):
    bad = tmp_path / "ascend_pytorch_profiler_0.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(KernelFileError):
        read_kernel_db(bad)
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).execute("CREATE TABLE TASK (x)").connection.commit()
    with pytest.raises(KernelFileError, match="lacks"):
        read_kernel_db(empty)


def test_a_locked_database_is_read_as_last_committed_and_the_writer_named(samples, tmp_path):
    """Another process holds the database mid-transaction: the rank is read (its committed rows), never an error.

    Before: "not a readable SQLite database" / "is it locked by another program?"; the lock
    holder was never named.
    """
    path = tmp_path / "ascend_pytorch_profiler_0.db"
    shutil.copy(samples / DB / "level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", path)
    expected = len(read_kernel_db(path)[0].frame)
    writer = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys\n"
        f"c = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
        "c.execute('PRAGMA cache_size=1'); c.execute('BEGIN EXCLUSIVE'); c.execute('DELETE FROM TASK')\n"
        "print('locked', flush=True); sys.stdin.read()")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "locked"
        assert sorted(p.name for p in tmp_path.iterdir()) == [path.name, path.name + "-journal"]
        table, _ = read_kernel_db(path)
        assert len(table.frame) == expected  # the rows deleted by the open transaction are still there
        note = next(p for p in table.problems if "being written" in p)
        assert f"process {writer.pid}" in note and "private copy" in note
    finally:
        writer.kill()
        writer.wait()
