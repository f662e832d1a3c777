"""The first thing a user sees: what to open (a folder, trace files, the demo, a recent profile), or the calculator.

Shown in the Profiler tab while no profile is loaded, instead of empty axes; the whole page is a
drop target like the rest of the window.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget


def recent_title(entry: str) -> str:
    """A recent entry's menu text: the names of its paths ("job_42", "a.json, b.json")."""
    return ", ".join(Path(p).name or p for p in entry.split("\n") if p)


class StartPage(QWidget):
    """Open a folder, trace files or the demo; reopen a recent profile; or go to the calculator."""

    open_folder = Signal()
    open_files = Signal()
    open_demo = Signal()
    open_recent = Signal(str)  # a recent entry (paths separated by newlines)
    show_calculator = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        column = QVBoxLayout()
        title = QLabel(self.tr("Open a profile"))
        title.setStyleSheet("font-size: 16pt; font-weight: 600;")
        hint = QLabel(self.tr("Drop a profiler folder anywhere on this window — a cluster root, *_ascend_pt rank "
                              "folders, ASCEND_PROFILER_OUTPUT, msprof PROF_* folders — or PyTorch profiler traces "
                              "(*.pt.trace.json, *.json.gz), or:"))
        hint.setWordWrap(True)
        column.addWidget(title)
        column.addWidget(hint)
        buttons = QHBoxLayout()
        self.folder_button = QPushButton(self.tr("Open folder…"))
        self.files_button = QPushButton(self.tr("Open trace or db files…"))
        self.demo_button = QPushButton(self.tr("Open the demo profile"))
        for button, signal in ((self.folder_button, self.open_folder), (self.files_button, self.open_files),
                               (self.demo_button, self.open_demo)):
            button.clicked.connect(signal)
            buttons.addWidget(button)
        buttons.addStretch(1)
        column.addLayout(buttons)
        self.recent_title = QLabel(self.tr("Recent"))
        self.recent_title.setStyleSheet("font-weight: 600; margin-top: 12px;")
        self.recent = QListWidget()
        self.recent.setMaximumHeight(170)
        self.recent.itemActivated.connect(lambda item: self.open_recent.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.recent.itemClicked.connect(lambda item: self.open_recent.emit(item.data(Qt.ItemDataRole.UserRole)))
        column.addWidget(self.recent_title)
        column.addWidget(self.recent)
        calculator = QPushButton(self.tr("Or work out an operator's MFU in the Calculator"))
        calculator.setFlat(True)
        calculator.setStyleSheet("QPushButton { color: palette(link); text-align: left; }")
        calculator.clicked.connect(self.show_calculator)
        column.addWidget(calculator)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addLayout(column, 4)
        row.addStretch(1)
        outer.addLayout(row)
        outer.addStretch(2)
        self.set_recent([])

    def set_recent(self, entries: list[str]) -> None:
        """The recent profiles, newest first (each entry: paths separated by newlines)."""
        self.recent.clear()
        for entry in entries:
            item = QListWidgetItem(recent_title(entry))
            item.setToolTip(entry)
            item.setData(Qt.ItemDataRole.UserRole, entry)
            self.recent.addItem(item)
        self.recent_title.setVisible(bool(entries))
        self.recent.setVisible(bool(entries))
