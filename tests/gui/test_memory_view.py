"""The window's memory answers on the demo (issue 27): the Memory view, the heat map, the tables, prediction, compare.

The demo's peaks are hand-computed in tests/analysis/test_demo_memory.py: rank 3 peaks at
30,720 + 1,024 + 14,336 × 1.06 + 256 = 47,196.16 MB allocated (PTA+GE), 49,543.168 MB reserved,
51,763.168 MB for the process = 79.0 % of the 910B2's 64 GB.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from mfu_desktop.demo import generate
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui

FOOTPRINT_MB = 51_763.168


def _bar_centre(chart, index: int) -> QPoint:
    """Widget coordinates of rank ``index``'s middle bar in a RankPeaksChart."""
    vb = chart.plot.plotItem.vb
    return chart.plot.mapFromScene(vb.mapViewToScene(QPointF(index, 10.0)))


def test_rank_memory_view_shows_the_peaks_by_hand(make_window, qtbot):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "3", "--view", "memory")
    wait_idle(qtbot, window)
    view = window.profiler.view_pages["memory"]
    assert view.pages.currentIndex() == 1
    assert view.card_allocated.full_value == "47,196.2 MB"
    assert "PTA+GE" in view.card_allocated.full_detail and "into step 2" in view.card_allocated.full_detail
    assert view.card_reserved.full_value == "49,543.2 MB"
    assert "31,744.0 MB not released" in view.card_reserved.full_detail
    assert view.card_process.full_value == "51,763.2 MB"
    assert "HCCL 1,600.0 MB" in view.card_process.full_detail
    assert view.card_fit.full_value == "yes, 79.0 %"  # 51,763.168 / 65,536
    assert "13.5 GB free of 64 GB" in view.card_fit.full_detail  # 64 − 50.55
    # the live allocations, largest first: the resident weights, allocated before the captured steps
    model = view.live_model
    assert model.raw(0, 0) == "aten::empty_strided" and model.raw(0, 1) == pytest.approx(30_720.0)
    assert model.raw(0, 2) < 0
    # the curve: the star at the peak, in GB, and the capacity line at 64 GB
    _xs, ys = view.curve.peak.getData()
    assert ys[0] == pytest.approx(47_196.16 / 1024, rel=1e-6)
    assert view.curve.capacity.value() == 64.0 and view.curve.capacity.isVisible()
    assert len(view.curve.steps) == 2
    _, allocated = view.curve.allocated.getData()
    assert allocated.max() == pytest.approx(47_196.16 / 1024, rel=1e-6)
    # the runtime components are a tab away
    view.side.setCurrentIndex(1)
    assert set(view.components.lines) == {"HCCL", "RUNTIME"}


def test_cluster_memory_view_clicks_a_rank(make_window, qtbot):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--view", "memory")
    wait_idle(qtbot, window)
    view = window.profiler.view_pages["memory"]
    assert view.pages.currentIndex() == 2
    assert view.cluster_line.text().startswith("Highest rank 3: 47,196.2 MB allocated")
    heights = view.peaks.bars[0].opts["height"]
    assert len(heights) == 8 and heights[3] == pytest.approx(47_196.16 / 1024, rel=1e-6)
    assert heights[3] == max(heights)
    chart = view.peaks
    chart.resize(900, 500)
    qtbot.wait(50)
    QTest.mouseMove(chart.plot.viewport(), _bar_centre(chart, 3))
    qtbot.waitUntil(lambda: chart.hover.text().startswith("rank 3:"))
    QTest.mouseClick(chart.plot.viewport(), Qt.MouseButton.LeftButton, pos=_bar_centre(chart, 3))
    wait_idle(qtbot, window)
    assert window.profiler.current is not None and window.profiler.current.rank == 3


def test_a_rank_without_memory_data_says_why(make_window, qtbot, tmp_path):
    root = generate(tmp_path / "nomem", ranks=1)
    window = make_window(str(root), "--lang", "en", "--tab", "profiler", "--rank", "0", "--view", "memory")
    wait_idle(qtbot, window)
    view = window.profiler.view_pages["memory"]
    assert view.pages.currentWidget() is view.message
    assert "profile_memory=True" in view.message.text()


def test_heat_map_and_ranks_table_have_memory(make_window, qtbot):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--view", "heat-map")
    wait_idle(qtbot, window)
    heat = window.profiler.heat_map
    heat.metric.setCurrentIndex(heat.metric.findData("peak_reserved_mb"))
    index = list(heat.ranks).index(3)
    assert heat.value_text(index) == "rank 3: 48.4 GB"  # 49,543.168 MB / 1024
    heat.metric.setCurrentIndex(heat.metric.findData("memory_share"))
    assert heat.value_text(index) == "rank 3: 79.0 %"
    keys = window.profiler.ranks_model.column_keys()
    assert {"peak_allocated_mb", "peak_reserved_mb", "process_reserved_mb", "memory_share"} <= set(keys)


def test_prediction_flags_a_target_that_does_not_fit(make_window, qtbot):
    window = make_window("--lang", "en", "--demo", "--tab", "prediction")
    wait_idle(qtbot, window, timeout=120000)
    tab = window.prediction
    for i in range(tab.targets.count()):
        item = tab.targets.item(i)
        item.setCheckState(Qt.CheckState.Checked if item.text() in ("NVIDIA H100 SXM", "NVIDIA A100 SXM 40GB")
                           else Qt.CheckState.Unchecked)
    wait_idle(qtbot, window, timeout=120000)
    model = tab.summary_model
    keys = model.column_keys()
    rows = {model.raw(r, keys.index("device")): r for r in range(model.rowCount())}
    memory = keys.index("memory_shown")
    # the highest rank's footprint, 51,763.168 MB = 50.55 GB: 80 − 50.55 = 29.45 free; 40 − 50.55 = 10.55 short
    assert model.raw(rows["NVIDIA H100 SXM"], memory) == "✓ fits, 29.5 GB free"
    assert model.raw(rows["NVIDIA A100 SXM 40GB"], memory) == "✗ does not fit: 10.5 GB short"
    ticks = tab.rel_chart.plot.getAxis("bottom")._tickLevels[0]
    labels = {text.split("\n")[0]: text for _, text in ticks}
    assert "(OOM)" in labels["A100 SXM 40GB"] and "(OOM)" not in labels["H100 SXM"]


def test_compare_shows_memory_base_to_new(make_window, qtbot, tmp_path):
    from mfu_desktop.core.paths import demo_profile_dir

    window = make_window("--lang", "en", "--demo", "--tab", "compare", "--compare", str(demo_profile_dir()))
    wait_idle(qtbot, window, timeout=120000)
    model = window.compare.memory_model
    assert model.rowCount() == 3
    assert model.raw(0, 0) == "peak allocated (MB)"
    assert model.raw(0, 1) == model.raw(0, 2) == "47,196.2"
    assert model.raw(0, 3).startswith("+0")
