"""Saved calibrations: per chip pair, basis and operator category, the factor measured / predicted.

``mfu predict --calibrate … --save-calibration`` writes them beside the user catalog
(``calibration.csv`` in the per-user data folder); every later prediction of that chip pair on
that basis and model multiplies the category's predicted time by the factor and names it in the
row's rules. A malformed row is reported and skipped, never fatal; saving keeps everything else
in the file (and a backup), and never rewrites a file it could not read whole. A file without
the ``model`` column was written before the roofline model: its factors are the seed model's
(saving adds the column, the old rows' cells empty: still the seed's).
"""

from __future__ import annotations

import csv
import io
import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from mfu_desktop.core.analysis.categories import CATEGORIES
from mfu_desktop.core.paths import user_calibration_path
from mfu_desktop.core.predict.basis import BASES, MODELS, SEED, SavedFactor
from mfu_desktop.core.readers.text_source import decode_table_bytes
from mfu_desktop.core.writing import ExportError, atomic_write

#: Columns of ``calibration.csv``.
CALIBRATION_COLUMNS = ("source", "target", "basis", "category", "factor", "fitted_on", "model")
#: Columns a file may lack: written before they existed (a missing ``model`` is the seed model).
_OPTIONAL_COLUMNS = ("model",)


def _parse_row(row: dict[str, str | None]) -> SavedFactor:
    """One row as a factor; raises ``ValueError`` saying what is wrong."""
    cells = {c: (row.get(c) or "").strip() for c in CALIBRATION_COLUMNS}
    if not cells["source"] or not cells["target"]:
        raise ValueError("source and target chips are required")
    if cells["basis"] not in BASES:
        raise ValueError(f"basis {cells['basis']!r} is not one of {', '.join(BASES)}")
    if cells["category"] not in CATEGORIES:
        raise ValueError(f"category {cells['category']!r} is not one of {', '.join(CATEGORIES)}")
    factor = float(cells["factor"])
    if not math.isfinite(factor) or factor <= 0:
        raise ValueError(f"factor {cells['factor']!r} is not a positive number")
    model = cells["model"] or SEED
    if model not in MODELS:
        raise ValueError(f"model {model!r} is not one of {', '.join(MODELS)}")
    return SavedFactor(cells["source"], cells["target"], cells["basis"], cells["category"], factor,
                       cells["fitted_on"], model)


@dataclass
class CalibrationFile:
    """``calibration.csv`` as read: its header and rows as written, and whether it was read whole.

    Attributes:
        header: The column names (``None`` when the file has no usable header).
        rows: Every data row's cells, as written (malformed rows included).
        lines: The line number of each row.
        damage: Why the file was not read whole (undecodable bytes, a row the CSV reader cannot
            parse, a missing column); ``None`` when it was. Such a file is never rewritten.
    """

    header: list[str] | None
    rows: list[list[str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    damage: str | None = None


def read_calibration_file(path: Path) -> CalibrationFile:
    """Read ``calibration.csv`` without losing anything (GBK from a spreadsheet decoded, huge fields survived).

    Raises:
        OSError: When the file cannot be read.
    """
    text, encoding = decode_table_bytes(path.read_bytes())
    damage = "bytes that are neither UTF-8 nor GBK" if encoding.startswith("utf-8 (") else None
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        return CalibrationFile(None, damage=damage)
    except csv.Error as exc:
        return CalibrationFile(None, damage=f"line 1: {exc}")
    out = CalibrationFile(header, damage=damage)
    missing = [c for c in CALIBRATION_COLUMNS if c not in header and c not in _OPTIONAL_COLUMNS]
    if missing:
        out.damage = out.damage or f"no {', '.join(missing)} column"
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # a field over the CSV module's limit, a NUL …: the file cannot be kept whole
            out.damage = out.damage or f"line {reader.line_num}: {str(exc)[:80]}"
            continue
        if any(cell.strip() for cell in row):
            out.rows.append(row)
            out.lines.append(reader.line_num)
    return out


def read_factors(path: Path | None = None) -> tuple[tuple[SavedFactor, ...], list[str]]:
    """The saved factors and one problem message per unreadable file or malformed row (never raises)."""
    path = path or user_calibration_path()
    if not path.exists():
        return (), []
    try:
        data = read_calibration_file(path)
    except OSError as exc:
        return (), [f"{path}: cannot read the saved calibrations ({exc.strerror or exc}); predictions use none"]
    problems = [f"{path}: {data.damage}"] if data.damage else []
    if data.header is None:
        return (), problems or [f"{path}: empty; predictions use no saved calibration"]
    factors = []
    for line, row in zip(data.lines, data.rows):
        try:
            factors.append(_parse_row(dict(zip(data.header, row))))
        except (ValueError, TypeError) as exc:
            problems.append(f"{path}: line {line}: {exc}; row skipped")
    return tuple(factors), problems


def save_factors(new: list[SavedFactor], path: Path | None = None) -> Path:
    """Add ``new`` to the saved factors, replacing those of the same pair, basis, category and model.

    Everything else in the file stays as written — other rows (malformed ones too), columns MFU
    Desktop does not know — and the previous file is kept as ``calibration.csv.bak``. A file that
    cannot be read whole (not UTF-8 or GBK, a row the CSV reader cannot parse, a missing column)
    is never rewritten: its factors would be lost.

    Raises:
        ExportError: When the file cannot be read whole, or cannot be written (it then stays as it was).
    """
    path = path or user_calibration_path()
    header, kept = list(CALIBRATION_COLUMNS), []
    if path.exists():
        try:
            old = read_calibration_file(path)
        except OSError as exc:
            raise ExportError(f"{path} cannot be read ({exc.strerror or exc}): not rewritten") from None
        if old.damage or old.header is None:
            raise ExportError(f"{path} could not be read whole ({old.damage or 'no header'}): it is not rewritten, "
                              "its saved factors would be lost; fix or move it, then save again")
        header = old.header
        keys = {(f.source, f.target, f.basis, f.category, f.model) for f in new}
        kept = [row for row in old.rows if _key(header, row) not in keys]
        # a file from before the model column: it gains one after every column it has (its rows: the seed's)
        header = header + [c for c in _OPTIONAL_COLUMNS if c not in header]
        try:
            shutil.copyfile(path, path.with_name(path.name + ".bak"))
        except OSError as exc:
            raise ExportError(f"cannot keep a backup of {path} ({exc.strerror or exc}): not rewritten") from None
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(kept)
    for f in new:
        cells = {"source": f.source, "target": f.target, "basis": f.basis, "category": f.category,
                 "factor": f"{f.factor:.6g}", "fitted_on": f.fitted_on, "model": f.model}
        writer.writerow([cells.get(column, "") for column in header])
    text = out.getvalue()
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _key(header: list[str], row: list[str]) -> tuple[str, ...]:
    """A row's (source, target, basis, category, model), stripped (no model: the seed's)."""
    cells = dict(zip(header, row))
    key = [(cells.get(c) or "").strip() for c in ("source", "target", "basis", "category", "model")]
    return (*key[:4], key[4] or SEED)
