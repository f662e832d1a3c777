"""A table model over a pandas DataFrame that stays fast at a million rows.

The frame is never indexed per cell: each column is cached once as numpy arrays (category
codes + labels for categoricals, raw arrays for numbers), sorting is a numpy permutation and
filtering a boolean mask, and only visible cells are formatted. The frame itself is never
modified. Selections survive sorting (persistent indexes are remapped through the
permutation).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush

from mfu_desktop.core.analysis.grouping import lookup
from mfu_desktop.core.analysis.roofline_figures import judged_by
from mfu_desktop.core.numbers import calls, pct
from mfu_desktop.core.writing import neutral_cell
from mfu_desktop.gui.bands import CELL_ALPHA, band_qcolor
from mfu_desktop.gui.tooltips import wrap_tip

Formatter = Callable[[object], str]


def _blank_if_missing(fmt: Callable[[float], str]) -> Formatter:
    """A cell formatter: ``None`` and NaN show as an empty cell, anything else as ``fmt(float)``."""

    @functools.wraps(fmt)
    def formatter(value: object) -> str:
        if value is None:
            return ""
        v = float(value)
        return "" if math.isnan(v) else fmt(v)

    return formatter


@_blank_if_missing
def fmt_number(v: float) -> str:
    """3 significant figures, no exponent for ordinary magnitudes."""
    if v == 0:
        return "0"
    if abs(v) >= 1e6 or abs(v) < 1e-3:
        return f"{v:.2e}"
    if abs(v) >= 100:
        return f"{v:,.1f}" if abs(v) < 10_000 else f"{v:,.0f}"
    return f"{v:.3g}"


@_blank_if_missing
def fmt_us(v: float) -> str:
    """Microseconds with 3 decimals (profiler resolution)."""
    return f"{v:,.3f}"


@_blank_if_missing
def fmt_pct(v: float) -> str:
    """A fraction as a percentage with the engine's 3 significant figures (``72.8 %``)."""
    return pct(v)


@_blank_if_missing
def fmt_tenths(v: float) -> str:
    """One decimal with thousands separators (MB of memory, ms of time: ``47,196.2``)."""
    return f"{v:,.1f}"


@_blank_if_missing
def fmt_tier(v: float) -> str:
    """A fallback tier as the tree and the cards write it: ``T1``."""
    return f"T{int(v)}"


@_blank_if_missing
def fmt_int(v: float) -> str:
    """Integers with thousands separators."""
    return f"{int(v):,}"


@_blank_if_missing
def fmt_calls(v: float) -> str:
    """Calls per step (may be fractional: "2.5")."""
    return calls(v)


@_blank_if_missing
def fmt_flops(v: float) -> str:
    """FLOPs in scientific notation."""
    return f"{v:.3e}"


@_blank_if_missing
def fmt_bytes(v: float) -> str:
    """Bytes in B/KB/MB/GB (decimal, 3 significant figures)."""
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "KB")):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.0f} B"


#: How Ctrl+C writes the numbers of a formatter: (factor, unit named in the header). A copied
#: cell is a number a spreadsheet reads ("558000000" under "Bytes (B)"), never "558 MB".
COPY_UNITS: dict[Callable, tuple[float, str]] = {fmt_pct: (100.0, "%"), fmt_us: (1.0, "µs"), fmt_bytes: (1.0, "B")}


@dataclass(frozen=True)
class ColumnSpec:
    """How one frame column is shown.

    Attributes:
        key: Frame column name.
        header: Header text (already translated).
        formatter: Value → display text (numbers only; text columns show as is).
        tooltip: Header tooltip.
        color_mfu: Colour the cell background by MFU band.
        cell_tooltip: Frame column whose text is the cell's tooltip (e.g. why a figure is partial).
        judges: ``mfu`` or ``bw_util``: colour a cell only on rows this figure judges (the row's
            ``bound``: bandwidth utilisation judges a memory-bound kernel, MFU every other one).
        display: Text → the text shown, applied once per distinct value of a text column (kernel
            names → their short display names); the full text is the cell's tooltip, sorting
            follows what is shown and filtering matches either.
    """

    key: str
    header: str
    formatter: Formatter | None = None
    tooltip: str = ""
    color_mfu: bool = False
    cell_tooltip: str = ""
    judges: str = ""
    display: Callable[[str], str] | None = None


def _all_numbers(series: pd.Series) -> bool:
    """An object column holding only numbers and missing values (``None``) is numeric."""
    return pd.api.types.infer_dtype(series, skipna=True) in ("integer", "floating", "mixed-integer-float", "empty",
                                                             "decimal")


class _Column:
    """One cached column: codes + labels for text, an array for numbers."""

    def __init__(self, series: pd.Series, display: Callable[[str], str] | None = None) -> None:
        self.labels: list[str] | None = None
        self.codes: np.ndarray | None = None
        self.values: np.ndarray | None = None
        #: What a text cell shows (``labels`` through the spec's display function), per category.
        self.shown: list[str] | None = None
        if isinstance(series.dtype, pd.CategoricalDtype):
            self.codes = series.cat.codes.to_numpy()
            self.labels = [str(c) for c in series.cat.categories]
        elif isinstance(series.dtype, np.dtype) and series.dtype.kind == "f":
            self.values = series.to_numpy()  # float32/float64 as they are: no copy of a million rows
        elif pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_numeric_dtype(series.dtype):
            self.values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        elif series.dtype == object and _all_numbers(series):
            self.values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            codes, uniques = pd.factorize(series, use_na_sentinel=True)
            self.codes = codes
            self.labels = [str(u) for u in uniques]
        if self.labels is not None:
            self.shown = [display(label) for label in self.labels] if display else self.labels

    @property
    def is_text(self) -> bool:
        return self.codes is not None

    def raw(self, i: int) -> object:
        if self.codes is not None:
            code = int(self.codes[i])
            return self.labels[code] if code >= 0 else ""
        return self.values[i]

    def text(self, i: int) -> str:
        """What a text cell shows."""
        code = int(self.codes[i])
        return self.shown[code] if code >= 0 else ""

    def sort_key(self) -> np.ndarray:
        """Ascending key; missing values sort last."""
        if self.codes is not None:
            order = np.argsort(np.array(self.shown, dtype=object), kind="stable")
            rank = np.empty(len(self.labels) + 1, dtype=np.int64)
            rank[order] = np.arange(len(self.labels))
            rank[-1] = len(self.labels)
            return lookup(rank, self.codes)
        return self.values


@dataclass
class PreparedTable:
    """A frame with its column caches built: what :meth:`DataFrameModel.set_prepared` shows at once.

    Built by :func:`prepare_table`, which touches no Qt object, so a worker thread can do the
    million-row conversions while the window stays responsive.

    Attributes:
        sorted_by: The column key and order the frame is already sorted by (the header shows it),
            or ``None`` when its order is not a sort (the header shows no indicator).
        bound: The rows' ``bound`` (the cells a figure judges are coloured), when the frame has one.
    """

    frame: pd.DataFrame
    specs: list[ColumnSpec]
    cols: list[_Column]
    sorted_by: tuple[str, Qt.SortOrder] | None = None
    bound: _Column | None = None


def prepare_table(frame: pd.DataFrame, columns: Sequence[ColumnSpec] | None = None,
                  sorted_by: tuple[str, Qt.SortOrder] | None = None) -> PreparedTable:
    """Column caches of ``frame`` for the given specs (all columns when ``None``); thread-safe."""
    specs = list(columns) if columns is not None else [ColumnSpec(c, str(c)) for c in frame.columns]
    specs = [s for s in specs if s.key in frame.columns]
    bound = _Column(frame["bound"]) if "bound" in frame.columns and any(s.judges for s in specs) else None
    return PreparedTable(frame, specs, [_Column(frame[s.key], s.display) for s in specs], sorted_by, bound)


class DataFrameModel(QAbstractTableModel):
    """Read-only table model over a DataFrame: permutation sorting, mask filtering, lazy formatting."""

    def __init__(self, frame: pd.DataFrame | None = None, columns: Sequence[ColumnSpec] | None = None,
                 parent=None) -> None:
        super().__init__(parent)
        self._frame = pd.DataFrame()
        self._specs: list[ColumnSpec] = []
        self._cols: list[_Column] = []
        self._view = np.arange(0)
        self._mask: np.ndarray | None = None
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._presorted: tuple[str, Qt.SortOrder] | None = None
        self._bound: _Column | None = None
        if frame is not None:
            self.set_frame(frame, columns)

    # --- data --------------------------------------------------------------------------

    def set_frame(self, frame: pd.DataFrame, columns: Sequence[ColumnSpec] | None = None,
                  sorted_by: tuple[str, Qt.SortOrder] | None = None) -> None:
        """Show a new frame (all its columns when ``columns`` is ``None``); ``sorted_by``: the order it already has."""
        self.set_prepared(prepare_table(frame, columns, sorted_by))

    def set_prepared(self, table: PreparedTable) -> None:
        """Show a frame whose column caches were built beforehand (cheap: no per-column work here)."""
        self.beginResetModel()
        self._frame = table.frame
        self._specs = list(table.specs)
        self._cols = list(table.cols)
        self._mask = None
        self._view = np.arange(len(table.frame))
        self._sort = None
        self._presorted = table.sorted_by
        self._bound = table.bound
        self.endResetModel()

    def sort_indicator(self) -> tuple[int, Qt.SortOrder] | None:
        """The column the rows are sorted by and how (the header's indicator), or ``None``: not sorted."""
        if self._sort is not None:
            return self._sort
        if self._presorted is not None and self._presorted[0] in self.column_keys():
            return self.column_keys().index(self._presorted[0]), self._presorted[1]
        return None

    def spec(self, column: int) -> ColumnSpec:
        """The spec of a column."""
        return self._specs[column]

    @property
    def frame(self) -> pd.DataFrame:
        """The frame shown (never modified by the model)."""
        return self._frame

    def column_keys(self) -> list[str]:
        """Frame column names in display order."""
        return [s.key for s in self._specs]

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._view)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._specs)

    def source_row(self, row: int) -> int:
        """Frame position of a view row."""
        return int(self._view[row])

    def view_row(self, source: int) -> int:
        """View row of a frame position, or −1 when filtered out."""
        hits = np.flatnonzero(self._view == source)
        return int(hits[0]) if len(hits) else -1

    def raw(self, row: int, column: int) -> object:
        """Raw value of a view cell."""
        return self._cols[column].raw(int(self._view[row]))

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        # An exception escaping a virtual called by Qt's C++ can take the process down: contain it.
        try:
            return self._data(index, role)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None

    def _data(self, index: QModelIndex, role: int) -> object:
        if not index.isValid():
            return None
        col = self._cols[index.column()]
        spec = self._specs[index.column()]
        i = int(self._view[index.row()])
        if role == Qt.ItemDataRole.DisplayRole:
            if col.is_text:
                return col.text(i)
            value = col.raw(i)
            return spec.formatter(value) if spec.formatter else fmt_number(value)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if not col.is_text:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if role == Qt.ItemDataRole.ToolTipRole and spec.cell_tooltip and spec.cell_tooltip in self._frame.columns:
            value = self._frame[spec.cell_tooltip].iloc[i]
            return wrap_tip(value) if isinstance(value, str) and value else None
        if role == Qt.ItemDataRole.ToolTipRole and col.is_text:
            value = col.raw(i)
            shortened = isinstance(value, str) and value != col.text(i)
            return wrap_tip(value) if isinstance(value, str) and (len(value) > 40 or shortened) else None
        if role == Qt.ItemDataRole.BackgroundRole and spec.color_mfu:
            if spec.judges and self._bound is not None and judged_by(self._bound.raw(i)) != spec.judges:
                return None  # a figure that does not judge this row is not painted (a GEMM's 7.75 % BW)
            color = band_qcolor(col.raw(i), CELL_ALPHA)
            return QBrush(color) if color is not None else None
        if role == Qt.ItemDataRole.UserRole:
            return col.raw(i)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._specs):
            if role == Qt.ItemDataRole.DisplayRole:
                return self._specs[section].header
            if role == Qt.ItemDataRole.ToolTipRole:
                return self._specs[section].tooltip or self._specs[section].key
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return str(section + 1)
        return None

    # --- sorting and filtering -----------------------------------------------------------

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self._cols):
            return
        if self._sort == (column, order):
            return  # QTableView.sortByColumn asks twice (indicator change + explicit sort)
        self.layoutAboutToBeChanged.emit()
        old_view = self._view
        col = self._cols[column]
        key = col.sort_key()[old_view].astype(np.float64)
        missing = (key == len(col.labels)) if col.is_text else np.isnan(key)
        if order == Qt.SortOrder.DescendingOrder:
            key = -key
        # Text (category ranks, many ties) sorts stably so earlier orders survive among equals;
        # measured floats rarely tie, and introsort is ~4× faster than a stable sort on a million.
        perm = np.argsort(np.where(missing, np.inf, key), kind="stable" if col.is_text else "quicksort")
        self._view = old_view[perm]
        self._sort = (column, order)
        self._remap_persistent(perm)
        self.layoutChanged.emit()

    def _remap_persistent(self, perm: np.ndarray) -> None:
        """Old view row r is now at the position where perm == r."""
        indexes = self.persistentIndexList()
        if not indexes:
            return
        inverse = np.empty(len(perm), dtype=np.int64)
        inverse[perm] = np.arange(len(perm))
        new = [self.index(int(inverse[ix.row()]), ix.column()) if 0 <= ix.row() < len(perm) else QModelIndex()
               for ix in indexes]
        self.changePersistentIndexList(indexes, new)

    def set_mask(self, mask: np.ndarray | None) -> None:
        """Show only the frame rows where ``mask`` is true (``None``: all), keeping the sort."""
        if mask is None and self._mask is None and len(self._view) == len(self._frame):
            return  # already unfiltered: a reset would only cost time on a million rows
        self.beginResetModel()
        self._mask = mask
        view = np.arange(len(self._frame)) if mask is None else np.flatnonzero(mask)
        self._view = view
        sort = self._sort
        self._sort = None
        self.endResetModel()
        if sort is not None:
            self.sort(*sort)

    def text_mask(self, key: str, needle: str) -> np.ndarray:
        """Rows whose text column contains ``needle`` (case-insensitive), evaluated per category."""
        col = self._cols[self.column_keys().index(key)]
        if not col.is_text:
            raise ValueError(f"{key} is not a text column")
        needle = needle.lower()
        hit = np.array([needle in label.lower() or needle in shown.lower() for label, shown in
                        zip(col.labels, col.shown)] + [needle == ""], dtype=bool)
        return lookup(hit, col.codes)

    def find_mask(self, needle: str, keys: Sequence[str]) -> np.ndarray:
        """Rows where any of the text columns ``keys`` (those the table has) contains ``needle``."""
        mask = np.zeros(len(self._frame), dtype=bool)
        present = self.column_keys()
        for key in keys:
            if key in present and self._cols[present.index(key)].is_text:
                mask |= self.text_mask(key, needle)
        return mask

    def values_mask(self, key: str, allowed: set[str]) -> np.ndarray:
        """Rows whose text column is one of ``allowed``."""
        col = self._cols[self.column_keys().index(key)]
        hit = np.array([label in allowed for label in col.labels] + ["" in allowed], dtype=bool)
        return lookup(hit, col.codes)

    # --- export ---------------------------------------------------------------------------

    def copy_header(self, column: int) -> str:
        """A column's header as Ctrl+C writes it: with the unit its copied numbers are in ("MFU (%)")."""
        spec = self._specs[column]
        factor_unit = COPY_UNITS.get(spec.formatter) if spec.formatter is not None else None
        if factor_unit is None or f"({factor_unit[1]}" in spec.header or factor_unit[1] in spec.header.split():
            return str(neutral_cell(spec.header))
        return str(neutral_cell(f"{spec.header} ({factor_unit[1]})"))

    def copy_value(self, row: int, column: int) -> str:
        """A cell as Ctrl+C writes it: a number a spreadsheet reads (in the header's unit), or the text."""
        col = self._cols[column]
        value = col.raw(int(self._view[row]))
        if col.is_text:  # a spreadsheet would run "=HYPERLINK(…)" from an operator name: neutralised
            return _clipboard_cell(str(value).replace("\t", " ").replace("\n", " ").replace("\r", " "))
        v = float(value)
        if math.isnan(v):
            return ""
        factor_unit = COPY_UNITS.get(self._specs[column].formatter)
        v = v * factor_unit[0] if factor_unit else v
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(round(v, 12))

    def tsv(self, rows: Sequence[int], columns: Sequence[int]) -> str:
        """Selected cells as tab-separated text (Ctrl+C): numbers as numbers, units in the headers, text neutralised."""
        cols = sorted(set(columns))
        lines = ["\t".join(self.copy_header(c) for c in cols)]
        for r in sorted(set(rows)):
            lines.append("\t".join(self.copy_value(r, c) for c in cols))
        return "\n".join(lines)

    def visible_frame(self) -> pd.DataFrame:
        """The rows currently shown, in view order (for exports)."""
        return self._frame.iloc[self._view][self.column_keys()]


def clipboard_tsv(model: QAbstractItemModel, rows: Sequence[int], columns: Sequence[int]) -> str:
    """Cells of any table as tab-separated text (Ctrl+C), the header line first, formulas neutralised.

    A spreadsheet pasted into runs ``=HYPERLINK(…)``, ``+cmd|…`` or ``@SUM…`` from an operator
    name or a shape string: such cells get a leading ``'``, as :func:`~mfu_desktop.core.writing.neutralize`
    does in every export; numbers (``-12.5``, ``-3 %``) stay numbers.
    """
    cols = sorted(set(columns))
    lines = ["\t".join(str(neutral_cell(str(model.headerData(c, Qt.Orientation.Horizontal) or ""))) for c in cols)]
    for r in sorted(set(rows)):
        cells = []
        for c in cols:
            text = model.data(model.index(r, c))
            cell = "" if text is None else str(text).replace("\t", " ").replace("\n", " ").replace("\r", " ")
            cells.append(_clipboard_cell(cell))
        lines.append("\t".join(cells))
    return "\n".join(lines)


def _clipboard_cell(text: str) -> str:
    """A copied cell: a number as shown, other text with formulas neutralised."""
    try:
        if math.isfinite(float(text.replace(",", "").replace("%", "").replace(" ", ""))):
            return text
    except ValueError:
        pass
    return str(neutral_cell(text))


def selected_persistent(indexes: Sequence[QModelIndex]) -> list[QPersistentModelIndex]:
    """Persistent copies of indexes (helper for tests)."""
    return [QPersistentModelIndex(ix) for ix in indexes]
