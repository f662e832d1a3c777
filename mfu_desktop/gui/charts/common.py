"""Shared chart helpers: the plot with its title and legend outside it, category axes, bars under the mouse."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QLabel, QStackedLayout, QToolTip, QVBoxLayout, QWidget

from mfu_desktop.gui.charts.axes import FittedAxis, fitted_axes
from mfu_desktop.gui.charts.legend import ChartLegend, Swatch, fit_height_to_width

#: Colours of the step-breakdown segments (computing, communication not overlapped, free, bubble).
SEGMENT_COLORS = ((70, 130, 200), (220, 120, 50), (150, 150, 150), (200, 60, 60))
#: Family colours, in the order of the shipped family mapping (then "other"): the roofline and the timeline.
FAMILY_COLORS = ((214, 39, 40), (255, 127, 14), (31, 119, 180), (148, 103, 189), (127, 127, 127), (44, 160, 44),
                 (188, 189, 34), (140, 86, 75), (227, 119, 194), (23, 190, 207), (174, 199, 232), (100, 100, 100))


def make_plot(x_label: str, y_label: str, x_units: str = "", y_units: str = "",
              left_width: int = 62, grid: str = "") -> pg.PlotWidget:
    """A plot with labelled axes (units shown) whose tick labels never collide; ``left_width`` px for the left axis.

    The title and the legend are not drawn inside the plot: :class:`ChartPage` puts them above it,
    where they wrap instead of being cut.

    ``grid`` is ``""``, ``"x"``, ``"y"`` or ``"xy"``: grid lines cost ~4 ms per direction and
    repaint (alpha blending in the raster engine), so only the scatter, where positions are read
    off both axes, draws them; bar charts are read from their ticks.
    """
    plot = pg.PlotWidget(axisItems=fitted_axes())
    plot.setLabel("bottom", x_label, units=x_units or None)
    plot.setLabel("left", y_label, units=y_units or None)
    if grid:
        plot.showGrid(x="x" in grid, y="y" in grid, alpha=0.2)
    plot.setMenuEnabled(False)
    plot.setMinimumHeight(170)  # room for a vertical axis title ("time per step (ms)") and its ticks
    # Fixed axis sizes: pyqtgraph otherwise re-sizes axes to their tick labels, and every
    # re-size re-lays out and repaints the plot (several rounds on first display and on new data).
    plot.getAxis("left").setWidth(left_width)
    plot.getAxis("bottom").setHeight(bottom_axis_height(1))
    return plot


def bottom_axis_height(tick_lines: int) -> int:
    """A bottom axis tall enough for ``tick_lines`` lines of tick labels and its title, in the font in use."""
    line = QFontMetrics(QApplication.font()).height()
    return max(46, (tick_lines + 1) * line + 18)


def highlight_rings() -> pg.ScatterPlotItem:
    """The overlay that rings highlighted kernels on a scatter (drawn above the points, not clickable)."""
    item = pg.ScatterPlotItem(size=13, pen=pg.mkPen(230, 40, 40, width=2), brush=None)
    item.setZValue(10)
    item.setAcceptHoverEvents(False)
    return item


def ring_positions(rows: np.ndarray, x: np.ndarray, y: np.ndarray, highlighted: np.ndarray) -> tuple[np.ndarray,
                                                                                                      np.ndarray]:
    """The points (x, y) whose frame row is in ``highlighted`` (vectorised)."""
    if not len(highlighted) or not len(rows):
        return np.zeros(0), np.zeros(0)
    keep = np.isin(rows, highlighted)
    return x[keep], y[keep]


def chart_label(device: str) -> str:
    """A short chip label for crowded axes: ``Huawei Ascend 950PR`` → ``950PR``, ``NVIDIA H100 SXM`` → ``H100 SXM``."""
    text = str(device).replace(" (measured)", " (now)")
    for prefix in ("Huawei Ascend ", "Huawei ", "NVIDIA ", "AMD ", "Google ", "Intel "):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def set_category_ticks(axis: pg.AxisItem, labels: Sequence[str], two_line_room: bool | None = None) -> None:
    """Text ticks at integer positions, fitted to the axis at every resize (:class:`FittedAxis`).

    On a horizontal axis each parenthesis of a label takes its own line ("H100 SXM" over "(now)"
    over "(OOM)") and the axis grows to hold them; ``two_line_room`` leaves room for a second
    line anyway, so crowded names fold before they are shortened (each line on its own).
    """
    labels = [str(label) for label in labels]
    if axis.orientation in ("bottom", "top"):
        lines = max([label.count(" (") + 1 for label in labels] + [2 if two_line_room else 1])
        axis.setHeight(bottom_axis_height(lines))
    if isinstance(axis, FittedAxis):
        axis.set_categories(labels)
    else:
        axis.enableAutoSIPrefix(False)
        axis.setTicks([list(enumerate(labels))])


def point_data(points: object) -> object:
    """The data of the first of the points pyqtgraph reports (a list or an array; ``None`` when empty).

    ``if points:`` on pyqtgraph's array of points raised "The truth value of an array … is
    ambiguous" as soon as two points were under the cursor.
    """
    if points is None or len(points) == 0:
        return None
    return points[0].data()


def downsample_indices(n: int, limit: int, weights: np.ndarray | None = None) -> np.ndarray:
    """At most ``limit`` indices: the heaviest by ``weights`` when given, else evenly spaced."""
    if n <= limit:
        return np.arange(n)
    if weights is not None:
        return np.sort(np.argpartition(-np.nan_to_num(weights), limit)[:limit])
    return np.linspace(0, n - 1, limit).astype(np.int64)


class StackedBars:
    """Stacked bar segments whose items and legend entries are created once and updated in place.

    Re-creating bar items on every update cost ~15 ms per chart; updating them with ``setOpts``
    costs well under a millisecond. The legend (outside the plot) shows the segments drawn.
    """

    def __init__(self, plot: pg.PlotWidget, legend: ChartLegend, names: list[str],
                 colors: Sequence[tuple[int, int, int]], width: float = 0.6) -> None:
        self.plot = plot
        self.width = width
        self.legend = legend
        self.items = []
        for i, (name, color) in enumerate(zip(names, colors)):
            item = pg.BarGraphItem(x=[], y0=[], height=[], width=width, brush=pg.mkBrush(*color))
            plot.addItem(item)
            legend.add(str(i), Swatch(tuple(color)), name)
            self.items.append(item)
        self.names = names
        self.values: list[np.ndarray | None] = [None] * len(names)

    def update(self, segments: list[np.ndarray | None]) -> np.ndarray:
        """Stack ``segments`` (one array per item, ``None`` hides that segment); returns the tops."""
        n = len(next((s for s in segments if s is not None), []))
        x = np.arange(n)
        bottom = np.zeros(n)
        self.values = list(segments)
        for i, (item, values) in enumerate(zip(self.items, segments)):
            visible = values is not None
            self.legend.show_entry(str(i), visible)  # the legend in step with what is drawn
            item.setVisible(visible)
            if visible:
                item.setOpts(x=x, y0=bottom.copy(), height=values, width=self.width)
                bottom = bottom + values
            else:
                item.setOpts(x=[], y0=[], height=[], width=self.width)
        return bottom


class ChartTitle(QLabel):
    """A chart's title: word-wrapped, and as tall as its lines need (never cut when the chart is narrow)."""

    def lines_height(self) -> int:
        """The height of the text wrapped at the label's current width."""
        width = max(self.contentsRect().width(), 20)
        box = self.fontMetrics().boundingRect(QRect(0, 0, width, 10_000),
                                              int(Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignHCenter),
                                              self.text())
        margins = self.contentsMargins()
        return box.height() + margins.top() + margins.bottom() + 2

    def hasHeightForWidth(self) -> bool:
        return False  # it sets its own minimum height (see ChartLegend): layouts then honour every minimum

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        fit_height_to_width(self, self.lines_height())

    def setText(self, text: str) -> None:
        super().setText(text)
        fit_height_to_width(self, self.lines_height())


class ChartPage:
    """A chart's title and legend above its plot, or a sentence in place of all three.

    The title is a word-wrapped label and the legend a :class:`ChartLegend`: both fold onto
    more lines at narrow widths instead of being cut, and neither covers the data. An empty
    chart shows what to do, not blank axes.

    Args:
        host: The chart widget; its layout becomes a stack of the chart and the message.
        plot: The plot widget.
        title: The chart's title.
    """

    def __init__(self, host: QWidget, plot: pg.PlotWidget, title: str = "") -> None:
        self.stack = QStackedLayout(host)
        self.stack.setContentsMargins(0, 0, 0, 0)
        self.plot = plot
        self.chart = QWidget()
        column = QVBoxLayout(self.chart)
        column.setContentsMargins(0, 4, 0, 0)
        column.setSpacing(2)
        self.title = ChartTitle(title)
        self.title.setObjectName("chartTitle")
        self.title.setWordWrap(True)
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setStyleSheet("font-size: 10.5pt; font-weight: 600;")
        self.legend = ChartLegend()
        column.addWidget(self.title)
        column.addWidget(self.legend)
        column.addWidget(plot, 1)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setStyleSheet("color: palette(placeholder-text); font-size: 10pt; padding: 24px;")
        # no minimum of its own: the stack already keeps the chart's, and a tab that lowers it gets the room back
        self.stack.addWidget(self.chart)
        self.stack.addWidget(self.message)

    def set_title(self, text: str) -> None:
        """The chart's title (wraps when the chart is narrow)."""
        if text != self.title.text():
            self.title.setText(text)

    def show_message(self, text: str) -> None:
        """Show ``text`` in place of the chart."""
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)

    def show_plot(self) -> None:
        """Show the chart again."""
        self.stack.setCurrentWidget(self.chart)

    @property
    def showing_message(self) -> bool:
        """True while the sentence is shown."""
        return self.stack.currentWidget() is self.message


class BarPicker:
    """Which bar of a bar chart is under the mouse: hover shows its tooltip, a click reports it.

    pyqtgraph's bar items have neither; this maps scene positions to the category under the
    cursor. A bar counts from its start to its end plus a small margin (a short bar stays easy
    to hit); the rest of the plot is empty space.

    Args:
        plot: The chart's plot.
        horizontal: True when bars grow along x (categories on the y axis).
        tip: Tooltip text of bar ``i``.
        clicked: Called with ``i`` on a left click on a bar.
    """

    def __init__(self, plot: pg.PlotWidget, horizontal: bool, tip: Callable[[int], str],
                 clicked: Callable[[int], None] | None = None) -> None:
        self.plot = plot
        self.horizontal = horizontal
        self.tip = tip
        self.clicked = clicked
        self.ends = np.zeros(0)
        self.half = 0.4
        self.last_tip = ""
        plot.scene().sigMouseMoved.connect(self._moved)
        plot.scene().sigMouseClicked.connect(self._clicked)

    def set_bars(self, ends: np.ndarray, half_height: float = 0.4) -> None:
        """Bars at categories 0 … n−1, each reaching ``ends[i]`` (starting at 0)."""
        self.ends = np.asarray(ends, dtype=float)
        self.half = half_height

    def index_at(self, scene_pos: QPointF) -> int | None:
        """The bar under a scene position, or ``None``."""
        box = self.plot.getPlotItem().vb
        if not len(self.ends) or not box.sceneBoundingRect().contains(scene_pos):
            return None
        point = box.mapSceneToView(scene_pos)
        category, value = (point.y(), point.x()) if self.horizontal else (point.x(), point.y())
        i = round(category)
        if not 0 <= i < len(self.ends) or abs(category - i) > self.half:
            return None
        lo, hi = box.viewRange()[0 if self.horizontal else 1]
        end = self.ends[i] if np.isfinite(self.ends[i]) else 0.0
        return i if min(0.0, end) - 0.02 * (hi - lo) <= value <= max(0.0, end) + 0.05 * (hi - lo) else None

    def _moved(self, scene_pos: QPointF) -> None:
        i = self.index_at(scene_pos)
        text = self.tip(i) if i is not None else ""
        if text == self.last_tip:
            return
        self.last_tip = text
        # the view box's own tooltip: Qt shows it like any item's (after the hover delay, on every platform)
        self.plot.getPlotItem().vb.setToolTip(text)
        view = self.plot
        where = view.mapToGlobal(view.mapFromScene(scene_pos))
        if text:
            QToolTip.showText(where, text, view)
        else:
            QToolTip.hideText()

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self.clicked is None:
            return
        i = self.index_at(event.scenePos())
        if i is not None:
            self.clicked(i)
