"""Small reusable widgets: validated number fields, summary cards, an info bar."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from mfu_desktop.core.formulas.shapes import ShapeError, parse_dims

_ERROR_STYLE = "QLineEdit { border: 1px solid #d9534f; background: rgba(217, 83, 79, 40); }"


class Field(QLineEdit):
    """A line edit that parses its text and marks itself invalid with the reason as tooltip.

    ``kind``: ``int`` (positive), ``nonneg_int``, ``float`` (positive), ``nonneg_float``, ``shape``
    (``2,4096,32,128``), ``ints`` (``3,7,12``), ``text``.
    """

    def __init__(self, kind: str = "int", placeholder: str = "", optional: bool = False,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.optional = optional
        self.setPlaceholderText(placeholder)
        self._help = placeholder
        self.setClearButtonEnabled(True)

    def value(self) -> object:
        """The parsed value, ``None`` when empty; raises ValueError with a reason when invalid."""
        raw = self.text().strip()
        text = raw.replace("_", "")  # digit grouping in numbers (4_096)
        if not text:
            return None
        if self.kind in ("int", "nonneg_int"):
            try:
                value = int(float(text)) if "e" in text.lower() else int(text.replace(",", ""))
            except ValueError:
                raise ValueError(self.tr("“{0}” is not an integer").format(text)) from None
            if value < 0 or (self.kind == "int" and value == 0):
                raise ValueError(self.tr("must be positive") if self.kind == "int" else self.tr("must not be negative"))
            return value
        if self.kind in ("float", "nonneg_float"):
            try:
                value = float(text.replace(",", ""))
            except ValueError:
                raise ValueError(self.tr("“{0}” is not a number").format(text)) from None
            if value < 0 or (self.kind == "float" and value == 0) or value != value:
                message = self.tr("must be positive") if self.kind == "float" else self.tr("must not be negative")
                raise ValueError(message)
            return value
        if self.kind == "shape":
            try:
                return parse_dims(text)
            except ShapeError:
                raise ValueError(self.tr("“{0}” is not a shape such as 2,4096,32,128").format(text)) from None
        if self.kind == "ints":
            try:
                values = [int(p) for p in text.replace(" ", "").split(",") if p]
            except ValueError:
                raise ValueError(self.tr("“{0}” is not a list of integers such as 3,7,12").format(text)) from None
            if not values or any(v < 0 for v in values):
                raise ValueError(self.tr("give non-negative integers separated by commas"))
            return values
        return raw

    def checked(self, errors: list[str], label: str) -> object:
        """Parse, mark the field valid/invalid, and append ``label: reason`` to ``errors`` when invalid."""
        try:
            value = self.value()
        except ValueError as exc:
            self.mark_invalid(str(exc))
            errors.append(f"{label}: {exc}")
            return None
        self.mark_valid()
        return value

    def mark_invalid(self, reason: str) -> None:
        """Red border and the reason as tooltip."""
        self.setStyleSheet(_ERROR_STYLE)
        self.setToolTip(reason)

    def mark_valid(self) -> None:
        """Back to normal."""
        self.setStyleSheet("")
        self.setToolTip(self._help)


CARD_HEIGHT = 118
#: Card details are cut at this length, and where they would run past the card (the tooltip has them whole).
DETAIL_CHARS = 160


#: Point sizes a card value may take, largest first: a long value (an MFU range) shrinks before it is elided.
CARD_VALUE_SIZES = (15, 13, 11, 10)


class Card(QFrame):
    """A summary card: a caption and a big value, optionally coloured.

    The value never clips: it shrinks through :data:`CARD_VALUE_SIZES` to fit the card's width,
    then is elided with "…"; the tooltip always has the whole value and detail.
    """

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName("card")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        self.caption = QLabel(caption)
        self.caption.setStyleSheet("color: palette(placeholder-text); font-size: 9pt;")
        self.value = QLabel("–")
        self.value.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setStyleSheet("font-size: 8pt;")
        layout.addWidget(self.caption)
        layout.addWidget(self.value)
        layout.addWidget(self.detail)
        layout.addStretch(1)
        # A fixed box: new values never resize the row, so the charts below are not re-laid out
        # (and re-rendered) every time a card changes. Long details are clipped; the tooltip has all.
        self.setFixedHeight(CARD_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(120)
        self.full_value = "–"
        self.full_detail = ""
        self._color: str | None = None
        self._small = False
        self._fit()

    def set(self, value: str, detail: str = "", color: str | None = None, small: bool = False) -> None:
        """Show a value (and a detail line); ``color`` is a CSS colour, ``small`` for long text values."""
        self.full_value = value
        self._color = color
        self._small = small
        self.full_detail = detail
        self.setToolTip(f"{self.caption.text()}: {value}" + (f"\n{detail}" if detail else ""))
        self.detail.setVisible(bool(detail))
        self._fit()

    def value_fits(self) -> bool:
        """True when the shown value is the whole value (not elided)."""
        return self.value.text() == self.full_value

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """The largest size at which the value fits the card; elided at the smallest."""
        margins = self.layout().contentsMargins()
        width = max(self.contentsRect().width() - margins.left() - margins.right() - 2, 40)
        sizes = CARD_VALUE_SIZES[1:] if self._small else CARD_VALUE_SIZES
        font = QFont(self.font())
        font.setWeight(QFont.Weight.DemiBold)
        text = self.full_value
        for size in sizes:
            font.setPointSize(size)
            if QFontMetrics(font).horizontalAdvance(text) <= width:
                break
        else:
            text = QFontMetrics(font).elidedText(self.full_value, Qt.TextElideMode.ElideRight, width)
        self.value.setFont(font)  # the font, not a style sheet: what is measured is what is drawn
        self.value.setText(text)
        self.value.setStyleSheet(f"color: {self._color};" if self._color else "")
        self._fit_detail(width, QFontMetrics(font).height())

    def _fit_detail(self, width: int, value_height: int) -> None:
        """The detail, word-wrapped, cut with "…" where it would run past the card's bottom."""
        margins = self.layout().contentsMargins()
        spacing = self.layout().spacing() * 2
        room = CARD_HEIGHT - margins.top() - margins.bottom() - spacing - value_height \
            - self.caption.sizeHint().height() - 4
        metrics = QFontMetrics(self.detail.font())
        text = self.full_detail[:DETAIL_CHARS]

        def height(t: str) -> int:
            return metrics.boundingRect(QRect(0, 0, width, 10_000), int(Qt.TextFlag.TextWordWrap), t).height()

        if height(text) > room:  # binary search on the length that fits, then an ellipsis
            lo, hi = 0, len(text)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if height(text[:mid].rstrip() + "…") <= room else (lo, mid - 1)
            text = text[:lo].rstrip() + "…"
        elif len(self.full_detail) > DETAIL_CHARS:
            text = text.rstrip() + "…"
        self.detail.setText(text)

    def detail_fits(self) -> bool:
        """True when the shown detail is the whole detail."""
        return self.detail.text() == self.full_detail


class ElidedLabel(QLabel):
    """A one-line label that takes the width it is given and ends with "…" when its text does not fit.

    It never widens its row (a long text would push the layout around); the tooltip has the whole text.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(40)
        self.full_text = ""
        self.set_text(text)

    def set_text(self, text: str) -> None:
        """Show ``text`` (elided to the current width)."""
        self.full_text = text
        self.setToolTip(text)
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        self.setText(self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight,
                                                   max(self.contentsRect().width(), 10)))


class InfoBar(QFrame):
    """A non-modal message line with a close button (for warnings that must not block)."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("InfoBar { background: rgba(240, 173, 78, 60); border-radius: 4px; }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QPushButton("✕")
        close.setFlat(True)
        close.setFixedWidth(28)
        close.clicked.connect(self.hide)
        close.clicked.connect(self.closed)
        layout.addWidget(self.label, 1)
        layout.addWidget(close)
        self.hide()

    def show_message(self, text: str) -> None:
        """Show (replacing any previous message)."""
        self.label.setText(text)
        self.setVisible(bool(text))
