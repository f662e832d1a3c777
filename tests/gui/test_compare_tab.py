"""The Compare tab: the loaded profile against a modified copy, the table, cards and charts, the export."""

from __future__ import annotations

import csv
import shutil

import pytest

from mfu_desktop.core.paths import demo_profile_dir
from tests.gui.conftest import wait_idle


@pytest.fixture
def slowed_copy(tmp_path):
    """The demo profile with every MatMulV2 kernel 1.5× slower (the same step trace)."""
    new = tmp_path / "slowed"
    shutil.copytree(demo_profile_dir(), new)
    for path in new.rglob("kernel_details.csv"):
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        header = rows[0]
        t, d = header.index("Type"), header.index("Duration(us)")
        for row in rows[1:]:
            if row[t] == "MatMulV2":
                row[d] = f"{float(row[d]) * 1.5:.3f}"
        with path.open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh, lineterminator="\n").writerows(rows)
    return new


def test_compare_tab_shows_what_changed_and_exports(make_window, qtbot, slowed_copy, tmp_path):
    window = make_window("--lang", "en", "--demo", "--tab", "compare")
    wait_idle(qtbot, window)
    tab = window.compare
    assert "demo" in tab.base_label.text()
    tab.set_new(slowed_copy)
    wait_idle(qtbot, window)
    c = tab.comparison
    assert c is not None and not c.chip_vs_chip
    top = tab.model.raw(0, tab.model.column_keys().index("type"))
    assert top == "MatMulV2"  # the biggest change first
    rows = c.rows[c.rows["type"] == "MatMulV2"]
    assert (rows["ratio"].round(6) == 1.5).all() and (rows["level"] == "same shape").all()
    for mfu, why in zip(rows["base_mfu"], rows["why"]):  # with an MFU: efficiency; without: time per call
        assert ("same shape, MFU" in why) if mfu == mfu else why == "same shape, 1.5× the time per call"
    assert tab.card_step.full_value == "1×"  # the step trace did not change
    assert tab.waterfall.labels[0] == "BASE step"
    written = tab.export_to(tmp_path / "export")
    names = {p.name for p in written}
    assert {"comparison.csv", "comparison.xlsx", "comparison.md", "waterfall.png", "base_vs_new.svg"} <= names
    # never into a profile
    assert tab.export_to(slowed_copy / "inside") == []
    assert "refusing to write into the profiler folder" in tab.info.label.text()
