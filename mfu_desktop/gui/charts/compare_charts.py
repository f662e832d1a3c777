"""Charts of a comparison: the step's change as a waterfall, the top groups side by side, BASE vs NEW per group."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.gui.charts.common import ChartPage, make_plot, set_category_ticks

#: Colours: time gained (NEW faster), time lost, the totals, and the two sides.
GAIN_RGB = (60, 160, 90)
LOSS_RGB = (210, 80, 60)
TOTAL_RGB = (120, 120, 130)
BASE_RGB = (90, 130, 200)
NEW_RGB = (230, 140, 50)


class WaterfallChart(QWidget):
    """BASE's step, each part of the change (computing by family, communication, free), NEW's step."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Where the step's change comes from"), "", self.tr("time per step"),
                              y_units="s", left_width=62)
        self.bars = pg.BarGraphItem(x=[], y0=[], height=[], width=0.7)
        self.plot.addItem(self.bars)
        self.page = ChartPage(self, self.plot)
        self.labels: list[str] = []

    def set_data(self, base_us: float | None, parts: list[tuple[str, float]], new_us: float | None) -> None:
        """``parts``: (label, Δ µs per step); ``base_us``/``new_us``: the two step times (µs)."""
        if base_us is None or new_us is None:
            self.page.show_message(self.tr("The step's change needs a step trace on both sides."))
            return
        self.page.show_plot()
        labels = [self.tr("BASE step")] + [p[0] for p in parts] + [self.tr("NEW step")]
        bottoms, heights, colors = [0.0], [base_us], [TOTAL_RGB]
        level = base_us
        for _, delta in parts:
            bottoms.append(level if delta >= 0 else level + delta)
            heights.append(abs(delta))
            colors.append(LOSS_RGB if delta > 0 else GAIN_RGB)
            level += delta
        bottoms.append(0.0)
        heights.append(new_us)
        colors.append(TOTAL_RGB)
        x = np.arange(len(labels))
        self.bars.setOpts(x=x, y0=np.array(bottoms) * 1e-6, height=np.array(heights) * 1e-6, width=0.7,
                          brushes=[pg.mkBrush(*c) for c in colors])
        self.labels = labels
        names = [label.replace("computing: ", "") for label in labels]
        if len(names) > 6:  # every other label one line lower: long family names do not collide
            names = [("\n" + n if i % 2 else n) for i, n in enumerate(names)]
        set_category_ticks(self.plot.getAxis("bottom"), names, max_len=16)
        self.plot.setXRange(-0.9, len(labels) - 0.1, padding=0)  # room for the first and last labels
        top = max(max(b + h for b, h in zip(bottoms, heights)), 1e-9) * 1e-6
        self.plot.setYRange(0, top * 1.1, padding=0)


class PairedBarsChart(QWidget):
    """The top groups by |Δ|: BASE and NEW time per step side by side."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Top changes: BASE and NEW"), self.tr("time per step"), "", x_units="s",
                              left_width=220)
        self.plot.getPlotItem().invertY(True)
        self.base = pg.BarGraphItem(x0=[], y=[], height=0.38, width=[], brush=pg.mkBrush(*BASE_RGB))
        self.new = pg.BarGraphItem(x0=[], y=[], height=0.38, width=[], brush=pg.mkBrush(*NEW_RGB))
        legend = self.plot.addLegend(offset=(-10, 10))
        self.plot.addItem(self.base)
        self.plot.addItem(self.new)
        legend.addItem(self.base, self.tr("BASE"))
        legend.addItem(self.new, self.tr("NEW"))
        self.page = ChartPage(self, self.plot)

    def set_data(self, rows: pd.DataFrame | None, top: int = 12) -> None:
        """``rows``: the comparison table (sorted by |Δ|)."""
        if rows is None or rows.empty:
            self.page.show_message(self.tr("No operator groups to compare."))
            return
        self.page.show_plot()
        rows = rows.head(top)
        y = np.arange(len(rows))
        self.base.setOpts(x0=np.zeros(len(rows)), y=y - 0.2, width=rows["base_time_us"].to_numpy(float) * 1e-6,
                          height=0.38)
        self.new.setOpts(x0=np.zeros(len(rows)), y=y + 0.2, width=rows["new_time_us"].to_numpy(float) * 1e-6,
                         height=0.38)
        names = rows["display_name"] if "display_name" in rows else rows["type"].map(lambda t: short_name(str(t)))
        labels = [f"{t} [{s}]" if s else str(t) for t, s in zip(names, rows["input_shapes"])]
        set_category_ticks(self.plot.getAxis("left"), labels, max_len=30)
        self.plot.setYRange(-0.6, len(rows) - 0.4, padding=0.02)
        most = float(max(rows["base_time_us"].max(), rows["new_time_us"].max(), 1e-3)) * 1e-6
        self.plot.setXRange(0, most, padding=0.05)


class GroupScatter(QWidget):
    """Per group: BASE time vs NEW time (log–log), the y = x line; predicted NEW times when chip vs chip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("Per group: BASE vs NEW (µs per step, log scale)"), self.tr("BASE"),
                              self.tr("NEW"), grid="xy")
        self.plot.setLogMode(x=True, y=True)
        for axis in ("bottom", "left"):
            self.plot.getAxis(axis).setStyle(maxTickLevel=0)  # decades only: minor labels collide
        legend = self.plot.addLegend(offset=(10, 10))
        # PlotDataItems follow the plot's log mode (raw scatter/curve items would not)
        self.measured = pg.PlotDataItem(pen=None, symbol="o", symbolSize=8, symbolBrush=pg.mkBrush(*NEW_RGB),
                                        symbolPen=None)
        self.predicted = pg.PlotDataItem(pen=None, symbol="x", symbolSize=9, symbolBrush=pg.mkBrush(*BASE_RGB),
                                         symbolPen=pg.mkPen(*BASE_RGB))
        self.diagonal = pg.PlotDataItem(pen=pg.mkPen(120, 120, 120, style=Qt.PenStyle.DashLine))
        for item in (self.diagonal, self.measured, self.predicted):
            self.plot.addItem(item)
        legend.addItem(self.measured, self.tr("measured"))
        legend.addItem(self.predicted, self.tr("predicted for NEW's chip"))
        legend.addItem(self.diagonal, self.tr("unchanged (y = x)"))
        self.page = ChartPage(self, self.plot)

    def set_data(self, rows: pd.DataFrame | None) -> None:
        """``rows``: the comparison table; groups present on both sides are plotted."""
        both = rows[(rows["base_time_us"] > 0) & (rows["new_time_us"] > 0)] if rows is not None else None
        if both is None or both.empty:
            self.page.show_message(self.tr("No operator group is on both sides."))
            return
        self.page.show_plot()
        x = both["base_time_us"].to_numpy(float)
        self.measured.setData(x=x, y=both["new_time_us"].to_numpy(float))
        pred = both["predicted_new_us"].to_numpy(float) if "predicted_new_us" in both else np.full(len(x), np.nan)
        ok = np.isfinite(pred) & (pred > 0)
        self.predicted.setData(x=x[ok], y=pred[ok])
        values = np.concatenate([x, both["new_time_us"].to_numpy(float), pred[ok]])
        lo, hi = float(values.min()), float(values.max())
        lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
        self.diagonal.setData(x=[lo, hi], y=[lo, hi])
