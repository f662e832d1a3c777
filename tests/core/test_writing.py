"""Writing files safely (core/writing.py): atomic, formula-neutralised, never inside a profile."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest

from mfu_desktop.core.writing import (
    ExportError,
    atomic_write,
    neutralize,
    refuse_profile_destination,
    write_csv,
    write_fast_csv,
    write_json,
    write_text,
)


def test_formula_cells_get_an_apostrophe_numbers_and_plain_text_do_not():
    frame = pd.DataFrame({
        "name": ["=HYPERLINK(\"x\")", "+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3", "\tTAB", "MatMulV2", None],
        "time": [1.0, -2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        "kind": pd.Categorical(["=x", "ok", "ok", "ok", "ok", "ok", "ok"]),
    })
    out = neutralize(frame)
    assert list(out["name"])[:6] == ["'=HYPERLINK(\"x\")", "'+cmd|' /C calc'!A0", "'@SUM(A1)", "'-2+3", "'\tTAB",
                                     "MatMulV2"]
    assert pd.isna(out["name"].iloc[6])
    assert list(out["time"]) == [1.0, -2.0, 3.0, 4.0, 5.0, 6.0, 7.0]  # a negative number is a number
    assert list(out["kind"]) == ["'=x", "ok", "ok", "ok", "ok", "ok", "ok"]
    assert isinstance(out["kind"].dtype, pd.CategoricalDtype)
    assert frame["name"].iloc[0] == "=HYPERLINK(\"x\")"  # the caller's frame is not changed


def test_formula_like_column_headers_are_neutralised_too():
    assert list(neutralize(pd.DataFrame({"=cmd": [1], "ok": [2]})).columns) == ["'=cmd", "ok"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path):
    target = tmp_path / "summary.md"
    target.write_text("old")

    def broken(p: Path) -> None:
        p.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(ExportError, match="No space left on device"):
        atomic_write(target, broken)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.md"]


def test_an_interrupted_write_cleans_up_and_re_raises(tmp_path: Path):
    def interrupted(p: Path) -> None:
        p.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "a.csv", interrupted)
    assert list(tmp_path.iterdir()) == []


def test_csv_has_a_bom_for_spreadsheets_and_the_fast_writer_gives_the_same_values(tmp_path: Path):
    frame = pd.DataFrame({"type": ["矩阵乘 MatMul", "=bad"], "time_us": [1.5, 2.0], "count": [3, 4]})
    slow = write_csv(frame, tmp_path / "slow.csv").read_bytes()
    fast = write_fast_csv(frame, tmp_path / "fast.csv").read_bytes()
    assert slow.startswith(b"\xef\xbb\xbf") and fast.startswith(b"\xef\xbb\xbf")

    def cells(raw: bytes) -> list[list[str]]:
        return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))

    assert cells(slow) == [["type", "time_us", "count"], ["矩阵乘 MatMul", "1.5", "3"], ["'=bad", "2.0", "4"]]
    # Arrow writes numbers in their shortest form (2 rather than 2.0): the same values, text identical
    assert cells(fast) == [["type", "time_us", "count"], ["矩阵乘 MatMul", "1.5", "3"], ["'=bad", "2", "4"]]


def test_json_and_text_round_trip(tmp_path: Path):
    assert write_json({"mfu": 0.5, "芯片": "910B2"}, tmp_path / "a.json").read_text(encoding="utf-8").count("910B2")
    assert write_text("µs per step\n", tmp_path / "b.md").read_text(encoding="utf-8") == "µs per step\n"


def test_nothing_is_written_inside_a_profile_folder(tmp_path: Path):
    profile = tmp_path / "node0_ascend_pt"
    (profile / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    for inside in (profile, profile / "ASCEND_PROFILER_OUTPUT", profile / "new" / "deeper"):
        with pytest.raises(ExportError, match="refusing to write into"):
            refuse_profile_destination(inside, [profile])
    with pytest.raises(ExportError, match="is inside it"):  # the cluster root holding the rank
        refuse_profile_destination(tmp_path, [profile])
    refuse_profile_destination(tmp_path / "exports", [profile])  # a new folder beside the rank: fine


def test_markdown_from_a_profile_is_shown_literally():
    from mfu_desktop.core.writing import markdown_code, markdown_text

    assert markdown_text("a|b [x](javascript:alert(1)) <img> # *e*\nnext") == \
        r"a\|b \[x\](javascript:alert(1)) \<img\> \# \*e\* next"
    assert markdown_code("4096,`a|b`") == r"`` 4096,`a\|b` ``"
    assert markdown_code("4096,4096;4096") == "`4096,4096;4096`"


def test_summary_md_escapes_what_comes_from_the_profile(tmp_path: Path):
    """Before: an operator type or a warning with ``|`` or a link went into summary.md as Markdown."""
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.analyze import analyze_paths
    from mfu_desktop.core.report.analysis_export import markdown_summary
    from tests.helpers import kernel_row, make_rank

    evil = "MatMulV2|[click](javascript:alert(1))<img src=x>"
    make_rank(tmp_path, "r_ascend_pt", 0, [kernel_row("mm", evil, "AI_CORE", "1767225600000001.000", 800.0,
                                                       "4096,4096;4096,4096", "DT_BF16;DT_BF16", "4096,4096",
                                                       "DT_BF16")])
    text = markdown_summary(analyze_paths([tmp_path], AnalysisOptions(chip="910B2"), use_cache=False))
    assert r"| MatMulV2\|\[click\] |" in text  # the short display name, escaped: "|" no longer splits the row
    assert "[click](" not in text and "<img" not in text.replace("\\<img", "")  # only escaped forms, if any
