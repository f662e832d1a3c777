"""Every chart answers the mouse: a click on a point, a bar or empty space, and a hover, with real mouse events.

Clicking two overlapping points of "MFU per kernel" or the Roofline raised "The truth value of an
array … is ambiguous" (pyqtgraph reports the points under the cursor as an array). Each chart is
built on small generated data, shown, and driven with QTest mouse events at the pixel of a point
or bar (mapped from plot coordinates), and at a pixel where nothing is drawn.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QToolTip

from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


def pixel(plot, x: float, y: float) -> QPoint:
    """The viewport pixel of plot coordinates (x, y)."""
    scene = plot.getPlotItem().vb.mapViewToScene(QPointF(x, y))
    return plot.mapFromScene(scene)


def click(qtbot, plot, x: float, y: float) -> None:
    """A left click at plot coordinates, the way a mouse does it (press + release on the viewport)."""
    QTest.mouseMove(plot.viewport(), pixel(plot, x, y))
    QTest.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pixel(plot, x, y))
    qtbot.wait(10)


def hover(qtbot, plot, x: float, y: float) -> None:
    """Move the mouse to plot coordinates (two steps: pyqtgraph acts on moves)."""
    target = pixel(plot, x, y)
    QTest.mouseMove(plot.viewport(), target + QPoint(3, 3))
    QTest.mouseMove(plot.viewport(), target)
    qtbot.wait(10)


_SHOWN: list = []


def shown(qtbot, chart, size=(700, 460)):
    """Show ``chart`` alone (the mouse of the offscreen platform reaches only the one window on top)."""
    while _SHOWN:
        try:
            _SHOWN.pop().close()
        except RuntimeError:  # already deleted with its test
            pass
    _SHOWN.append(chart)
    chart.resize(*size)
    chart.show()
    qtbot.addWidget(chart)
    qtbot.waitExposed(chart)
    qtbot.wait(20)
    return chart


def hot_rows() -> pd.DataFrame:
    """Two operator groups (compute-bound at 40 % MFU, memory-bound at 75 % BW) and free time."""
    return pd.DataFrame([
        {"kind": "free", "type": "free: device idle (host gaps)", "input_shapes": "", "count": None,
         "time_us": 900.0, "lost_us": 900.0, "mfu": None, "bw_util": None, "bound": None},
        {"kind": "operator", "type": "MatMulV2", "input_shapes": "4096,4096;4096,11008", "count": 2.0,
         "time_us": 1000.0, "lost_us": 600.0, "mfu": 0.4, "bw_util": 0.0775, "bound": "compute"},
        {"kind": "operator", "type": "Add", "input_shapes": "4096,4096;4096,4096", "count": 4.0,
         "time_us": 400.0, "lost_us": 100.0, "mfu": None, "bw_util": 0.75, "bound": "memory"},
    ])


def test_hot_operators_hover_names_the_group_and_a_click_reports_it(qtbot):
    from mfu_desktop.gui.charts.profile_charts import HotOpsChart

    chart = shown(qtbot, HotOpsChart())
    chart.set_data(hot_rows(), "lost_us", "Hot operators by lost time", step_us=2000.0)
    qtbot.wait(20)
    clicked = []
    chart.group_clicked.connect(clicked.append)
    # bar 1 (MatMulV2) is 600 µs = 6e-4 s long: hover its middle
    hover(qtbot, chart.plot, 3e-4, 1)
    tip = chart.picker.last_tip
    assert tip.startswith("MatMulV2 [4096,4096;4096,11008]")
    assert "2 calls per step · 1,000 µs per step (50.0 % of the step)" in tip
    assert "lost 600 µs per step" in tip and "MFU 40.0 % · compute-bound" in tip
    assert QToolTip.text() == tip
    hover(qtbot, chart.plot, 0.5e-4, 2)  # the "Add" bar: 100 µs lost
    assert "BW 75.0 % of HBM · memory-bound" in chart.picker.last_tip  # judged by its bandwidth
    click(qtbot, chart.plot, 3e-4, 1)
    assert [(r["type"], r["input_shapes"]) for r in clicked] == [("MatMulV2", "4096,4096;4096,11008")]
    click(qtbot, chart.plot, 8.5e-4, 2)  # far right of the short "Add" bar: empty space
    assert len(clicked) == 1
    hover(qtbot, chart.plot, 8.5e-4, 2)
    assert chart.picker.last_tip == ""
    click(qtbot, chart.plot, 4e-4, 0)  # the free-time bar: a non-operator row
    assert clicked[-1]["kind"] == "free"


def test_hot_operator_colours_judge_each_group_and_non_operator_time_is_hatched(qtbot):
    from mfu_desktop.core.formulas.mfu import MfuBand
    from mfu_desktop.gui.bands import BAND_RGB
    from mfu_desktop.gui.charts.profile_charts import HotOpsChart

    chart = shown(qtbot, HotOpsChart())
    chart.set_data(hot_rows(), "lost_us", "Hot operators by lost time")
    brushes = chart.bars.opts["brushes"]
    assert brushes[0].style() == Qt.BrushStyle.BDiagPattern  # free time
    assert brushes[1].color().getRgb()[:3] == BAND_RGB[MfuBand.MEDIUM]  # 40 % MFU, not red for 7.75 % BW
    assert brushes[2].color().getRgb()[:3] == BAND_RGB[MfuBand.NEAR_LIMIT]  # 75 % BW, memory-bound
    legend = chart.page.legend.visible_texts()
    assert "< 20 %" in legend and "free: device idle (host gaps)" in legend
    assert "communication not overlapped" not in legend  # no such row: no entry


def scatter_points_overlapping():
    from mfu_desktop.gui.charts.profile_charts import scatter_points

    # kernels 0 and 1 sit on the same pixel: pyqtgraph reports both (an array of two points)
    return scatter_points(np.array([100.0, 100.0, 1000.0]), np.array([0.5, 0.5, 0.8]),
                          pd.Series(["mm_a", "mm_b", "fa"]))


def test_mfu_scatter_click_on_overlapping_points_selects_one_kernel(qtbot):
    from mfu_desktop.gui.charts.profile_charts import MfuScatter

    chart = shown(qtbot, MfuScatter())
    chart.set_points(scatter_points_overlapping())
    qtbot.wait(20)
    clicked = []
    chart.kernel_clicked.connect(clicked.append)
    click(qtbot, chart.plot, 2.0, 50.0)  # log10(100 µs), 50 %
    assert clicked in ([0], [1])
    hover(qtbot, chart.plot, 3.0, 80.0)
    assert "fa" in chart.plot.getPlotItem().vb.toolTip()
    click(qtbot, chart.plot, 2.5, 10.0)  # nothing there
    assert len(clicked) == 1


def test_roofline_click_on_overlapping_kernels_and_the_step_star(qtbot):
    from mfu_desktop.gui.charts.roofline_chart import PointSet, RooflineChart, RooflineView

    points = PointSet(np.array([1.0, 1.0, 2.0]), np.array([1.0, 1.0, 2.0]), np.array([8.0, 8.0, 8.0]),
                      np.array([0, 0, 1]), [(4, "mm a"), (7, "mm b"), (9, "fa")], 3)
    chart = shown(qtbot, RooflineChart())
    chart.set_view(RooflineView(points, PointSet.empty(), [("bf16", 300.0)], 1600.0, (50.0, 60.0), "caption"))
    qtbot.wait(20)
    clicked = []
    chart.kernel_clicked.connect(clicked.append)
    click(qtbot, chart.plot, 1.0, 1.0)
    assert clicked in ([4], [7])
    click(qtbot, chart.plot, np.log10(50.0), np.log10(60.0))  # the step: not a kernel, nothing selected
    assert len(clicked) == 1
    hover(qtbot, chart.plot, 2.0, 2.0)
    assert "fa" in chart.plot.getPlotItem().vb.toolTip()
    assert "the step" in chart.legend.visible_texts()


def test_step_breakdown_names_ranks_and_a_click_selects_one(qtbot):
    from mfu_desktop.gui.charts.profile_charts import StepBreakdownChart

    table = pd.DataFrame({"rank": [0, 0, 1], "computing": [600.0, 500.0, 700.0],
                          "comm_not_overlapped": [100.0, 100.0, 50.0], "free": [50.0, 40.0, 20.0],
                          "bubble": [0.0, 0.0, 0.0]})
    chart = shown(qtbot, StepBreakdownChart())
    chart.set_data(table, [1], ["0 · job_a", "0 · job_b", "1"])
    qtbot.wait(20)
    assert chart.page.legend.visible_texts() == ["computing", "communication (not overlapped)", "free"]
    clicked = []
    chart.rank_clicked.connect(clicked.append)
    hover(qtbot, chart.plot, 1, 300e-6)
    assert chart.picker.last_tip.startswith("0 · job_b\ncomputing: 0.500 ms")
    click(qtbot, chart.plot, 1, 300e-6)
    assert clicked == [1]
    click(qtbot, chart.plot, 1.5, 300e-6)  # between two bars
    assert clicked == [1]


def test_heat_map_click_and_hover(qtbot):
    from mfu_desktop.gui.charts.heat_map import RankHeatMap

    table = pd.DataFrame({"rank": [0, 1, 2, 3], "step_time_us": [80_000.0, 81_000.0, 90_000.0, 79_000.0]})
    chart = shown(qtbot, RankHeatMap())
    chart.set_data(table, ["rank 0", "rank 1", "trace_a", "rank 3"])
    qtbot.wait(20)
    clicked = []
    chart.rank_clicked.connect(clicked.append)
    view = chart.view
    target = view.mapFromScene(chart.plot.vb.mapViewToScene(QPointF(0.5, 1.5)))  # the cell of position 2
    cell = chart._cell(chart.plot.vb.mapViewToScene(QPointF(0.5, 1.5)))
    QTest.mouseMove(view.viewport(), target)
    qtbot.wait(10)
    assert chart.hover.text() == f"{chart.names[cell]}: {chart.value_text(cell).split(': ', 1)[1]}"
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target)
    qtbot.wait(10)
    assert clicked == [int(chart.positions[cell])]


def test_compare_charts_hover_and_empty_clicks(qtbot):
    from mfu_desktop.gui.charts.compare_charts import GroupScatter, PairedBarsChart, WaterfallChart

    waterfall = shown(qtbot, WaterfallChart())
    waterfall.set_data(1000.0, [("computing: matmul", -200.0), ("communication", 50.0)], 850.0)
    qtbot.wait(20)
    hover(qtbot, waterfall.plot, 1, 900e-6)
    assert waterfall.picker.last_tip == "computing: matmul\n-200.0 µs per step"
    click(qtbot, waterfall.plot, 3.5, 100e-6)  # nothing is clickable: no error either
    rows = pd.DataFrame({"type": ["MatMulV2", "Add"], "input_shapes": ["1,2;2,3", ""],
                         "base_time_us": [100.0, 10.0], "new_time_us": [50.0, 20.0], "why": ["faster chip", ""]})
    paired = shown(qtbot, PairedBarsChart())
    paired.set_data(rows)
    qtbot.wait(20)
    hover(qtbot, paired.plot, 30e-6, 0)
    assert paired.picker.last_tip == "MatMulV2 [1,2;2,3]\nBASE 100.0 µs → NEW 50.0 µs per step\nfaster chip"
    click(qtbot, paired.plot, 30e-6, 0)
    scatter = shown(qtbot, GroupScatter())
    scatter.set_data(rows)
    qtbot.wait(20)
    hover(qtbot, scatter.plot, 2.0, np.log10(50.0))
    assert scatter.plot.getPlotItem().vb.toolTip().startswith("MatMulV2 [1,2;2,3]\nBASE 100.0 µs · NEW 50.0 µs")
    click(qtbot, scatter.plot, 2.0, np.log10(50.0))
    assert scatter.page.legend.visible_texts() == ["measured", "unchanged (y = x)"]  # no prediction: no entry


def test_prediction_charts_hover_and_the_partial_legend(qtbot):
    from mfu_desktop.gui.charts.prediction_charts import PredictedStepChart, RelativePerformanceChart

    rows = pd.DataFrame({"device": ["Huawei Ascend 910B2 (measured)", "NVIDIA H100 SXM"],
                         "relative_performance": [1.0, 2.5], "step_relative_performance": [1.0, 1.8],
                         "partial": [False, True], "partial_reason": ["", "FlashAttention has no rule"]})
    rel = shown(qtbot, RelativePerformanceChart())
    rel.set_data(rows)
    qtbot.wait(20)
    assert "partly predicted (*)" in rel.page.legend.visible_texts()  # the hatched bars say what they are
    hover(qtbot, rel.plot, 1.18, 1.0)
    assert rel.picker.last_tip == ("NVIDIA H100 SXM\ncompute-class kernels: 2.5×\nwhole step: 1.8×\n"
                                   "FlashAttention has no rule")
    click(qtbot, rel.plot, 0.5, 2.4)
    steps = pd.DataFrame({"device": rows["device"], "computing_us": [600.0, 300.0], "transfer_us": [100.0, 80.0],
                          "wait_us": [20.0, 20.0], "free_us": [10.0, 10.0], "partial": [False, True]})
    step = shown(qtbot, PredictedStepChart())
    step.set_data(steps)
    qtbot.wait(20)
    hover(qtbot, step.plot, 1, 200e-6)
    assert step.picker.last_tip.startswith("NVIDIA H100 SXM\ncomputing: 0.3 ms")
    click(qtbot, step.plot, 0.5, 200e-6)


def test_roofs_and_their_labels_are_readable_in_the_dark_theme(make_window, qtbot):
    import pyqtgraph as pg

    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "1", "--view", "roofline")
    wait_idle(qtbot, window)
    chart = window.profiler.roofline

    def ink() -> list[int]:
        """Lightness of every roof line and roof label drawn."""
        out = []
        for item in chart._roof_items:
            color = item.opts["pen"].color() if isinstance(item, pg.PlotCurveItem) else item.color
            out.append(pg.mkColor(color).lightness())
        return out

    assert chart._roof_items and max(ink()) < 140  # dark lines on the white background
    try:
        window.set_theme("dark")
        background = pg.mkColor(window.profiler.roofline.plot.backgroundBrush().color()).lightness()
        assert background < 60 and min(ink()) > 140  # light lines on the dark background, labels too
    finally:
        window.set_theme("light")


def test_a_scatter_of_kernels_of_one_duration_still_has_labelled_ticks(qtbot):
    from mfu_desktop.gui.charts.profile_charts import MfuScatter, scatter_points

    chart = shown(qtbot, MfuScatter())
    chart.set_points(scatter_points(np.array([410.0, 412.0, 409.0]), np.array([0.55, 0.56, 0.57])))
    chart.grab()  # paint: the axis fits its labels
    labels = [text for _, _, text in chart.plot.getAxis("bottom").drawn]
    assert len(labels) >= 2, labels  # e.g. "200", "500", "1,000": a duration can be read off


def test_narrow_category_axes_leave_names_out_rather_than_cut_them_to_nothing(qtbot):
    """Seven chips in a 260 px chart (the Prediction tab at 1024×700 in Chinese): "910B2 (measured)" was drawn "9…)".

    A slot is 260 / 7.8 ≈ 30 px wide, "910B2" needs ~38 px: the label keeps its first word and the
    neighbour it would cover is left out (its bar's tooltip names it); at 700 px every chip is named.
    """
    from mfu_desktop.gui.charts.prediction_charts import RelativePerformanceChart

    devices = ["Huawei Ascend 910B2 (measured)", "Huawei Ascend 910C", "Huawei Ascend 950PR", "Huawei Ascend 950DT",
               "NVIDIA H100 SXM", "NVIDIA H20", "NVIDIA H200"]
    rows = pd.DataFrame({"device": devices, "relative_performance": np.linspace(1.0, 3.0, 7),
                         "step_relative_performance": np.linspace(1.0, 2.5, 7), "partial": [False] * 7,
                         "partial_reason": [""] * 7})
    chart = shown(qtbot, RelativePerformanceChart(), size=(260, 300))
    chart.set_data(rows)
    chart.grab()
    drawn = [text for _, _, text in chart.plot.getAxis("bottom").drawn]
    firsts = [text.split("\n")[0] for text in drawn]
    assert "910B2" in firsts and not any(first.startswith("9…") for first in firsts), drawn
    assert 2 <= len(drawn) < 7, drawn  # some left out, none cut below its first word
    chart.resize(700, 300)
    chart.grab()
    firsts = [text.split("\n")[0] for _, _, text in chart.plot.getAxis("bottom").drawn]
    assert firsts == ["910B2", "910C", "950PR", "950DT", "H100 SXM", "H20", "H200"], firsts
    chart.set_data(rows.assign(device=["Huawei Ascend 910B2（实测）", *devices[1:]]))  # zh_CN's full-width brackets
    chart.resize(260, 300)
    chart.grab()
    drawn = [text for _, _, text in chart.plot.getAxis("bottom").drawn]
    assert drawn[0].split("\n")[0] == "910B2", drawn


def test_the_paired_bars_name_every_group(qtbot):
    """Under the cards at 1280×800 the chart was ~180 px for 12 groups: every other name was left out.

    It now asks for a line per group (its page scrolls), so all twelve names are drawn.
    """
    from mfu_desktop.gui.charts.compare_charts import PairedBarsChart

    rows = pd.DataFrame({"type": [f"Op{i}" for i in range(12)], "input_shapes": ["4096,4096"] * 12,
                         "base_time_us": np.linspace(100.0, 1200.0, 12), "new_time_us": np.linspace(90.0, 1300.0, 12),
                         "why": [""] * 12})
    chart = shown(qtbot, PairedBarsChart(), size=(700, 200))
    chart.set_data(rows)
    qtbot.wait(30)
    chart.grab()
    drawn = [text.split(" [")[0] for _, _, text in chart.plot.getAxis("left").drawn]
    assert drawn == [f"Op{i}" for i in range(12)], drawn
    assert chart.plot.height() >= chart.plot.minimumHeight() > 200
