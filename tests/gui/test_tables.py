"""Tables you can work with: true sort indicators, the detail follows the selection, a column chooser with
presets (remembered), a frozen name column, headers in words, colours only where a figure judges, a row menu."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from mfu_desktop.core.readers import columns as C
from mfu_desktop.gui.models.dataframe_model import ColumnSpec, DataFrameModel, fmt_bytes, fmt_pct
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


def header_click(qtbot, view, column: int, button=Qt.MouseButton.LeftButton) -> None:
    """A real mouse click on a header section."""
    header = view.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    QTest.mouseClick(header.viewport(), button, Qt.KeyboardModifier.NoModifier, QPoint(x, header.height() // 2))
    qtbot.wait(10)


def popup_menu() -> QMenu:
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu), "no menu popped up"
    return menu


def trigger(menu: QMenu, text: str) -> None:
    for action in menu.actions():
        if action.text() == text:
            action.trigger()
            menu.close()
            return
        if action.menu() is not None and any(a.text() == text for a in action.menu().actions()):
            trigger(action.menu(), text)
            menu.close()
            return
    raise AssertionError(f"{text!r} not in {[a.text() for a in menu.actions()]}")


def test_bandwidth_and_mfu_cells_are_coloured_only_where_they_judge(qtbot):
    frame = pd.DataFrame({"mfu": [0.40, 0.05, np.nan], "bw_util": [0.0775, 0.75, 0.10],
                          "bound": pd.Categorical(["compute", "memory", None]), "bytes": [558e6, 1.5e3, 0.0]})
    model = DataFrameModel(frame, [ColumnSpec("mfu", "MFU", fmt_pct, color_mfu=True, judges="mfu"),
                                   ColumnSpec("bw_util", "BW util", fmt_pct, color_mfu=True, judges="bw_util"),
                                   ColumnSpec("bound", "Bound"), ColumnSpec("bytes", "Bytes", fmt_bytes)])
    background = Qt.ItemDataRole.BackgroundRole
    # a compute-bound GEMM at 7.75 % of the bandwidth: its MFU is painted, its BW is not (it does not judge it)
    assert model.data(model.index(0, 0), background) is not None
    assert model.data(model.index(0, 1), background) is None
    # a memory-bound kernel: the other way round
    assert model.data(model.index(1, 0), background) is None
    assert model.data(model.index(1, 1), background) is not None
    assert model.data(model.index(2, 1), background) is None  # no bound: MFU judges, and there is none
    # Ctrl+C: "558 MB" is copied as 558000000 under "Bytes (B)", 40 % as 40 under "MFU (%)"
    assert model.data(model.index(0, 3)) == "558 MB"
    assert model.tsv([0], [0, 3]) == "MFU (%)\tBytes (B)\n40\t558000000"


def test_kernel_table_chooser_frozen_name_menu_and_selection(make_window, qtbot):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "2", "--view", "kernels")
    window.resize(1280, 800)
    wait_idle(qtbot, window)
    profiler = window.profiler
    view, model = profiler.kernel_view, profiler.kernel_model
    # headers are words, never snake_case, and no header carries a sort indicator before a sort
    headers = [str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())]
    assert not [h for h in headers if re.search(r"[a-z]_[a-z]", h)], headers
    assert not view.horizontalHeader().isSortIndicatorShown()
    # Essentials by default: name frozen first, Duration, MFU and Lost in view
    assert view.shown_keys()[:3] == [C.NAME, C.OP_TYPE, C.DURATION_US]
    assert {"mfu", "lost_us", "bw_util"} <= set(view.shown_keys()) and "aic_mte2_time_us" not in view.shown_keys()
    assert view.frozen is not None and view.frozen.isVisible()
    # the header menu: the Roofline preset, then a column of our own; both remembered in the settings
    header = view.horizontalHeader()
    header.customContextMenuRequested.emit(QPoint(20, 5))
    trigger(popup_menu(), "Roofline")
    assert "intensity" in view.shown_keys() and "status" not in view.shown_keys()
    assert window.settings.table_columns["kernels"] == "preset:Roofline"
    view.set_column_shown("status", True)
    assert "status" in view.shown_keys()
    assert window.settings.table_columns["kernels"].startswith("columns:") and \
        "status" in window.settings.table_columns["kernels"]
    # the frozen name stays at the left edge while the table scrolls right
    view.horizontalScrollBar().setValue(view.horizontalScrollBar().maximum())
    qtbot.wait(10)
    assert view.frozen.x() == view.verticalHeader().width() + view.frameWidth()
    assert view.frozen.width() == view.columnWidth(model.column_keys().index(C.NAME))
    # select a kernel; sort by Duration with a header click: the same kernel stays selected and shown
    profiler.select_kernel(7)
    name = str(model.frame[C.NAME].iloc[7])
    assert name in profiler.kernel_derivation.toPlainText() or profiler._shown_kernel == 7
    duration = model.column_keys().index(C.DURATION_US)
    header_click(qtbot, view, duration)
    assert header.isSortIndicatorShown() and header.sortIndicatorSection() == duration
    assert model.source_row(view.currentIndex().row()) == 7 and profiler._shown_kernel == 7
    # a filter that keeps it keeps it selected; one that hides it clears the derivation
    kernel_type = str(model.frame[C.OP_TYPE].iloc[7])
    profiler.filter_type.setText(kernel_type)
    assert model.source_row(view.currentIndex().row()) == 7
    profiler.filter_type.setText("no such type")
    assert profiler._shown_kernel is None and "filtered out" in profiler.kernel_derivation.toPlainText()
    profiler.filter_type.setText("")
    # right-click a row: Copy, Open in calculator, Show only this type
    row = model.view_row(3)
    pos = view.visualRect(model.index(row, model.column_keys().index(C.DURATION_US))).center()
    view.scrollTo(model.index(row, 0))
    pos = view.visualRect(model.index(row, model.column_keys().index(C.DURATION_US))).center()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos)
    view.customContextMenuRequested.emit(pos)
    menu = popup_menu()
    texts = [a.text() for a in menu.actions()]
    assert texts[0] == "Copy" and "Open in calculator" in texts
    kernel_type = str(model.frame[C.OP_TYPE].iloc[3])
    trigger(menu, f"Show only this type ({kernel_type})")
    # the type is highlighted on the bus: the table shows only its kernels, "Show all kernels" brings them back
    assert profiler.highlight_clear.isVisible() and kernel_type in profiler.highlight_label.full_text
    assert model.rowCount() == int((model.frame[C.OP_TYPE] == kernel_type).sum())
    qtbot.mouseClick(profiler.highlight_clear, Qt.MouseButton.LeftButton)
    assert model.rowCount() == len(model.frame)


def test_aggregate_tables_show_the_engines_order_and_the_cluster_names_ranks(make_window, qtbot):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "0", "--view", "kernels")
    wait_idle(qtbot, window)
    profiler = window.profiler
    by_type = profiler.table_views["by-type"]
    profiler.tabs.setCurrentWidget(by_type)
    header = by_type.horizontalHeader()
    keys = profiler.type_model.column_keys()
    # sorted by time, longest first: the indicator says so (Qt shows ▼ for descending)
    assert header.isSortIndicatorShown()
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (keys.index("time_us"),
                                                                              Qt.SortOrder.DescendingOrder)
    ranks = profiler.ranks_model
    assert ranks.column_keys()[0] == "label" and ranks.raw(0, 0) == "rank 0"
    assert ranks.data(ranks.index(0, ranks.column_keys().index("tier"))) == "T1"  # as the tree writes it
    # a table in frame order (the Ranks table) shows no indicator
    assert not profiler.table_views["ranks"].horizontalHeader().isSortIndicatorShown()
