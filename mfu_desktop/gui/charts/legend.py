"""A chart legend that lives outside the plot: entries wrap onto more lines instead of being cut or hiding bars.

pyqtgraph's legend is an item inside the plot: at 1280×800 it ran past the plot's edge ("free"
was cut) and covered bars. This legend is a row of Qt widgets above the plot (a
:class:`~mfu_desktop.gui.flow_layout.FlowLayout`), so every entry is whole at every width and a
test can check it.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from mfu_desktop.gui.flow_layout import FlowLayout

SWATCH_PX = 14


@dataclass(frozen=True)
class Swatch:
    """What an entry's sample looks like.

    Attributes:
        rgb: Fill (bar, marker) or line colour.
        kind: ``bar``, ``marker`` (a circle), ``cross`` (an x), ``star`` or ``line``.
        hatched: Diagonal hatching (a partly predicted bar).
        dashed: Dashed outline (bar) or dashed line.
    """

    rgb: tuple[int, int, int]
    kind: str = "bar"
    hatched: bool = False
    dashed: bool = False


def swatch_pixmap(swatch: Swatch, size: int = SWATCH_PX) -> QPixmap:
    """A small picture of ``swatch`` (transparent background)."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    color = QColor(*swatch.rgb)
    box = QRectF(1.5, 1.5, size - 3, size - 3)
    if swatch.kind == "bar":
        style = Qt.BrushStyle.BDiagPattern if swatch.hatched else Qt.BrushStyle.SolidPattern
        painter.setBrush(QBrush(color, style))
        pen = QPen(QColor(60, 60, 60) if swatch.dashed else color, 1.2)
        pen.setStyle(Qt.PenStyle.DashLine if swatch.dashed else Qt.PenStyle.SolidLine)
        painter.setPen(pen)
        painter.drawRect(box)
    elif swatch.kind == "line":
        pen = QPen(color, 2)
        pen.setStyle(Qt.PenStyle.DashLine if swatch.dashed else Qt.PenStyle.SolidLine)
        painter.setPen(pen)
        painter.drawLine(QPointF(1, size / 2), QPointF(size - 1, size / 2))
    elif swatch.kind == "cross":
        painter.setPen(QPen(color, 2))
        painter.drawLine(box.topLeft(), box.bottomRight())
        painter.drawLine(box.bottomLeft(), box.topRight())
    else:  # marker / star: a filled circle (a star reads as a dot this small)
        painter.setPen(QPen(QColor(40, 40, 40), 1) if swatch.kind == "star" else Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawEllipse(box.adjusted(1, 1, -1, -1))
    painter.end()
    return pixmap


def fit_height_to_width(widget: QWidget, needed: int) -> None:
    """Ask for the height ``widget``'s wrapped content needs at its current width (``needed`` px).

    A legend on three lines, a title on two: layouts and scroll areas then give it that much
    instead of squeezing (and cutting) what is below; when the widget widens it asks for less.
    """
    if needed > 0 and needed != widget.minimumHeight():
        widget.setMinimumHeight(needed)


class LegendEntry(QWidget):
    """One entry: the swatch and its text (never elided: the legend wraps instead)."""

    def __init__(self, swatch: Swatch, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.swatch = QLabel()
        self.swatch.setPixmap(swatch_pixmap(swatch))
        self.label = QLabel(text)
        self.label.setStyleSheet("font-size: 8.5pt;")
        layout.addWidget(self.swatch)
        layout.addWidget(self.label)

    @property
    def text(self) -> str:
        """The entry's text."""
        return self.label.text()


class ChartLegend(QWidget):
    """The legend of one chart: entries by key, in insertion order, wrapping at the chart's width."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.flow = FlowLayout(self, spacing=12)
        self.flow.setContentsMargins(8, 0, 8, 0)
        self.entries: dict[str, LegendEntry] = {}
        self.setVisible(False)

    def set_entries(self, entries: list[tuple[str, Swatch, str]]) -> None:
        """Replace every entry: ``(key, swatch, text)`` in order."""
        for entry in self.entries.values():
            self.flow.removeWidget(entry)
            entry.deleteLater()
        self.entries = {}
        for key, swatch, text in entries:
            self.add(key, swatch, text)
        self._update_visibility()

    def add(self, key: str, swatch: Swatch, text: str) -> LegendEntry:
        """Add (or replace) one entry."""
        old = self.entries.pop(key, None)
        if old is not None:
            self.flow.removeWidget(old)
            old.deleteLater()
        entry = LegendEntry(swatch, text, self)
        self.flow.addWidget(entry)
        self.entries[key] = entry
        self._update_visibility()
        return entry

    def show_entry(self, key: str, visible: bool) -> None:
        """Show or hide one entry (a series with nothing drawn has no entry)."""
        entry = self.entries.get(key)
        if entry is not None and entry.isVisibleTo(self) != visible:
            entry.setVisible(visible)
            self.flow.invalidate()
        self._update_visibility()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        fit_height_to_width(self, self.flow.heightForWidth(self.width()))

    def visible_texts(self) -> list[str]:
        """The texts of the entries shown."""
        return [e.text for e in self.entries.values() if not e.isHidden()]

    def _update_visibility(self) -> None:
        self.setVisible(any(not e.isHidden() for e in self.entries.values()))
