"""The roofline (mfu.md §6): intensity vs achieved TFLOP/s on log-log axes, the chip's roofs, the step's point.

Points are kernels (a rank; the longest :data:`POINT_LIMIT`) or (type, shapes, dtype) groups (the
cluster, mean per rank), sized by time and coloured by operator family. Kernels without FLOPs
(element-wise, norms, data movement) have no intensity: the *Bandwidth* view places them at
their bytes and achieved GB/s under the chip's HBM bandwidth. The points are prepared by
:func:`roofline_view` (no Qt: it runs on a worker thread); the widget only draws them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mfu_desktop.core.analysis.families import family_codes, family_names, family_of_kernel
from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.core.readers import columns as C
from mfu_desktop.gui.charts.common import (
    FAMILY_COLORS,
    ChartPage,
    downsample_indices,
    highlight_rings,
    make_plot,
    ring_positions,
)

#: At most this many points (the longest kernels); the rest add nothing visible.
POINT_LIMIT = 6_000
FAMILY_NAMES = family_names()


@dataclass
class PointSet:
    """Points in log10 coordinates with sizes, family indexes and per-point data (frame row or −1, tooltip)."""

    x: np.ndarray
    y: np.ndarray
    size: np.ndarray
    family: np.ndarray
    data: list[tuple[int, str]]
    total: int  # candidates before the limit

    @classmethod
    def empty(cls) -> PointSet:
        """No points."""
        return cls(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64), [], 0)


@dataclass
class RooflineView:
    """Everything the chart draws: both views' points, the roofs and the step's point."""

    roofline: PointSet
    bandwidth: PointSet
    roofs: list[tuple[str, float]] = field(default_factory=list)  # (dtype, peak TFLOP/s)
    bw_gbs: float | None = None
    step: tuple[float, float] | None = None  # (intensity, TFLOP/s)
    caption: str = ""


def _families(types: pd.Series | np.ndarray, names: pd.Series | None = None) -> np.ndarray:
    """Family index per row: through the launching op first, the kernel's name when the op says nothing."""
    return family_codes(types, names)


def _sizes(time_us: np.ndarray) -> np.ndarray:
    """Marker sizes 5–22 px by the square root of time (area ∝ time), in whole pixels.

    Whole pixels keep pyqtgraph's symbol atlas to ≤ 18 sizes per colour: continuous sizes made it
    render one symbol per point on the GUI thread (a 300–900 ms stall for thousands of points).
    """
    top = float(np.nanmax(time_us)) if len(time_us) else 0.0
    if top <= 0:
        return np.full(len(time_us), 6.0)
    return np.round(5.0 + 17.0 * np.sqrt(np.clip(time_us, 0.0, None) / top))


def _points(x: np.ndarray, y: np.ndarray, time_us: np.ndarray, types: pd.Series, rows: np.ndarray,
            tips: list[str], total: int, names: pd.Series | None = None) -> PointSet:
    families = _families(types.iloc[rows], names.iloc[rows] if names is not None else None)
    return PointSet(np.log10(x), np.log10(y), _sizes(time_us), families, list(zip(rows.tolist(), tips)), total)


def _kernel_tip(r: dict) -> str:
    lines = [short_name(str(r.get(C.NAME) or r.get(C.OP_TYPE))),
             f"{short_name(str(r.get(C.OP_TYPE)))} · {family_of_kernel(str(r.get(C.OP_TYPE)), r.get(C.NAME))}"]
    if r.get("intensity") == r.get("intensity") and r.get("intensity") is not None:
        lines.append(f"{r['intensity']:,.1f} FLOP/byte · {r.get('achieved_tflops', float('nan')):,.1f} TFLOP/s")
    lines.append(f"{r['bytes'] / 1e6:,.2f} MB in {r[C.DURATION_US]:,.1f} µs → {r['achieved_gbs']:,.0f} GB/s")
    bound = r.get("bound")
    if isinstance(bound, str) and bound:
        figure = (f"MFU {r['mfu'] * 100:.1f} %" if bound == "compute" and r.get("mfu") == r.get("mfu")
                  and r.get("mfu") is not None else
                  f"BW {r['bw_util'] * 100:.1f} %" if r.get("bw_util") == r.get("bw_util") and r.get("bw_util")
                  is not None else "")
        lines.append(f"{bound}-bound {figure}".strip())
    if r.get("lost_us") == r.get("lost_us") and r.get("lost_us") is not None:
        lines.append(f"lost {r['lost_us']:,.1f} µs (t − t*)")
    return "\n".join(lines)


def kernel_points(frame: pd.DataFrame, limit: int = POINT_LIMIT) -> tuple[PointSet, PointSet]:
    """A rank's kernels: those with FLOPs and bytes (roofline), those with bytes only (bandwidth)."""
    if frame is None or frame.empty or "bytes" not in frame:
        return PointSet.empty(), PointSet.empty()
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)
    nbytes = frame["bytes"].to_numpy(dtype=np.float64)
    intensity = frame["intensity"].to_numpy(dtype=np.float64)
    tflops = frame["achieved_tflops"].to_numpy(dtype=np.float64)
    gbs = frame["achieved_gbs"].to_numpy(dtype=np.float64)
    judged = frame["bound"].cat.codes.to_numpy() >= 0
    roof = np.flatnonzero(judged & (intensity > 0) & (tflops > 0))
    band = np.flatnonzero(judged & ~(intensity > 0) & (nbytes > 0) & (gbs > 0))
    out = []
    for rows, xs, ys in ((roof, intensity, tflops), (band, nbytes, gbs)):
        total = len(rows)
        if total > limit:
            rows = rows[downsample_indices(total, limit, dur[rows])]
        columns = [c for c in (C.NAME, C.OP_TYPE, C.DURATION_US, "bytes", "intensity", "achieved_tflops",
                               "achieved_gbs", "bw_util", "mfu", "bound", "lost_us") if c in frame]
        records = frame.iloc[rows][columns].to_dict("records") if len(rows) else []
        types = frame[C.OP_TYPE] if C.OP_TYPE in frame else pd.Series(["N/A"] * len(frame))
        out.append(_points(xs[rows], ys[rows], dur[rows], types, rows, [_kernel_tip(r) for r in records], total,
                           frame.get(C.NAME)))
    return out[0], out[1]


def group_points(by_shape: pd.DataFrame) -> tuple[PointSet, PointSet]:
    """(type, shapes, dtype) groups (a cluster: the ranks' by-shape tables, mean per rank)."""
    if by_shape is None or by_shape.empty or "bytes" not in by_shape:
        return PointSet.empty(), PointSet.empty()
    f = by_shape.reset_index(drop=True)
    time_us = f["time_us"].to_numpy(dtype=np.float64)
    intensity = f["intensity"].to_numpy(dtype=np.float64) if "intensity" in f else np.full(len(f), np.nan)
    tflops = f["achieved_tflops"].to_numpy(dtype=np.float64) if "achieved_tflops" in f else np.full(len(f), np.nan)
    gbs = f["achieved_gbs"].to_numpy(dtype=np.float64)
    nbytes = f["bytes"].to_numpy(dtype=np.float64)
    per_call = nbytes / np.maximum(f["count"].to_numpy(dtype=np.float64), 1e-9)
    roof = np.flatnonzero((intensity > 0) & (tflops > 0))
    band = np.flatnonzero(~(intensity > 0) & (nbytes > 0) & (gbs > 0))
    out = []
    for rows, xs, ys in ((roof, intensity, tflops), (band, per_call, gbs)):
        tips = [f"{f.at[i, 'type']} [{f.at[i, 'input_shapes']}]\n{time_us[i]:,.1f} µs per step (mean per rank)\n"
                + (f"{intensity[i]:,.1f} FLOP/byte · {tflops[i]:,.1f} TFLOP/s" if intensity[i] > 0
                   else f"{per_call[i] / 1e6:,.2f} MB per call at {gbs[i]:,.0f} GB/s") for i in rows]
        out.append(_points(xs[rows], ys[rows], time_us[rows], f["type"], np.asarray(rows), tips, len(rows)))
        out[-1].data = [(-1, tip) for _, tip in out[-1].data]  # a group is not one kernel: nothing to select
    return out[0], out[1]


def roofs_of(frame: pd.DataFrame) -> list[tuple[str, float]]:
    """The compute roofs to draw: the peak of each dtype the kernels with FLOPs used."""
    if frame is None or frame.empty or "peak_tflops" not in frame or "dtype" not in frame:
        return []
    has = frame["flops"].to_numpy(dtype=np.float64) > 0
    rows = frame.loc[has, ["dtype", "peak_tflops"]].dropna()
    if rows.empty:
        return []
    peaks = rows.groupby("dtype", observed=True)["peak_tflops"].first()
    return sorted(((str(d), float(p)) for d, p in peaks.items() if p > 0), key=lambda t: -t[1])


def roofline_view(frame: pd.DataFrame | None, by_shape: pd.DataFrame | None, roof: dict | None,
                  roofs: list[tuple[str, float]], caption: str = "") -> RooflineView:
    """Prepare a rank's (``frame``) or the cluster's (``by_shape``) roofline; no Qt (worker-thread safe)."""
    points = kernel_points(frame) if frame is not None else group_points(by_shape)
    step = None
    bw = roof.get("bw_gbs") if roof else None
    if roof and roof.get("intensity") and roof.get("achieved_tflops"):
        step = (float(roof["intensity"]), float(roof["achieved_tflops"]))
    return RooflineView(points[0], points[1], roofs, bw, step, caption)


def decade_ticks(lo: float, hi: float) -> list[list[tuple[float, str]]]:
    """Ticks at 1-2-5 × 10^k between two log10 values; decades only when the span is wide."""
    ticks = []
    for decade in range(math.floor(lo) - 1, math.ceil(hi) + 1):
        for m in (1, 2, 5):
            value = m * 10.0 ** decade
            if lo - 0.05 <= math.log10(value) <= hi + 0.05:
                ticks.append((math.log10(value), _si(value)))
    if len(ticks) > 10:
        ticks = [t for t in ticks if abs(t[0] - round(t[0])) < 1e-9]
    return [ticks, []]


def _si(value: float) -> str:
    for scale, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{unit}"
    return f"{value:g}"


class RooflineChart(QWidget):
    """The roofline and bandwidth views; hover shows a kernel, a click selects it."""

    kernel_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.mode = QComboBox()
        self.mode.addItem(self.tr("Roofline: kernels with FLOPs (intensity vs TFLOP/s)"), "roofline")
        self.mode.addItem(self.tr("Bandwidth: kernels without FLOPs (bytes vs GB/s)"), "bandwidth")
        self.mode.currentIndexChanged.connect(self._redraw)
        row.addWidget(self.mode)
        row.addStretch(1)
        layout.addLayout(row)
        host = QWidget()
        self.plot = make_plot(self.tr("Roofline"), self.tr("arithmetic intensity (FLOP/byte, log scale)"),
                              self.tr("achieved TFLOP/s (log scale)"), grid="xy", left_width=70)
        self.scatter = pg.ScatterPlotItem(pen=None, hoverable=True, tip=self._tip)
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        self.step_marker = pg.ScatterPlotItem(symbol="star", size=22, pen=pg.mkPen(20, 20, 20, width=1.5),
                                              brush=pg.mkBrush(255, 215, 0))
        self.plot.addItem(self.step_marker)
        self.rings = highlight_rings()
        self.plot.addItem(self.rings)
        self._highlighted = np.zeros(0, dtype=np.int64)
        self.legend = self.plot.addLegend(offset=(-10, -10), labelTextSize="8pt")  # bottom right: rarely any point
        self._roof_items: list[pg.GraphicsObject] = []
        self.page = ChartPage(host, self.plot)
        layout.addWidget(host, 1)
        self.caption = QLabel("")
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.caption)
        self.view: RooflineView | None = None

    def set_view(self, view: RooflineView | None) -> None:
        """Show a prepared view (``None``: nothing loaded)."""
        self.view = view
        self._redraw()

    def set_highlight(self, rows: np.ndarray | None) -> None:
        """Ring the kernels at these frame rows (``None`` or empty: none) in the view shown."""
        self._highlighted = np.asarray(rows if rows is not None else [], dtype=np.int64)
        points = self._shown_points()
        if points is None:
            self.rings.setData([], [])
            return
        frame_rows = np.fromiter((d[0] for d in points.data), dtype=np.int64, count=len(points.data))
        x, y = ring_positions(frame_rows, points.x, points.y, self._highlighted)
        self.rings.setData(x=x, y=y)

    def _shown_points(self) -> PointSet | None:
        """The points of the view on screen (roofline or bandwidth), ``None`` when there are none."""
        if self.view is None:
            return None
        points = self.view.bandwidth if self.mode.currentData() == "bandwidth" else self.view.roofline
        return points if points is not None and len(points.x) else None

    def _redraw(self) -> None:
        view = self.view
        bandwidth = self.mode.currentData() == "bandwidth"
        points = None if view is None else (view.bandwidth if bandwidth else view.roofline)
        for item in self._roof_items:
            self.plot.removeItem(item)
        self._roof_items = []
        self.legend.clear()
        if view is None or points is None or not len(points.x):
            self.scatter.setData([], [])
            self.step_marker.setData([], [])
            self.rings.setData([], [])
            self.page.show_message(self._empty_text(view, bandwidth))
            self.caption.setText(view.caption if view is not None else "")
            return
        self.page.show_plot()
        # one brush per family, shared by its points: pyqtgraph renders one atlas symbol per distinct
        # (size, brush), so a new brush per point meant one rendered symbol per point on the GUI thread
        brushes = [pg.mkBrush(*FAMILY_COLORS[i % len(FAMILY_COLORS)], 170) for i in range(len(FAMILY_COLORS))]
        colors = [brushes[i % len(brushes)] for i in points.family.tolist()]
        self.scatter.setData(x=points.x, y=points.y, size=points.size, brush=colors, data=points.data)
        for i in sorted(set(points.family.tolist())):
            sample = pg.ScatterPlotItem(size=9, pen=None, brush=pg.mkBrush(*FAMILY_COLORS[i % len(FAMILY_COLORS)]))
            self.legend.addItem(sample, FAMILY_NAMES[i])
        x_lo, x_hi = float(points.x.min()) - 0.3, float(points.x.max()) + 0.3
        if bandwidth:
            self._bandwidth_axes(view, points, x_lo, x_hi)
        else:
            self._roofline_axes(view, points, x_lo, x_hi)
        shown = len(points.x)
        more = self.tr(" (the {0} longest of {1})").format(f"{shown:,}", f"{points.total:,}") \
            if points.total > shown else ""
        self.plot.setTitle((self.tr("Bandwidth") if bandwidth else self.tr("Roofline")) + more)
        self.caption.setText(view.caption)
        self.set_highlight(self._highlighted)

    def _empty_text(self, view: RooflineView | None, bandwidth: bool) -> str:
        if view is None:
            return self.tr("Roofline: open a profile and select a rank or the cluster.")
        if bandwidth:
            return self.tr("Bandwidth: no kernel without FLOPs has known bytes (shapes and dtypes) here.")
        return self.tr("Roofline: no kernel has both FLOPs and bytes here (the Bandwidth view shows the kernels "
                       "without FLOPs).")

    def _line(self, xs: list[float], ys: list[float], color: tuple[int, int, int], style=Qt.PenStyle.SolidLine,
              label: str = "", at: float = 0.0) -> None:
        """A roof from ``xs[0]`` to ``xs[1]``; its label above it, a fraction ``at`` along it."""
        item = pg.PlotCurveItem(xs, ys, pen=pg.mkPen(*color, width=2, style=style))
        self.plot.addItem(item)
        self._roof_items.append(item)
        if label:
            text = pg.TextItem(label, color=color, anchor=(0, 1))
            text.setPos(xs[0] + at * (xs[1] - xs[0]), ys[0] + at * (ys[1] - ys[0]))
            self.plot.addItem(text)
            self._roof_items.append(text)

    def _roofline_axes(self, view: RooflineView, points: PointSet, x_lo: float, x_hi: float) -> None:
        """Compute roofs (one per dtype), the bandwidth roof y = BW·x, the step's point."""
        self.plot.setLabel("bottom", self.tr("arithmetic intensity (FLOP/byte, log scale)"))
        self.plot.setLabel("left", self.tr("achieved TFLOP/s (log scale)"))
        ys = [float(points.y.min()), float(points.y.max())]
        if view.step is not None:
            x_lo, x_hi = min(x_lo, math.log10(view.step[0]) - 0.3), max(x_hi, math.log10(view.step[0]) + 0.3)
        top = max(p for _, p in view.roofs) if view.roofs else None
        if top is not None and view.bw_gbs:  # the ridge points always in view: where the roofs meet
            x_hi = max(x_hi, math.log10(top * 1e3 / view.bw_gbs) + 0.4)
            x_lo = min(x_lo, math.log10(min(p for _, p in view.roofs) * 1e3 / view.bw_gbs) - 0.4)
        for dtype, peak in view.roofs:
            y = math.log10(peak)
            ridge = math.log10(peak * 1e3 / view.bw_gbs) if view.bw_gbs else x_lo
            self._line([max(ridge, x_lo), x_hi], [y, y], (60, 60, 60), label=f"{dtype} {peak:,.0f} TFLOP/s")
            ys.append(y)
        if view.bw_gbs:
            peak = top if top is not None else 10 ** ys[1]
            ridge = math.log10(peak * 1e3 / view.bw_gbs)
            end = min(x_hi, ridge)
            self._line([x_lo, end], [x_lo + math.log10(view.bw_gbs / 1e3), end + math.log10(view.bw_gbs / 1e3)],
                       (30, 90, 200), Qt.PenStyle.DashLine, f"HBM {view.bw_gbs:,.0f} GB/s", at=0.35)
        if view.step is not None:
            sx, sy = math.log10(view.step[0]), math.log10(view.step[1])
            self.step_marker.setData([sx], [sy], data=[(-1, self.tr("the step (time-weighted)"))])
            self.legend.addItem(self.step_marker, self.tr("the step"))
            ys.append(sy)
        else:
            self.step_marker.setData([], [])
        y_lo, y_hi = min(ys) - 0.3, max(ys) + 0.25
        self._ranges(x_lo, x_hi, y_lo, y_hi)

    def _bandwidth_axes(self, view: RooflineView, points: PointSet, x_lo: float, x_hi: float) -> None:
        """The HBM bandwidth as a horizontal roof over bytes moved vs achieved GB/s."""
        self.plot.setLabel("bottom", self.tr("bytes moved per call (log scale)"))
        self.plot.setLabel("left", self.tr("achieved GB/s (log scale)"))
        self.step_marker.setData([], [])
        ys = [float(points.y.min()), float(points.y.max())]
        if view.bw_gbs:
            y = math.log10(view.bw_gbs)
            self._line([x_lo, x_hi], [y, y], (30, 90, 200), Qt.PenStyle.DashLine, f"HBM {view.bw_gbs:,.0f} GB/s",
                       at=0.02)
            ys.append(y)
        self._ranges(x_lo, x_hi, min(ys) - 0.3, max(ys) + 0.25)

    def _ranges(self, x_lo: float, x_hi: float, y_lo: float, y_hi: float) -> None:
        self.plot.setXRange(x_lo, x_hi, padding=0)
        self.plot.setYRange(y_lo, y_hi, padding=0)
        self.plot.getAxis("bottom").setTicks(decade_ticks(x_lo, x_hi))
        self.plot.getAxis("left").setTicks(decade_ticks(y_lo, y_hi))

    def _tip(self, x: float, y: float, data: object) -> str:
        return data[1] if isinstance(data, tuple) else ""

    def _clicked(self, _item: object, points: list, _event: object = None) -> None:
        if points:
            data = points[0].data()
            if isinstance(data, tuple) and data[0] is not None and data[0] >= 0:
                self.kernel_clicked.emit(int(data[0]))


def roofs_from_catalog(catalog: object, chip: str | None, dtypes: list[str]) -> list[tuple[str, float]]:
    """Compute roofs from the catalog (a summarised rank or the cluster: no per-kernel peaks at hand)."""
    if not chip or catalog is None:
        return []
    out = []
    for dtype in dtypes:
        try:
            out.append((dtype, float(catalog.peak(chip, dtype).tflops)))
        except Exception:
            continue
    return sorted(out, key=lambda t: -t[1])


def _caption(roof: dict | None, where: str) -> str:
    from mfu_desktop.core.analysis.roofline_figures import roofline_text

    text = roofline_text(roof)
    return f"{where}: {text}" if text else where


def rank_view(r: object, catalog: object = None) -> RooflineView:
    """One rank's view: its kernels (a full rank) or its (type, shape) groups (a summarised rank)."""
    from mfu_desktop.core.cluster.rank_document import rank_roofline

    roof = rank_roofline(r)
    if not r.lite:
        return roofline_view(r.kernels, None, roof, roofs_of(r.kernels),
                             _caption(roof, f"rank {r.rank}, per step"))
    dtypes = sorted({str(d) for d in r.by_shape.get("dtype", pd.Series(dtype=object)).dropna()})
    return roofline_view(None, r.by_shape, roof, roofs_from_catalog(catalog, r.summary.chip, dtypes),
                         _caption(roof, f"rank {r.rank} (summary: (type, shape) groups), per step"))


def merged_shapes(tables: list[pd.DataFrame], ranks: int) -> pd.DataFrame:
    """The ranks' by-shape tables summed by (type, shapes, dtype) and divided by the rank count (mean per rank)."""
    tables = [t for t in tables if t is not None and not t.empty and "bytes" in t]
    if not tables:
        return pd.DataFrame()
    f = pd.concat(tables, ignore_index=True)
    for column in ("flops", "counted_time_us", "bytes"):
        if column not in f:
            f[column] = 0.0
    keys = [k for k in ("type", "input_shapes", "dtype") if k in f]
    g = f.groupby(keys, sort=False, dropna=False, observed=True).agg(
        count=("count", "sum"), time_us=("time_us", "sum"), flops=("flops", "sum"),
        counted_time_us=("counted_time_us", "sum"), bytes=("bytes", "sum")).reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        g["achieved_tflops"] = np.where(g["counted_time_us"] > 0, g["flops"] / g["counted_time_us"] / 1e6, np.nan)
        g["achieved_gbs"] = np.where(g["time_us"] > 0, g["bytes"] / g["time_us"] / 1e3, np.nan)
        g["intensity"] = np.where((g["flops"] > 0) & (g["bytes"] > 0), g["flops"] / g["bytes"], np.nan)
    for column in ("count", "time_us", "flops", "bytes"):
        g[column] = g[column] / max(ranks, 1)
    return g


def cluster_view(result: object, catalog: object = None) -> RooflineView:
    """The cluster's view: (type, shape) groups over every rank, mean per rank; the cluster's point."""
    ranks = list(getattr(result, "ranks", []))
    shapes = merged_shapes([r.by_shape for r in ranks], len(ranks))
    roof = result.cluster.document.get("roofline") if result.cluster.document else None
    full = next((r for r in ranks if not r.lite), None)
    if full is not None:
        roofs = roofs_of(full.kernels)
    else:
        dtypes = sorted({str(d) for d in shapes.get("dtype", pd.Series(dtype=object)).dropna()})
        roofs = roofs_from_catalog(catalog, ranks[0].summary.chip if ranks else None, dtypes)
    return roofline_view(None, shapes, roof, roofs,
                         _caption(roof, f"cluster of {len(ranks)} ranks, mean per rank and step"))
