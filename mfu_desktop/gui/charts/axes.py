"""Chart axes whose tick labels never collide and never run out of the axis.

pyqtgraph draws every tick label it is given: category names ran into each other ("950DT
*A100 SXM H100 SXM"), log-scale minor labels piled up ("2·10¹3·10¹4·10¹"), and names longer
than the left axis were cut at the window's edge. :class:`FittedAxis` fits labels to the space
the axis has *now* (at every resize): category labels are shortened in the middle (the full
text stays in the chart's tooltip), a bottom label may take a second line, and a label that
would still overlap one already placed is left out.
"""

from __future__ import annotations

import math
import re

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter

#: Pixels kept free between two tick labels.
LABEL_GAP = 4.0


def elide_middle(metrics: QFontMetricsF, text: str, width: float) -> str:
    """``text`` shortened in the middle to fit ``width`` px, each line on its own.

    A group label ``Type [shapes]`` keeps its type whole while it can and shortens its shapes
    ("MatMulV2 [4096,4…,4096]"): the type says what the row is, the shapes which one.
    """
    return "\n".join(_elide_line(metrics, line, max(width, 8.0)) for line in text.split("\n"))


def _elide_line(metrics: QFontMetricsF, line: str, width: float) -> str:
    if metrics.horizontalAdvance(line) <= width:
        return line
    match = re.fullmatch(r"(.+?) \[(.*)\]", line)
    if match:
        head = f"{match.group(1)} ["
        room = width - metrics.horizontalAdvance(head + "]")
        if room > metrics.horizontalAdvance("0,…,0"):
            return head + metrics.elidedText(match.group(2), Qt.TextElideMode.ElideMiddle, room) + "]"
    return metrics.elidedText(line, Qt.TextElideMode.ElideMiddle, width)


def parentheses_on_lines(text: str) -> str:
    """Each parenthesis of a label on its own line: "H100 SXM (now) (OOM)" → "H100 SXM" / "(now)" / "(OOM)".

    Full-width ones too: "910B2（实测）" → "910B2" / "（实测）".
    """
    return re.sub(r" ?（", "\n（", text.replace(" (", "\n("))  # Chinese text's full-width "（实测）" too


def two_lines(text: str) -> str:
    """A label's second half on a second line, at the space nearest its middle (unchanged when it has none)."""
    if "\n" in text:
        return text
    middle = len(text) // 2
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    if not spaces:
        return text
    cut = min(spaces, key=lambda i: abs(i - middle))
    return text[:cut] + "\n" + text[cut + 1:]


#: How far past its ends an axis may draw its first and last tick labels.
LABEL_OVERHANG_PX = 14
#: A category label is never shortened below its first word, up to this many characters' width.
MIN_LABEL_CHARS = 7


def readable_width(metrics: QFontMetricsF, text: str) -> float:
    """The narrowest a category label is shortened to: its first word whole (a chip's "910B2"), up to ~7 characters.

    Narrower, "910B2 (measured)" became "9…)", which names nothing; at this floor a label that does
    not fit overlaps its neighbour and :func:`drop_overlapping` leaves the neighbour out instead
    (its bar keeps its name in the tooltip).
    """
    first = text.split("\n", 1)[0].split(" ", 1)[0]
    char = metrics.averageCharWidth()
    return max(3 * char, min(metrics.horizontalAdvance(first), MIN_LABEL_CHARS * char))


def drop_overlapping(texts: list[tuple[QRectF, object, str]], gap: float = LABEL_GAP) -> list:
    """Keep tick labels in order, leaving out each one whose rectangle meets one already kept."""
    kept: list[tuple[QRectF, object, str]] = []
    for rect, flags, text in texts:
        grown = rect.adjusted(-gap / 2, -gap / 2, gap / 2, gap / 2)
        if any(grown.intersects(other) for other, _, _ in kept):
            continue
        kept.append((rect, flags, text))
    return kept


class FittedAxis(pg.AxisItem):
    """An axis that fits its labels to its current size (see the module docstring).

    Category ticks given with :meth:`set_categories` are re-fitted whenever the axis is drawn;
    numeric ticks (pyqtgraph's own or :meth:`setTicks`) only lose the labels that would overlap.
    """

    def __init__(self, orientation: str, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        # the first and last labels may reach a few px past the axis ends (into the corner beside the other axis)
        # rather than being left out: "910B2" under the first bar of a narrow chart
        self.setStyle(hideOverlappingLabels=LABEL_OVERHANG_PX)
        self.categories: list[str] = []
        self.category_positions: list[float] = []
        self.drawn: list[tuple[QRectF, object, str]] = []

    def set_categories(self, labels: list[str], positions: list[float] | None = None) -> None:
        """Text labels at integer positions (or ``positions``), fitted at draw time."""
        self.categories = list(labels)
        self.category_positions = list(positions) if positions is not None else list(range(len(labels)))
        self.enableAutoSIPrefix(False)  # positions are categories: never "chip (×0.001)"
        self.setTicks([list(zip(self.category_positions, self.categories))])

    def _room(self) -> tuple[float, float]:
        """(px per category unit along the axis, px across it for the text)."""
        view = self.linkedView()
        length = self.width() if self.orientation in ("bottom", "top") else self.height()
        across = (self.height() if self.orientation in ("bottom", "top") else self.width()) \
            - max(0, self.style["tickLength"]) - self.style["tickTextOffset"][0 if self.orientation in
                                                                            ("left", "right") else 1] - 2
        if view is None:
            return length / max(len(self.categories), 1), across
        lo, hi = view.viewRange()[0 if self.orientation in ("bottom", "top") else 1]
        span = max(hi - lo, 1e-9)
        return length / span, across

    def _fitted(self, metrics: QFontMetricsF) -> list[tuple[float, str]]:
        """The category labels shortened to the room each has now."""
        per_unit, across = self._room()
        out = []
        for position, label in zip(self.category_positions, self.categories):
            if self.orientation in ("left", "right"):
                out.append((position, elide_middle(metrics, label, across)))
                continue
            width = per_unit * 0.96 - LABEL_GAP
            text = parentheses_on_lines(label)
            widest = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
            if widest > width and "\n" not in text and across >= 2 * metrics.height():
                text = two_lines(text)
            out.append((position, elide_middle(metrics, text, max(width, readable_width(metrics, text)))))
        return out

    def generateDrawSpecs(self, p: QPainter):
        if self.style["tickFont"] is not None:
            p.setFont(self.style["tickFont"])
        if self.categories:
            self._tickLevels = [self._fitted(QFontMetricsF(p.font()))]
        specs = super().generateDrawSpecs(p)
        if specs is None:
            self.drawn = []
            return specs
        axis, ticks, texts = specs
        self.drawn = drop_overlapping(texts)
        return axis, ticks, self.drawn

    def resizeEvent(self, ev=None) -> None:
        super().resizeEvent(ev)
        self.picture = None  # the room changed: fit the labels again

    def linkedViewChanged(self, view, newRange=None) -> None:
        super().linkedViewChanged(view, newRange)
        if self.categories:
            self.picture = None


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


def fitted_axes() -> dict[str, FittedAxis]:
    """The ``axisItems`` of a plot with fitted left and bottom axes."""
    return {"left": FittedAxis("left"), "bottom": FittedAxis("bottom")}
