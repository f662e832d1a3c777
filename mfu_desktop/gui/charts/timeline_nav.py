"""Navigating the timeline as in Perfetto: Ctrl+wheel zooms, wheel scrolls the rows, Shift+wheel and drag pan.

The keyboard (W/S zoom in and out, A/D pan left and right) is handled by the chart, which gives
this view box the zoom and pan steps; the view box keeps its rows whole and its time range
inside the capture.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal

#: One wheel notch (120 units) zooms by this factor.
WHEEL_ZOOM = 0.8
#: W/S zoom by this factor; A/D pan by this share of the visible time.
KEY_ZOOM = 0.7
KEY_PAN = 0.2
#: The narrowest time range shown (s): 10 ns.
MIN_SPAN_S = 1e-8


class TimelineViewBox(pg.ViewBox):
    """A view box whose x is time (s) and whose y counts rows (row ``i`` from ``i`` to ``i + 1``).

    Signals:
        clicked: A left click at a point in view coordinates.
    """

    clicked = Signal(QPointF)

    def __init__(self) -> None:
        super().__init__(enableMenu=False)
        self.setMouseEnabled(x=True, y=True)
        self.rows = 1
        self.visible_rows = 1.0

    # --- what the chart calls -------------------------------------------------------------

    def set_rows(self, rows: int, visible: float) -> None:
        """``rows`` tracks of which ``visible`` fit on screen: the y range scrolls between them.

        Rows keep their height: with fewer rows than fit, they sit at the top.
        """
        self.rows = max(int(rows), 1)
        self.visible_rows = max(float(visible), 1.0)
        self.setLimits(yMin=0.0, yMax=float(max(self.rows, self.visible_rows)),
                       minYRange=self.visible_rows, maxYRange=self.visible_rows)
        top = min(max(self.viewRange()[1][0], 0.0), max(self.rows - self.visible_rows, 0.0))
        self.setYRange(top, top + self.visible_rows, padding=0)

    def zoom_time(self, factor: float, centre: float | None = None) -> None:
        """Zoom the time axis by ``factor`` (< 1 zooms in) around ``centre`` (s; the middle by default)."""
        (x0, x1), _ = self.viewRange()
        c = (x0 + x1) / 2.0 if centre is None else centre
        span = max((x1 - x0) * factor, MIN_SPAN_S)
        left = c - (c - x0) / (x1 - x0) * span if x1 > x0 else c - span / 2
        self.setXRange(left, left + span, padding=0)

    def pan_time(self, share: float) -> None:
        """Move the time axis by ``share`` of the visible span (negative: left)."""
        (x0, x1), _ = self.viewRange()
        shift = (x1 - x0) * share
        self.setXRange(x0 + shift, x1 + shift, padding=0)

    def scroll_rows(self, rows: float) -> None:
        """Scroll the rows by ``rows`` (positive: down)."""
        _, (y0, _) = self.viewRange()
        top = min(max(y0 + rows, 0.0), max(self.rows - self.visible_rows, 0.0))
        self.setYRange(top, top + self.visible_rows, padding=0)

    # --- mouse ----------------------------------------------------------------------------

    def wheelEvent(self, ev, axis=None) -> None:
        notches = ev.delta() / 120.0
        modifiers = ev.modifiers()
        if modifiers & Qt.KeyboardModifier.ControlModifier:
            self.zoom_time(WHEEL_ZOOM ** notches, self.mapSceneToView(ev.scenePos()).x())
        elif modifiers & Qt.KeyboardModifier.ShiftModifier:
            self.pan_time(-0.15 * notches)
        else:
            self.scroll_rows(-notches)
        ev.accept()

    def mouseClickEvent(self, ev) -> None:
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.clicked.emit(self.mapSceneToView(ev.scenePos()))
        else:
            ev.ignore()
