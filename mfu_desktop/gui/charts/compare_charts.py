"""Charts of a comparison: the step's change as a waterfall, the top groups side by side, BASE vs NEW per group."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QWidget

from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.gui.charts.axes import LABEL_GAP, decade_ticks
from mfu_desktop.gui.charts.common import BarPicker, ChartPage, make_plot, set_category_ticks
from mfu_desktop.gui.charts.legend import Swatch

#: Colours: time gained (NEW faster), time lost, the totals, and the two sides.
GAIN_RGB = (60, 160, 90)
LOSS_RGB = (210, 80, 60)
TOTAL_RGB = (120, 120, 130)
BASE_RGB = (90, 130, 200)
NEW_RGB = (230, 140, 50)
#: Height of the paired chart's bottom axis and its title, beside the line per group.
PAIRED_AXIS_PX = 70


class WaterfallChart(QWidget):
    """BASE's step, each part of the change (computing by family, communication, free), NEW's step."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot("", self.tr("time per step"), y_units="s", left_width=62)
        self.plot.setMinimumHeight(195)  # two-line family names below, the axis title beside: both whole
        self.bars = pg.BarGraphItem(x=[], y0=[], height=[], width=0.7)
        self.plot.addItem(self.bars)
        self.page = ChartPage(self, self.plot, self.tr("Where the step's change comes from"))
        self.page.legend.set_entries([("total", Swatch(TOTAL_RGB), self.tr("step")),
                                      ("loss", Swatch(LOSS_RGB), self.tr("NEW slower")),
                                      ("gain", Swatch(GAIN_RGB), self.tr("NEW faster"))])
        self.labels: list[str] = []
        self.deltas: list[float] = []
        self.picker = BarPicker(self.plot, False, self.tip)

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
        self.deltas = [base_us] + [d for _, d in parts] + [new_us]
        self.picker.set_bars((np.array(bottoms) + np.array(heights)) * 1e-6, 0.35)
        names = [label.replace("computing: ", "") for label in labels]
        set_category_ticks(self.plot.getAxis("bottom"), names, two_line_room=True)
        self.plot.setXRange(-0.9, len(labels) - 0.1, padding=0)  # room for the first and last labels
        top = max(max(b + h for b, h in zip(bottoms, heights)), 1e-9) * 1e-6
        self.plot.setYRange(0, top * 1.1, padding=0)

    def tip(self, i: int) -> str:
        """The bar's full name and its time (the totals) or change (the parts), µs per step."""
        value = self.deltas[i]
        middle = 0 < i < len(self.labels) - 1
        return f"{self.labels[i]}\n" + (f"{value:+,.1f} µs" if middle else f"{value:,.1f} µs") + " " + \
            self.tr("per step")


class PairedBarsChart(QWidget):
    """The top groups by |Δ|: BASE and NEW time per step side by side."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("time per step"), "", x_units="s", left_width=220)
        self.plot.getPlotItem().invertY(True)
        self.base = pg.BarGraphItem(x0=[], y=[], height=0.38, width=[], brush=pg.mkBrush(*BASE_RGB))
        self.new = pg.BarGraphItem(x0=[], y=[], height=0.38, width=[], brush=pg.mkBrush(*NEW_RGB))
        self.plot.addItem(self.base)
        self.plot.addItem(self.new)
        self.page = ChartPage(self, self.plot, self.tr("Top changes: BASE and NEW"))
        self.page.legend.set_entries([("base", Swatch(BASE_RGB), self.tr("BASE")),
                                      ("new", Swatch(NEW_RGB), self.tr("NEW"))])
        self.rows: list[dict] = []
        self.picker = BarPicker(self.plot, True, self.tip)
        self._min_height = self.plot.minimumHeight()

    def set_data(self, rows: pd.DataFrame | None, top: int = 12) -> None:
        """``rows``: the comparison table (sorted by |Δ|).

        The plot asks for a line of height per group (its page scrolls): squeezed under the cards at
        1280×800, every other group's name was left out.
        """
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
        full = [f"{t} [{s}]" if s else str(t) for t, s in zip(rows["type"], rows["input_shapes"])]
        self.rows = [dict(r, label=label) for r, label in zip(rows.to_dict("records"), full)]  # tooltips: full name
        self.picker.set_bars(np.maximum(rows["base_time_us"].to_numpy(float), rows["new_time_us"].to_numpy(float))
                             * 1e-6, 0.45)
        set_category_ticks(self.plot.getAxis("left"), labels)
        line = QFontMetrics(self.plot.getAxis("left").style["tickFont"] or self.font()).height() + LABEL_GAP + 2
        self.plot.setMinimumHeight(max(self._min_height, int(line * len(rows)) + PAIRED_AXIS_PX))
        self.plot.setYRange(-0.6, len(rows) - 0.4, padding=0.02)
        most = float(max(rows["base_time_us"].max(), rows["new_time_us"].max(), 1e-3)) * 1e-6
        self.plot.setXRange(0, most, padding=0.05)

    def tip(self, i: int) -> str:
        """The group's full name, both times and why it changed."""
        row = self.rows[i]
        lines = [row["label"], self.tr("BASE {0} µs → NEW {1} µs per step").format(
            f"{row['base_time_us']:,.1f}", f"{row['new_time_us']:,.1f}")]
        if row.get("why"):
            lines.append(str(row["why"]))
        return "\n".join(lines)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.plot.getAxis("left").setWidth(int(min(max(self.width() * 0.32, 110), 320)))


class GroupScatter(QWidget):
    """Per group: BASE time vs NEW time (log–log), the y = x line; predicted NEW times when chip vs chip.

    Coordinates are log10(µs) with decade ticks (pyqtgraph's log axis piled its minor labels into
    "2·10¹3·10¹4·10¹"); hovering a point names its group.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot(self.tr("BASE (µs per step)"), self.tr("NEW (µs per step)"), grid="xy")
        self.measured = pg.ScatterPlotItem(size=8, pen=None, brush=pg.mkBrush(*NEW_RGB), hoverable=True, tip=self._tip)
        self.predicted = pg.ScatterPlotItem(size=9, symbol="x", pen=pg.mkPen(*BASE_RGB), brush=pg.mkBrush(*BASE_RGB),
                                            hoverable=True, tip=self._tip)
        self.diagonal = pg.PlotCurveItem(pen=pg.mkPen(120, 120, 120, style=Qt.PenStyle.DashLine))
        for item in (self.diagonal, self.measured, self.predicted):
            self.plot.addItem(item)
        self.page = ChartPage(self, self.plot, self.tr("Per group: BASE vs NEW (µs per step, log scale)"))
        self.page.legend.set_entries([("measured", Swatch(NEW_RGB, "marker"), self.tr("measured")),
                                      ("predicted", Swatch(BASE_RGB, "cross"), self.tr("predicted for NEW's chip")),
                                      ("diagonal", Swatch((120, 120, 120), "line", dashed=True),
                                       self.tr("unchanged (y = x)"))])

    def _tip(self, x: float, y: float, data: object) -> str:
        return f"{data}\nBASE {10 ** x:,.1f} µs · NEW {10 ** y:,.1f} µs"

    def set_data(self, rows: pd.DataFrame | None) -> None:
        """``rows``: the comparison table; groups present on both sides are plotted."""
        both = rows[(rows["base_time_us"] > 0) & (rows["new_time_us"] > 0)] if rows is not None else None
        if both is None or both.empty:
            self.page.show_message(self.tr("No operator group is on both sides."))
            return
        self.page.show_plot()
        names = [f"{t} [{s}]" if s else str(t) for t, s in zip(both["type"], both["input_shapes"])]
        x = np.log10(both["base_time_us"].to_numpy(float))
        y = np.log10(both["new_time_us"].to_numpy(float))
        self.measured.setData(x=x, y=y, data=names)
        pred = both["predicted_new_us"].to_numpy(float) if "predicted_new_us" in both else np.full(len(x), np.nan)
        ok = np.isfinite(pred) & (pred > 0)
        self.predicted.setData(x=x[ok], y=np.log10(pred[ok]), data=[n for n, k in zip(names, ok) if k])
        self.page.legend.show_entry("predicted", bool(ok.any()))
        values = np.concatenate([x, y, np.log10(pred[ok])])
        lo, hi = math.floor(float(values.min())), math.ceil(float(values.max()))
        hi = max(hi, lo + 1)
        self.diagonal.setData(x=[lo, hi], y=[lo, hi])
        self.plot.setXRange(lo, hi, padding=0.03)
        self.plot.setYRange(lo, hi, padding=0.03)
        for axis in ("bottom", "left"):
            self.plot.getAxis(axis).setTicks(decade_ticks(lo, hi))
