"""Writing files safely: atomically, with spreadsheet formulas neutralised, never inside a profile.

Every file MFU Desktop writes (exports, the user catalog, calibrations, summaries) goes through
these helpers: a crash leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.paths import file_mode

#: Characters that make a spreadsheet cell a formula (OWASP CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


#: Excel's sheet limit.
XLSX_MAX_ROWS = 1_048_575


class ExportError(Exception):
    """An export that could not be written; the message says where and why."""


def neutralize(frame: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells that start like a formula with ``'`` (numbers are left alone)."""
    out = frame.copy(deep=False)
    for col in out.columns:
        series = out[col]
        if isinstance(series.dtype, pd.CategoricalDtype):
            fixed = _neutral_categories(series)
        elif _is_text(series):
            fixed = _neutral_text(series)
        else:
            fixed = None
        if fixed is not None:
            out[col] = fixed
    if any(_is_formula(c) for c in out.columns):
        out.columns = [_escaped(c) for c in out.columns]
    return out


def _is_formula(value: object) -> bool:
    """Whether a value is text a spreadsheet would read as a formula."""
    return isinstance(value, str) and value.startswith(FORMULA_PREFIXES)


def _escaped(value: object) -> object:
    """The value with ``'`` in front when it reads as a formula, else unchanged."""
    return ("'" + value) if _is_formula(value) else value


def _is_text(values: pd.Series | pd.Index) -> bool:
    """Whether a column (or a categorical's categories) holds text: object or a string dtype."""
    return values.dtype == object or pd.api.types.is_string_dtype(values.dtype)


def _neutral_categories(series: pd.Series) -> pd.Series | None:
    """A categorical column with its formula-like text categories escaped, or ``None`` when none is."""
    cats = series.cat.categories
    if not _is_text(cats):
        return None
    fixed = [_escaped(c) for c in cats]
    if fixed == list(cats):
        return None
    return series.cat.rename_categories(dict(zip(cats, fixed)))


def _neutral_text(series: pd.Series) -> np.ndarray | None:
    """A text column's values with the formula-like cells escaped, or ``None`` when none is."""
    values = series.to_numpy(dtype=object)
    mask = np.array([_is_formula(v) for v in values], dtype=bool)
    if not mask.any():
        return None
    values = values.copy()
    values[mask] = np.array(["'" + v for v in values[mask]], dtype=object)
    return values


def forbid_inside(target: Path, roots: Iterable[Path]) -> None:
    """Refuse a target inside any profiler folder.

    Raises:
        ExportError: When ``target`` is inside one of ``roots``.
    """
    resolved = target.expanduser().resolve()
    for root in roots:
        root_resolved = Path(root).expanduser().resolve()
        if not root_resolved.exists():  # a path that does not exist holds no profile (its parent may be "/")
            continue
        base = root_resolved if root_resolved.is_dir() else root_resolved.parent
        if resolved == base or base in resolved.parents:
            raise ExportError(f"refusing to write into the profiler folder {base}: choose a folder outside it")


def atomic_write(path: Path, writer: Callable[[Path], None]) -> Path:
    """Write through a temporary file in the same folder, then rename into place.

    The file gets the permissions the user's umask gives (:func:`file_mode`).

    Raises:
        ExportError: When the folder cannot be created or written; no partial file remains.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
    except OSError as exc:
        raise ExportError(f"cannot write to {path.parent}: {exc.strerror or exc}") from None
    tmp = Path(tmp_name)
    try:
        writer(tmp)
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise ExportError(f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    return path


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    """CSV (UTF-8 with BOM so spreadsheets show Chinese text), formulas neutralised."""
    safe = neutralize(frame)
    return atomic_write(path, lambda p: safe.to_csv(p, index=False, encoding="utf-8-sig"))


#: Rows per chunk of :func:`write_fast_csv` (a chunk is formatted in memory, a few MB each).
FAST_CSV_CHUNK_ROWS = 200_000


def write_fast_csv(frame: pd.DataFrame, path: Path) -> Path:
    """A large CSV through Arrow's writer: :func:`write_csv`'s values (numbers shortest: 2, not 2.0), strings quoted.

    Used for the per-kernel detail files (millions of rows). Chunks of rows are formatted on
    the CPU's cores (Arrow releases the GIL) and written in order; at most two chunks per core
    are held in memory. Numbers should be rounded by the caller; missing values are empty cells.
    """
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    table = pa.Table.from_pandas(neutralize(frame), preserve_index=False)
    workers = max(1, min(4, os.cpu_count() or 1))

    def render(index: int) -> bytes:
        buffer = io.BytesIO()
        part = table.slice(index * FAST_CSV_CHUNK_ROWS, FAST_CSV_CHUNK_ROWS)
        pa_csv.write_csv(part, buffer, pa_csv.WriteOptions(include_header=index == 0))
        return buffer.getvalue()

    def writer(p: Path) -> None:
        chunks = max(1, -(-table.num_rows // FAST_CSV_CHUNK_ROWS))
        with open(p, "wb") as fh, ThreadPoolExecutor(max_workers=workers) as pool:
            fh.write("\ufeff".encode())  # BOM: spreadsheets then show Chinese text
            pending: deque[Future[bytes]] = deque()
            for index in range(chunks):
                pending.append(pool.submit(render, index))
                if len(pending) >= 2 * workers:
                    fh.write(pending.popleft().result())
            while pending:
                fh.write(pending.popleft().result())

    return atomic_write(path, writer)


def write_parquet(frame: pd.DataFrame, path: Path) -> Path:
    """Parquet (typed; categoricals kept as dictionaries; columns compressed on Arrow's threads)."""
    return atomic_write(path, lambda p: frame.to_parquet(p, index=False, compression="lz4"))


def write_xlsx(sheets: dict[str, pd.DataFrame], path: Path) -> tuple[Path, list[str]]:
    """One XLSX workbook with a sheet per frame; frames over Excel's row limit are truncated (reported)."""
    notes: list[str] = []

    def writer(p: Path) -> None:
        with pd.ExcelWriter(p, engine="openpyxl") as xl:
            for name, frame in sheets.items():
                if len(frame) > XLSX_MAX_ROWS:
                    notes.append(f"sheet {name}: {len(frame):,} rows truncated to Excel's {XLSX_MAX_ROWS:,}")
                    frame = frame.head(XLSX_MAX_ROWS)
                neutralize(frame).to_excel(xl, sheet_name=name[:31], index=False)

    return atomic_write(path, writer), notes


def write_json(data: object, path: Path) -> Path:
    """Pretty JSON."""
    return atomic_write(path, lambda p: p.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str),
                                                     encoding="utf-8"))


def write_text(text: str, path: Path) -> Path:
    """A text file (Markdown reports)."""
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
