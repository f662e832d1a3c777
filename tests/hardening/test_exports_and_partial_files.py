"""Exports and folders still being written.

- Cells that start like a spreadsheet formula (=, +, -, @) are neutralised in CSV and XLSX.
- An export to an unwritable place is a clear error and leaves no partial file behind.
- A folder without its analyse.done marker, or whose CSV grows while it is read, is reported
  as incomplete rather than analysed as if whole.
"""

from __future__ import annotations

import csv
import threading
import time

import openpyxl
import pandas as pd
import pytest

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.report.analysis_export import export_analysis
from mfu_desktop.core.writing import ExportError, atomic_write, write_csv, write_xlsx
from tests.helpers import kernel_row, make_rank

GOOD = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512", "DT_BF16;DT_BF16",
                  "128,512", "DT_BF16")
NASTY_NAMES = ["=HYPERLINK(\"http://x\",\"click\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)"]


def formula_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "name": NASTY_NAMES,
        "type": pd.Categorical(NASTY_NAMES),
        "value": [1.0, -2.0, 3.0, -4.5],  # numbers stay numbers, minus signs included
        "=col": ["a", "b", "c", "d"],
    })


def test_csv_export_neutralises_formulas(tmp_path):
    path = write_csv(formula_frame(), tmp_path / "t.csv")
    with path.open(encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["name", "type", "value", "'=col"]
    for row, original in zip(rows[1:], NASTY_NAMES):
        assert row[0] == "'" + original and row[1] == "'" + original
    assert [r[2] for r in rows[1:]] == ["1.0", "-2.0", "3.0", "-4.5"]


def test_xlsx_export_neutralises_formulas(tmp_path):
    path, _ = write_xlsx({"kernels": formula_frame()}, tmp_path / "t.xlsx")
    book = openpyxl.load_workbook(path)
    sheet = book["kernels"]
    cells = [[c.value for c in row] for row in sheet.iter_rows()]
    assert cells[0][-1] == "'=col"
    for row, original in zip(cells[1:], NASTY_NAMES):
        assert row[0] == "'" + original and row[1] == "'" + original
    assert all(c.data_type != "f" for row in sheet.iter_rows() for c in row), "a cell is stored as a formula"
    assert [r[2] for r in cells[1:]] == [1.0, -2.0, 3.0, -4.5]


def test_kernel_names_from_a_profile_are_neutralised_end_to_end(tmp_path):
    row = kernel_row("=cmd|' /C calc'!A0", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512",
                     "DT_BF16;DT_BF16", "128,512", "DT_BF16")
    make_rank(tmp_path / "p", "a_ascend_pt", 0, [row])
    result = analyze_paths([tmp_path / "p"], AnalysisOptions(chip="910B2"), use_cache=False)
    export_analysis(result, tmp_path / "out", formats=("csv", "xlsx"))
    text = (tmp_path / "out" / "kernels.csv").read_text(encoding="utf-8-sig")
    assert "'=cmd" in text and ",=cmd" not in text


def test_unwritable_target_is_a_clear_error_and_leaves_nothing(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    with pytest.raises(ExportError, match="cannot write to"):
        write_csv(formula_frame(), blocker / "sub" / "t.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_failure_while_writing_leaves_no_partial_file(tmp_path):
    target = tmp_path / "big.csv"

    def half_then_fail(path):
        path.write_text("half of the rows…")
        raise OSError(28, "No space left on device")

    with pytest.raises(ExportError, match="No space left on device"):
        atomic_write(target, half_then_fail)
    assert list(tmp_path.iterdir()) == []  # neither the target nor the temporary file


def test_existing_file_survives_a_failed_rewrite(tmp_path):
    target = tmp_path / "summary.md"
    target.write_text("the previous report")

    def fail(path):
        path.write_text("partial")
        raise OSError(5, "Input/output error")

    with pytest.raises(ExportError):
        atomic_write(target, fail)
    assert target.read_text() == "the previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.md"]


def test_missing_analyse_done_is_reported_incomplete(tmp_path):
    make_rank(tmp_path, "a_ascend_pt", 0, [GOOD], done=False)
    r = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False).ranks[0]
    assert any("analyse.done marker absent" in note for note in r.data.incomplete)
    assert any("analyse.done" in w for w in r.warnings)


def test_csv_growing_while_read_is_reported_incomplete(tmp_path, monkeypatch):
    rank = make_rank(tmp_path, "a_ascend_pt", 0, [GOOD] * 50)
    csv_path = rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    from mfu_desktop.core.readers.ascend import read as ascend

    real_read = ascend._read_kernels

    def read_while_the_profiler_appends(folder, data):
        table = real_read(folder, data)
        with csv_path.open("a", encoding="utf-8") as fh:  # the profiler writes more rows meanwhile
            fh.write(GOOD + "\n")
        return table

    monkeypatch.setattr(ascend, "_read_kernels", read_while_the_profiler_appends)
    r = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False).ranks[0]
    assert any("changed while it was read" in note for note in r.data.incomplete)
    assert any("changed while it was read" in w for w in r.warnings)


def test_really_concurrent_writer(tmp_path):
    """A thread appends rows while the analysis runs: a value and the incomplete flag, never a crash."""
    rank = make_rank(tmp_path, "a_ascend_pt", 0, [GOOD] * 20000)
    csv_path = rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    stop = threading.Event()

    def writer():
        with csv_path.open("a", encoding="utf-8") as fh:
            while not stop.is_set():
                fh.write(GOOD + "\n")
                fh.flush()
                time.sleep(0.0005)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        result = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False)
    finally:
        stop.set()
        thread.join()
    r = result.ranks[0]
    assert r.summary.countable_kernels >= 20000
    assert r.data.incomplete, "a file that grew during the read was presented as whole"
