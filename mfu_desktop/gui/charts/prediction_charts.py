"""Prediction charts: relative performance per chip and the predicted step breakdown per chip.

Both draw the rows of :func:`mfu_desktop.core.report.prediction_rows.prediction_rows` (per step, mean
per rank); a chip whose compute time is only partly predictable is drawn hatched and outlined.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mfu_desktop.gui.charts.common import SEGMENT_COLORS, StackedBars, chart_label, make_plot, set_category_ticks

COMPUTE_RGB = (70, 130, 200)
STEP_RGB = (220, 120, 50)
#: Step segments: computing, real transfer, waiting, free.
STEP_SEGMENT_COLORS = (SEGMENT_COLORS[0], SEGMENT_COLORS[1], (240, 190, 120), SEGMENT_COLORS[2])


def chip_labels(rows: pd.DataFrame, partial: np.ndarray) -> list[str]:
    """Category labels: the short chip name, " *" when partly predicted, "(OOM)" when the footprint does not fit."""
    fits = rows["memory_fits"].tolist() if "memory_fits" in rows else [None] * len(rows)
    oom = QCoreApplication.translate("PredictionCharts", "(OOM)")
    return [chart_label(d) + (" *" if p else "") + (f" {oom}" if f is False else "")
            for d, p, f in zip(rows["device"], partial, fits)]


def _brushes(rgb: tuple[int, int, int], partial: np.ndarray) -> list[QBrush]:
    """Solid for whole predictions, hatched for partial ones."""
    solid = QBrush(QColor(*rgb))
    hatched = QBrush(QColor(*rgb), Qt.BrushStyle.BDiagPattern)
    return [hatched if p else solid for p in partial]


def _pens(partial: np.ndarray) -> list:
    outline = pg.mkPen((40, 40, 40), width=1.5, style=Qt.PenStyle.DashLine)
    plain = pg.mkPen(None)
    return [outline if p else plain for p in partial]


class RelativePerformanceChart(QWidget):
    """Grouped bars: compute-only and step-level relative performance (baseline = 1.0).

    A hatched, outlined compute bar covers only part of the compute time (hover for the share).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Relative performance (baseline = 1.0)"), self.tr("chip"),
                              self.tr("speed-up (×)"))
        self.legend = self.plot.addLegend(offset=(10, 4), colCount=3)
        self.compute = pg.BarGraphItem(x=[], height=[], width=0.34, brush=pg.mkBrush(*COMPUTE_RGB))
        self.step = pg.BarGraphItem(x=[], height=[], width=0.34, brush=pg.mkBrush(*STEP_RGB))
        self.partial_sample = pg.BarGraphItem(x=[], height=[], width=0.34,
                                              brush=_brushes(COMPUTE_RGB, np.array([True]))[0],
                                              pen=_pens(np.array([True]))[0])
        for item, name in ((self.compute, self.tr("compute-class kernels")),
                           (self.step, self.tr("whole step (time-based)")),
                           (self.partial_sample, self.tr("partial"))):
            self.plot.addItem(item)
            self.legend.addItem(item, name)
        self.plot.addItem(pg.InfiniteLine(pos=1.0, angle=0,
                                          pen=pg.mkPen((120, 120, 120), style=pg.QtCore.Qt.PenStyle.DashLine)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self.partial_devices: list[str] = []

    def set_data(self, rows: pd.DataFrame | None) -> None:
        """``rows`` has device, relative_performance, step_relative_performance, partial, partial_reason."""
        if rows is None or rows.empty:
            self.compute.setOpts(x=[], height=[], width=0.34)
            self.step.setOpts(x=[], height=[], width=0.34)
            set_category_ticks(self.plot.getAxis("bottom"), [])
            self.partial_devices = []
            return
        x = np.arange(len(rows))
        compute = rows["relative_performance"].fillna(0).to_numpy(dtype=float)
        step = rows["step_relative_performance"].fillna(0).to_numpy(dtype=float)
        partial = rows["partial"].fillna(False).to_numpy(dtype=bool) if "partial" in rows else np.zeros(len(rows), bool)
        self.partial_devices = [str(d) for d, p in zip(rows["device"], partial) if p]
        self.compute.setOpts(x=x - 0.18, height=compute, width=0.34, brushes=_brushes(COMPUTE_RGB, partial),
                             pens=_pens(partial))
        self.step.setOpts(x=x + 0.18, height=step, width=0.34, brushes=_brushes(STEP_RGB, partial),
                          pens=_pens(partial))
        self.partial_sample.setVisible(bool(partial.any()))
        set_category_ticks(self.plot.getAxis("bottom"), chip_labels(rows, partial), max_len=15)
        reasons = [f"{d}: {r}" for d, r, p in zip(rows["device"], rows.get("partial_reason", ""), partial) if p]
        self.plot.setToolTip("\n".join(reasons))
        self.plot.setXRange(-0.6, len(rows) - 0.4, padding=0)
        top = float(np.nanmax(np.concatenate([compute, step, [1.0]])))
        self.plot.setYRange(0, max(top * 1.3, 1.3), padding=0)  # headroom for the legend row


class PredictedStepChart(QWidget):
    """Stacked step per chip (per step, mean per rank): computing, transfer, wait, free; first bar = measured."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Step per chip (mean per rank)"), self.tr("chip"), self.tr("time per step"),
                              y_units="s")
        self.bars = StackedBars(self.plot, [self.tr("computing"), self.tr("transfer"), self.tr("wait"),
                                            self.tr("free")], list(STEP_SEGMENT_COLORS))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    def set_data(self, rows: pd.DataFrame | None) -> None:
        """``rows`` has device, computing_us, transfer_us, wait_us, free_us, partial (first row = measured)."""
        if rows is None or rows.empty:
            self.bars.update([None] * 4)
            set_category_ticks(self.plot.getAxis("bottom"), [])
            return
        bottom = self.bars.update([rows[key].fillna(0.0).to_numpy(dtype=float) * 1e-6
                                   for key in ("computing_us", "transfer_us", "wait_us", "free_us")])
        partial = rows["partial"].to_numpy(dtype=bool) if "partial" in rows else np.zeros(len(rows), bool)
        set_category_ticks(self.plot.getAxis("bottom"), chip_labels(rows, partial), max_len=15)
        self.plot.setXRange(-0.6, len(rows) - 0.4, padding=0)
        self.plot.setYRange(0, max(float(bottom.max()), 1e-9) * 1.25, padding=0)  # headroom for the legend
