"""The Timeline view with real mouse and keyboard events: zoom, pan, hover, click, linked selection, ranks, export."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from mfu_desktop.core.analysis.grouping import group_rows
from mfu_desktop.core.readers import columns as C
from mfu_desktop.demo import generate, write_kineto_trace
from mfu_desktop.gui.charts.timeline_nav import KEY_PAN, KEY_ZOOM
from mfu_desktop.gui.charts.timeline_raster import HIGHLIGHT_RGB, SUB_ROWS
from mfu_desktop.gui.charts.timeline_scene import HOST, KERNELS
from tests.gui.conftest import wait_idle
from tests.helpers import check_trace_event_format

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    """A 2-rank demo-like profile (rank 1 slower): a window on it opens in a few seconds."""
    root = tmp_path_factory.mktemp("timeline") / "job"
    generate(root, ranks=2, steps=2)
    return str(root)


def open_timeline(make_window, qtbot, *argv: str):
    window = make_window(*argv, "--tab", "profiler", "--view", "timeline")
    wait_idle(qtbot, window)
    view = window.profiler.view_pages["timeline"]
    qtbot.waitUntil(lambda: view.scene is not None, timeout=30000)
    view.chart.redraw_now()
    return window, view


def widget_point(chart, t_us: float, row: float) -> QPoint:
    """Where a time (µs) and a row are on the plot's viewport."""
    scene_point = chart.vb.mapViewToScene(QPointF(t_us * 1e-6, row))
    return chart.plot.mapFromScene(scene_point)


def kernel_in_view(view, lane: str | None = None) -> tuple[int, int]:
    """A kernel drawn at least 6 px wide (its row in the frame, its track)."""
    chart, scene = view.chart, view.scene
    t0, t1 = chart.time_range_us()
    px = (t1 - t0) / chart.vb.width()
    for i, track in enumerate(scene.tracks):
        if track.kind != KERNELS or (lane and track.label != lane):
            continue
        wide = np.flatnonzero((track.index.end - track.index.start) > 6 * px)
        if len(wide):
            return int(track.rows[wide[0]]), i
    raise AssertionError("no kernel wide enough on screen")


def test_one_rank_lanes_keyboard_wheel_drag_steps_and_fit(make_window, qtbot, profile):
    _, view = open_timeline(make_window, qtbot, profile, "--lang", "en", "--rank", "0")
    labels = [t.label for t in view.scene.tracks]
    assert labels[:2] == ["steps", "breakdown"]
    assert "AI_CORE · stream 2" in labels and labels[-1] == "HCCL"  # communication last
    assert "lost" in view.legend.text() and "computing" in view.legend.text()
    chart = view.chart
    assert chart.image.image is not None and chart.image.image[..., 3].max() == 255
    # W zooms in around the middle, D pans right by a fifth, A back, S out
    t0, t1 = chart.time_range_us()
    chart.plot.setFocus()
    QTest.keyClick(chart.plot, Qt.Key.Key_W)
    a0, a1 = chart.time_range_us()
    assert a1 - a0 == pytest.approx((t1 - t0) * KEY_ZOOM, rel=1e-6)
    assert (a0 + a1) / 2 == pytest.approx((t0 + t1) / 2, rel=1e-6)
    QTest.keyClick(chart.plot, Qt.Key.Key_D)
    b0, _ = chart.time_range_us()
    assert b0 - a0 == pytest.approx((a1 - a0) * KEY_PAN, rel=1e-6)
    QTest.keyClick(chart.plot, Qt.Key.Key_A)
    QTest.keyClick(chart.plot, Qt.Key.Key_S)
    c0, c1 = chart.time_range_us()
    assert c1 - c0 == pytest.approx(t1 - t0, rel=1e-6)
    # Ctrl+wheel: two notches zoom by 0.8² around the cursor, which keeps its time
    at = t0 + (t1 - t0) * 0.25
    pos = widget_point(chart, at, 3.5)
    wheel = QWheelEvent(QPointF(pos), QPointF(chart.plot.viewport().mapToGlobal(pos)), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.ControlModifier, Qt.ScrollPhase.NoScrollPhase,
                        False)
    QApplication.sendEvent(chart.plot.viewport(), wheel)
    z0, z1 = chart.time_range_us()
    assert z1 - z0 == pytest.approx((t1 - t0) * 0.8 ** 2, rel=0.02)
    assert z0 + (z1 - z0) * 0.25 == pytest.approx(at, abs=(t1 - t0) * 0.01)
    # a drag 200 px to the left pans by 200 px of time, never zooms
    start = widget_point(chart, z0 + (z1 - z0) * 0.6, 3.5)
    QTest.mousePress(chart.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for step in range(1, 11):
        QTest.mouseMove(chart.plot.viewport(), start - QPoint(20 * step, 0))
    QTest.mouseRelease(chart.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       start - QPoint(200, 0))
    d0, d1 = chart.time_range_us()
    assert d1 - d0 == pytest.approx(z1 - z0, rel=1e-6)
    assert d0 - z0 == pytest.approx(200 / chart.vb.width() * (z1 - z0), rel=0.1)
    # the step selector zooms to the step; Fit shows everything again
    index = view.step_choice.findData("2")
    view.step_choice.setCurrentIndex(index)
    view.step_choice.activated.emit(index)
    window_2 = view.scene.steps[view.scene.steps["step"] == "2"].iloc[0]
    s0, s1 = chart.time_range_us()
    pad = (window_2["end_us"] - window_2["start_us"]) * 0.02
    assert s0 == pytest.approx(window_2["start_us"] - pad) and s1 == pytest.approx(window_2["end_us"] + pad)
    qtbot.mouseClick(view.fit_button, Qt.MouseButton.LeftButton)
    assert chart.time_range_us() == pytest.approx((t0, t1))
    # another colouring keeps the zoom; its legend follows
    chart.plot.setFocus()
    QTest.keyClick(chart.plot, Qt.Key.Key_W)
    zoomed = chart.time_range_us()
    view.color_by.setCurrentIndex(view.color_by.findData("family"))
    qtbot.waitUntil(lambda: view.scene.mode == "family", timeout=20000)
    assert chart.time_range_us() == pytest.approx(zoomed) and "matmul" in view.legend.text()


def test_hover_click_highlight_and_export(make_window, qtbot, profile, tmp_path):
    window, view = open_timeline(make_window, qtbot, profile, "--lang", "en", "--rank", "0")
    chart, profiler = view.chart, window.profiler
    # hovering a kernel says what it loses; a click selects it in the Kernels table with its derivation
    row, track = kernel_in_view(view, "AI_CORE · stream 2")
    middle = (view.scene.kernel_start[row] + view.scene.kernel_end[row]) / 2
    QTest.mouseMove(chart.plot.viewport(), widget_point(chart, middle, track + 0.5))
    qtbot.waitUntil(lambda: chart.tip_text != "")
    assert chart.tip_text.startswith(str(view.scene.kernels[C.NAME].iloc[row]))
    assert "MFU" in chart.tip_text and "lost" in chart.tip_text and "AI_CORE · stream 2" in chart.tip_text
    QTest.mouseClick(chart.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     widget_point(chart, middle, track + 0.5))
    wait_idle(qtbot, window)
    assert profiler.tabs.currentWidget() is profiler.view_pages["kernels"]
    assert profiler.kernel_model.source_row(profiler.kernel_view.currentIndex().row()) == row
    assert "MFU" in profiler.kernel_derivation.toPlainText()
    assert chart.selected == row  # the timeline outlines it
    # a click on a hot-operator bar highlights that group's kernels in the timeline
    profiler.show_view("charts")
    wait_idle(qtbot, window)
    hot = profiler.hot_chart
    vb = hot.plot.getPlotItem().getViewBox()
    table = profiler._hot_tables["lost_us"]
    bar = QPointF(float(table["lost_us"].iloc[1]) * 1e-6 / 2, 1.0)  # the middle of the second bar
    QTest.mouseClick(hot.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     hot.plot.mapFromScene(vb.mapViewToScene(bar)))
    expected = group_rows(profiler.current.kernels, str(table["type"].iloc[1]), str(table["input_shapes"].iloc[1]),
                          str(table["klass"].iloc[1]))
    assert len(expected) > 0
    profiler.show_view("timeline")
    qtbot.waitUntil(lambda: chart.highlights is not None)
    assert sum(len(s) for s, _ in chart.highlights.values()) == len(expected) and "Highlighted" in view.notes.text()
    chart.redraw_now()
    track = int(view.scene.kernel_track[expected[0]])
    first, _ = chart._visible_tracks()
    marker_row = chart.image.image[(track - first) * SUB_ROWS]  # the marker line above the highlighted kernels
    assert (marker_row[:, :3] == HIGHLIGHT_RGB).all(axis=1).any()
    # selecting a row of the By type table highlights its kernels too
    type_view = next(v for v in profiler.tabs.findChildren(type(profiler.kernel_view))
                     if v.model() is profiler.type_model)
    type_view.setCurrentIndex(profiler.type_model.index(0, 0))
    first_type = str(profiler.type_model.frame.iloc[profiler.type_model.source_row(0)]["type"])
    qtbot.waitUntil(lambda: first_type in view.notes.text())
    assert sum(len(s) for s, _ in chart.highlights.values()) == len(group_rows(profiler.current.kernels,
                                                                               first_type))
    # Export → a Chrome trace outside the profile; inside it is refused
    out = tmp_path / "rank0.json"
    view.export_to(out)
    wait_idle(qtbot, window)
    data = json.loads(out.read_text(encoding="utf-8"))
    check_trace_event_format(data)
    assert len([e for e in data["traceEvents"] if e.get("cat") == "kernel"]) == len(profiler.current.kernels)
    inside = profiler.current.folder.path / "trace.json"
    view.export_to(inside)
    wait_idle(qtbot, window)
    assert not inside.exists() and "Export failed" in view.notes.text()


def test_the_cluster_aligns_every_rank_and_a_click_opens_a_rank(make_window, qtbot, profile):
    window, view = open_timeline(make_window, qtbot, profile, "--lang", "en")
    scene, chart = view.scene, view.chart
    assert scene.cluster and [t.label for t in scene.tracks][:2] == ["rank 0", "rank 0 breakdown"]
    ends = {t.rank: float(t.index.end.max()) for t in scene.tracks if t.kind == KERNELS}
    assert set(ends) == {0, 1} and all(t.index.start.min() >= 0 for t in scene.tracks)  # from each step's start
    row = next(i for i, t in enumerate(scene.tracks) if t.label == "rank 1 breakdown")
    chart.vb.scroll_rows(row - 2)
    t0, t1 = chart.time_range_us()
    QTest.mouseClick(chart.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     widget_point(chart, (t0 + t1) / 2, row + 0.5))
    wait_idle(qtbot, window)
    assert window.profiler.current is not None and window.profiler.current.rank == 1
    qtbot.waitUntil(lambda: view.scene is not None and not view.scene.cluster, timeout=30000)


def test_host_ops_of_a_trace_highlight_the_kernels_they_launched(make_window, qtbot, tmp_path):
    trace = tmp_path / "w.pt.trace.json"
    write_kineto_trace(trace, steps=2, layers=2)
    window, view = open_timeline(make_window, qtbot, str(trace), "--lang", "en")
    scene, chart = view.scene, view.chart
    host = [i for i, t in enumerate(scene.tracks) if t.kind == HOST]
    assert host and scene.tracks[host[0]].label == "host thread 0 · depth 0"
    assert [t.label for t in scene.tracks if t.kind == KERNELS] == ["stream 7", "stream 20"]
    # the innermost host op that launched a kernel: click it
    linked = np.flatnonzero(scene.host_launches > 0)
    op = int(linked[0])
    track = next(i for i in host if op in scene.tracks[i].rows)
    position = int(np.flatnonzero(scene.tracks[track].rows == op)[0])
    start, end = scene.tracks[track].index.start[position], scene.tracks[track].index.end[position]
    chart.zoom_to(start, end)
    chart.vb.scroll_rows(track - 1)
    chart.redraw_now()
    QTest.mouseClick(chart.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     widget_point(chart, (start + end) / 2, track + 0.5))
    qtbot.waitUntil(lambda: chart.highlights is not None)
    tl = view._built[id(window.profiler.current)]
    assert sum(len(s) for s, _ in chart.highlights.values()) == len(tl.host.kernels_of(op)) > 0


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_toolbar_and_rows_fit_every_screen(make_window, qtbot, profile, lang):
    window, view = open_timeline(make_window, qtbot, profile, "--lang", lang, "--rank", "0", "--size", "1024x700")
    for width, height in ((1024, 700), (1280, 800), (1920, 1080)):
        window.resize(width, height)
        qtbot.waitUntil(lambda w=width: window.width() == w)
        QApplication.processEvents()
        for widget in (view.color_by, view.step_choice, view.zoom_step, view.fit_button, view.export_button):
            right = widget.mapTo(view, QPoint(widget.width(), 0)).x()
            assert right <= view.width(), (lang, width, widget)
            text = widget.currentText() if hasattr(widget, "currentText") else widget.text()
            assert text and widget.fontMetrics().horizontalAdvance(text) <= widget.width(), (lang, width, text)
        qtbot.waitUntil(lambda: view.chart.vb.visible_rows >= 4)  # a few lanes on screen


def test_the_file_menu_exports_the_selected_rank_without_opening_the_view(make_window, qtbot, profile, tmp_path):
    window = make_window(profile, "--lang", "en", "--tab", "profiler", "--rank", "1")
    wait_idle(qtbot, window)
    actions = [a.text() for a in window.menuBar().actions()[0].menu().actions()]
    assert "Export the rank as a &Chrome trace…" in actions
    view = window.profiler.view_pages["timeline"]
    assert view.scene is None  # never shown, never drawn
    out = tmp_path / "rank1.json"
    view.export_to(out)
    wait_idle(qtbot, window)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["otherData"]["rank"] == 1
    assert len([e for e in data["traceEvents"] if e.get("cat") == "kernel"]) == len(window.profiler.current.kernels)
