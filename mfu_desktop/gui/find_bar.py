"""Ctrl+F: find kernels and operator types across the open tabs.

The bar filters every table that can answer (the Profiler's kernels, its By type and By type and
shape tables, the Compare tab's groups, the Prediction tab's per-kernel detail) as you type, and
lists each with its match count; a click (or Enter, for the first) shows that table. Closing the
bar (Esc or ✕) shows every row again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget


@dataclass
class FindTarget:
    """A place that can be searched.

    Attributes:
        name: Its name in the bar (translated).
        apply: Filter it to ``text`` (``""`` shows everything); returns the rows matching, or
            ``None`` when it has nothing loaded.
        show: Bring it to the front.
    """

    name: str
    apply: Callable[[str], int | None]
    show: Callable[[], None]


class FindBar(QWidget):
    """The find field and one button per searchable place with its count."""

    def __init__(self, targets: Callable[[], list[FindTarget]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.targets = targets
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.addWidget(QLabel(self.tr("Find")))
        self.field = QLineEdit()
        self.field.setPlaceholderText(self.tr("kernel name or operator type…"))
        self.field.setClearButtonEnabled(True)
        self.field.setMaximumWidth(320)
        self.field.returnPressed.connect(self.show_first)
        layout.addWidget(self.field)
        self.results = QHBoxLayout()
        layout.addLayout(self.results)
        self.summary = QLabel("")
        layout.addWidget(self.summary)
        layout.addStretch(1)
        close = QPushButton("✕")
        close.setFlat(True)
        close.setFixedWidth(26)
        close.setToolTip(self.tr("Close (Esc): every row is shown again"))
        close.clicked.connect(self.close_bar)
        layout.addWidget(close)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)  # a search per pause in typing, not per key
        self._timer.timeout.connect(self.search)
        self.field.textChanged.connect(lambda _: self._timer.start())
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.field, self.close_bar)
        self.hits: list[tuple[FindTarget, int]] = []
        self.hide()

    def open(self) -> None:
        """Ctrl+F: show the bar with the field focused (its text selected)."""
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def close_bar(self) -> None:
        """Hide the bar and show every row again."""
        self.field.blockSignals(True)
        self.field.clear()
        self.field.blockSignals(False)
        self.search()
        self.hide()

    def search(self) -> None:
        """Filter every target to the text and list the ones with matches."""
        text = self.field.text().strip()
        while self.results.count():
            item = self.results.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.hits = []
        for target in self.targets():
            count = target.apply(text)
            if text and count:
                self.hits.append((target, count))
                button = QPushButton(f"{target.name} ({count:,})")
                button.clicked.connect(target.show)
                self.results.addWidget(button)
        self.summary.setText(self.tr("no match in the open tabs") if text and not self.hits else "")

    def show_first(self) -> None:
        """Enter: show the first table with matches."""
        self._timer.stop()
        self.search()
        if self.hits:
            self.hits[0][0].show()
