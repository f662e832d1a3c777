"""Prediction charts: relative performance per chip and the predicted step breakdown per chip."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mfu_desktop.gui.charts.common import SEGMENT_COLORS, StackedBars, chart_label, make_plot, set_category_ticks


class RelativePerformanceChart(QWidget):
    """Grouped bars: compute-only and step-level relative performance (baseline = 1.0)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Relative performance (baseline = 1.0)"), self.tr("chip"),
                              self.tr("speed-up (×)"))
        self.legend = self.plot.addLegend(offset=(10, 4), colCount=3)
        self.compute = pg.BarGraphItem(x=[], height=[], width=0.34, brush=pg.mkBrush(70, 130, 200))
        self.step = pg.BarGraphItem(x=[], height=[], width=0.34, brush=pg.mkBrush(220, 120, 50))
        for item, name in ((self.compute, self.tr("compute-class kernels")),
                           (self.step, self.tr("whole step (time-based)"))):
            self.plot.addItem(item)
            self.legend.addItem(item, name)
        self.plot.addItem(pg.InfiniteLine(pos=1.0, angle=0,
                                          pen=pg.mkPen((120, 120, 120), style=pg.QtCore.Qt.PenStyle.DashLine)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    def set_data(self, summary: pd.DataFrame | None) -> None:
        """``summary`` has device, relative_performance, step_relative_performance."""
        if summary is None or summary.empty:
            self.compute.setOpts(x=[], height=[], width=0.34)
            self.step.setOpts(x=[], height=[], width=0.34)
            set_category_ticks(self.plot.getAxis("bottom"), [])
            return
        x = np.arange(len(summary))
        compute = summary["relative_performance"].fillna(0).to_numpy(dtype=float)
        step = summary["step_relative_performance"].fillna(0).to_numpy(dtype=float)
        self.compute.setOpts(x=x - 0.18, height=compute, width=0.34)
        self.step.setOpts(x=x + 0.18, height=step, width=0.34)
        set_category_ticks(self.plot.getAxis("bottom"), [chart_label(d) for d in summary["device"]], max_len=14)
        self.plot.setXRange(-0.6, len(summary) - 0.4, padding=0)
        top = float(np.nanmax(np.concatenate([compute, step, [1.0]])))
        self.plot.setYRange(0, max(top * 1.25, 1.3), padding=0)  # headroom for the legend row


class PredictedStepChart(QWidget):
    """Stacked predicted step per chip: computing, communication, free (the mean over ranks)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Predicted step breakdown"), self.tr("chip"), self.tr("time"), y_units="s")
        self.bars = StackedBars(self.plot, [self.tr("computing"), self.tr("comm. not overlapped"), self.tr("free")],
                                list(SEGMENT_COLORS[:3]))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    def set_data(self, rows: pd.DataFrame | None) -> None:
        """``rows`` has device, computing_us, comm_us, free_us (means over ranks; first row = measured)."""
        if rows is None or rows.empty:
            self.bars.update([None] * 3)
            set_category_ticks(self.plot.getAxis("bottom"), [])
            return
        bottom = self.bars.update([rows[key].fillna(0.0).to_numpy(dtype=float) * 1e-6
                                   for key in ("computing_us", "comm_us", "free_us")])
        set_category_ticks(self.plot.getAxis("bottom"), [chart_label(d) for d in rows["device"]], max_len=14)
        self.plot.setXRange(-0.6, len(rows) - 0.4, padding=0)
        self.plot.setYRange(0, max(float(bottom.max()), 1e-9) * 1.22, padding=0)  # headroom for the legend
