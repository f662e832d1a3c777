"""One message area for the whole window: messages stack in a corner and never push the layout around.

Each tab (and the window itself) owns a :class:`MessageChannel`; what it says appears as a card in
the window's :class:`MessageArea`, which floats over the bottom-right corner of the tabs. A new
message replaces its channel's previous one, so a tab never stacks up stale warnings; the
layout under the cursor never moves when a message comes or goes (the banners above the tabs
used to push every table and chart down). A message may carry one action ("Set the chip…").
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

#: Widest a message card gets (px); narrower windows give it their width minus a margin.
CARD_MAX_WIDTH = 620


class MessageCard(QFrame):
    """A message: an optional title, the text (selectable), an optional action button and a close button."""

    closed = Signal()

    def __init__(self, title: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#messageCard { background: palette(tool-tip-base); border: 1px solid rgb(240, 173, 78);"
                           " border-left: 4px solid rgb(240, 173, 78); border-radius: 4px; }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        column = QVBoxLayout()
        column.setSpacing(2)
        self.title = QLabel(title)
        self.title.setStyleSheet("font-weight: 600; font-size: 8.5pt;")
        self.title.setVisible(bool(title))
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.title)
        column.addWidget(self.label)
        layout.addLayout(column, 1)
        self.action = QPushButton("")
        self.action.setVisible(False)
        self._handler: Callable[[], None] | None = None
        self.action.clicked.connect(self._act)
        layout.addWidget(self.action, 0, Qt.AlignmentFlag.AlignVCenter)
        close = QPushButton("✕")
        close.setFlat(True)
        close.setFixedWidth(26)
        close.setToolTip(self.tr("Dismiss"))
        close.clicked.connect(self.dismiss)
        self.close_button = close
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def set(self, text: str, action: tuple[str, Callable[[], None]] | None = None) -> None:
        """Show ``text`` (hide on empty) with an optional ``(button text, handler)``."""
        self.label.setText(text)
        self._handler = action[1] if action else None
        self.action.setText(action[0] if action else "")
        self.action.setVisible(action is not None)
        self.setVisible(bool(text))

    def _act(self) -> None:
        handler = self._handler
        self.dismiss()
        if handler is not None:
            handler()

    def dismiss(self) -> None:
        """Close the message (the ✕ button)."""
        self.hide()
        self.closed.emit()


class MessageArea(QWidget):
    """The window's message cards, stacked in the bottom-right corner of ``host`` above its content."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.host = host
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.column.setSpacing(4)
        self.cards: list[MessageCard] = []
        host.installEventFilter(self)
        self.hide()

    def add(self, card: MessageCard) -> None:
        """Take a channel's card (newest at the bottom)."""
        card.setParent(self)
        self.column.addWidget(card)
        self.cards.append(card)
        card.closed.connect(self.relayout)
        self.relayout()

    def shown_cards(self) -> list[MessageCard]:
        """The cards on screen (their channels have something to say)."""
        return [c for c in self.cards if not c.isHidden()]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.host and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.relayout()
        return False

    def relayout(self) -> None:
        """Size and place the stack in the corner (hidden when no card has a message)."""
        shown = self.shown_cards()
        if not shown:
            self.hide()
            return
        width = max(min(CARD_MAX_WIDTH, self.host.width() - 24), 160)
        height = sum(c.heightForWidth(width) if c.hasHeightForWidth() else c.sizeHint().height() for c in shown)
        height = max(height + self.column.spacing() * (len(shown) - 1), 10)
        self.setGeometry(self.host.width() - width - 12, max(self.host.height() - height - 10, 0), width, height)
        self.show()
        self.raise_()


class MessageChannel(QObject):
    """What one part of the window (a tab, the window) has to say: one message at a time, in the shared area.

    Args:
        title: The card's title (the tab's name), or ``""``.
    """

    def __init__(self, title: str = "", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.card = MessageCard(title)
        self.area: MessageArea | None = None

    @property
    def label(self) -> QLabel:
        """The message's text label."""
        return self.card.label

    def attach(self, area: MessageArea) -> None:
        """Show this channel's messages in ``area``."""
        self.area = area
        area.add(self.card)

    def show_message(self, text: str, action: tuple[str, Callable[[], None]] | None = None) -> None:
        """Say ``text`` (replacing this channel's previous message; empty hides it), with an optional action."""
        self.card.set(text, action)
        if self.area is not None:
            self.area.relayout()

    def hide(self) -> None:
        """Take the message away."""
        self.show_message("")

    def isVisible(self) -> bool:
        """True while the message is on screen."""
        return self.card.isVisible()

    def text(self) -> str:
        """The message shown (``""`` when none)."""
        return self.card.label.text() if not self.card.isHidden() else ""
