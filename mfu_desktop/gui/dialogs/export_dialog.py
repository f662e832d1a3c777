"""File → Export: where to write and what (tables as CSV/Parquet/XLSX, charts as PNG/SVG).

The JSON summary and the Markdown report ("top kernels by lost MFU", conventions stated)
are always written. The dialog collects choices; before it closes, the main window's check
says whether the folder may be written (a refusal is shown in the dialog, the choices kept; an
earlier export is replaced only when the user agrees); the main window runs the export.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


@dataclass
class ExportChoice:
    """What to export and where."""

    folder: Path
    tables: list[str] = field(default_factory=lambda: ["csv"])
    charts: list[str] = field(default_factory=lambda: ["png"])
    force: bool = False  # replace the files of an earlier export (the user agreed)


class ExportDialog(QDialog):
    """Choose a target folder and formats."""

    def __init__(self, default_folder: Path, parent: QWidget | None = None,
                 check: Callable[[ExportChoice], None] | None = None) -> None:
        super().__init__(parent)
        self._check = check
        self._force = False
        self.setWindowTitle(self.tr("Export analysis"))
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.folder = QLineEdit(str(default_folder))
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        form.addRow(self.tr("Folder"), row)
        self.csv = QCheckBox("CSV")
        self.csv.setChecked(True)
        self.parquet = QCheckBox(self.tr("Parquet (kernels)"))
        self.xlsx = QCheckBox("XLSX")
        tables = QHBoxLayout()
        for w in (self.csv, self.parquet, self.xlsx):
            tables.addWidget(w)
        form.addRow(self.tr("Tables"), tables)
        self.png = QCheckBox("PNG")
        self.png.setChecked(True)
        self.svg = QCheckBox("SVG")
        charts = QHBoxLayout()
        for w in (self.png, self.svg):
            charts.addWidget(w)
        form.addRow(self.tr("Charts"), charts)
        layout.addLayout(form)
        note = QLabel(self.tr("summary.json and summary.md (top kernels by lost MFU, conventions) are always "
                              "written. Nothing is written inside or above a profiler folder, nor over files MFU "
                              "Desktop did not write."))
        note.setWordWrap(True)
        layout.addWidget(note)
        self.refusal = QLabel("")
        self.refusal.setWordWrap(True)
        self.refusal.setStyleSheet("color: #c0392b")
        self.refusal.hide()
        layout.addWidget(self.refusal)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        layout.addWidget(box)

    def accept(self) -> None:
        """Close only when the folder may be written; a refusal stays in the dialog with every choice kept."""
        from mfu_desktop.gui.export_guard import writable

        if self._check is not None:
            choice = self.choice()
            force = writable(self, choice.folder, lambda f: self._check(ExportChoice(
                choice.folder, choice.tables, choice.charts, f)), self._refuse)
            if force is None:
                return
            self._force = force
        super().accept()

    def _refuse(self, message: str) -> None:
        self.refusal.setText(message)
        self.refusal.show()
        self.adjustSize()  # grow to the message (the layout alone squeezes a shown dialog's rows)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Export to"), self.folder.text())
        if folder:
            self.folder.setText(folder)

    def choice(self) -> ExportChoice:
        """The user's choices."""
        tables = [name for name, box in (("csv", self.csv), ("parquet", self.parquet), ("xlsx", self.xlsx))
                  if box.isChecked()]
        charts = [name for name, box in (("png", self.png), ("svg", self.svg)) if box.isChecked()]
        return ExportChoice(Path(self.folder.text()).expanduser(), tables, charts, self._force)
