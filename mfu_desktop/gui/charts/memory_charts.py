"""Memory charts: a rank's allocator curve over its steps, its runtime components, and every rank's peak.

The curves are the engine's (:class:`~mfu_desktop.core.analysis.memory.RankMemory`, already on
one time axis, µs from the start of the peak's step): this module only draws them, in GB
(binary, as the catalog's ``memory_gb``) against ms. Items are created once and updated with
``setData``; a curve is thinned to at most :data:`CURVE_POINTS` points (per time bin its maxima:
the peak always survives).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from mfu_desktop.core.analysis.memory import MB_PER_GB, RankMemory, thinned
from mfu_desktop.gui.charts.common import ChartPage, make_plot, set_category_ticks

#: Points per drawn curve (a million memory records draw as this many).
CURVE_POINTS = 4000
#: Colours: allocated, reserved, the process, the chip's capacity, the peak.
ALLOCATED_COLOR = (70, 130, 200)
RESERVED_COLOR = (220, 120, 50)
PROCESS_COLOR = (140, 140, 140)
CAPACITY_COLOR = (200, 60, 60)
#: Runtime components (npu_module_mem) get these colours in turn.
COMPONENT_COLORS = ((46, 160, 120), (170, 90, 190), (200, 170, 40), (90, 90, 200), (200, 90, 120), (60, 170, 200))
#: Step windows alternate between these two fills (alpha) so neighbouring steps are told apart.
STEP_FILLS = ((128, 128, 128, 28), (128, 128, 128, 8))


def _gb(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64) / MB_PER_GB


class MemoryCurveChart(QWidget):
    """Allocated and reserved (the allocator), the process's reserved, the capacity, over the steps."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Memory over the capture"), self.tr("time from the start of the peak's step"),
                              self.tr("memory"), x_units="s", y_units="B", left_width=66)
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.setLabel("left", self.tr("memory (GB)"))
        self.plot.setMinimumHeight(140)  # the view fits a 1024×700 window with the cards above
        legend = self.plot.addLegend(offset=(10, -10), colCount=4)  # bottom left: the curves sit higher
        self.allocated = self.plot.plot([], [], pen=pg.mkPen(ALLOCATED_COLOR, width=2), name=self.tr("allocated"))
        self.reserved = self.plot.plot([], [], pen=pg.mkPen(RESERVED_COLOR, width=2), name=self.tr("reserved"))
        self.process = self.plot.plot([], [], pen=pg.mkPen(PROCESS_COLOR, width=1.5, style=Qt.PenStyle.DashLine),
                                      name=self.tr("process (APP)"))
        self.capacity = pg.InfiniteLine(angle=0, movable=False,
                                        pen=pg.mkPen(CAPACITY_COLOR, width=1.5, style=Qt.PenStyle.DotLine))
        self.plot.addItem(self.capacity)
        self.capacity_label = pg.TextItem("", color=CAPACITY_COLOR, anchor=(0, 0))
        self.plot.addItem(self.capacity_label)
        self.peak = pg.ScatterPlotItem([], [], symbol="star", size=16, brush=pg.mkBrush(CAPACITY_COLOR), pen=None)
        self.plot.addItem(self.peak)
        self.legend = legend
        self.steps: list[pg.LinearRegionItem] = []
        self.step_labels: list[pg.TextItem] = []
        self.page = ChartPage(self, self.plot)
        self.memory: RankMemory | None = None

    def set_memory(self, memory: RankMemory | None, message: str = "") -> None:
        """Draw ``memory``'s curves (``None``: show ``message`` instead)."""
        self.memory = memory
        if memory is None or (memory.curve.empty and memory.process_curve.empty):
            self.page.show_message(message or self.tr("No memory curve in this capture."))
            return
        self.page.show_plot()
        curve = thinned(memory.curve, ("allocated_mb", "reserved_mb"), CURVE_POINTS)
        t = curve["time_us"].to_numpy(np.float64) * 1e-6 if not curve.empty else np.zeros(0)
        self.allocated.setData(t, _gb(curve["allocated_mb"]) if not curve.empty else [])
        self.reserved.setData(t, _gb(curve["reserved_mb"]) if not curve.empty else [])
        process = thinned(memory.process_curve, ("reserved_mb",), CURVE_POINTS)
        self.process.setData(process["time_us"].to_numpy(np.float64) * 1e-6 if not process.empty else [],
                             _gb(process["reserved_mb"]) if not process.empty else [])
        self._draw_steps(memory.steps)
        top = self._draw_peak_and_capacity(memory)
        self.plot.enableAutoRange(axis="x")
        self.plot.setYRange(0, top * 1.18, padding=0)  # from zero: how full the chip is, at a glance

    def _draw_steps(self, steps: pd.DataFrame) -> None:
        for item in (*self.steps, *self.step_labels):
            self.plot.removeItem(item)
        self.steps, self.step_labels = [], []
        for i, row in enumerate(steps.itertuples(index=False)):  # a handful of steps, not kernels
            region = pg.LinearRegionItem((row.start_us * 1e-6, row.end_us * 1e-6), movable=False,
                                         brush=pg.mkBrush(*STEP_FILLS[i % 2]), pen=pg.mkPen(None))
            region.setZValue(-10)
            self.plot.addItem(region)
            label = pg.TextItem(self.tr("step {0}").format(row.step), color=(120, 120, 120), anchor=(0, 0))
            label.setPos(row.start_us * 1e-6, 0)
            self.plot.addItem(label)
            self.steps.append(region)
            self.step_labels.append(label)

    def _draw_peak_and_capacity(self, memory: RankMemory) -> float:
        """The peak's star, the capacity line (when it is not far above); returns the highest GB to show."""
        if memory.peak_at_us is not None and memory.peak_allocated_mb is not None:
            self.peak.setData([memory.peak_at_us * 1e-6], [memory.peak_allocated_mb / MB_PER_GB])
        else:
            self.peak.setData([], [])
        top = max((v for v in (memory.process_reserved_mb, memory.peak_reserved_mb, memory.peak_allocated_mb)
                   if v is not None), default=0.0) / MB_PER_GB
        capacity = memory.capacity_gb
        shown = capacity is not None and capacity <= max(top, 1e-9) * 2.0  # far above the curves it flattens them
        self.capacity.setVisible(shown)
        self.capacity_label.setVisible(shown)
        if shown:
            self.capacity.setValue(capacity)
            self.capacity_label.setText(self.tr("capacity {0} GB").format(f"{capacity:g}"))
            start = float(memory.curve["time_us"].iloc[0]) * 1e-6 if not memory.curve.empty else 0.0
            self.capacity_label.setPos(start, capacity)
            top = max(top, capacity)
        top = top if top > 0 else 1.0
        for label in self.step_labels:  # above the capacity line, under the plot's top
            label.setPos(label.pos().x(), top * 1.17)
        return top


class ComponentChart(QWidget):
    """Reserved memory per runtime component (HCCL, RUNTIME, …) over time, on the curve's time axis."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Reserved per runtime component"), self.tr("time from the start of the "
                                                                                 "peak's step"),
                              self.tr("reserved (GB)"), x_units="s", left_width=66)
        self.plot.setMinimumHeight(140)
        self.legend = self.plot.addLegend(offset=(10, 4), colCount=6)
        self.lines: dict[str, pg.PlotDataItem] = {}
        self.page = ChartPage(self, self.plot)

    def set_memory(self, memory: RankMemory | None) -> None:
        """Draw each component's reserved memory as a step line (``None`` or no components: a sentence)."""
        curves = memory.component_curves if memory is not None else pd.DataFrame()
        if curves.empty:
            self.page.show_message(self.tr("No per-component memory (npu_module_mem) in this capture."))
            return
        self.page.show_plot()
        names = list(dict.fromkeys(curves["component"].tolist()))
        for name in [n for n in self.lines if n not in names]:
            self.legend.removeItem(self.lines[name])
            self.plot.removeItem(self.lines.pop(name))
        for i, name in enumerate(names):
            part = curves[curves["component"] == name]
            t = part["time_us"].to_numpy(np.float64) * 1e-6
            y = _gb(part["reserved_mb"])
            if name not in self.lines:
                pen = pg.mkPen(COMPONENT_COLORS[i % len(COMPONENT_COLORS)], width=2)
                self.lines[name] = self.plot.plot([], [], pen=pen, name=name)
            self.lines[name].setData(np.append(t, t[-1]) if len(t) else t, np.append(y, y[-1]) if len(y) else y,
                                     stepMode="left" if len(t) else None)
        self.plot.enableAutoRange()


class RankPeaksChart(QWidget):
    """Every rank's peak allocated, reserved and process memory against its chip's capacity; click a rank."""

    rank_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plot = make_plot(self.tr("Peak memory per rank"), self.tr("rank"), self.tr("memory (GB)"),
                              left_width=66)
        legend = self.plot.addLegend(offset=(10, 4), colCount=4)
        width = 0.26
        self.bars = []
        for offset, color, name in ((-width, ALLOCATED_COLOR, self.tr("peak allocated")),
                                    (0.0, RESERVED_COLOR, self.tr("peak reserved")),
                                    (width, PROCESS_COLOR, self.tr("process (APP)"))):
            item = pg.BarGraphItem(x=[], height=[], width=width, brush=pg.mkBrush(*color))
            item.offset = offset
            self.plot.addItem(item)
            legend.addItem(item, name)
            self.bars.append(item)
        self.capacity = pg.PlotDataItem([], [], pen=pg.mkPen(CAPACITY_COLOR, width=1.5, style=Qt.PenStyle.DotLine),
                                        name=self.tr("capacity"))
        self.plot.addItem(self.capacity)  # named: the legend takes it
        self.hover = QLabel("")
        holder = QWidget()
        self.page = ChartPage(holder, self.plot)
        layout.addWidget(holder, 1)
        layout.addWidget(self.hover)
        self.ranks = np.zeros(0, dtype=np.int64)
        self.table = pd.DataFrame()
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        self.plot.scene().sigMouseMoved.connect(self._moved)

    def set_data(self, table: pd.DataFrame | None) -> None:
        """``table``: the cluster table (rank, peak_allocated_mb, peak_reserved_mb, process_reserved_mb, capacity)."""
        keys = ("peak_allocated_mb", "peak_reserved_mb", "process_reserved_mb")
        if table is None or table.empty or not any(k in table for k in keys) or \
                table[[k for k in keys if k in table]].isna().all().all():
            self.ranks = np.zeros(0, dtype=np.int64)
            self.page.show_message(self.tr("No rank has memory data: capture with profile_memory=True."))
            return
        self.page.show_plot()
        table = table.sort_values("rank", kind="stable").reset_index(drop=True)
        self.table = table
        self.ranks = table["rank"].to_numpy(dtype=np.int64)
        x = np.arange(len(table), dtype=np.float64)
        for item, key in zip(self.bars, keys):
            values = _gb(pd.to_numeric(table.get(key, pd.Series(np.nan, index=table.index)), errors="coerce")
                         .fillna(0.0).to_numpy())
            item.setOpts(x=x + item.offset, height=values, width=0.26)
        top = self._draw_capacity(table, x)
        every = max(1, math.ceil(len(table) / 24))
        set_category_ticks(self.plot.getAxis("bottom"),
                           [str(r) if i % every == 0 else "" for i, r in enumerate(self.ranks.tolist())])
        self.plot.setXRange(-0.6, max(len(table) - 0.4, 0.6), padding=0)
        highest = max((float(np.nanmax(item.opts["height"])) for item in self.bars if len(item.opts["height"])),
                      default=0.0)
        self.plot.setYRange(0, max(highest, top, 1e-3) * 1.25, padding=0)  # room above for the legend

    def _draw_capacity(self, table: pd.DataFrame, x: np.ndarray) -> float:
        """One capacity segment per rank (chips may differ); returns the highest capacity (0 when unknown)."""
        if "memory_capacity_gb" not in table or table["memory_capacity_gb"].isna().all():
            self.capacity.setData([], [])
            return 0.0
        cap = pd.to_numeric(table["memory_capacity_gb"], errors="coerce").to_numpy(np.float64)
        xs = np.column_stack([x - 0.45, x + 0.45]).ravel()
        self.capacity.setData(xs, np.repeat(cap, 2), connect="pairs")
        return float(np.nanmax(cap))

    def _index_at(self, scene_pos: QPointF) -> int | None:
        if len(self.ranks) == 0 or not self.plot.plotItem.sceneBoundingRect().contains(scene_pos):
            return None
        x = self.plot.plotItem.vb.mapSceneToView(scene_pos).x()
        i = round(x)
        return i if 0 <= i < len(self.ranks) and abs(x - i) <= 0.45 else None

    def value_text(self, index: int) -> str:
        """"rank 3: allocated 46.1 GB, reserved 48.4 GB, process 50.5 GB"."""
        row = self.table.iloc[index]

        def gb(key: str) -> str:
            value = row.get(key)
            return "–" if value is None or pd.isna(value) else f"{value / MB_PER_GB:,.1f} GB"

        return self.tr("rank {0}: allocated {1}, reserved {2}, process {3}").format(
            int(self.ranks[index]), gb("peak_allocated_mb"), gb("peak_reserved_mb"), gb("process_reserved_mb"))

    def _moved(self, scene_pos: QPointF) -> None:
        index = self._index_at(scene_pos)
        self.hover.setText(self.value_text(index) if index is not None else "")

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        index = self._index_at(event.scenePos())
        if index is not None:
            self.rank_clicked.emit(int(self.ranks[index]))
