"""The table view of every tab: true sort indicators, a column chooser, a frozen name column, Ctrl+C, a row menu.

Any :class:`TableView` over a :class:`~mfu_desktop.gui.models.dataframe_model.DataFrameModel` gets:

* a sort indicator only on the column the rows are sorted by (a table the engine sorted says so;
  a table in frame order shows none);
* a column chooser (right-click the header) with presets ("Essentials", "Roofline" …) given by
  :meth:`TableView.configure`; the choice is remembered per table (:attr:`TableView.column_memory`);
* an optional frozen column (the kernel name) that stays in view while the others scroll;
* Ctrl+C copying numbers as numbers, units in the headers, text with formulas neutralised;
* a right-click menu on rows: Copy, plus what the tab adds through :attr:`TableView.row_menu`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView, QTableWidget, QWidget

from mfu_desktop.gui.models.dataframe_model import DataFrameModel, clipboard_tsv

#: The preset that shows every column.
ALL_COLUMNS = "All"
#: How a remembered choice is stored: ``preset:NAME`` or ``columns:key,key,…``.
_PRESET, _COLUMNS = "preset:", "columns:"


class TableView(QTableView):
    """A table with true sort indicators, a column chooser, a frozen column, Ctrl+C and a row menu."""

    #: The user's column choices by table key, shared by every table (the window binds it to the settings).
    column_memory: ClassVar[dict[str, str]] = {}
    #: Right-click on rows: the menu (Copy already in it) and the source rows selected; add actions to it.
    row_menu = Signal(QMenu, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSortingEnabled(True)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(22)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setDefaultSectionSize(110)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self.show_column_menu)
        header.setSortIndicatorShown(False)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self.show_row_menu)
        self.setWordWrap(False)
        self.key = ""
        self.presets: dict[str, list[str] | None] = {ALL_COLUMNS: None}
        self.default_preset = ALL_COLUMNS
        self._own_memory: dict[str, str] = {}
        self.frozen_key: str | None = None
        self.frozen: QTableView | None = None

    # --- what a tab says about its table ------------------------------------------------------

    def configure(self, key: str, presets: Mapping[str, Sequence[str] | None] | None = None,
                  default: str | None = None, frozen: str | None = None) -> None:
        """Name the table (its remembered columns), its column presets and its frozen column.

        Args:
            key: The table's name in the settings (``kernels``, ``by-type`` …).
            presets: Preset name → column keys shown (``None``: every column), in menu order;
                :data:`ALL_COLUMNS` is always offered.
            default: The preset shown until the user chooses (first preset when ``None``).
            frozen: The column kept in view while the others scroll (the name), if any.
        """
        self.key = key
        self.presets = {name: (list(keys) if keys is not None else None) for name, keys in (presets or {}).items()}
        self.presets.setdefault(ALL_COLUMNS, None)
        self.default_preset = default or next(iter(self.presets))
        self.frozen_key = frozen
        if frozen and self.frozen is None:
            self._build_frozen()
        self.apply_columns()

    def setModel(self, model) -> None:
        super().setModel(model)
        if model is not None:
            model.modelReset.connect(self._model_reset)
            model.layoutChanged.connect(self.sync_sort_indicator)
        if self.frozen is not None:
            self._attach_frozen()

    def _model_reset(self) -> None:
        self.apply_columns()
        self.fit_columns()
        self.sync_sort_indicator()

    # --- sort indicator -----------------------------------------------------------------------

    def sync_sort_indicator(self) -> None:
        """Show the indicator on the column the rows are sorted by, or none (a table in frame order)."""
        model = self.model()
        header = self.horizontalHeader()
        sorted_by = model.sort_indicator() if isinstance(model, DataFrameModel) else None
        header.blockSignals(True)  # only the indicator: the rows are already in this order
        if sorted_by is None:
            header.setSortIndicatorShown(False)
            header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        else:
            header.setSortIndicator(*sorted_by)
            header.setSortIndicatorShown(True)
        header.blockSignals(False)
        header.viewport().update()

    # --- columns ------------------------------------------------------------------------------

    def column_keys(self) -> list[str]:
        """The model's column keys in model order."""
        model = self.model()
        return model.column_keys() if isinstance(model, DataFrameModel) else []

    def shown_keys(self) -> list[str]:
        """The keys of the columns shown, in model order."""
        header = self.horizontalHeader()
        return [k for i, k in enumerate(self.column_keys()) if not header.isSectionHidden(i)]

    def _memory(self) -> dict[str, str]:
        """Where this table's choice is kept: the shared memory for a named table, its own otherwise."""
        return self.column_memory if self.key else self._own_memory

    def chosen(self) -> tuple[str | None, list[str] | None]:
        """(preset name, explicit keys) chosen for this table (the default preset when nothing is remembered)."""
        stored = self._memory().get(self.key, "")
        if stored.startswith(_COLUMNS):
            return None, [k for k in stored[len(_COLUMNS):].split(",") if k]
        name = stored[len(_PRESET):] if stored.startswith(_PRESET) else self.default_preset
        return (name if name in self.presets else self.default_preset), None

    def apply_columns(self) -> None:
        """Show the chosen columns (a preset or the user's own set); the frozen column first and always shown."""
        keys = self.column_keys()
        if not keys:
            return
        name, explicit = self.chosen()
        wanted = explicit if explicit is not None else self.presets.get(name or ALL_COLUMNS)
        header = self.horizontalHeader()
        for i, key in enumerate(keys):
            hidden = wanted is not None and key not in wanted and key != self.frozen_key
            if header.isSectionHidden(i) != hidden:
                header.setSectionHidden(i, hidden)
        if self.frozen_key in keys:
            logical = keys.index(self.frozen_key)
            if header.visualIndex(logical) != 0:
                header.moveSection(header.visualIndex(logical), 0)
        self._update_frozen()

    def choose_preset(self, name: str) -> None:
        """Show a preset's columns and remember the choice."""
        self._memory()[self.key] = _PRESET + name
        self.apply_columns()

    def set_column_shown(self, key: str, shown: bool) -> None:
        """Show or hide one column; the set shown is remembered as the user's own."""
        keys = set(self.shown_keys())
        keys = keys | {key} if shown else keys - {key}
        ordered = [k for k in self.column_keys() if k in keys]
        self._memory()[self.key] = _COLUMNS + ",".join(ordered)
        self.apply_columns()

    def column_menu(self) -> QMenu:
        """The header's menu: presets, then one checkable entry per column."""
        menu = QMenu(self)
        model = self.model()
        name, explicit = self.chosen()
        presets = menu.addMenu(self.tr("Column presets"))
        for preset in self.presets:
            action = presets.addAction(preset_title(preset))
            action.setCheckable(True)
            action.setChecked(explicit is None and preset == name)
            action.triggered.connect(lambda _=False, p=preset: self.choose_preset(p))
        menu.addSeparator()
        shown = set(self.shown_keys())
        for i, key in enumerate(self.column_keys()):
            title = str(model.headerData(i, Qt.Orientation.Horizontal) or key)
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setChecked(key in shown)
            action.setEnabled(key != self.frozen_key)
            action.toggled.connect(lambda on, k=key: self.set_column_shown(k, on))
        return menu

    def show_column_menu(self, pos: QPoint) -> None:
        """Right-click on the header: the column chooser."""
        self.column_menu().popup(self.horizontalHeader().mapToGlobal(pos))

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
        self._update_frozen()

    # --- the frozen column ----------------------------------------------------------------------

    def _build_frozen(self) -> None:
        """A second view over the same model showing only the frozen column, laid over the left edge."""
        frozen = QTableView(self)
        frozen.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        frozen.verticalHeader().hide()
        frozen.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        frozen.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        frozen.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        frozen.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        frozen.setAlternatingRowColors(True)
        frozen.setWordWrap(False)
        frozen.setStyleSheet("QTableView { border: none; border-right: 1px solid palette(mid); }")
        frozen.verticalHeader().setDefaultSectionSize(self.verticalHeader().defaultSectionSize())
        frozen.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        frozen.customContextMenuRequested.connect(
            lambda pos: self.show_row_menu(self.viewport().mapFromGlobal(frozen.viewport().mapToGlobal(pos))))
        frozen.horizontalHeader().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        frozen.horizontalHeader().customContextMenuRequested.connect(
            lambda pos: self.column_menu().popup(frozen.horizontalHeader().mapToGlobal(pos)))
        frozen.horizontalHeader().sectionClicked.connect(self._frozen_header_clicked)
        self.frozen = frozen
        self.verticalScrollBar().valueChanged.connect(frozen.verticalScrollBar().setValue)
        frozen.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)
        self.horizontalHeader().sectionResized.connect(lambda *_: self._update_frozen())
        self._attach_frozen()

    def _attach_frozen(self) -> None:
        if self.frozen is None or self.model() is None:
            return
        self.frozen.setModel(self.model())
        self.frozen.setSelectionModel(self.selectionModel())
        self._update_frozen()

    def _frozen_header_clicked(self, logical: int) -> None:
        """A click on the frozen column's header sorts like a click on the table's own header."""
        header = self.horizontalHeader()
        order = Qt.SortOrder.DescendingOrder if header.sortIndicatorSection() == logical and \
            header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder and header.isSortIndicatorShown() \
            else Qt.SortOrder.AscendingOrder
        self.sortByColumn(logical, order)

    def _update_frozen(self) -> None:
        """Show only the frozen column in the overlay, as wide as it is in the table, over its place."""
        frozen = self.frozen
        keys = self.column_keys()
        if frozen is None:
            return
        if self.frozen_key not in keys:
            frozen.hide()
            return
        logical = keys.index(self.frozen_key)
        for i in range(len(keys)):
            frozen.setColumnHidden(i, i != logical)
        width = self.columnWidth(logical)
        frozen.setColumnWidth(logical, width)
        frozen.setGeometry(self.verticalHeader().width() + self.frameWidth(), self.frameWidth(), width,
                           self.viewport().height() + self.horizontalHeader().height())
        frozen.show()
        frozen.raise_()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_frozen()

    def updateGeometries(self) -> None:
        super().updateGeometries()
        self._update_frozen()

    def scrollTo(self, index: QModelIndex, hint=QAbstractItemView.ScrollHint.EnsureVisible) -> None:
        # a cell right of the frozen column is scrolled clear of it, never left hidden under it
        if self.frozen is not None and index.isValid() and index.column() != self._frozen_logical():
            super().scrollTo(index, hint)
            rect = self.visualRect(index)
            covered = self.frozen.width() if self.frozen.isVisible() else 0
            if rect.left() < covered:
                bar = self.horizontalScrollBar()
                bar.setValue(bar.value() - (covered - rect.left()))
            return
        super().scrollTo(index, hint)

    def _frozen_logical(self) -> int:
        keys = self.column_keys()
        return keys.index(self.frozen_key) if self.frozen_key in keys else -1

    # --- find ---------------------------------------------------------------------------------

    def apply_find(self, text: str, keys: Sequence[str] = ("name", "type", "op_type", "input_shapes")) -> int | None:
        """Show only the rows whose text columns contain ``text`` (``""``: every row); the count shown.

        ``None`` when the table has nothing loaded (the find bar leaves it out).
        """
        model = self.model()
        if not isinstance(model, DataFrameModel) or model.frame.empty:
            return None
        model.set_mask(model.find_mask(text, keys) if text else None)
        return model.rowCount()

    # --- copy and the row menu ----------------------------------------------------------------

    def keyPressEvent(self, event) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
            return
        super().keyPressEvent(event)

    def copy_selection(self) -> str:
        """Copy the selected cells (of the columns shown) as TSV: numbers as numbers; returns the text."""
        model = self.model()
        indexes = self.selectionModel().selectedIndexes() if self.selectionModel() else []
        if not indexes:
            return ""
        if not isinstance(model, DataFrameModel):
            return copy_selection(self)
        header = self.horizontalHeader()
        columns = [i.column() for i in indexes if not header.isSectionHidden(i.column())]
        text = model.tsv([i.row() for i in indexes], sorted(set(columns), key=header.visualIndex))
        QGuiApplication.clipboard().setText(text)
        return text

    def selected_source_rows(self) -> list[int]:
        """The frame positions of the selected rows (view order)."""
        model = self.model()
        if not isinstance(model, DataFrameModel) or self.selectionModel() is None:
            return []
        rows = sorted({i.row() for i in self.selectionModel().selectedIndexes()})
        return [model.source_row(r) for r in rows]

    def show_row_menu(self, pos: QPoint) -> None:
        """Right-click on a row: select it (unless it is in the selection), then Copy and the tab's actions."""
        index = self.indexAt(pos)
        if not index.isValid():
            return
        if not self.selectionModel().isRowSelected(index.row(), QModelIndex()):
            self.selectRow(index.row())
        self.setCurrentIndex(index)
        self.row_context_menu().popup(self.viewport().mapToGlobal(pos))

    def row_context_menu(self) -> QMenu:
        """The menu for the selected rows (also what a test drives)."""
        menu = QMenu(self)
        copy = QAction(self.tr("Copy"), menu)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.triggered.connect(self.copy_selection)
        menu.addAction(copy)
        self.row_menu.emit(menu, self.selected_source_rows())
        return menu


def preset_title(name: str) -> str:
    """A preset's menu title, translated (presets are named in English in the column specs)."""
    from PySide6.QtCore import QCoreApplication

    titles = {"Essentials": QCoreApplication.translate("TableView", "Essentials"),
              "Roofline": QCoreApplication.translate("TableView", "Roofline"),
              "Hardware counters": QCoreApplication.translate("TableView", "Hardware counters"),
              ALL_COLUMNS: QCoreApplication.translate("TableView", "All columns")}
    return titles.get(name, name)


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
