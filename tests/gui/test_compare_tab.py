"""The Compare tab: the loaded profile against a modified copy, the table, cards and charts, the export."""

from __future__ import annotations

import csv
import shutil

import pytest
from PySide6.QtCore import Qt

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
    assert "refusing to write into" in tab.info.label.text()


def test_chip_vs_chip_saves_a_calibration_that_predictions_name(make_window, qtbot, slowed_copy, tmp_path,
                                                                 monkeypatch):
    """Issue 13: the Compare view's chip-vs-chip mode keeps per-category factors for the pair (both bases)."""
    from dataclasses import replace

    from mfu_desktop.core.predict.calibration_store import read_factors

    monkeypatch.setenv("MFU_DESKTOP_DATA_DIR", str(tmp_path / "data"))
    window = make_window("--lang", "en", "--demo", "--tab", "compare")
    wait_idle(qtbot, window)
    tab = window.compare
    tab.set_new(slowed_copy)
    wait_idle(qtbot, window)
    assert not tab.calibrate_button.isEnabled()  # same chip: nothing to calibrate
    # NEW treated as measured on an A100 (the demo is synthetic: the chips are named, not detected)
    tab.comparison = replace(tab.comparison, chips=("Huawei Ascend 910B", "NVIDIA A100 SXM 40GB"))
    messages: list[str] = []
    tab.status_message.connect(messages.append)
    tab.save_calibration()
    wait_idle(qtbot, window)
    factors, problems = read_factors(tmp_path / "data" / "calibration.csv")
    assert problems == [] and {f.basis for f in factors} == {"advertised", "achievable"}
    matmul = next(f for f in factors if f.basis == "advertised" and f.category == "matmul")
    assert matmul.source == "Huawei Ascend 910B" and matmul.target == "NVIDIA A100 SXM 40GB"
    # measured = BASE with MatMulV2 1.5× slower; predicted = BASE × the advertised ratio 353.9/312 (pipe counters
    # split some time onto the bandwidth ratio, so the factor is near, not exactly, 1.5 × 312/353.9)
    assert 1.0 < matmul.factor < 1.5 * 1600 / 1555
    assert any(m.startswith("Saved calibration Huawei Ascend 910B → NVIDIA A100 SXM 40GB (matmul ×") and
               m.endswith("calibration.csv") for m in messages), messages
    # the Prediction tab (its next run) names the saved factor for this pair
    window.tabs.setCurrentWidget(window.prediction)
    wait_idle(qtbot, window, timeout=120000)
    for i in range(window.prediction.targets.count()):
        item = window.prediction.targets.item(i)
        item.setCheckState(Qt.CheckState.Checked if item.text() == "NVIDIA A100 SXM 40GB" else Qt.CheckState.Unchecked)
    wait_idle(qtbot, window, timeout=120000)
    target = window.prediction.prediction.targets[0]
    assert target.device == "NVIDIA A100 SXM 40GB"
    assert any(r.startswith("calibration matmul ×") for r in target.rules)
