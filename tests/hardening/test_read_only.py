"""The read-only guarantee: nothing in a profiler folder is ever changed or created.

A copy of real sample folders (text and db exports) and of the demo profile is made
read-only; every file is checksummed; then discovery, analysis, prediction and every export
of the CLI and of the window run on it. The checksums and the file list must not change.
(Tests may run as root, for whom read-only modes do not stop writes: the checksums and the
file list are the proof, the modes only make accidental writes fail loudly for other users.)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.paths import demo_profile_dir
from tests.conftest import SAMPLES, SHARED_MISSING

FOLDERS = [
    "msinsight/test/data/pytorch/text/level1",  # two text ranks, communication files
    "msinsight/test/data/pytorch/db/level2",  # two db ranks (SQLite opened read-only)
    "msprof-analyze/test/ut/advisor/compute_advice/data",  # FlashAttention sample
]


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
    shutil.copytree(demo_profile_dir(), root / "demo")
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
    capsys.readouterr()
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
    assert (tmp_path / "export" / "mfu_report.xlsx").exists()
    assert (tmp_path / "prediction" / "kernel_prediction_detail.csv").exists()
    assert checksums(root) == before, "a profiler folder was modified"


def test_sqlite_is_opened_read_only(tmp_path):
    if not SAMPLES.is_dir():
        pytest.skip(SHARED_MISSING)
    from mfu_desktop.core.readers.ascend.kernels_db import connect_readonly

    db = next((SAMPLES / FOLDERS[1] / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT").glob("ascend_pytorch_*.db"))
    copy = tmp_path / db.name
    shutil.copy2(db, copy)
    conn = connect_readonly(copy)
    with pytest.raises(Exception, match=r"readonly|read-only"):
        conn.execute("CREATE TABLE x (a)")
    conn.close()
    assert sorted(os.listdir(tmp_path)) == [db.name]  # no -journal, -wal or -shm left behind
