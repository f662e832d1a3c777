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
from PySide6.QtWidgets import QWidget

from mfu_desktop.gui.charts.common import (
    SEGMENT_COLORS,
    BarPicker,
    ChartPage,
    StackedBars,
    chart_label,
    make_plot,
    set_category_ticks,
)
from mfu_desktop.gui.charts.legend import Swatch

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
        self.plot = make_plot(self.tr("chip"), self.tr("speed-up (×)"))
        self.compute = pg.BarGraphItem(x=[], height=[], width=0.34, brush=pg.mkBrush(*COMPUTE_RGB))
        self.step = pg.BarGraphItem(x=[], height=[], width=0.34, brush=pg.mkBrush(*STEP_RGB))
        for item in (self.compute, self.step):
            self.plot.addItem(item)
        self.plot.addItem(pg.InfiniteLine(pos=1.0, angle=0,
                                          pen=pg.mkPen((120, 120, 120), style=pg.QtCore.Qt.PenStyle.DashLine)))
        self.page = ChartPage(self, self.plot, self.tr("Relative performance (baseline = 1.0)"))
        self.page.legend.set_entries([
            ("compute", Swatch(COMPUTE_RGB), self.tr("compute-class kernels")),
            ("step", Swatch(STEP_RGB), self.tr("whole step (time-based)")),
            ("partial", Swatch((160, 160, 160), hatched=True, dashed=True), self.tr("partly predicted (*)"))])
        self.partial_devices: list[str] = []
        self.rows: list[dict] = []
        self.picker = BarPicker(self.plot, False, self.tip)
        self.set_data(None)  # its sentence until there is a prediction, not blank axes

    def set_data(self, rows: pd.DataFrame | None) -> None:
        """``rows`` has device, relative_performance, step_relative_performance, partial, partial_reason."""
        if rows is None or rows.empty:
            self.compute.setOpts(x=[], height=[], width=0.34)
            self.step.setOpts(x=[], height=[], width=0.34)
            set_category_ticks(self.plot.getAxis("bottom"), [])
            self.partial_devices = []
            self.rows = []
            self.picker.set_bars(np.zeros(0))
            self.page.show_message(self.tr("Relative performance: load a profile, then Predict."))
            return
        self.page.show_plot()
        self.rows = rows.to_dict("records")
        x = np.arange(len(rows))
        compute = rows["relative_performance"].fillna(0).to_numpy(dtype=float)
        step = rows["step_relative_performance"].fillna(0).to_numpy(dtype=float)
        partial = rows["partial"].fillna(False).to_numpy(dtype=bool) if "partial" in rows else np.zeros(len(rows), bool)
        self.partial_devices = [str(d) for d, p in zip(rows["device"], partial) if p]
        self.compute.setOpts(x=x - 0.18, height=compute, width=0.34, brushes=_brushes(COMPUTE_RGB, partial),
                             pens=_pens(partial))
        self.step.setOpts(x=x + 0.18, height=step, width=0.34, brushes=_brushes(STEP_RGB, partial),
                          pens=_pens(partial))
        self.page.legend.show_entry("partial", bool(partial.any()))
        self.picker.set_bars(np.maximum(compute, step), 0.45)
        set_category_ticks(self.plot.getAxis("bottom"), chip_labels(rows, partial), two_line_room=True)
        reasons = [f"{d}: {r}" for d, r, p in zip(rows["device"], rows.get("partial_reason", ""), partial) if p]
        self.plot.setToolTip("\n".join(reasons))
        self.plot.setXRange(-0.6, len(rows) - 0.4, padding=0)
        top = float(np.nanmax(np.concatenate([compute, step, [1.0]])))
        self.plot.setYRange(0, max(top * 1.08, 1.1), padding=0)

    def tip(self, i: int) -> str:
        """The chip's full name, both speed-ups and why a bar is only partly predicted."""
        row = self.rows[i]
        lines = [str(row.get("device")),
                 self.tr("compute-class kernels: {0}×").format(_x(row.get("relative_performance"))),
                 self.tr("whole step: {0}×").format(_x(row.get("step_relative_performance")))]
        if row.get("partial") and row.get("partial_reason"):
            lines.append(str(row["partial_reason"]))
        return "\n".join(lines)


def _x(value: object) -> str:
    """A speed-up with 3 significant figures, "–" when missing."""
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "–"
    return "–" if v != v else f"{v:.3g}"


class PredictedStepChart(QWidget):
    """Stacked step per chip (per step, mean per rank): computing, transfer, wait, free; first bar = measured."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("chip"), self.tr("time per step"), y_units="s")
        self.page = ChartPage(self, self.plot, self.tr("Step per chip (mean per rank)"))
        self.segment_names = [self.tr("computing"), self.tr("transfer"), self.tr("wait"), self.tr("free")]
        self.bars = StackedBars(self.plot, self.page.legend, self.segment_names, list(STEP_SEGMENT_COLORS))
        self.devices: list[str] = []
        self.picker = BarPicker(self.plot, False, self.tip)
        self.set_data(None)  # its sentence until there is a prediction, not blank axes

    def set_data(self, rows: pd.DataFrame | None) -> None:
        """``rows`` has device, computing_us, transfer_us, wait_us, free_us, partial (first row = measured)."""
        if rows is None or rows.empty:
            self.bars.update([None] * 4)
            set_category_ticks(self.plot.getAxis("bottom"), [])
            self.picker.set_bars(np.zeros(0))
            self.page.show_message(self.tr("Step per chip: load a profile, then Predict."))
            return
        self.page.show_plot()
        bottom = self.bars.update([rows[key].fillna(0.0).to_numpy(dtype=float) * 1e-6
                                   for key in ("computing_us", "transfer_us", "wait_us", "free_us")])
        self.picker.set_bars(bottom, 0.3)
        self.devices = [str(d) for d in rows["device"]]
        partial = rows["partial"].to_numpy(dtype=bool) if "partial" in rows else np.zeros(len(rows), bool)
        set_category_ticks(self.plot.getAxis("bottom"), chip_labels(rows, partial), two_line_room=True)
        self.plot.setXRange(-0.6, len(rows) - 0.4, padding=0)
        self.plot.setYRange(0, max(float(bottom.max()), 1e-9) * 1.05, padding=0)

    def tip(self, i: int) -> str:
        """The chip and its predicted step parts, ms per step."""
        lines = [self.devices[i] if i < len(self.devices) else ""]
        for name, values in zip(self.segment_names, self.bars.values):
            if values is not None and i < len(values):
                lines.append(f"{name}: {values[i] * 1e3:,.3g} ms")
        return "\n".join(lines)
