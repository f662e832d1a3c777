"""The main window driven like a user: drop folders, read the numbers, cancel, export, settings."""

from __future__ import annotations

import json
import tempfile
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.numbers import pct
from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.gui.dialogs.export_dialog import ExportChoice
from mfu_desktop.gui.models.rank_tree import ROLE_KIND
from mfu_desktop.gui.settings import load_settings, settings_path
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui

FA_SAMPLE = "msprof-analyze/test/ut/advisor/compute_advice/data"
FA_FLOPS = 68_719_476_736


def drop_on(widget, paths: list[Path]) -> None:
    """Drag file URLs over ``widget`` and drop them, through the window the way the platform does.

    The events go to the native window (QWidgetWindow), which picks the widget under the
    cursor and walks up to the first one that accepts drops, exactly as for a real drag.
    """
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    window = widget.window()
    pos = widget.mapTo(window, QPoint(5, 5))
    for kind in (QDragEnterEvent, QDragMoveEvent):
        event = kind(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(window.windowHandle(), event)
        assert event.isAccepted(), "the window refused the drag"
    drop = QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window.windowHandle(), drop)


def tree_ranks(window) -> list[str]:
    model = window.profiler.tree_model
    names = []
    for r in range(model.rowCount()):
        root = model.index(r, 0)
        for c in range(model.rowCount(root)):
            index = model.index(c, 0, root)
            if index.data(ROLE_KIND) == "rank":
                names.append(index.data())
    return names


def test_drop_sample_folder_shows_the_engines_numbers(make_window, qtbot, samples):
    window = make_window("--lang", "en")
    folder = samples / FA_SAMPLE
    drop_on(window.calculator.derivation, [folder])  # dropped on a child widget of another tab
    assert window.tabs.currentWidget() is window.profiler
    wait_idle(qtbot, window)
    result = window.profiler.result
    assert result is not None and len(result.ranks) == 1
    assert tree_ranks(window) == ["rank 0"] or len(tree_ranks(window)) == 1

    expected = analyze_paths([folder], AnalysisOptions(), use_cache=False).ranks[0]
    s = expected.summary
    assert window.profiler.card_ops.value.text() == pct(s.mfu_ops)
    assert window.profiler.card_chip.value.text() == "Ascend 910B3"
    assert "Huawei Ascend 910B3" in window.profiler.card_chip.toolTip()

    model = window.profiler.kernel_model
    assert model.rowCount() == len(expected.kernels)
    frame = model.frame
    source = int(((frame[C.OP_TYPE] == "FlashAttentionScore") & (frame[C.DURATION_US] == 410.188)).to_numpy().argmax())
    window.profiler.select_kernel(source)
    row = model.view_row(source)
    keys = model.column_keys()
    assert model.data(model.index(row, keys.index("mfu"))) == pct(float(expected.kernels["mfu"].iloc[source]))
    assert float(model.raw(row, keys.index("flops"))) == FA_FLOPS
    assert "68,719,476,736" in window.profiler.kernel_derivation.toPlainText()

    # "Open in calculator" reproduces the kernel in the calculator
    assert window.profiler.calc_button.isEnabled()
    window.profiler.calc_button.click()
    assert window.tabs.currentWidget() is window.calculator
    window.calculator.recompute()
    assert window.calculator.card_flops.value.text() == "68,719,476,736"
    assert window.calculator.card_achieved.value.text() == "168"  # 167.5 TFLOP/s at 3 significant figures

    # aggregate tables are filled from the same analysis
    assert window.profiler.type_model.rowCount() == len(expected.by_type)
    assert window.profiler.excl_model.rowCount() == len(expected.excluded)


def test_drop_two_rank_folders_and_cluster_node(make_window, qtbot, samples):
    window = make_window("--lang", "en")
    level1 = samples / "msinsight/test/data/pytorch/text/level1"
    drop_on(window.tabs, [level1 / "rank0_ascend_pt", level1 / "rank1_ascend_pt"])
    wait_idle(qtbot, window)
    assert len(window.profiler.result.ranks) == 2
    assert len(tree_ranks(window)) == 2
    model = window.profiler.tree_model
    cluster = model.index(0, 0)  # one cluster node over both dropped rank folders
    assert cluster.data(ROLE_KIND) == "cluster"
    assert window.profiler.tree.currentIndex() == cluster  # several ranks open on the cluster view
    window.profiler.tree.setCurrentIndex(cluster)
    wait_idle(qtbot, window)
    assert window.profiler.title.text().startswith("Cluster")
    assert window.profiler.ranks_model.rowCount() == 2


def test_dropping_a_file_or_nothing_gives_a_message_not_a_crash(make_window, qtbot, tmp_path):
    window = make_window("--lang", "en")
    note = tmp_path / "notes.txt"
    note.write_text("hello")
    drop_on(window.tabs, [note])
    wait_idle(qtbot, window)
    assert window.profiler.info.isVisible()
    assert "is a file, not a profiler folder" in window.profiler.info.label.text()
    empty = tmp_path / "empty"
    empty.mkdir()
    drop_on(window.tabs, [empty])
    wait_idle(qtbot, window)
    assert "No rank could be loaded" in window.profiler.info.label.text()
    window.open_paths([tmp_path / "missing"])
    assert "does not exist" in window.info.label.text()


def test_demo_prediction_fills_results(make_window, qtbot):
    window = make_window("--lang", "en", "--demo", "--tab", "prediction")
    wait_idle(qtbot, window, timeout=120000)
    prediction = window.prediction.prediction
    assert prediction is not None
    targets = window.prediction.selected_targets()
    # the measured source row, then one row per target
    assert window.prediction.summary_model.rowCount() == len(targets) + 1 == len(prediction.targets) + 1
    # the 950 chips have no FP32 cube peak: their bars are drawn as partial (hatched), with the cause
    chart = window.prediction.rel_chart
    assert {"Huawei Ascend 950DT", "Huawei Ascend 950PR"} <= set(chart.partial_devices)
    assert "cube_fp32_tflops" in chart.plot.toolTip()
    keys = window.prediction.summary_model.column_keys()
    row_950 = next(r for r in range(window.prediction.summary_model.rowCount())
                   if window.prediction.summary_model.raw(r, keys.index("device")) == "Huawei Ascend 950DT")
    index = window.prediction.summary_model.index(row_950, keys.index("compute_x"))
    assert "%" in window.prediction.summary_model.data(index)
    assert "cube_fp32_tflops" in window.prediction.summary_model.data(index, Qt.ItemDataRole.ToolTipRole)
    # per-kernel detail for the first target chip (row 1; row 0 is the measured source)
    window.prediction.summary_view.selectRow(1)
    wait_idle(qtbot, window)
    assert window.prediction.detail_model.rowCount() > 0


def test_prediction_model_switch_is_stated_quoted_and_remembered(make_window, qtbot):
    """Issues 13 and 23: the model switch (keyboard) re-predicts, each row names its basis and quotes the expected
    error of this profile's kernel mix, the choice persists, and the seed's original model is one choice away."""
    from PySide6.QtTest import QTest

    window = make_window("--lang", "en", "--demo", "--tab", "prediction")
    wait_idle(qtbot, window, timeout=120000)
    tab = window.prediction
    assert tab.basis.currentData() == "roofline/fitted" and "(default)" in tab.basis.currentText()
    for i in range(tab.targets.count()):
        item = tab.targets.item(i)
        item.setCheckState(Qt.CheckState.Checked if item.text() in ("NVIDIA H100 SXM", "NVIDIA A100 SXM 40GB")
                           else Qt.CheckState.Unchecked)
    wait_idle(qtbot, window, timeout=120000)
    fitted = {t.device: t.predicted_compute_us for t in tab.prediction.targets}
    tab.basis.setFocus()
    QTest.keyClick(tab.basis, Qt.Key.Key_Down)  # the next choice: the roofline model on the achievable basis
    assert tab.basis.currentData() == "roofline/achievable"
    qtbot.waitUntil(lambda: tab.prediction is not None and tab.prediction.basis.name == "achievable", timeout=60000)
    wait_idle(qtbot, window, timeout=120000)
    achievable = {t.device: t for t in tab.prediction.targets}
    # the demo ran on a 910B-class chip with a measured MAMF: the A100 40GB (FlagPerf) changes, the text says so
    a100 = achievable["NVIDIA A100 SXM 40GB"]
    assert a100.basis_text.split(" (")[0] in ("achievable", "compute achievable", "bandwidth achievable")
    assert a100.predicted_compute_us != pytest.approx(fitted["NVIDIA A100 SXM 40GB"])
    model = tab.summary_model
    keys = model.column_keys()
    rows = {model.raw(r, keys.index("device")): r for r in range(model.rowCount())}
    quoted = model.raw(rows["NVIDIA A100 SXM 40GB"], keys.index("expected_error"))
    band = a100.error_band
    assert band is not None and quoted.startswith(f"{band.p10 * 100:+.0f} %".replace("-", "−")) and "median" in quoted
    assert "achievable" in model.raw(rows["NVIDIA A100 SXM 40GB"], keys.index("basis_shown"))
    assert load_settings(settings_path()).prediction_basis == "roofline/achievable"
    window.grab().save(str(Path(tempfile.gettempdir()) / "prediction_model.png"))
    # the original script's model: the last choice
    QTest.keyClick(tab.basis, Qt.Key.Key_End)
    assert tab.basis.currentData() == "seed/advertised" and "original script" in tab.basis.currentText()
    qtbot.waitUntil(lambda: tab.prediction is not None and tab.prediction.basis.model == "seed", timeout=60000)
    wait_idle(qtbot, window, timeout=120000)
    assert tab.prediction.basis.name == "advertised"
    assert any("Seed model" in n for n in tab.notes.text().splitlines())


def test_an_earlier_saved_basis_maps_to_a_model_choice():
    from mfu_desktop.gui.settings import prediction_choice

    assert prediction_choice("advertised") == ("roofline", "fitted")  # the earlier default becomes today's
    assert prediction_choice("achievable") == ("roofline", "achievable")  # a user's switch keeps its basis
    assert prediction_choice("seed/advertised") == ("seed", "advertised")


def test_console_json_csv_and_window_show_the_same_numbers(make_window, qtbot, capsys, tmp_path):
    """Issue 10: one set of rows (core.predict_rows), formatted four ways, on the bundled demo."""
    import csv
    import json

    from mfu_desktop.cli.main import main
    from mfu_desktop.core.paths import demo_profile_dir as demo_profile

    window = make_window("--lang", "en", "--demo", "--tab", "prediction")
    wait_idle(qtbot, window, timeout=120000)
    model = window.prediction.summary_model
    keys = model.column_keys()
    shown = {model.raw(r, keys.index("device")): {k: model.raw(r, keys.index(k)) for k in keys}
             for r in range(model.rowCount())}
    assert main(["predict", str(demo_profile()), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["predict", str(demo_profile()), "--out", str(tmp_path / "out")]) == 0
    console = capsys.readouterr().out
    with (tmp_path / "out" / "performance_prediction.csv").open(encoding="utf-8-sig") as fh:
        rows = {r["device"]: r for r in csv.DictReader(fh)}
    assert len(data["targets"]) == len(shown) - 1 == len(rows) - 1 == 6
    for t in data["targets"]:
        device = t["device"]
        window_row, csv_row = shown[device], rows[device]
        for key in ("predicted_compute_us", "predicted_step_us", "transfer_us", "wait_us", "computing_us",
                    "free_us", "relative_performance", "step_relative_performance", "predicted_share"):
            value = t[key]
            if value is None:
                assert window_row.get(key) in (None, "") or window_row[key] != window_row[key]
                assert csv_row[key] == ""
                continue
            if key == "relative_performance":  # shown as text: "1.90×", "(99.8 %)" when partial
                assert window_row["compute_x"].startswith(f"{value:.2f}×"), device
                assert ("%" in window_row["compute_x"]) == t["partial"], device
            else:
                assert float(window_row[key]) == pytest.approx(value, rel=1e-9), (device, key)
            assert float(csv_row[key]) == pytest.approx(value, rel=1e-9), (device, key)
        # the console prints the compute time per step (one decimal) and the speed-up (two)
        line = next(x for x in console.splitlines() if x.startswith(f"{device[:32]:<32} "))
        assert f"{t['predicted_compute_us']:,.1f}" in line
        assert f"{t['relative_performance']:.2f}×" in line
        if t["slowest_rank"] is not None:
            assert window_row["slowest"] == str(t["slowest_rank"]["rank"])
            assert float(csv_row["slowest_rank"]) == t["slowest_rank"]["rank"]
            step_us = t["slowest_rank"]["step_us"]
            if step_us is None:  # step not predicted (no cpu coefficient): the rank with the longest compute
                assert window_row["slowest_step_us"] != window_row["slowest_step_us"]  # NaN: an empty cell
            else:
                assert float(window_row["slowest_step_us"]) == pytest.approx(step_us)
                assert f"slowest rank {t['slowest_rank']['rank']}: step {step_us:,.1f} µs" in console
    # the baseline line: compute per step, mean per rank (not a sum over ranks and steps)
    base = data["baseline_compute_us"]
    assert f"compute-class time {base:,.1f} µs" in console
    assert float(rows[next(d for d in rows if d.endswith("(measured)"))]["predicted_compute_us"]) == \
        pytest.approx(base)


def test_cancel_stops_a_load_and_drops_its_result(make_window, qtbot, tmp_path):
    from mfu_desktop.demo import generate

    big = generate(tmp_path / "big", ranks=4, steps=2, kernels=60_000)
    window = make_window("--lang", "en")
    window.open_paths([big])
    assert window.is_busy()
    qtbot.waitUntil(window.runner.busy, timeout=5000)  # the parse has started
    assert window.cancel_button.isVisible()
    window.cancel_work()
    assert window.runner.wait(60000)
    qtbot.wait(50)
    assert window.runner.running_jobs() == 0
    assert window.profiler.result is None  # the cancelled job's result never reached the screen
    assert not window.runner.busy()
    assert not [t for t in threading.enumerate() if t.name.startswith("ThreadPoolExecutor") and t.is_alive()]


def test_new_drop_mid_load_wins(make_window, qtbot, samples):
    window = make_window("--lang", "en")
    window.open_paths([demo_profile_dir()], remember=False)
    folder = samples / FA_SAMPLE
    window.open_paths([folder])
    wait_idle(qtbot, window, timeout=120000)
    assert [r.folder.path for r in window.profiler.result.ranks] == [folder]


def test_export_writes_tables_charts_and_refuses_the_profile_folder(make_window, qtbot, tmp_path):
    window = make_window("--lang", "en", "--demo")
    wait_idle(qtbot, window, timeout=120000)
    target = tmp_path / "export"
    window.export_to(ExportChoice(target, ["csv"], ["png", "svg"]))
    wait_idle(qtbot, window)
    names = {p.name for p in target.iterdir()}
    assert {"kernels.csv", "by_type.csv", "summary.md", "summary.json", "hot_operators.png", "mfu_scatter.svg",
            "step_breakdown.png", "relative_performance.png", "roofline.png", "roofline.svg"} <= names
    assert not [n for n in names if n.endswith(".tmp")]
    svg = (target / "mfu_scatter.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and len(svg) > 2000
    from PySide6.QtGui import QImage

    png = QImage(str(target / "hot_operators.png"))
    assert png.width() >= 800 and png.height() > 100
    report = (target / "summary.md").read_text(encoding="utf-8")
    assert "top kernels by lost time (measured − roofline-attainable)" in report and "Roofline: memory-bound" in report
    header = (target / "kernels.csv").read_text(encoding="utf-8").splitlines()[0]
    assert all(c in header for c in ("bytes", "achieved_gbs", "bw_util", "intensity", "attainable_us", "bound"))
    inside = window.profiler.result.ranks[0].folder.path / "export"
    window.export_to(ExportChoice(inside, ["csv"], ["png"]))
    assert "refusing to write into the profiler folder" in window.info.label.text()
    assert not inside.exists()


def test_settings_survive_a_restart(make_window, qtbot, samples):
    window = make_window("--lang", "en")
    folder = samples / FA_SAMPLE
    window.open_paths([folder])
    wait_idle(qtbot, window)
    window.profiler.chip_choice.setCurrentIndex(window.profiler.chip_choice.findData("Huawei Ascend 910B4"))
    window.profiler.fa_backward.setCurrentIndex(window.profiler.fa_backward.findData("executed"))
    wait_idle(qtbot, window)
    window.resize(1234, 777)
    window.shutdown()
    saved = json.loads(settings_path().read_text(encoding="utf-8"))
    assert saved["recent_folders"][0] == str(folder)
    assert saved["fa_backward"] == "executed"
    assert "Huawei Ascend 910B4" in saved["chip_per_folder"].values()
    again = make_window("--lang", "en")
    assert again.profiler.fa_backward.currentData() == "executed"
    again.open_paths([folder])
    assert again.profiler.chip_choice.currentData() == "Huawei Ascend 910B4"
    wait_idle(qtbot, again)
    assert again.profiler.result.ranks[0].summary.chip == "Huawei Ascend 910B4"


def test_corrupt_settings_start_with_defaults_backup_and_one_notice(make_window, qtbot):
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    window = make_window("--lang", "en")
    assert "Settings file was unreadable" in window.info.label.text()
    backups = list(path.parent.glob("settings.json.bad-*"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == "{not json"
    window.shutdown()
    assert load_settings().notice == ""  # said once: the next start is clean


def test_theme_and_language_menus(make_window, qtbot):
    window = make_window("--lang", "en", "--demo")
    wait_idle(qtbot, window, timeout=120000)
    window.set_theme("dark")
    assert QApplication.instance().palette().window().color().lightness() < 100
    window.set_theme("light")
    window.set_language("zh_CN")
    assert load_settings().language == "zh_CN"
    assert "next time" in window.info.label.text()


def test_screenshot_command_writes_a_png_per_tab(qapp, tmp_path):
    from PySide6.QtGui import QImage

    from mfu_desktop.gui.app import main

    for tab in ("calculator", "profiler", "prediction"):
        out = tmp_path / f"{tab}.png"
        assert main(["--demo", "--lang", "en", "--tab", tab, "--screenshot", str(out), "--size", "1200x800"]) == 0
        image = QImage(str(out))
        assert (image.width(), image.height()) == (1200, 800)


def test_prediction_export_writes_the_three_files(make_window, qtbot, tmp_path):
    window = make_window("--lang", "en", "--demo")
    wait_idle(qtbot, window, timeout=120000)
    window.prediction.export_to(tmp_path / "pred")
    wait_idle(qtbot, window, timeout=120000)
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == [
        "architecture_rules.csv", "kernel_prediction_detail.csv", "performance_prediction.csv"]
    assert "Wrote" in window.status_label.text()
