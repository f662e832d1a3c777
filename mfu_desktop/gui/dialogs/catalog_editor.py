"""Tools → Chip catalog: shipped rows read-only with their sources, user rows editable.

Edits are validated per cell as you type (the same checks as the loader); saving writes
the per-user ``devices_info.csv`` atomically and the main window reloads the catalog.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QUrl,
)
from PySide6.QtGui import QBrush, QColor, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.chips.user_catalog import (
    CATALOG_COLUMNS,
    CellProblem,
    chip_to_row,
    read_user_rows,
    save_user_rows,
    validate_rows,
)
from mfu_desktop.core.paths import user_catalog_path
from mfu_desktop.core.writing import ExportError

_ERROR_BRUSH = QBrush(QColor(217, 83, 79, 90))
_Index = QModelIndex | QPersistentModelIndex


class CatalogRowsModel(QAbstractTableModel):
    """Catalog rows (text cells); editable or read-only, invalid cells tinted with the reason as tooltip."""

    def __init__(self, rows: list[dict[str, str]], editable: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows = rows
        self.editable = editable
        self.problems: dict[tuple[int, str | None], str] = {}

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(CATALOG_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return self.tr("Column {0} of the catalog CSV").format(CATALOG_COLUMNS[section])
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return catalog_header(CATALOG_COLUMNS[section])
        return str(section + 1)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        column = CATALOG_COLUMNS[index.column()]
        text = self.rows[index.row()].get(column, "")
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return text
        problem = self.problems.get((index.row(), column)) or self.problems.get((index.row(), None))
        if role == Qt.ItemDataRole.BackgroundRole and problem:
            return _ERROR_BRUSH
        if role == Qt.ItemDataRole.ToolTipRole:
            return problem or (text if len(text) > 30 else None)
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsEditable if self.editable else base

    def setData(self, index: _Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not self.editable or role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        column = CATALOG_COLUMNS[index.column()]
        self.rows[index.row()][column] = str(value).strip()
        self.revalidate()
        return True

    def revalidate(self) -> list[CellProblem]:
        """Recheck every row; returns the problems (also kept for display)."""
        problems = validate_rows(self.rows) if self.editable else []
        self.problems = {(p.row, p.column): p.message for p in problems if p.row >= 0}
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(CATALOG_COLUMNS) - 1))
        return problems

    def add(self, row: dict[str, str]) -> int:
        """Append a row; returns its position."""
        position = len(self.rows)
        self.beginInsertRows(QModelIndex(), position, position)
        self.rows.append(row)
        self.endInsertRows()
        self.revalidate()
        return position

    def remove(self, position: int) -> None:
        """Delete a row."""
        if 0 <= position < len(self.rows):
            self.beginRemoveRows(QModelIndex(), position, position)
            del self.rows[position]
            self.endRemoveRows()
            self.revalidate()


class CatalogEditor(QDialog):
    """Browse shipped chips; add, copy, edit and remove your own rows; save them."""

    def __init__(self, catalog: ChipCatalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Chip catalog"))
        self.resize(1100, 560)
        self.catalog = catalog
        self.saved = False
        layout = QVBoxLayout(self)
        path = user_catalog_path()
        intro = QLabel(self.tr("Shipped rows are read-only and carry their sources. Your rows (saved in {0}) "
                               "override a shipped row with the same vendor and model, or add a chip. Blank = "
                               "not published: it is never treated as 0.").format(path))
        intro.setWordWrap(True)
        intro.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(intro)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs, 1)

        shipped_rows = [chip_to_row(c) for c in catalog.chips if c.origin != "user"]
        self.shipped_model = CatalogRowsModel(shipped_rows, editable=False, parent=self)
        self.shipped_view = self._view(self.shipped_model)
        self.tabs.addTab(self.shipped_view, self.tr("Shipped ({0})").format(len(shipped_rows)))

        rows, problems = read_user_rows(path)
        self.user_model = CatalogRowsModel(rows, editable=True, parent=self)
        self.user_view = self._view(self.user_model)
        self.user_view.setEditTriggers(QAbstractItemView.EditTrigger.AllEditTriggers)
        user_host = QWidget()
        u_layout = QVBoxLayout(user_host)
        u_layout.addWidget(self.user_view, 1)
        buttons = QHBoxLayout()
        self.add_button = QPushButton(self.tr("New chip"))
        self.copy_button = QPushButton(self.tr("Copy selected shipped chip"))
        self.remove_button = QPushButton(self.tr("Remove row"))
        self.open_button = QPushButton(self.tr("Open folder"))
        for b in (self.add_button, self.copy_button, self.remove_button, self.open_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        u_layout.addLayout(buttons)
        self.tabs.addTab(user_host, self.tr("Yours"))
        self.add_button.clicked.connect(self.add_blank)
        self.copy_button.clicked.connect(self.copy_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        self.open_button.clicked.connect(
            lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path.parent))))

        self.status = QLabel("; ".join(problems))
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #d9534f;")
        layout.addWidget(self.status)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        box.accepted.connect(self.save)
        box.rejected.connect(self.reject)
        layout.addWidget(box)
        self.user_model.dataChanged.connect(self._show_problems)
        self.user_model.revalidate()

    def _view(self, model: CatalogRowsModel) -> QTableView:
        view = QTableView()
        view.setModel(model)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setAlternatingRowColors(True)
        view.horizontalHeader().setDefaultSectionSize(110)
        view.setColumnWidth(CATALOG_COLUMNS.index("notes"), 260)
        view.setColumnWidth(CATALOG_COLUMNS.index("model"), 160)
        return view

    def _show_problems(self) -> None:
        problems = validate_rows(self.user_model.rows)
        self.status.setText(self.tr("{0} problem(s); first: {1}").format(len(problems), _describe(problems[0]))
                            if problems else "")

    def add_blank(self) -> int:
        """Add an empty row for a new chip."""
        row = {c: "" for c in CATALOG_COLUMNS}
        row.update(vendor="Custom", model=f"Chip {len(self.user_model.rows) + 1}", architecture_type="NPU",
                   confidence="C", source="user")
        position = self.user_model.add(row)
        self.tabs.setCurrentIndex(1)
        self.user_view.setCurrentIndex(self.user_model.index(position, CATALOG_COLUMNS.index("cube_fp16_tflops")))
        return position

    def copy_selected(self) -> int | None:
        """Copy the selected shipped row into your rows (to override some of its values)."""
        index = self.shipped_view.currentIndex()
        if not index.isValid():
            self.status.setText(self.tr("Select a shipped chip first (Shipped tab)."))
            self.tabs.setCurrentIndex(0)
            return None
        row = dict(self.shipped_model.rows[index.row()])
        row["source"] = (row.get("source", "") + ";user").strip(";")
        position = self.user_model.add(row)
        self.tabs.setCurrentIndex(1)
        self.user_view.setCurrentIndex(self.user_model.index(position, 0))
        return position

    def remove_selected(self) -> None:
        """Remove the selected user row."""
        index = self.user_view.currentIndex()
        if index.isValid():
            self.user_model.remove(index.row())

    def save(self) -> bool:
        """Validate and save; on success the dialog closes with Accepted."""
        try:
            save_user_rows(self.user_model.rows)
        except ValueError as exc:
            self.status.setText(self.tr("Not saved: {0}").format(exc))
            self.tabs.setCurrentIndex(1)
            return False
        except ExportError as exc:
            self.status.setText(self.tr("Not saved: {0}").format(exc))
            return False
        self.saved = True
        self.accept()
        return True


#: The catalog's columns in words (the CSV column names stay in the tooltips: the file is edited by name).
CATALOG_HEADERS = {
    "vendor": QT_TRANSLATE_NOOP("Catalog", "Vendor"),
    "model": QT_TRANSLATE_NOOP("Catalog", "Model"),
    "architecture_type": QT_TRANSLATE_NOOP("Catalog", "Architecture"),
    "cube_fp16_tflops": QT_TRANSLATE_NOOP("Catalog", "Matrix FP16 (TFLOP/s)"),
    "cube_bf16_tflops": QT_TRANSLATE_NOOP("Catalog", "Matrix BF16 (TFLOP/s)"),
    "cube_fp32_tflops": QT_TRANSLATE_NOOP("Catalog", "Matrix FP32 (TFLOP/s)"),
    "cube_hf32_tflops": QT_TRANSLATE_NOOP("Catalog", "Matrix HF32/TF32 (TFLOP/s)"),
    "cube_fp8_tflops": QT_TRANSLATE_NOOP("Catalog", "Matrix FP8 (TFLOP/s)"),
    "cube_int8_tflops": QT_TRANSLATE_NOOP("Catalog", "Matrix INT8 (TOPS)"),
    "vector_fp16_tflops": QT_TRANSLATE_NOOP("Catalog", "Vector FP16 (TFLOP/s)"),
    "vector_fp32_tflops": QT_TRANSLATE_NOOP("Catalog", "Vector FP32 (TFLOP/s)"),
    "hbm_bandwidth_gbs": QT_TRANSLATE_NOOP("Catalog", "HBM bandwidth (GB/s)"),
    "memory_gb": QT_TRANSLATE_NOOP("Catalog", "Memory (GB)"),
    "tdp_w": QT_TRANSLATE_NOOP("Catalog", "Power (W)"),
    "notes": QT_TRANSLATE_NOOP("Catalog", "Notes"),
    "interconnect_bandwidth": QT_TRANSLATE_NOOP("Catalog", "Interconnect (GB/s)"),
    "interconnect_direction": QT_TRANSLATE_NOOP("Catalog", "Interconnect direction"),
    "cpu": QT_TRANSLATE_NOOP("Catalog", "cpu coefficient"),
    "host_cpu": QT_TRANSLATE_NOOP("Catalog", "Host CPU"),
    "ai_core_count": QT_TRANSLATE_NOOP("Catalog", "AI cores"),
    "cube_freq_mhz": QT_TRANSLATE_NOOP("Catalog", "Cube clock (MHz)"),
    "aliases": QT_TRANSLATE_NOOP("Catalog", "Aliases"),
    "alternatives": QT_TRANSLATE_NOOP("Catalog", "Alternatives"),
    "confidence": QT_TRANSLATE_NOOP("Catalog", "Confidence"),
    "source": QT_TRANSLATE_NOOP("Catalog", "Source"),
    "die": QT_TRANSLATE_NOOP("Catalog", "Die"),
    "mamf_fp16_tflops": QT_TRANSLATE_NOOP("Catalog", "Achievable FP16 (TFLOP/s)"),
    "mamf_bf16_tflops": QT_TRANSLATE_NOOP("Catalog", "Achievable BF16 (TFLOP/s)"),
    "mamf_fp32_tflops": QT_TRANSLATE_NOOP("Catalog", "Achievable FP32 (TFLOP/s)"),
    "mamf_fp8_tflops": QT_TRANSLATE_NOOP("Catalog", "Achievable FP8 (TFLOP/s)"),
    "achievable_hbm_gbs": QT_TRANSLATE_NOOP("Catalog", "Achievable HBM (GB/s)"),
    "achievable_source": QT_TRANSLATE_NOOP("Catalog", "Achievable: source"),
    "achievable_date": QT_TRANSLATE_NOOP("Catalog", "Achievable: date"),
}


def catalog_header(column: str) -> str:
    """A catalog column's header in words, translated (the CSV name is in the tooltip)."""
    text = CATALOG_HEADERS.get(column)
    return QCoreApplication.translate("Catalog", text) if text else column.replace("_", " ")


def _describe(problem: CellProblem) -> str:
    where = f"row {problem.row + 1}" if problem.row >= 0 else ""
    if problem.column:
        where += f", {problem.column}"
    return f"{where}: {problem.message}" if where else problem.message
