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
    assert "refusing to write into the profiler folder" in tab.info.label.text()


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
    assert problems == [] and {(f.model, f.basis) for f in factors} == {
        (m, b) for m in ("roofline", "seed") for b in ("advertised", "achievable", "fitted")}
    matmul = next(f for f in factors if (f.model, f.basis) == ("seed", "advertised") and f.category == "matmul")
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


def _gpu_pair(tmp_path):
    """BASE on an H100, NEW on a GPU the catalog does not know: a GEMM as cuBLAS runs it and a long kernel name."""
    from tests.gpu_traces import H100, Op, mm_op, write_trace

    mul = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<"
           "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >("
           "at::TensorIteratorBase&)::{lambda(int)#1}>(int)")
    ops = [mm_op(1024, 1024, 1024, [("sm90_xmma_gemm_bf16bf16_bf16f32", 20.0), ("Memset (Device)", 2.0, "gpu_memset")]),
           Op(None, [], [], [(mul, 5.0)])]
    (tmp_path / "b").mkdir()
    (tmp_path / "n").mkdir()
    base = write_trace(tmp_path / "b" / "h100.pt.trace.json", H100, ops)
    new = write_trace(tmp_path / "n" / "other.pt.trace.json", {**H100, "name": "NVIDIA Mystery GPU"}, ops)
    return base, new, mul


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_new_chip_not_confirmed_says_how_and_the_picker_names_it(make_window, qtbot, tmp_path, lang):
    """Issue 21 §2: "9.87 % → –" says how to name NEW's chip; choosing it (mouse) gives NEW's MFU."""
    from PySide6.QtTest import QTest

    base, new, mul = _gpu_pair(tmp_path)
    window = make_window("--lang", lang, str(base), "--tab", "compare", "--size", "1024x700")
    wait_idle(qtbot, window)
    tab = window.compare
    tab.set_new(new.parent)
    wait_idle(qtbot, window)
    c = tab.comparison
    assert c.new.unconfirmed and c.base.unconfirmed is None
    # BASE: 2·1024³ / 989.4e12 = 2.170 µs over 22 µs (GEMM + memset) = 9.87 %; NEW: no peak
    assert tab.card_ops.full_value == "9.87 % → –"
    assert tab.card_pred.full_value != tab.tr("same chip")  # NEW's chip is unknown, not the same
    hint = tab.card_ops.full_detail
    assert hint == tab._mfu_note(c) and hint != tab.tr("BASE → NEW")
    if lang == "en":
        assert hint == "NEW's chip is not confirmed: choose it in NEW's chip"
    # the table shows display names, the full name in the tooltip; op calls and kernels apart
    keys = tab.model.column_keys()
    row = next(r for r in range(tab.model.rowCount()) if tab.model.raw(r, keys.index("type")) == mul)
    cell = tab.model.index(row, keys.index("type"))
    assert tab.model.data(cell) == "elementwise_kernel<MulFunctor<bf16>>"
    assert tab.model.data(cell, Qt.ItemDataRole.ToolTipRole) == mul
    mm = next(r for r in range(tab.model.rowCount()) if tab.model.raw(r, keys.index("type")) == "aten::mm")
    assert tab.model.raw(mm, keys.index("base_count")) == 1 and tab.model.raw(mm, keys.index("base_kernels")) == 2
    # choose NEW's chip with the mouse (open the list, click the row): the comparison runs again, NEW gets its MFU
    qtbot.mouseClick(tab.new_chip, Qt.MouseButton.LeftButton)
    view = tab.new_chip.view()
    qtbot.waitUntil(view.isVisible)
    index = view.model().index(tab.new_chip.findData("NVIDIA H100 SXM"), 0)
    view.scrollTo(index)
    qtbot.wait(400)  # a combo box ignores a release right after its list opened
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    assert tab.new_chip_choice() == "NVIDIA H100 SXM"
    wait_idle(qtbot, window)
    assert tab.comparison.new.unconfirmed is None and tab.card_ops.full_value == "9.87 % → 9.87 %"


def test_bases_assumed_chip_does_not_become_news(make_window, qtbot, tmp_path):
    """The Profiler tab's Assumptions chip is BASE's: NEW is analysed with its own (detected) chip."""
    from dataclasses import replace

    base, new, _ = _gpu_pair(tmp_path)
    window = make_window("--lang", "en", str(base), "--tab", "compare")
    wait_idle(qtbot, window)
    tab = window.compare
    tab.base = replace(tab.base, options=replace(tab.base.options, chip="NVIDIA H100 PCIe"))
    tab.set_new(new.parent)
    wait_idle(qtbot, window)
    assert tab.new.options.chip is None and tab.comparison.new.unconfirmed
