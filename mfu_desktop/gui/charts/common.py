"""Shared chart helpers: MFU colours, labelled bar charts, category axes."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedLayout, QWidget

#: Colours of the step-breakdown segments (computing, communication not overlapped, free, bubble).
SEGMENT_COLORS = ((70, 130, 200), (220, 120, 50), (150, 150, 150), (200, 60, 60))
#: Family colours, in the order of the shipped family mapping (then "other"): the roofline and the timeline.
FAMILY_COLORS = ((214, 39, 40), (255, 127, 14), (31, 119, 180), (148, 103, 189), (127, 127, 127), (44, 160, 44),
                 (188, 189, 34), (140, 86, 75), (227, 119, 194), (23, 190, 207), (174, 199, 232), (100, 100, 100))


def make_plot(title: str, x_label: str, y_label: str, x_units: str = "", y_units: str = "",
              left_width: int = 62, grid: str = "") -> pg.PlotWidget:
    """A plot with a title and labelled axes (units shown); ``left_width`` px for the left axis.

    ``grid`` is ``""``, ``"x"``, ``"y"`` or ``"xy"``: grid lines cost ~4 ms per direction and
    repaint (alpha blending in the raster engine), so only the scatter, where positions are read
    off both axes, draws them; bar charts are read from their ticks.
    """
    plot = pg.PlotWidget()
    plot.setTitle(title)
    plot.setLabel("bottom", x_label, units=x_units or None)
    plot.setLabel("left", y_label, units=y_units or None)
    if grid:
        plot.showGrid(x="x" in grid, y="y" in grid, alpha=0.2)
    plot.setMenuEnabled(False)
    plot.setMinimumHeight(220)
    # Fixed axis sizes: pyqtgraph otherwise re-sizes axes to their tick labels, and every
    # re-size re-lays out and repaints the plot (several rounds on first display and on new data).
    plot.getAxis("left").setWidth(left_width)
    plot.getAxis("bottom").setHeight(44)
    return plot


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


def set_category_ticks(axis: pg.AxisItem, labels: list[str], max_len: int = 28) -> None:
    """Text ticks at integer positions (long labels shortened).

    On a horizontal axis a label's parenthesis goes to a second line ("H100 SXM" over "(now)"): crowded
    category axes stay legible, and the axis grows to hold the two lines.
    """
    horizontal = axis.orientation in ("bottom", "top")
    ticks = []
    for i, label in enumerate(labels):
        lines = label.split(" (") if horizontal and not label.startswith("\n") else [label]
        lines = [lines[0], *("(" + part for part in lines[1:])]
        text = "\n".join(line if len(line) <= max_len else line[: max_len - 1] + "…" for line in lines)
        ticks.append((i, text))
    axis.enableAutoSIPrefix(False)  # positions are categories: never "chip (×0.001)"
    if horizontal:
        axis.setHeight(60 if any("\n" in text for _, text in ticks) else 44)
    axis.setTicks([ticks])


def downsample_indices(n: int, limit: int, weights: np.ndarray | None = None) -> np.ndarray:
    """At most ``limit`` indices: the heaviest by ``weights`` when given, else evenly spaced."""
    if n <= limit:
        return np.arange(n)
    if weights is not None:
        return np.sort(np.argpartition(-np.nan_to_num(weights), limit)[:limit])
    return np.linspace(0, n - 1, limit).astype(np.int64)


class StackedBars:
    """Stacked bar segments whose items and legend entries are created once and updated in place.

    Re-creating bar items and legend labels on every update cost ~15 ms per chart (legend
    labels are text items); updating them with ``setOpts`` costs well under a millisecond.
    """

    def __init__(self, plot: pg.PlotWidget, names: list[str], colors: list[tuple[int, int, int]],
                 width: float = 0.6) -> None:
        self.plot = plot
        self.width = width
        self.legend = plot.addLegend(offset=(10, 4), colCount=len(names))
        self.items = []
        for name, color in zip(names, colors):
            item = pg.BarGraphItem(x=[], y0=[], height=[], width=width, brush=pg.mkBrush(*color))
            plot.addItem(item)
            self.legend.addItem(item, name)
            self.items.append(item)
        self.names = names
        self.shown = [True] * len(names)

    def update(self, segments: list[np.ndarray | None]) -> np.ndarray:
        """Stack ``segments`` (one array per item, ``None`` hides that segment); returns the tops."""
        n = len(next((s for s in segments if s is not None), []))
        x = np.arange(n)
        bottom = np.zeros(n)
        for i, (item, values) in enumerate(zip(self.items, segments)):
            visible = values is not None
            if visible != self.shown[i]:  # keep the legend in step with what is drawn
                if visible:
                    self.legend.addItem(item, self.names[i])
                else:
                    self.legend.removeItem(item)
                self.shown[i] = visible
            item.setVisible(visible)
            if visible:
                item.setOpts(x=x, y0=bottom.copy(), height=values, width=self.width)
                bottom = bottom + values
            else:
                item.setOpts(x=[], y0=[], height=[], width=self.width)
        return bottom


class ChartPage:
    """A plot that can give way to a sentence: an empty chart shows what to do, not blank axes.

    Args:
        host: The chart widget; its layout becomes a stack of the plot and the message.
        plot: The plot widget.
    """

    def __init__(self, host: QWidget, plot: pg.PlotWidget) -> None:
        self.stack = QStackedLayout(host)
        self.stack.setContentsMargins(0, 0, 0, 0)
        self.plot = plot
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setStyleSheet("color: palette(placeholder-text); font-size: 10pt; padding: 24px;")
        # no minimum of its own: the stack already keeps the plot's, and a tab that lowers it gets the room back
        self.stack.addWidget(plot)
        self.stack.addWidget(self.message)

    def show_message(self, text: str) -> None:
        """Show ``text`` in place of the plot."""
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)

    def show_plot(self) -> None:
        """Show the plot again."""
        self.stack.setCurrentWidget(self.plot)

    @property
    def showing_message(self) -> bool:
        """True while the sentence is shown."""
        return self.stack.currentWidget() is self.message
