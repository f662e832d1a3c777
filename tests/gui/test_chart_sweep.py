"""Every chart on every page answers the mouse without an error, the registered views included.

"MFU per kernel" and the Roofline raised "The truth value of an array … is ambiguous" on a click:
pyqtgraph hands the points under the cursor over as an array. ``test_chart_interaction`` checks what
each chart does with a click or a hover on its points and bars; this test walks the window (every
tab and every Profiler view, taken from the tab as the layout test does, so a view registered later
is covered the day it lands) and moves the mouse over, and clicks, a grid of points on every visible
plot and a few of its scatter points and bar centres — points, bars and empty space alike (with
the old "if points:" it fails at once). pytest-qt fails the test on any exception raised in a Qt
handler.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from mfu_desktop.core.paths import demo_profile_dir
from tests.gui.conftest import wait_idle
from tests.gui.test_layout import pages

pytestmark = pytest.mark.gui

#: Columns and rows of the grid of mouse positions on each plot.
GRID = (7, 4)


def grid_points(plot: pg.GraphicsView) -> list[QPoint]:
    """Positions spread over the plot's viewport (its axes and its data area)."""
    rect = plot.viewport().rect()
    columns, rows = GRID
    return [QPoint(int(rect.width() * (c + 0.5) / columns), int(rect.height() * (r + 0.5) / rows))
            for r in range(rows) for c in range(columns)]


def item_points(plot: pg.GraphicsView, per_item: int = 4) -> list[QPoint]:
    """Viewport pixels of a few points of every scatter and the centres of a few bars of every bar item."""
    out = []
    for item in plot.scene().items():
        if isinstance(item, pg.ScatterPlotItem):
            xs, ys = item.getData()
        elif isinstance(item, pg.BarGraphItem):
            x0 = item.opts.get("x0") if item.opts.get("x0") is not None else item.opts.get("x")
            y0 = item.opts.get("y0") if item.opts.get("y0") is not None else 0
            width = item.opts.get("width") if item.opts.get("width") is not None else 0
            height = item.opts.get("height") if item.opts.get("height") is not None else item.opts.get("y1")
            if x0 is None or height is None:
                continue
            xs = np.asarray(x0, dtype=float) + np.asarray(width, dtype=float) / 2
            ys = np.asarray(y0, dtype=float) + np.asarray(height, dtype=float) / 2
            xs, ys = np.broadcast_arrays(xs, ys)
        else:
            continue
        if xs is None or not len(xs):
            continue
        view = item.getViewBox()
        if view is None:
            continue
        for i in np.linspace(0, len(xs) - 1, min(per_item, len(xs))).astype(int):
            x, y = float(xs[i]), float(ys[i])
            scene = view.mapViewToScene(QPointF(x, y))
            out.append(plot.mapFromScene(scene))
    rect = plot.viewport().rect()
    return [p for p in out if rect.contains(p)]


def chart_name(plot: pg.GraphicsView) -> str:
    """The class of the chart holding ``plot`` (its nearest ancestor from gui/charts)."""
    widget = plot.parentWidget()
    while widget is not None and not type(widget).__module__.startswith("mfu_desktop.gui.charts"):
        widget = widget.parentWidget()
    return type(widget if widget is not None else plot).__name__


def visible_plots(window) -> list[pg.GraphicsView]:
    """The plots on screen now (a PlotWidget or a GraphicsLayoutWidget: both are GraphicsViews)."""
    return [plot for plot in window.findChildren(pg.GraphicsView) if plot.isVisible() and plot.width() > 20]


def sweep(window, qtbot, shown_pages) -> list[str]:
    """Hover and click every visible plot of each page; the charts swept, as "page: ChartClass"."""
    swept = []
    for name, show in shown_pages:
        show()
        wait_idle(qtbot, window)
        for index in range(len(visible_plots(window))):
            show()  # a click may have opened another view: back to this page
            wait_idle(qtbot, window)
            plots = visible_plots(window)
            if index >= len(plots):
                break
            plot = plots[index]
            swept.append(f"{name}: {chart_name(plot)}")
            for point in grid_points(plot) + item_points(plot):
                QTest.mouseMove(plot.viewport(), point)
                QTest.mouseMove(plot.viewport(), point + QPoint(2, 1))
            for point in grid_points(plot)[::3] + item_points(plot):
                if not plot.isVisible():  # the click before opened another view
                    break
                QTest.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
            wait_idle(qtbot, window)
    return swept


def test_every_plot_takes_hovers_and_clicks_anywhere(make_window, qtbot):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "5", "--size", "1280x800",
                         "--compare", str(demo_profile_dir()))
    wait_idle(qtbot, window, timeout=180000)
    swept = sweep(window, qtbot, pages(window))
    profiler = window.profiler  # then the cluster's views (the memory of every rank, the cluster's hot operators)
    profiler.tree.setCurrentIndex(profiler.tree_model.index(0, 0))
    wait_idle(qtbot, window)
    assert profiler.current is None
    swept += sweep(window, qtbot, [(n, show) for n, show in pages(window) if n.startswith("Profiler/")])
    names = " ".join(swept)
    for chart in ("HotOpsChart", "MfuScatter", "StepBreakdownChart", "RooflineChart", "TimelineChart",
                  "MemoryCurveChart", "RankHeatMap", "WaterfallChart", "GroupScatter", "PairedBarsChart",
                  "RelativePerformanceChart", "PredictedStepChart", "RankPeaksChart"):
        assert chart in names, (chart, swept)
