"""The timeline chart: rows of kernels over time, coloured by what they lose, that scale to a million kernels.

The items are created once and updated in place: one image of every visible row
(:func:`~mfu_desktop.gui.charts.timeline_raster.scene_image`, recomputed per frame from the rows'
prefix sums), the step boundaries, the memory curves and the selected kernel's outline. x is
time in seconds on the axis (pyqtgraph prints µs / ms / s), µs everywhere else. Navigation:
:mod:`.timeline_nav` (Ctrl+wheel, wheel, Shift+wheel, drag) and W/S/A/D here.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QCursor, QKeyEvent
from PySide6.QtWidgets import QToolTip, QWidget

from mfu_desktop.core.analysis.timeline_lod import counter_columns, hit
from mfu_desktop.gui.charts.common import ChartPage
from mfu_desktop.gui.charts.timeline_nav import KEY_PAN, KEY_ZOOM, TimelineViewBox
from mfu_desktop.gui.charts.timeline_raster import HIGHLIGHT_RGB, scene_image
from mfu_desktop.gui.charts.timeline_scene import BREAKDOWN, COUNTER, HOST, KERNELS, STEPS, Scene
from mfu_desktop.gui.charts.timeline_tips import counter_tip, host_tip, kernel_tip, part_tip, translate, us

#: Height of one row on screen (px).
ROW_PX = 26
#: A hover or click this close to a kernel (px) finds it.
HIT_PX = 3.0
#: Step labels drawn at most (the rest are in the step selector).
MAX_STEP_LABELS = 64
#: Labels on the left axis are cut to this many characters.
LABEL_CHARS = 30


class TimelineChart(QWidget):
    """Draws a :class:`~mfu_desktop.gui.charts.timeline_scene.Scene` (see the module docstring).

    Signals:
        kernel_clicked: A kernel (its kernel-frame row) was clicked.
        host_op_clicked: A host operator (its index) was clicked.
        rank_clicked: A rank's row was clicked (the cluster view).
        drawn: A frame was drawn (its time in ms).
    """

    kernel_clicked = Signal(int)
    host_op_clicked = Signal(int)
    rank_clicked = Signal(int)
    drawn = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vb = TimelineViewBox()
        self.plot = pg.PlotWidget(viewBox=self.vb)
        self.plot.setMenuEnabled(False)
        self.plot.setLabel("bottom", translate("Timeline", "time from the trace's origin"), units="s")
        self.plot.getAxis("left").setWidth(190)
        self.plot.getAxis("bottom").setHeight(44)
        self.plot.getPlotItem().invertY(True)
        self.plot.setMinimumHeight(220)
        self._build_items()
        self.page = ChartPage(self, self.plot)
        self.scene_data: Scene | None = None
        self.highlights: dict[int, tuple[np.ndarray, np.ndarray]] | None = None
        self.selected = -1
        self.tip_text = ""
        self.last_frame_ms = 0.0
        self._pending = False
        self.vb.sigRangeChanged.connect(self._schedule)
        self.vb.clicked.connect(self._clicked)
        self.plot.scene().sigMouseMoved.connect(self._hover)
        self.plot.installEventFilter(self)
        self.plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.show_message(translate("Timeline", "Timeline: select a rank (or the cluster) in the tree."))

    def _build_items(self) -> None:
        """The items drawn, created once: the rows' image, step boundaries, memory curves, the selection."""
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.boundaries = pg.PlotDataItem(connect="pairs", pen=pg.mkPen((90, 90, 110, 160), width=1,
                                                                         style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.boundaries)
        self.curves = {"reserved": pg.PlotDataItem(pen=pg.mkPen((150, 90, 190), width=1.5,
                                                                style=Qt.PenStyle.DashLine), connect="finite"),
                       "allocated": pg.PlotDataItem(pen=pg.mkPen((120, 40, 170), width=2), connect="finite")}
        for curve in self.curves.values():
            self.plot.addItem(curve)
        self.marker = pg.PlotDataItem(pen=pg.mkPen((*HIGHLIGHT_RGB, 255), width=2))
        self.plot.addItem(self.marker)
        self.step_labels: list[pg.TextItem] = []

    # --- what the view calls --------------------------------------------------------------

    def show_message(self, text: str) -> None:
        """Show a sentence instead of the chart."""
        self.scene_data = None
        self.page.show_message(text)

    def set_scene(self, scene: Scene, keep_view: bool = False) -> None:
        """Draw ``scene``, fitted to its time span (or at the time and rows shown, with ``keep_view``)."""
        kept = self.vb.viewRange() if keep_view and self.scene_data is not None else None
        self.scene_data = scene
        self.highlights = None
        self.selected = -1
        self.marker.setData([], [])
        self.page.show_plot()
        self.plot.setLabel("bottom", translate("Timeline", "time from each rank's step start") if scene.cluster
                           else translate("Timeline", "time from the trace's origin"), units="s")
        ticks = [(i + 0.5, t.label if len(t.label) <= LABEL_CHARS else t.label[:LABEL_CHARS - 1] + "…")
                 for i, t in enumerate(scene.tracks)]
        self.plot.getAxis("left").setTicks([ticks, []])
        self._ensure_labels(min(len(scene.steps), MAX_STEP_LABELS))
        lo, hi = scene.span
        margin = max((hi - lo) * 0.05, 1.0)
        self.vb.setLimits(xMin=(lo - margin) * 1e-6, xMax=(hi + margin) * 1e-6, minXRange=1e-8)
        self._fit_rows()
        if kept is None:
            self.zoom_to(lo, hi)
        else:
            self.vb.setXRange(*kept[0], padding=0)
            self.vb.scroll_rows(kept[1][0] - self.vb.viewRange()[1][0])
            self._schedule()

    def zoom_to(self, t0_us: float, t1_us: float) -> None:
        """Show ``t0_us`` to ``t1_us`` (with a 2 % margin)."""
        pad = max((t1_us - t0_us) * 0.02, 0.01)
        self.vb.setXRange((t0_us - pad) * 1e-6, (t1_us + pad) * 1e-6, padding=0)

    def fit(self) -> None:
        """Show the whole scene."""
        if self.scene_data is not None:
            self.zoom_to(*self.scene_data.span)

    def time_range_us(self) -> tuple[float, float]:
        """The time shown (µs)."""
        (x0, x1), _ = self.vb.viewRange()
        return x0 * 1e6, x1 * 1e6

    def set_highlight(self, rows: np.ndarray) -> None:
        """Highlight kernels (kernel-frame rows of the shown rank); an empty array clears."""
        scene = self.scene_data
        if scene is None or scene.cluster or len(rows) == 0 or len(scene.kernel_track) == 0:
            self.highlights = None
        else:
            rows = rows[(rows >= 0) & (rows < len(scene.kernel_track))]
            track = scene.kernel_track[rows]
            self.highlights = {}
            for t in np.unique(track[track >= 0]).tolist():  # a few lanes
                mine = rows[track == t]
                self.highlights[t] = (scene.kernel_start[mine], scene.kernel_end[mine])
        self._schedule()

    def select(self, row: int) -> None:
        """Outline the kernel ``row`` (−1: none); the view scrolls to show it when it is off screen."""
        scene = self.scene_data
        self.selected = row
        if scene is None or scene.cluster or row < 0 or row >= len(scene.kernel_track) or scene.kernel_track[row] < 0:
            self.marker.setData([], [])
            return
        t = int(scene.kernel_track[row])
        x0, x1 = scene.kernel_start[row] * 1e-6, scene.kernel_end[row] * 1e-6
        self.marker.setData([x0, x1, x1, x0, x0], [t + 0.06, t + 0.06, t + 0.94, t + 0.94, t + 0.06])
        (v0, v1), (y0, y1) = self.vb.viewRange()
        if x1 < v0 or x0 > v1:
            self.zoom_to(scene.kernel_start[row] - (v1 - v0) * 5e5, scene.kernel_end[row] + (v1 - v0) * 5e5)
        if not (y0 <= t < y1):
            self.vb.scroll_rows(t - y0)

    # --- drawing --------------------------------------------------------------------------

    def _schedule(self, *_args: object) -> None:
        """Draw at the next turn of the event loop (several range changes in a row draw once)."""
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self._redraw)

    def _fit_rows(self) -> None:
        rows = len(self.scene_data.tracks) if self.scene_data is not None else 1
        height = max(self.vb.height(), ROW_PX)
        self.vb.set_rows(rows, max(height / ROW_PX, 1.0))

    def _visible_tracks(self) -> tuple[int, int]:
        _, (y0, y1) = self.vb.viewRange()
        n = len(self.scene_data.tracks)
        return max(math.floor(y0), 0), min(math.ceil(y1), n)

    def redraw_now(self) -> float:
        """Draw the visible rows now; returns the frame's time in ms."""
        self._pending = True
        self._redraw()
        return self.last_frame_ms

    def _redraw(self) -> None:
        self._pending = False
        scene = self.scene_data
        if scene is None:
            return
        start = time.perf_counter()
        (x0, x1), _ = self.vb.viewRange()
        first, last = self._visible_tracks()
        width = max(int(self.vb.width()), 1)
        image = scene_image(scene, first, last, x0 * 1e6, x1 * 1e6, width, self.highlights)
        self.image.setImage(image, autoLevels=False)
        self.image.setRect(QRectF(x0, first, x1 - x0, max(last - first, 1)))
        self._draw_counters(first, last, x0, x1, width)
        self._draw_steps(first, last, x0, x1, width)
        self.last_frame_ms = (time.perf_counter() - start) * 1000.0
        self.drawn.emit(self.last_frame_ms)

    def _draw_counters(self, first: int, last: int, x0: float, x1: float, width: int) -> None:
        """The memory curves in their row, one point per two pixels (peaks kept)."""
        scene = self.scene_data
        track = next(((i, t) for i, t in enumerate(scene.tracks) if t.kind == COUNTER and first <= i < last), None)
        if track is None:
            for curve in self.curves.values():
                curve.setData([], [])
            return
        row, t = track
        columns = max(width // 2, 1)
        xs = np.linspace(x0, x1, columns + 1)
        centres = (xs[:-1] + xs[1:]) / 2.0
        top = float(np.nanmax(t.series["reserved"])) if np.isfinite(t.series["reserved"]).any() else 0.0
        top = max(top, float(np.nanmax(t.series["allocated"])) if np.isfinite(t.series["allocated"]).any() else 0.0)
        for name, curve in self.curves.items():
            values = counter_columns(t.series["time_us"], t.series[name], x0 * 1e6, x1 * 1e6, columns)
            curve.setData(centres, row + 0.92 - 0.84 * values / (top or 1.0))

    def _draw_steps(self, first: int, last: int, x0: float, x1: float, width: int) -> None:
        """Step boundaries across the visible rows, and the step labels in the step row."""
        scene = self.scene_data
        starts = scene.steps["start_us"].to_numpy(np.float64) * 1e-6
        ends = scene.steps["end_us"].to_numpy(np.float64) * 1e-6
        edges = np.unique(np.concatenate([starts, ends]))
        edges = edges[(edges >= x0) & (edges <= x1)]
        self.boundaries.setData(np.repeat(edges, 2), np.tile([first, last], len(edges)).astype(float))
        px = (x1 - x0) / width if width else 1.0
        show_labels = not scene.cluster and first == 0
        for i, label in enumerate(self.step_labels):
            if not show_labels or i >= len(starts) or (min(ends[i], x1) - max(starts[i], x0)) < 48 * px:
                label.setVisible(False)
                continue
            label.setText(translate("Timeline", "step {0}").format(scene.steps["step"].iloc[i]))
            label.setPos(max(starts[i], x0) + 3 * px, 0.5)
            label.setVisible(True)

    def _ensure_labels(self, count: int) -> None:
        while len(self.step_labels) < count:
            label = pg.TextItem(color=(40, 40, 60), anchor=(0, 0.5))
            self.plot.addItem(label)
            self.step_labels.append(label)
        for label in self.step_labels[count:]:
            label.setVisible(False)

    # --- pointing -------------------------------------------------------------------------

    def locate(self, point: QPointF) -> tuple[int, int, float]:
        """The track, the item in it (−1: none) and the time (µs) under a point in view coordinates."""
        scene = self.scene_data
        row = math.floor(point.y())
        at = point.x() * 1e6
        if scene is None or not (0 <= row < len(scene.tracks)):
            return -1, -1, at
        track = scene.tracks[row]
        if track.index is None:
            return row, -1, at
        (x0, x1), _ = self.vb.viewRange()
        tolerance = HIT_PX * (x1 - x0) * 1e6 / max(self.vb.width(), 1.0)
        return row, hit(track.index, at, tolerance), at

    def _clicked(self, point: QPointF) -> None:
        row, item, _ = self.locate(point)
        scene = self.scene_data
        if row < 0 or scene is None:
            return
        track = scene.tracks[row]
        if track.rank is not None:
            self.rank_clicked.emit(int(track.rank))
        elif item >= 0 and track.kind == KERNELS:
            self.kernel_clicked.emit(int(track.rows[item]))
        elif item >= 0 and track.kind == HOST:
            self.host_op_clicked.emit(int(track.rows[item]))
        elif item >= 0 and track.kind == STEPS:
            step = int(track.rows[item])
            self.zoom_to(float(scene.steps["start_us"].iloc[step]), float(scene.steps["end_us"].iloc[step]))

    def tip_at(self, point: QPointF) -> str:
        """What hovering ``point`` (view coordinates) says ("" when nothing is there)."""
        row, item, at = self.locate(point)
        scene = self.scene_data
        if row < 0 or scene is None:
            return ""
        track = scene.tracks[row]
        if track.kind == COUNTER:
            return counter_tip(track.series["time_us"], track.series, at)
        if item < 0:
            return ""
        if track.kind == KERNELS and scene.kernels is not None:
            return kernel_tip(scene.kernels, int(track.rows[item]), track.label)
        if track.kind == KERNELS:
            return "\n".join((translate("Timeline", "rank {0}").format(track.rank),
                              translate("Timeline", "click to open this rank's lanes")))
        if track.kind == HOST and scene.host_names is not None:
            op = int(track.rows[item])
            launched = int(scene.host_launches[op]) if scene.host_launches is not None else 0
            return host_tip(str(scene.host_names[op]), float(scene.host_dur_us[op]), launched)
        length = float(track.index.end[item] - track.index.start[item])
        if track.kind == BREAKDOWN:
            step_us = float(track.index.end[-1] - track.index.start[0]) if len(track.index) else None
            return part_tip(int(track.index.category[item]), length, step_us, track.rank)
        if track.kind == STEPS:
            step = scene.steps["step"].iloc[int(track.rows[item])]
            return "\n".join((translate("Timeline", "step {0}: {1}").format(step, us(length)),
                              translate("Timeline", "click to zoom to this step")))
        return ""

    def _hover(self, scene_pos: QPointF) -> None:
        if self.scene_data is None or not self.vb.sceneBoundingRect().contains(scene_pos):
            return
        self.tip_text = self.tip_at(self.vb.mapSceneToView(scene_pos))
        if self.tip_text:
            QToolTip.showText(QCursor.pos(), self.tip_text, self.plot)
        else:
            QToolTip.hideText()

    # --- keyboard and size ----------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.plot and event.type() == QEvent.Type.KeyPress and self.scene_data is not None
                and self._key(event)):
            return True
        if watched is self.plot and event.type() == QEvent.Type.Resize and self.scene_data is not None:
            QTimer.singleShot(0, self._resized)
        return super().eventFilter(watched, event)

    def _key(self, event: QKeyEvent) -> bool:
        """W/S zoom in/out, A/D pan left/right (Perfetto's keys); arrows scroll the rows."""
        key = event.key()
        if key == Qt.Key.Key_W:
            self.vb.zoom_time(KEY_ZOOM)
        elif key == Qt.Key.Key_S:
            self.vb.zoom_time(1.0 / KEY_ZOOM)
        elif key == Qt.Key.Key_A:
            self.vb.pan_time(-KEY_PAN)
        elif key == Qt.Key.Key_D:
            self.vb.pan_time(KEY_PAN)
        elif key == Qt.Key.Key_Down:
            self.vb.scroll_rows(1)
        elif key == Qt.Key.Key_Up:
            self.vb.scroll_rows(-1)
        else:
            return False
        return True

    def _resized(self) -> None:
        if self.scene_data is not None:
            self._fit_rows()
            self._schedule()
