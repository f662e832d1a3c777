"""The table views of every tab: sortable, Ctrl+C copies the selection (formulas neutralised), columns fitted."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QTableWidget, QWidget

from mfu_desktop.gui.models.dataframe_model import clipboard_tsv


class TableView(QTableView):
    """A table with sorting, Ctrl+C as tab-separated text and fast fixed-height rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSortingEnabled(True)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(22)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setDefaultSectionSize(110)
        self.setWordWrap(False)

    def setModel(self, model) -> None:
        super().setModel(model)
        if model is not None:
            model.modelReset.connect(self.fit_columns)

    def fit_columns(self, max_width: int = 300, sample_rows: int = 40) -> None:
        """Size columns to the header and the first ``sample_rows`` rows, capped at ``max_width`` px.

        Qt's resizeColumnsToContents asks the model for ~8 roles × 1000 rows × every column,
        which takes seconds on wide kernel tables; a small sample is enough to size them.
        """
        model = self.model()
        if model is None or model.columnCount() == 0:
            return
        metrics = self.fontMetrics()
        header_metrics = self.horizontalHeader().fontMetrics()
        rows = min(model.rowCount(), sample_rows)
        for col in range(model.columnCount()):
            title = str(model.headerData(col, Qt.Orientation.Horizontal) or "")
            width = header_metrics.horizontalAdvance(title) + 24
            for row in range(rows):
                text = model.data(model.index(row, col))
                if text:
                    width = max(width, metrics.horizontalAdvance(str(text)) + 14)
            self.horizontalHeader().resizeSection(col, min(width, max_width))

    def keyPressEvent(self, event) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
            return
        super().keyPressEvent(event)

    def copy_selection(self) -> str:
        """Copy the selected cells as TSV; returns the text."""
        return copy_selection(self)


class ItemTable(QTableWidget):
    """A small table of items (the advisor's findings and evidence) whose Ctrl+C copies like :class:`TableView`.

    Qt's own Ctrl+C copied the current cell verbatim: an operator named ``=HYPERLINK(…)`` reached
    the clipboard as a formula.
    """

    def keyPressEvent(self, event) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            copy_selection(self)
            return
        super().keyPressEvent(event)


def copy_selection(view: QAbstractItemView) -> str:
    """Copy ``view``'s selected cells to the clipboard as TSV, formulas neutralised; returns the text."""
    model = view.model()
    indexes = view.selectionModel().selectedIndexes() if view.selectionModel() else []
    if not indexes or model is None:
        return ""
    text = clipboard_tsv(model, [i.row() for i in indexes], [i.column() for i in indexes])
    QGuiApplication.clipboard().setText(text)
    return text
