"""Profiler charts: hot operators (with the step's non-operator time), per-kernel MFU scatter, step breakdown."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QWidget

from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.core.analysis.kernel_roofline import judged_values
from mfu_desktop.core.analysis.roofline_figures import judged_figure
from mfu_desktop.core.analysis.time_sinks import OPERATOR, sink
from mfu_desktop.core.numbers import calls, finite_number, pct, sig
from mfu_desktop.gui.bands import band_brushes, band_legend_labels
from mfu_desktop.gui.charts.common import (
    SEGMENT_COLORS,
    BarPicker,
    ChartPage,
    StackedBars,
    downsample_indices,
    highlight_rings,
    make_plot,
    point_data,
    ring_positions,
    set_category_ticks,
)
from mfu_desktop.gui.charts.legend import ChartLegend, Swatch
from mfu_desktop.gui.core_text import ct

#: The scatter shows at most this many kernels (the longest ones); a million points would
#: make the plot unusable and add nothing a table does not show better.
SCATTER_LIMIT = 8_000
#: Bars of non-operator time: the step breakdown's colours, hatched (they are not operators).
SINK_RGB = {"free": SEGMENT_COLORS[2], "comm_not_overlapped": SEGMENT_COLORS[1], "bubble": SEGMENT_COLORS[3]}


def band_legend(legend: ChartLegend) -> None:
    """The MFU/BW band colours as legend entries (the colour scale of bars, points and cells)."""
    legend.set_entries([(f"band{i}", Swatch(rgb, "marker"), text)
                        for i, (rgb, text) in enumerate(band_legend_labels())])


def wrapped(text: str, width: int = 90) -> str:
    """A long name (a group's shapes) on several lines, cut after its ";" separators, for a tooltip."""
    lines, line = [], ""
    for part in text.replace(";", ";\0").split("\0"):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    return "\n".join([*lines, line])


def group_label(row: dict, short: bool = False) -> str:
    """A hot row's name: ``MatMulV2 [4096,4096;11008,4096]`` (no shapes: the type alone).

    ``short``: the type by its display name (a GPU kernel's template noise dropped), for an axis.
    """
    shapes = row.get("input_shapes")
    name = short_name(str(row.get("type"))) if short else str(row.get("type"))
    return f"{name} [{shapes}]" if isinstance(shapes, str) and shapes else name


class HotOpsChart(QWidget):
    """The top operator groups and the step's non-operator time, by lost or total time.

    An operator's bar is coloured by the figure that judges it (MFU, or bandwidth utilisation
    when memory-bound); free time, communication not overlapped and bubbles are hatched in the
    step breakdown's colours. Hover a bar for its figures; a click emits :attr:`group_clicked`.
    """

    #: A bar was clicked: its row (``kind`` ``operator`` or a step-breakdown column, type, input_shapes …).
    group_clicked = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("time per step"), "", x_units="s", left_width=250)
        self.plot.getPlotItem().invertY(True)
        self.bars = pg.BarGraphItem(x0=[], y=[], height=0.7, width=[])
        self.plot.addItem(self.bars)
        self.page = ChartPage(self, self.plot, self.tr("Hot operators"))
        entries = [(f"band{i}", Swatch(rgb), text) for i, (rgb, text) in enumerate(band_legend_labels())]
        entries += [(key, Swatch(SINK_RGB[key], hatched=True), ct(sink(key).label)) for key in SINK_RGB]
        self.page.legend.set_entries(entries)
        self.picker = BarPicker(self.plot, True, self.tip, self._clicked)
        self.rows: list[dict] = []
        self.labels: list[str] = []
        self.by = "lost_us"
        self.step_us: float | None = None

    def set_data(self, table: pd.DataFrame | None, by: str = "time_us", title: str = "",
                 step_us: float | None = None) -> None:
        """Show ranked rows (:func:`~mfu_desktop.core.analysis.time_sinks.ranked_time`) by ``by``.

        Args:
            table: Rows with type, input_shapes, count, time_us, lost_us, mfu, bw_util, bound and
                ``kind`` (``operator`` or a step-breakdown column); ``None`` clears the chart.
            by: ``lost_us`` or ``time_us``.
            title: The chart's title.
            step_us: The step time the shares in the tooltips are of (µs per step).
        """
        self.page.set_title(title or self.tr("Hot operators"))
        self.plot.setLabel("bottom", self.tr("lost time per step") if by == "lost_us" else self.tr("time per step"),
                           units="s")
        self.by, self.step_us = by, step_us
        self.rows = [] if table is None else table.to_dict("records")
        if not self.rows:
            self.bars.setOpts(x0=[], y=[], width=[], brushes=[])
            set_category_ticks(self.plot.getAxis("left"), [])
            self.picker.set_bars(np.zeros(0))
            self.page.show_message(
                self.tr("Hot operators by lost time: no kernel has a lost time — no FLOPs-based MFU and no bytes "
                        "(switch to “by total time”).")
                if by == "lost_us" else self.tr("Hot operators: no kernels."))
            return
        self.page.show_plot()
        values = np.array([float(r.get(by) or 0.0) for r in self.rows]) * 1e-6
        y = np.arange(len(self.rows))
        self.bars.setOpts(x0=np.zeros(len(self.rows)), y=y, width=values, height=0.7, brushes=self._brushes(table))
        self.picker.set_bars(values, 0.4)
        kinds = {str(r.get("kind") or OPERATOR) for r in self.rows}
        for key in SINK_RGB:
            self.page.legend.show_entry(key, key in kinds)
        self.labels = [group_label(r, short=True) if r.get("kind", OPERATOR) == OPERATOR else ct(str(r.get("type")))
                       for r in self.rows]
        set_category_ticks(self.plot.getAxis("left"), self.labels)
        self.plot.setYRange(-0.5, len(self.rows) - 0.5, padding=0.02)
        self.plot.setXRange(0, max(values.max(), 1e-9), padding=0.05)

    def _brushes(self, table: pd.DataFrame) -> list:
        """Band colours of the judging figure; hatched step-breakdown colours for non-operator time."""
        brushes = band_brushes(judged_values(table))
        for i, row in enumerate(self.rows):
            rgb = SINK_RGB.get(str(row.get("kind")))
            if rgb is not None:
                brushes[i] = QBrush(QColor(*rgb), Qt.BrushStyle.BDiagPattern)
        return brushes

    def tip(self, i: int) -> str:
        """The tooltip of bar ``i``: full name and shapes, calls, time and share, lost time, the judging figure."""
        row = self.rows[i]
        time_us = finite_number(row.get("time_us"))
        share = f" ({pct(time_us / self.step_us)} {self.tr('of the step')})" if time_us and self.step_us else ""
        if row.get("kind", OPERATOR) != OPERATOR:
            about = sink(str(row.get("kind")))
            return "\n".join([ct(about.label), self.tr("{0} µs per step").format(sig(time_us, group=True)) + share,
                               ct(about.meaning), self.tr("Click: the step breakdown")])
        lines = [wrapped(group_label(row)), self.tr("{0} calls per step · {1} µs per step").format(
            calls(row.get("count")), sig(time_us, group=True)) + share]
        lost = finite_number(row.get("lost_us"))
        if lost is not None:
            lines.append(self.tr("lost {0} µs per step (measured − roofline-attainable)").format(sig(lost, group=True)))
        label, value = judged_figure(row)
        if value is not None:
            bound = {"compute": self.tr("compute-bound"), "memory": self.tr("memory-bound")}.get(
                str(row.get("bound")), "")
            figure = self.tr("BW {0} of HBM").format(pct(value)) if label == "BW" else f"MFU {pct(value)}"
            lines.append(f"{figure} · {bound}".rstrip(" ·"))
        lines.append(self.tr("Click: its kernels and their derivation"))
        return "\n".join(lines)

    def _clicked(self, i: int) -> None:
        if 0 <= i < len(self.rows):
            self.group_clicked.emit(dict(self.rows[i]))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # the names take about half the chart: they are shortened in the middle, never the bars
        self.plot.getAxis("left").setWidth(int(min(max(self.width() * 0.5, 110), 340)))


@dataclass
class ScatterPoints:
    """The kernels a scatter shows: x = log10(duration µs), MFU fractions, frame positions, tooltips."""

    x: np.ndarray
    mfu: np.ndarray
    rows: np.ndarray
    data: list[tuple[int, str]]
    counted: int


def scatter_points(duration_us: np.ndarray | None, mfu: np.ndarray | None,
                   names: pd.Series | None = None, limit: int | None = None) -> ScatterPoints:
    """Choose and prepare the scatter's points (no Qt: safe on a worker thread).

    Kernels without a finite MFU are left out; above ``limit`` the longest kernels are kept.
    Categorical names are materialised only for the kept kernels.
    """
    limit = SCATTER_LIMIT if limit is None else limit
    mfu = np.asarray(mfu if mfu is not None else [], dtype=np.float64)
    dur = np.asarray(duration_us if duration_us is not None else [], dtype=np.float64)
    finite = np.isfinite(mfu)
    rows = np.flatnonzero(finite)
    if len(rows) > limit:
        rows = rows[downsample_indices(len(rows), limit, dur[rows])]
    if names is None:
        label = np.full(len(rows), "", dtype=object)
    elif isinstance(names.dtype, pd.CategoricalDtype):
        codes = names.cat.codes.to_numpy()[rows]
        categories = np.asarray([short_name(str(c)) for c in names.cat.categories], dtype=object)
        label = np.where(codes >= 0, categories[np.maximum(codes, 0)] if len(categories) else "", "")
    else:
        label = np.asarray([short_name(str(n)) for n in names.to_numpy(dtype=object)[rows]], dtype=object)
    return ScatterPoints(x=np.log10(np.maximum(dur[rows], 1e-3)), mfu=mfu[rows], rows=rows,
                         data=[(int(r), str(n)) for r, n in zip(rows, label)], counted=int(finite.sum()))


class MfuScatter(QWidget):
    """Duration vs MFU of counted kernels; hover shows the kernel, a click selects it."""

    kernel_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("duration (µs, log scale)"), self.tr("MFU (%)"), grid="xy")
        # x = log10(duration in µs) with our own 1-2-5 ticks (pyqtgraph's log axis crowds its minor labels)
        self.scatter = pg.ScatterPlotItem(size=6, pen=None, hoverable=True, tip=self._tip)
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        self.rings = highlight_rings()
        self.plot.addItem(self.rings)
        self.page = ChartPage(self, self.plot, self.tr("MFU per kernel"))
        band_legend(self.page.legend)
        self._names: list[str] = []
        self._points: ScatterPoints | None = None
        self._highlighted = np.zeros(0, dtype=np.int64)

    def _tip(self, x: float, y: float, data: object) -> str:
        _row, name = data if isinstance(data, tuple) else (None, "")
        return f"{name}\n{self.tr('duration')}: {10 ** x:.1f} µs\nMFU: {y:.1f} %"

    def set_data(self, duration_us: np.ndarray | None, mfu: np.ndarray | None = None,
                 names: pd.Series | None = None) -> None:
        """Plot kernels with a finite MFU (see :func:`scatter_points`); ``None`` clears the plot."""
        self.set_points(scatter_points(duration_us, mfu, names) if duration_us is not None else None)

    def set_highlight(self, rows: np.ndarray | None) -> None:
        """Ring the kernels at these frame rows (``None`` or empty: none), shown or shown later."""
        self._highlighted = np.asarray(rows if rows is not None else [], dtype=np.int64)
        p = self._points
        if p is None:
            self.rings.setData([], [])
            return
        x, y = ring_positions(p.rows, p.x, p.mfu * 100, self._highlighted)
        self.rings.setData(x=x, y=y)

    def set_points(self, points: ScatterPoints | None, empty_text: str = "") -> None:
        """Show points prepared by :func:`scatter_points` (possibly on a worker thread).

        ``empty_text`` replaces the sentence shown when no kernel has a FLOPs-based MFU (the tab
        names the reason it knows, e.g. a chip that is not confirmed).
        """
        self._points = points if points is not None and len(points.rows) else None
        self.set_highlight(self._highlighted)
        if points is None or not len(points.rows):
            self.scatter.setData([], [])
            self.page.show_message(self.tr("MFU per kernel: select a rank in the tree to see its kernels.")
                                   if points is None else empty_text or
                                   self.tr("MFU per kernel: no kernel of this rank has a FLOPs-based MFU (see the "
                                           "fallback tier card and the Exclusions table)."))
            return
        self.page.show_plot()
        if points.counted > len(points.rows):
            self.page.set_title(self.tr("MFU per kernel (the {0} longest of {1})").format(
                f"{len(points.rows):,}", f"{points.counted:,}"))
        else:
            self.page.set_title(self.tr("MFU per kernel"))
        self.scatter.setData(x=points.x, y=points.mfu * 100, brush=band_brushes(points.mfu), data=points.data)
        lo, hi = float(points.x.min()), float(points.x.max())
        if hi - lo < 0.6:  # one duration (or nearly): a range wide enough for labelled ticks either side
            lo, hi = lo - 0.4, hi + 0.4
            self.plot.setXRange(lo, hi, padding=0)
        else:
            self.plot.enableAutoRange(axis="x")
        self.plot.getAxis("bottom").setTicks(log_ticks(lo, hi))

    def _clicked(self, _item: object, points: object, _event: object = None) -> None:
        data = point_data(points)
        if isinstance(data, tuple) and data[0] is not None:
            self.kernel_clicked.emit(int(data[0]))


def log_ticks(lo: float, hi: float) -> list[list[tuple[float, str]]]:
    """Major ticks at 1-2-5 × 10^k between two log10 values (µs), labelled in µs."""
    ticks = []
    for decade in range(math.floor(lo) - 1, math.ceil(hi) + 1):
        for m in (1, 2, 5):
            value = m * 10.0 ** decade
            position = math.log10(value)
            if lo - 0.3 <= position <= hi + 0.3:
                ticks.append((position, f"{value:,.0f}" if value >= 1 else f"{value:g}"))
    if len(ticks) > 9:  # many decades: keep the decades only
        ticks = [t for t in ticks if t[1].replace(",", "").lstrip("0.").startswith("1")]
    return [ticks, []]


class StepBreakdownChart(QWidget):
    """Stacked bars per rank: computing, communication not overlapped, free and bubble (µs → s).

    Ranks are named by their display labels (:meth:`FolderAnalysis.labels`): ranks sharing an id told
    apart, traces without an id by their file. Hover a bar for its figures; a click selects the rank.
    """

    #: A bar was clicked: the position of its rank in the table given to :meth:`set_data`.
    rank_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("rank"), self.tr("time per step"), y_units="s")
        self.page = ChartPage(self, self.plot, self.tr("Step breakdown per rank (mean per step)"))
        self.segment_names = [self.tr("computing"), self.tr("communication (not overlapped)"), self.tr("free"),
                              self.tr("bubble")]
        self.bars = StackedBars(self.plot, self.page.legend, self.segment_names, list(SEGMENT_COLORS))
        self.picker = BarPicker(self.plot, False, self.tip, lambda i: self.rank_clicked.emit(self.rank_rows[i]))
        self.names: list[str] = []
        self.rank_rows: list[int] = []

    def set_data(self, table: pd.DataFrame | None, slow: list[int] | None = None,
                 labels: list[str] | None = None) -> None:
        """``table`` has columns rank, computing, comm_not_overlapped, free, bubble (µs); ``labels`` name its rows."""
        self.rank_rows = []
        if table is not None and "computing" in table:
            keep = table["computing"].notna().to_numpy()
            labels = [label for label, k in zip(labels, keep) if k] if labels is not None else None
            self.rank_rows = [int(i) for i in np.flatnonzero(keep)]
            table = table[keep]
        if table is None or table.empty or "computing" not in table:
            self.bars.update([None] * 4)
            set_category_ticks(self.plot.getAxis("bottom"), [])
            self.picker.set_bars(np.zeros(0))
            self.page.show_message(self.tr("Step breakdown: no step trace (step_trace_time.csv or analysis.db) in "
                                           "this profile."))
            return
        self.page.show_plot()
        segments = []
        for key in ("computing", "comm_not_overlapped", "free", "bubble"):
            values = table[key].fillna(0.0).to_numpy(dtype=float) * 1e-6 if key in table else None
            if key == "bubble" and values is not None and not values.any():
                values = None  # no bubble: no segment and no legend entry
            segments.append(values)
        bottom = self.bars.update(segments)
        self.picker.set_bars(bottom, 0.3)
        slow = set(slow or [])
        self.names = labels if labels is not None else [str(int(r)) for r in table["rank"]]
        marked = [f"{name}{' ⚠' if int(r) in slow else ''}" for name, r in zip(self.names, table["rank"])]
        set_category_ticks(self.plot.getAxis("bottom"), marked, two_line_room=any(" · " in n for n in self.names))
        self.plot.setXRange(-0.6, max(len(table) - 0.4, 0.6), padding=0)
        top = bottom.max() if len(bottom) else 1.0
        self.plot.setYRange(0, (top if math.isfinite(top) and top > 0 else 1.0) * 1.05, padding=0)

    def tip(self, i: int) -> str:
        """Rank ``i``'s label and its segments in ms per step."""
        lines = [self.names[i] if i < len(self.names) else ""]
        for name, values in zip(self.segment_names, self.bars.values):
            if values is not None and i < len(values):
                lines.append(f"{name}: {sig(values[i] * 1e3, group=True)} ms")
        lines.append(self.tr("Click: select this rank"))
        return "\n".join(lines)


def export_plot(chart: QWidget, path: Path) -> Path:
    """Save a chart (its title, legend and plot) as PNG or SVG (by extension), through a temporary file.

    Raises:
        mfu_desktop.core.writing.ExportError: When the file cannot be written.
    """
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QImage, QPainter

    from mfu_desktop.core.writing import atomic_write

    path = Path(path)
    if chart.width() < 200 or chart.height() < 150:  # never laid out (its page was not shown): a readable size
        chart.resize(900, 520)
    if path.suffix.lower() == ".svg":
        payload = render_svg(chart, path.stem)
        return atomic_write(path, lambda p: p.write_bytes(payload))
    scale = 2
    image = QImage(chart.width() * scale, chart.height() * scale, QImage.Format.Format_ARGB32)
    image.fill(chart.palette().window().color())
    painter = QPainter(image)
    painter.scale(scale, scale)
    chart.render(painter, QPoint(0, 0))
    painter.end()

    def write(p: Path) -> None:
        if not image.save(str(p), "PNG"):
            raise OSError(f"could not encode {path.name}")

    return atomic_write(path, write)


def render_svg(widget: QWidget, title: str = "") -> bytes:
    """A widget drawn into SVG with QtSvg (pyqtgraph's own SVG exporter fails on Qt 6 paths)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect, QSize
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    size = widget.size() if widget.width() > 10 else QSize(800, 500)
    generator.setSize(size)
    generator.setViewBox(QRect(0, 0, size.width(), size.height()))
    generator.setTitle(title)
    painter = QPainter(generator)
    widget.render(painter, QPoint(0, 0))
    painter.end()
    buffer.close()
    return bytes(data.data())
