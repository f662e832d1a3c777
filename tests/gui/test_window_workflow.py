"""A window that never loses the user's work and has no dead ends: start page, add vs replace, recent,
last folder, one message area, Ctrl+F, a shortcut for every tab and view, Compare with trace files."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from mfu_desktop.core.readers import columns as C
from tests.gui.conftest import wait_idle
from tests.gui.test_first_hour import unconfirmed_profile

pytestmark = pytest.mark.gui


def drag_over(window, paths: list[Path], modifiers=Qt.KeyboardModifier.NoModifier) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = window.tabs.mapTo(window, QPoint(40, 40))
    for kind in (QDragEnterEvent, QDragMoveEvent):
        event = kind(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, modifiers)
        QApplication.sendEvent(window.windowHandle(), event)
    return mime


def drop(window, paths: list[Path], modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Drag ``paths`` over the window and drop them, holding ``modifiers`` (the platform's drop events)."""
    mime = drag_over(window, paths, modifiers)
    assert window.drop_hint.isVisible()  # the window shows it will take the drop
    pos = window.tabs.mapTo(window, QPoint(40, 40))
    event = QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, modifiers)
    QApplication.sendEvent(window.windowHandle(), event)
    assert not window.drop_hint.isVisible()


def test_first_start_is_a_start_page_and_predict_waits_for_a_profile(make_window, qtbot):
    window = make_window("--lang", "en")
    profiler = window.profiler
    assert window.tabs.currentWidget() is profiler and profiler.pages.currentWidget() is profiler.start_page
    assert not window.prediction.run_button.isEnabled() and not window.prediction.empty_hint.isHidden()
    for chart in (window.prediction.rel_chart, window.prediction.step_chart):  # a sentence, not blank axes
        assert chart.page.showing_message and "load a profile, then Predict" in chart.page.message.text()
    assert window.compare.pages.currentIndex() == 0 and "BASE profile" in window.compare.empty_text.text()
    assert not window.compare.empty_folder.isEnabled()
    qtbot.mouseClick(profiler.start_page.demo_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, timeout=120000)
    assert profiler.pages.currentWidget() is profiler.splitter and len(profiler.result.ranks) == 8
    assert window.prediction.run_button.isEnabled() and window.prediction.empty_hint.isHidden()
    assert window.compare.empty_folder.isEnabled() and "(BASE)" in window.compare.empty_text.text()
    assert window.settings.recent_folders == []  # the demo is not a recent profile


def test_drops_add_or_replace_and_a_failed_open_keeps_the_session(make_window, qtbot, tmp_path, monkeypatch):
    a = unconfirmed_profile(tmp_path / "a")
    b = unconfirmed_profile(tmp_path / "b")
    window = make_window("--lang", "en")
    drop(window, [a])  # nothing open: no question
    wait_idle(qtbot, window)
    assert window.profiler.paths == [a] and len(window.profiler.result.ranks) == 2
    assert window.settings.recent_folders[0] == str(a)
    drop(window, [b], Qt.KeyboardModifier.ControlModifier)  # Ctrl: add
    wait_idle(qtbot, window)
    assert window.profiler.paths == [a, b] and len(window.profiler.result.ranks) == 4
    # both folders hold a rank 0 and a rank 1: the tree tells them apart
    names = sorted(n.label for n in window.profiler.result.labels())
    assert names == ["rank 0 · a/rank0_ascend_pt", "rank 0 · b/rank0_ascend_pt",
                     "rank 1 · a/rank1_ascend_pt", "rank 1 · b/rank1_ascend_pt"]
    asked = []
    monkeypatch.setattr(window, "ask_open_mode", lambda paths: asked.append(paths) or None)
    drop(window, [a])  # no modifier, a profile open: asked; cancelled, nothing changes
    wait_idle(qtbot, window)
    assert asked == [[a]] and window.profiler.paths == [a, b]
    drop(window, [b], Qt.KeyboardModifier.ShiftModifier)  # Shift: replace
    wait_idle(qtbot, window)
    assert window.profiler.paths == [b] and len(window.profiler.result.ranks) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    drop(window, [empty], Qt.KeyboardModifier.ShiftModifier)  # nothing loads: b stays open
    wait_idle(qtbot, window)
    assert window.profiler.paths == [b] and len(window.profiler.result.ranks) == 2
    assert window.profiler.info.text().endswith("The profile already open is kept.")
    assert window.windowTitle() == "MFU Desktop — b"


def test_recent_profiles_and_dialogs_start_in_the_last_folder(make_window, qtbot, tmp_path):
    from mfu_desktop.demo import write_kineto_trace

    traces = tmp_path / "gpu"
    traces.mkdir()
    one, two = traces / "w0.pt.trace.json", traces / "w1.pt.trace.json"
    write_kineto_trace(one, steps=1, layers=1, rank=0)
    write_kineto_trace(two, steps=1, layers=1, rank=1)
    window = make_window("--lang", "en")
    window.open_by_user([one, two])
    wait_idle(qtbot, window)
    entry = f"{one}\n{two}"
    assert window.settings.recent_folders[0] == entry  # trace files are remembered, as a session
    window._fill_recent()
    action = window.recent_menu.actions()[0]
    assert action.text() == "w0.pt.trace.json, w1.pt.trace.json" and action.toolTip() == entry
    assert window.profiler.start_page.recent.item(0).text() == action.text()
    window.remember_folder(one)
    assert window.start_folder() == str(traces)
    window.remember_folder(tmp_path / "gpu")
    assert window.start_folder() == str(tmp_path)


def test_messages_stack_in_one_area_and_never_move_the_layout(make_window, qtbot):
    window = make_window("--lang", "en", "--size", "1280x800")
    window.resize(1280, 800)
    qtbot.wait(20)
    before = window.tabs.geometry()
    window.info.show_message("first message")
    window.prediction.info.show_message("second message", ("Act", lambda: None))
    qtbot.wait(20)
    assert window.tabs.geometry() == before  # the area floats over the corner
    cards = window.messages.shown_cards()
    assert [c.label.text() for c in cards] == ["first message", "second message"]
    assert cards[0].geometry().bottom() < cards[1].geometry().top()  # stacked
    assert window.messages.geometry().right() <= window.centralWidget().width()
    qtbot.mouseClick(cards[0].close_button, Qt.MouseButton.LeftButton)
    assert window.messages.shown_cards() == [cards[1]] and window.tabs.geometry() == before
    window.prediction.info.hide()
    assert not window.messages.isVisible()


def test_ctrl_f_finds_kernels_and_types_across_the_tabs(make_window, qtbot):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "2")
    wait_idle(qtbot, window)
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = window.find_bar
    assert bar.isVisible() and bar.field.hasFocus()
    QTest.keyClicks(bar.field, "matmul")
    qtbot.waitUntil(lambda: bool(bar.hits), timeout=3000)
    frame = window.profiler.current.kernels
    expected = int((frame[C.NAME].astype(str).str.lower().str.contains("matmul")
                    | frame[C.OP_TYPE].astype(str).str.lower().str.contains("matmul")).sum())
    counts = {target.name: n for target, n in bar.hits}
    assert counts["Kernels"] == expected == window.profiler.kernel_model.rowCount()
    types = window.profiler.current.by_type["type"].astype(str).str.lower().str.contains("matmul").sum()
    assert counts["By type"] == types
    QTest.keyClick(bar.field, Qt.Key.Key_Return)  # the first place: the kernels
    assert window.profiler.tabs.currentWidget() is window.profiler.view_pages["kernels"]
    QTest.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible() and window.profiler.kernel_model.rowCount() == len(frame)


def test_every_tab_and_view_has_a_shortcut_listed_in_help(make_window, qtbot):
    from mfu_desktop.gui.dialogs.help_dialogs import shortcuts_markdown

    window = make_window("--demo", "--lang", "en")
    wait_idle(qtbot, window)
    shortcuts = dict(window.shortcut_list())
    for i in range(window.tabs.count()):
        assert shortcuts[f"View → {window.tabs.tabText(i)}"] == f"Ctrl+{i + 1}"
    profiler = window.profiler
    for i in range(profiler.tabs.count()):  # every view, the plug-ins too: Alt+1 … Alt+0, then Alt+Shift+1 …
        expected = f"Alt+{(i + 1) % 10}" if i < 10 else f"Alt+Shift+{(i - 9) % 10}"
        assert shortcuts[f"View → Profiler views → {profiler.tabs.tabText(i)}"] == expected
    assert shortcuts["View → Find kernels and types…"] == "Ctrl+F"
    QTest.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.compare
    QTest.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert window.tabs.currentWidget() is profiler and profiler.tabs.currentIndex() == 1
    QTest.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert not profiler.tree_visible()
    QTest.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert profiler.tree_visible()
    text = shortcuts_markdown(window.shortcut_list())
    assert "| View → Compare | `Ctrl+4` |" in text


def test_compare_takes_trace_files_and_says_how_to_choose_new(make_window, qtbot, tmp_path):
    from mfu_desktop.demo import write_kineto_trace

    base, new = tmp_path / "base" / "w.pt.trace.json", tmp_path / "new" / "w.pt.trace.json"
    for path, layers in ((base, 2), (new, 3)):
        path.parent.mkdir()
        write_kineto_trace(path, steps=2, layers=layers, rank=0)
    window = make_window(str(base), "--lang", "en", "--tab", "compare")
    wait_idle(qtbot, window)
    tab = window.compare
    assert tab.pages.currentIndex() == 0 and "Choose the NEW profile to compare" in tab.empty_text.text()
    tab.set_new([new])
    wait_idle(qtbot, window)
    assert tab.comparison is not None and tab.pages.currentWidget() is tab.tabs
    # both files are "w.pt.trace.json": the sides are told apart by their folders
    assert tab.comparison.base.label == "BASE (base/w.pt.trace.json)"
    assert tab.comparison.new.label == "NEW (new/w.pt.trace.json)"


def test_a_hot_operator_bar_opens_its_kernels_from_the_rank_and_the_cluster_view(make_window, qtbot):
    from tests.gui.test_chart_interaction import click

    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "3")
    window.resize(1280, 800)
    wait_idle(qtbot, window)
    profiler = window.profiler
    chart = profiler.hot_chart
    highlighted = []
    profiler.bus.kernels_highlighted.connect(lambda rows, label: highlighted.append((rows, label)))
    i = next(i for i, r in enumerate(chart.rows) if r["kind"] == "operator")
    row = chart.rows[i]
    click(qtbot, chart.plot, float(row["lost_us"]) * 1e-6 / 2, i)  # the middle of its bar
    wait_idle(qtbot, window)
    assert profiler.tabs.currentWidget() is profiler.view_pages["kernels"]
    frame, model = profiler.current.kernels, profiler.kernel_model
    group = (frame[C.OP_TYPE].astype(str) == row["type"]) & (frame[C.INPUT_SHAPES].astype(str) == row["input_shapes"])
    assert model.rowCount() == int(group.sum()) and highlighted[-1][1] == f"{row['type']} [{row['input_shapes']}]"
    assert sorted(highlighted[-1][0].tolist()) == sorted(group[group].index.tolist())
    assert profiler._shown_kernel is not None and bool(group.iloc[profiler._shown_kernel])  # its derivation shown
    # from the cluster: the rank where the group loses most opens with the group highlighted
    profiler._set_tree_current(profiler.tree_model.index(0, 0))
    wait_idle(qtbot, window)
    profiler.tabs.setCurrentWidget(profiler.view_pages["charts"])
    qtbot.wait(30)
    i = next(i for i, r in enumerate(chart.rows) if r["kind"] == "operator")
    row = chart.rows[i]
    click(qtbot, chart.plot, float(row["lost_us"]) * 1e-6 / 2, i)
    wait_idle(qtbot, window)
    assert profiler.current is not None and highlighted[-1][1].startswith(row["type"])
    assert profiler.kernel_model.rowCount() == len(highlighted[-1][0]) > 0
