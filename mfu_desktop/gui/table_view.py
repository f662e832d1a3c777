"""The table view of every tab: sortable, Ctrl+C copies the selection, columns sized from a sample."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from mfu_desktop.gui.models.dataframe_model import DataFrameModel


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
        model = self.model()
        indexes = self.selectionModel().selectedIndexes() if self.selectionModel() else []
        if not indexes or not isinstance(model, DataFrameModel):
            return ""
        text = model.tsv([i.row() for i in indexes], [i.column() for i in indexes])
        QGuiApplication.clipboard().setText(text)
        return text
