"""Profiler charts: hot operators, per-kernel MFU scatter, step breakdown per rank."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.core.analysis.kernel_roofline import judged_values
from mfu_desktop.gui.bands import band_brushes
from mfu_desktop.gui.charts.common import (
    SEGMENT_COLORS,
    ChartPage,
    StackedBars,
    downsample_indices,
    highlight_rings,
    make_plot,
    ring_positions,
    set_category_ticks,
)

#: The scatter shows at most this many kernels (the longest ones); a million points would
#: make the plot unusable and add nothing a table does not show better.
SCATTER_LIMIT = 8_000


class HotOpsChart(QWidget):
    """Horizontal bars of the top operators (by time or by lost time), coloured by MFU (bandwidth when memory-bound).

    Signals:
        group_clicked: The bar of a row (its position in the table shown) was clicked.
    """

    group_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Hot operators"), self.tr("time per step"), "", x_units="s", left_width=250)
        self.plot.getPlotItem().invertY(True)
        self.bars = pg.BarGraphItem(x0=[], y=[], height=0.7, width=[])
        self.plot.addItem(self.bars)
        self.page = ChartPage(self, self.plot)
        self.labels: list[str] = []
        self.plot.scene().sigMouseClicked.connect(self._clicked)

    def _clicked(self, event: object) -> None:
        """A click on a bar's row selects that operator group (its kernels are highlighted in the timeline)."""
        vb = self.plot.getPlotItem().getViewBox()
        if not self.labels or not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        row = round(vb.mapSceneToView(event.scenePos()).y())
        if 0 <= row < len(self.labels):
            self.group_clicked.emit(int(row))

    def set_data(self, table: pd.DataFrame, by: str = "time_us", title: str = "") -> None:
        """Show ``table`` (type, input_shapes, time_us, lost_us, mfu) by ``by``."""
        self.plot.setTitle(title or self.tr("Hot operators"))
        self.plot.setLabel("bottom", self.tr("lost time per step") if by == "lost_us" else self.tr("time per step"),
                           units="s")
        if table is None or table.empty:
            self.bars.setOpts(x0=[], y=[], width=[], brushes=[])
            set_category_ticks(self.plot.getAxis("left"), [])
            self.page.show_message(
                self.tr("Hot operators by lost time: no kernel has a lost time — no FLOPs-based MFU and no bytes "
                        "(switch to “by total time”).")
                if by == "lost_us" else self.tr("Hot operators: no kernels."))
            return
        self.page.show_plot()
        values = table[by].fillna(0.0).to_numpy(dtype=float) * 1e-6
        y = np.arange(len(table))
        brushes = band_brushes(judged_values(table))
        self.bars.setOpts(x0=np.zeros(len(table)), y=y, width=values, height=0.7, brushes=brushes)
        self.labels = [f"{short_name(str(t))} [{s}]" if s else short_name(str(t))
                       for t, s in zip(table["type"], table.get("input_shapes", ""))]
        set_category_ticks(self.plot.getAxis("left"), self.labels, max_len=31)
        self.plot.setYRange(-0.5, len(table) - 0.5, padding=0.02)
        self.plot.setXRange(0, max(values.max(), 1e-9), padding=0.05)


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
        self.plot = make_plot(self.tr("MFU per kernel"), self.tr("duration (µs, log scale)"), self.tr("MFU (%)"),
                              grid="xy")
        # x = log10(duration in µs) with our own 1-2-5 ticks (pyqtgraph's log axis crowds its minor labels)
        self.scatter = pg.ScatterPlotItem(size=6, pen=None, hoverable=True, tip=self._tip)
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        self.rings = highlight_rings()
        self.plot.addItem(self.rings)
        self.page = ChartPage(self, self.plot)
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

    def set_points(self, points: ScatterPoints | None) -> None:
        """Show points prepared by :func:`scatter_points` (possibly on a worker thread)."""
        self._points = points if points is not None and len(points.rows) else None
        self.set_highlight(self._highlighted)
        if points is None or not len(points.rows):
            self.scatter.setData([], [])
            self.page.show_message(self.tr("MFU per kernel: select a rank in the tree to see its kernels.")
                                   if points is None else
                                   self.tr("MFU per kernel: no kernel of this rank has a FLOPs-based MFU (see the "
                                           "fallback tier card and the Exclusions table)."))
            return
        self.page.show_plot()
        if points.counted > len(points.rows):
            self.plot.setTitle(self.tr("MFU per kernel (the {0} longest of {1})").format(
                f"{len(points.rows):,}", f"{points.counted:,}"))
        else:
            self.plot.setTitle(self.tr("MFU per kernel"))
        self.scatter.setData(x=points.x, y=points.mfu * 100, brush=band_brushes(points.mfu), data=points.data)
        self.plot.getAxis("bottom").setTicks(log_ticks(float(points.x.min()), float(points.x.max())))

    def _clicked(self, _item: object, points: list, _event: object = None) -> None:
        if points:
            data = points[0].data()
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
    """Stacked bars per rank: computing, communication not overlapped, free and bubble (µs → s)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Step breakdown per rank (mean per step)"), self.tr("rank"),
                              self.tr("time per step"), y_units="s")
        self.bars = StackedBars(self.plot, [self.tr("computing"), self.tr("communication (not overlapped)"),
                                            self.tr("free"), self.tr("bubble")], list(SEGMENT_COLORS))
        self.page = ChartPage(self, self.plot)

    def set_data(self, table: pd.DataFrame | None, slow: list[int] | None = None) -> None:
        """``table`` has columns rank, computing, comm_not_overlapped, free, bubble (µs)."""
        if table is not None and "computing" in table:
            table = table[table["computing"].notna()]
        if table is None or table.empty or "computing" not in table:
            self.bars.update([None] * 4)
            set_category_ticks(self.plot.getAxis("bottom"), [])
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
        slow = set(slow or [])
        every = max(1, math.ceil(len(table) / 24))  # at most ~24 labels; slow ranks are always labelled
        labels = [f"{int(r)}{' ⚠' if int(r) in slow else ''}" if (i % every == 0 or int(r) in slow) else ""
                  for i, r in enumerate(table["rank"])]
        set_category_ticks(self.plot.getAxis("bottom"), labels)
        self.plot.setXRange(-0.6, max(len(table) - 0.4, 0.6), padding=0)
        top = bottom.max() if len(bottom) else 1.0
        # headroom above the bars for the legend row
        self.plot.setYRange(0, (top if math.isfinite(top) and top > 0 else 1.0) * 1.22, padding=0)


def export_plot(plot: pg.PlotWidget, path: Path) -> Path:
    """Save a chart as PNG or SVG (by extension), through a temporary file (no partial file is left).

    Raises:
        mfu_desktop.core.writing.ExportError: When the file cannot be written.
    """
    from pyqtgraph.exporters import ImageExporter

    from mfu_desktop.core.writing import atomic_write

    path = Path(path)
    if path.suffix.lower() == ".svg":
        payload = render_svg(plot, path.stem)
        return atomic_write(path, lambda p: p.write_bytes(payload))
    exporter = ImageExporter(plot.plotItem)
    exporter.parameters()["width"] = max(int(plot.width()) * 2, 800)
    image = exporter.export(toBytes=True)

    def write(p: Path) -> None:
        if not image.save(str(p), "PNG"):
            raise OSError(f"could not encode {path.name}")

    return atomic_write(path, write)


def render_svg(widget: QWidget, title: str = "") -> bytes:
    """A widget drawn into SVG with QtSvg (pyqtgraph's own SVG exporter fails on Qt 6 paths)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QSize
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
    widget.render(painter)
    painter.end()
    buffer.close()
    return bytes(data.data())
