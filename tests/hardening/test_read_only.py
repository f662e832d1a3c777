"""The read-only guarantee: nothing in a profiler folder is ever changed or created.

Copies of every kind of input — text exports (with memory files and communication), databases
in rollback-journal and WAL mode (the public msinsight ``db/level1`` one, and a generated one
whose writer left committed rows in ``-wal``), an msprof ``PROF_*`` capture with memory slices,
MSTX marks in a database, PyTorch profiler traces of two vendors, and the demo profile — are
made read-only and checksummed; then discovery, analysis, summaries, comparisons, prediction
and every export of the CLI and of the window (Chrome traces with their host operators
included) run on them. The checksums and the file list must
not change. (Tests may run as root, for whom read-only modes do not stop writes: the checksums
and the file list are the proof — a ``-shm`` or ``-journal`` created beside a database would
appear in it — the modes only make accidental writes fail loudly for other users.)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.paths import demo_profile_dir
from tests.conftest import SAMPLES, SHARED_MISSING
from tests.helpers import write_profiler_db
from tests.readers.test_memory_msprof import prof
from tests.readers.test_mstx import db_rank

FOLDERS = [
    "msinsight/test/data/pytorch/text/level1",  # two text ranks, communication files
    "msinsight/test/data/pytorch/db/level2",  # two db ranks, rollback journal mode
    "msprof-analyze/test/ut/advisor/compute_advice/data",  # FlashAttention sample
    "msinsight/test/data/pytorch/db/level1",  # a WAL-mode db (mode=ro made SQLite create -shm/-wal beside it)
    "msinsight/test/data/pytorch/text/level2",  # memory_record / operator_memory / npu_module_mem
    "tracelens/h100",  # PyTorch profiler traces (CUDA)
    "tracelens/mi300",  # PyTorch profiler traces (ROCm)
]


def _wal_rank(root: Path) -> None:
    """A rank whose database is in WAL mode with committed rows still in ``-wal`` (its writer never checkpointed)."""
    import sqlite3

    from tests.readers.test_mstx import OPS

    out = root / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    db = write_profiler_db(out / "ascend_pytorch_profiler_3.db", OPS[:1], rank=3)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    write_profiler_rows(writer, OPS[1:])
    for name in (db.name, db.name + "-wal"):  # a copy taken while the writer is open: its -wal holds the rows
        shutil.copyfile(out / name, root.parent / f"{name}.snapshot")
    writer.close()
    for name in (db.name, db.name + "-wal"):
        shutil.move(root.parent / f"{name}.snapshot", out / name)
    (out / "analyse.done").write_text("")


def write_profiler_rows(conn, ops: list[dict]) -> None:
    """More kernels in an open profiler database (TASK + COMPUTE_TASK_INFO, text through STRING_IDS)."""
    strings = dict(conn.execute("SELECT value, id FROM STRING_IDS").fetchall())

    def sid(text: str) -> int:
        if text not in strings:
            strings[text] = max(strings.values(), default=0) + 1
            conn.execute("INSERT INTO STRING_IDS VALUES (?, ?)", (strings[text], text))
        return strings[text]

    task = conn.execute("SELECT MAX(globalTaskId) FROM TASK").fetchone()[0] or 0
    for op in ops:
        for k in op["kernels"]:
            task += 1
            conn.execute("INSERT INTO TASK VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         (k["start_ns"], k["start_ns"] + k["dur_ns"], 0, task, task, 1, sid("KERNEL_AICORE"), 0, 2,
                          task, 0))
            conn.execute("INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         (sid(k["name"]), task, 24, 0, sid(k.get("core", "AI_CORE")), sid(k["type"]), sid("ND"),
                          sid(k.get("in_types", "N/A")), sid(k.get("inputs", "N/A")), sid("ND"),
                          sid(k.get("out_types", "N/A")), sid(k.get("outputs", "N/A")), sid("N/A")))
    conn.commit()


def checksums(root: Path) -> dict[str, str]:
    """Relative path → sha256 of every file and "dir" for every folder under ``root``."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        out[rel] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def make_read_only(root: Path) -> None:
    for path in sorted(root.rglob("*"), reverse=True):
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    root.chmod(root.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def make_writable(root: Path) -> None:
    root.chmod(root.stat().st_mode | stat.S_IWUSR)
    for path in root.rglob("*"):
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


@pytest.fixture
def profiles(tmp_path):
    if not SAMPLES.is_dir():
        pytest.skip(SHARED_MISSING)
    root = tmp_path / "profiles"
    for i, rel in enumerate(FOLDERS):
        shutil.copytree(SAMPLES / rel, root / f"p{i}")
    # side files an older reader (mode=ro) left beside the shared WAL sample: the copy is as published, so that
    # one created again would show in the file list
    for side in [*root.rglob("*.db-shm"), *(p for p in root.rglob("*.db-wal") if p.stat().st_size == 0)]:
        side.unlink()
    shutil.copytree(demo_profile_dir(), root / "demo")
    prof(root / "msprof")  # a PROF_* capture with op_summary and memory slices
    db_rank(root / "mstx")  # MSTX marks in a database
    _wal_rank(root / "wal" / "r3_ascend_pt")
    before = checksums(root)
    make_read_only(root)
    yield root, before
    make_writable(root)


def test_cli_never_writes_into_profiles(profiles, tmp_path, capsys):
    root, before = profiles
    out = tmp_path / "out"
    for folder in sorted(root.iterdir()):
        assert mfu(["analyze", str(folder), "--json", "--no-cache"]) in (0, 1)
        assert mfu(["analyze", str(folder), "--export", str(out / folder.name)]) in (0, 1)
        code = mfu(["predict", str(folder), "--targets", "910C,H100 SXM", "--out", str(out / f"pred-{folder.name}"),
                    "--json"])
        assert code in (0, 1)
        # an export aimed inside the profile is refused, not written
        assert mfu(["analyze", str(folder), "--export", str(folder / "inside")]) == 2
        assert mfu(["predict", str(folder), "--out", str(folder / "inside")]) == 2
    capsys.readouterr()
    # calibrated against the chip p0 ran on (another chip is refused before anything is read or written)
    assert mfu(["predict", str(root / "demo"), "--calibrate", str(root / "p0"), "--target", "910B2"]) in (0, 1)
    assert mfu(["summarize", str(root), "--out", str(tmp_path / "summary")]) == 0
    assert mfu(["compare", str(root / "p0"), str(root / "demo"), "--export", str(out / "compare")]) == 0
    # one rank's Chrome trace with its host operators: read from each kind of database and from a trace
    for rank in ("p1/rank0_ascend_pt", "p3/rank0_ascend_pt", "wal/r3_ascend_pt", "mstx/w0_ascend_pt",
                 "p5/gaunernst_bert-small-uncased__1016001.json.gz"):
        assert mfu(["timeline", str(root / rank), "--out", str(out / f"{rank.split('/')[0]}.trace.json")]) == 0
    assert mfu(["timeline", str(root / "p3" / "rank0_ascend_pt"), "--out", str(root / "p3" / "t.json")]) == 2
    capsys.readouterr()
    from tests.readers.test_mstx import OPS

    assert mfu(["analyze", str(root / "wal"), "--json", "--no-cache"]) == 0  # committed rows still in -wal: read
    assert json.loads(capsys.readouterr().out)["ranks"][0]["kernels"] == sum(len(op["kernels"]) for op in OPS)
    assert checksums(root) == before, "a profiler folder was modified"
    assert (out / "demo" / "kernels.csv").exists() and (out / "pred-demo" / "performance_prediction.csv").exists()


@pytest.mark.gui
def test_window_never_writes_into_profiles(profiles, tmp_path, make_window, qtbot):
    from mfu_desktop.gui.dialogs.export_dialog import ExportChoice
    from tests.gui.conftest import wait_idle

    root, before = profiles
    window = make_window("--lang", "en")
    window.open_paths(sorted(root.iterdir()))
    wait_idle(qtbot, window, timeout=180000)
    assert len(window.profiler.result.ranks) >= 12
    window.profiler.hf32.setChecked(True)  # a recompute with other assumptions
    wait_idle(qtbot, window, timeout=180000)
    window.export_to(ExportChoice(tmp_path / "export", ["csv", "parquet", "xlsx"], ["png", "svg"]))
    window.prediction.export_to(tmp_path / "prediction")
    wait_idle(qtbot, window, timeout=180000)
    window.export_to(ExportChoice(root / "demo" / "inside", ["csv"], ["png"]))
    assert "refusing" in window.info.label.text()
    # each rank's Chrome trace, host operators read from its database or trace (the WAL ones included)
    result, timeline = window.profiler.result, window.profiler.view_pages["timeline"]
    for n, rank in enumerate(r for r in result.ranks if not r.lite):
        timeline.show_rank(rank, result)
        timeline.export_to(tmp_path / "traces" / f"{n}.json")
        wait_idle(qtbot, window, timeout=180000)
    assert len(list((tmp_path / "traces").glob("*.json"))) == len([r for r in result.ranks if not r.lite])
    assert (tmp_path / "export" / "mfu_report.xlsx").exists()
    assert (tmp_path / "prediction" / "kernel_prediction_detail.csv").exists()
    assert checksums(root) == before, "a profiler folder was modified"


def test_sqlite_is_opened_read_only(tmp_path):
    if not SAMPLES.is_dir():
        pytest.skip(SHARED_MISSING)
    from mfu_desktop.core.readers.database import open_database as connect_readonly

    db = next((SAMPLES / FOLDERS[1] / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT").glob("ascend_pytorch_*.db"))
    copy = tmp_path / db.name
    shutil.copy2(db, copy)
    conn = connect_readonly(copy)
    with pytest.raises(Exception, match=r"readonly|read-only"):
        conn.execute("CREATE TABLE x (a)")
    conn.close()
    assert sorted(os.listdir(tmp_path)) == [db.name]  # no -journal, -wal or -shm left behind
