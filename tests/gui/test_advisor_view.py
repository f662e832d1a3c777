"""The Advisor view: findings ranked for a rank and for the cluster, linked to the Kernels table and charts.

Every interaction is a real mouse event on the widgets (clicks, double-clicks), at the sizes of a
laptop and a desktop screen, in English and Chinese. The profile is generated (two 910B2 ranks,
three findings each: tests/advisor/profiles.py); the demo's findings are pinned in tests/advisor.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.advisor.profiles import CLEAN, swapped, two_rank_profile, write_profile
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui

TITLES = ["Communication is not hidden behind computation", "Memory-bound kernels far below HBM bandwidth",
          "Operators fall back to the AI CPU"]


def advisor_of(window):
    return window.profiler.view_pages["advisor"]


def click_row(qtbot, table, row: int, column: int = 1, double: bool = False) -> None:
    rect = table.visualRect(table.model().index(row, column))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    if double:  # a double click follows the click that selects the row
        qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def titles(view) -> list[str]:
    return [view.table.item(i, 1).text() for i in range(view.table.rowCount())]


def open_window(make_window, qtbot, tmp_path, *argv):
    window = make_window(str(two_rank_profile(tmp_path / "profile")), "--tab", "profiler", "--view", "advisor",
                         *argv)
    wait_idle(qtbot, window)
    view = advisor_of(window)
    qtbot.waitUntil(lambda: view.table.rowCount() == 3)
    return window, window.profiler, view


def test_rank_findings_highlight_their_kernels(make_window, qtbot, tmp_path):
    window, profiler, view = open_window(make_window, qtbot, tmp_path, "--lang", "en", "--rank", "1",
                                         "--size", "1280x800")
    assert titles(view) == TITLES and "Rank 1" in view.scope.text()
    assert view.table.item(0, 2).text() == "300.0 µs"
    highlighted = []
    profiler.bus.kernels_highlighted.connect(lambda rows, label: highlighted.append((rows, label)))
    # clicking the AI CPU finding highlights its kernels
    click_row(qtbot, view.table, 2)
    rows, label = highlighted[-1]
    kernels = profiler.current.kernels
    expected = np.flatnonzero(kernels["klass"].astype(str).to_numpy() == "aicpu")
    assert label == TITLES[2] and sorted(rows) == sorted(expected) and len(rows) == 2
    assert "NonZero" in view.text.toPlainText() and view.evidence.rowCount() == 2
    assert profiler.kernel_model.rowCount() == 2  # the Kernels table shows only them
    # an evidence row narrows the highlight to its kernels (Unique, 80 µs, comes first)
    click_row(qtbot, view.evidence, 1, column=0)
    rows, label = highlighted[-1]
    assert label == "NonZero [4096]" and list(rows) == [int(np.flatnonzero(kernels["op_type"] == "NonZero")[0])]
    # a double click on the finding asks for its longest kernel: the Kernels page selects it
    click_row(qtbot, view.table, 2, double=True)
    wait_idle(qtbot, window)
    assert profiler.tabs.currentWidget() is profiler.view_pages["kernels"]
    selected = profiler.kernel_model.source_row(profiler.kernel_view.currentIndex().row())
    assert kernels["op_type"].iloc[selected] == "Unique"
    assert profiler.highlight_clear.isVisible() and TITLES[2] in profiler.highlight_label.full_text
    qtbot.mouseClick(profiler.highlight_clear, Qt.MouseButton.LeftButton)
    assert profiler.kernel_model.rowCount() == len(kernels) and not profiler.highlight_clear.isVisible()
    assert len(highlighted[-1][0]) == 0


def test_cluster_findings_open_the_rank_with_most_at_stake(make_window, qtbot, tmp_path):
    window, profiler, view = open_window(make_window, qtbot, tmp_path, "--lang", "en", "--size", "1024x700")
    assert profiler.current is None and "Cluster of 2 ranks" in view.scope.text()
    assert titles(view) == TITLES and view.table.item(0, 5).text() == "0, 1"
    click_row(qtbot, view.table, 1)  # the memory-bound Add: the ranks' times tie, rank 0 comes first
    assert view.open_rank.isVisible() and view.open_rank.text() == "Open rank 0"
    # at 1024 × 700 every title fits its column (nothing elided) and the detail keeps room
    assert all(view.table.columnWidth(1) >= view.table.fontMetrics().horizontalAdvance(t) + 6 for t in titles(view))
    assert view.text.height() > 100 and view.evidence.height() > 80
    qtbot.mouseClick(view.open_rank, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert profiler.current is not None and profiler.current.rank == 0
    qtbot.waitUntil(lambda: "Rank 0" in view.scope.text())
    assert not view.open_rank.isVisible()


def test_chinese_findings(make_window, qtbot, tmp_path):
    _, profiler, view = open_window(make_window, qtbot, tmp_path, "--lang", "zh_CN", "--rank", "1",
                                    "--size", "1920x1080")
    assert titles(view) == ["通信未被计算掩盖", "访存受限的算子远低于 HBM 带宽", "算子回退到 AI CPU 执行"]
    assert profiler.tabs.tabText(profiler.tabs.indexOf(view)) == "顾问"
    assert "怎么做" in view.text.toPlainText() and "真实通信" in view.evidence.item(0, 0).text()
    assert view.table.horizontalHeaderItem(2).text() == "每 step 涉及时间"
    assert all(view.table.columnWidth(1) >= view.table.fontMetrics().horizontalAdvance(t) for t in titles(view))


def test_charts_ring_the_highlighted_kernels(make_window, qtbot, tmp_path):
    """An FP32 matmul (it has an MFU and a roofline point): the scatter and the roofline ring it."""
    steps = [swapped(CLEAN, "MatMul_qkv", in_types="FLOAT;FLOAT", out_types="FLOAT", dur=2000.0)]
    path = write_profile(tmp_path, steps, device_info=True)
    window = make_window(str(path), "--lang", "en", "--tab", "profiler", "--rank", "0", "--view", "advisor")
    wait_idle(qtbot, window)
    profiler, view = window.profiler, advisor_of(window)
    qtbot.waitUntil(lambda: view.table.rowCount() >= 1)
    row = titles(view).index("Matmuls run in FP32")
    click_row(qtbot, view.table, row)
    profiler.show_view("charts")
    qtbot.waitUntil(lambda: len(profiler.scatter.rings.data) == 1)
    _x, y = profiler.scatter.rings.getData()
    assert y[0] == pytest.approx(float(profiler.current.kernels["mfu"].iloc[0]) * 100, rel=1e-5)
    profiler.show_view("roofline")
    qtbot.waitUntil(lambda: len(profiler.roofline.rings.data) == 1)
    ring_x, ring_y = profiler.roofline.rings.getData()
    points = profiler.roofline.view.roofline
    first = [d[0] for d in points.data].index(0)  # the FP32 matmul is kernel 0
    assert (ring_x[0], ring_y[0]) == (points.x[first], points.y[first])
    profiler.show_view("kernels")
    qtbot.mouseClick(profiler.highlight_clear, Qt.MouseButton.LeftButton)
    assert len(profiler.roofline.rings.data) == 0 and len(profiler.scatter.rings.data) == 0


def test_ranks_as_runs():
    from mfu_desktop.gui.views.advisor import ranks_text

    assert ranks_text([0, 1, 2, 3]) == "0–3"
    assert ranks_text([5, 0, 2, 3]) == "0, 2, 3, 5"
    assert ranks_text([-1]) == "-1"
    assert ranks_text(list(range(0, 40, 2))) == "0, 2, 4, 6, 8, 10, …"
