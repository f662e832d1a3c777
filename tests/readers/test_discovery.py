"""Rank discovery (profiler-formats.md §1): any folder name, rank ids never from folder names."""

from __future__ import annotations

import os
import sqlite3

import pytest

from mfu_desktop.core.readers.discovery import discover
from tests.helpers import kernel_row, make_rank

ROW = kernel_row("k", "Add", "AI_VECTOR_CORE", "1767225600000001.500", 1.0)


def test_samples_are_found_with_their_ranks(samples):
    found = discover([samples / "msinsight/test/data/pytorch"])
    assert len(found.ranks) == 8  # text level0/1(×2)/2 and db level0/1/2(×2)
    assert sorted(r.rank for r in found.ranks) == [0, 0, 0, 0, 0, 0, 1, 1]
    text_l1 = [r for r in found.ranks if r.path.parent.name == "level1" and r.path.parent.parent.name == "text"]
    assert sorted(r.rank for r in text_l1) == [0, 1]
    assert all(r.rank_origin.startswith("profiler_info_") for r in found.ranks)
    db = [r for r in found.ranks if r.db is not None]
    assert len(db) == 4 and all(r.analysis_db is not None for r in db)
    assert any("rank 0 appears in" in w for w in found.warnings)


def test_rank_comes_from_profiler_info_not_folder_name(tmp_path):
    make_rank(tmp_path, "rank7_ascend_pt", 3, [ROW])
    found = discover([tmp_path])
    assert [r.rank for r in found.ranks] == [3]


def test_rank_from_file_name_and_unknown_rank(tmp_path):
    path = make_rank(tmp_path, "a_ascend_pt", None, [ROW])
    (path / "profiler_info.json").rename(path / "profiler_info_5.json")
    make_rank(tmp_path, "b_ascend_pt", None, [ROW])
    found = discover([tmp_path])
    ranks = {r.path.name: (r.rank, r.rank_origin) for r in found.ranks}
    assert ranks["a_ascend_pt"] == (5, "profiler_info_5.json file name")
    assert ranks["b_ascend_pt"][0] is None


def test_rank_from_database_rank_device_map(tmp_path):
    out = tmp_path / "x_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    conn = sqlite3.connect(out / "ascend_pytorch_profiler.db")
    conn.execute("CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER)")
    conn.execute("INSERT INTO RANK_DEVICE_MAP VALUES (6, 2)")
    conn.commit()
    conn.close()
    found = discover([tmp_path])
    assert found.ranks[0].rank == 6 and "RANK_DEVICE_MAP" in found.ranks[0].rank_origin


def test_duplicate_ranks_are_reported(tmp_path):
    make_rank(tmp_path, "run1_ascend_pt", 0, [ROW])
    make_rank(tmp_path, "run2_ascend_pt", 0, [ROW])
    found = discover([tmp_path])
    assert len(found.ranks) == 2
    assert any("rank 0 appears in 2 folders" in w for w in found.warnings)


def test_dropping_the_output_folder_or_the_csv(tmp_path):
    path = make_rank(tmp_path, "r_ascend_pt", 2, [ROW])
    for target in (path, path / "ASCEND_PROFILER_OUTPUT", path / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"):
        found = discover([target])
        assert [r.rank for r in found.ranks] == [2], target


def test_any_folder_name_and_nesting(tmp_path):
    make_rank(tmp_path / "data" / "level2" / "node3", "whatever", 1, [ROW])
    found = discover([tmp_path])
    assert [r.rank for r in found.ranks] == [1]


def test_not_a_profile(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "empty").mkdir()
    found = discover([tmp_path / "notes.txt", tmp_path / "empty", tmp_path / "missing"])
    assert not found.ranks
    assert any("is a file, not a profiler folder" in w for w in found.warnings)
    assert any("no profiler ranks found" in w for w in found.warnings)
    assert any("does not exist" in w for w in found.warnings)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_symlink_loop_terminates(tmp_path):
    (tmp_path / "a").mkdir()
    os.symlink(tmp_path, tmp_path / "a" / "loop")
    make_rank(tmp_path / "a", "r_ascend_pt", 0, [ROW])
    found = discover([tmp_path])
    assert [r.rank for r in found.ranks] == [0]


def test_capture_config_is_recorded(samples):
    found = discover([samples / "msinsight/test/data/pytorch/text/level0"])
    config = found.ranks[0].config
    assert config.profiler_level == "Level0" and config.record_shapes is True and config.export_type == ["text"]
    found = discover([samples / "msinsight/server/src/test/test_data/test_rank_0"])
    assert found.ranks[0].config.aic_metrics == "MemoryL0"
