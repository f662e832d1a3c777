"""The per-user chip catalog: read its rows, validate edits, save atomically, quarantine a bad file.

The user catalog has the same columns as the shipped ``devices_info.csv`` and overrides or
extends it row by row (identifier ``vendor model``). Rows are validated with the very parser
that loads catalogs (:func:`mfu_desktop.core.chips.catalog.read_catalog_text`), so what the editor
accepts is exactly what the app later reads.
"""

from __future__ import annotations

import csv
import io
import math
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from mfu_desktop.core.chips.catalog import (
    MIN_CATALOG_VALUE,
    NUMERIC_COLUMNS,
    TEXT_COLUMNS,
    Chip,
    decode_catalog,
    read_catalog_file,
    read_catalog_text,
)
from mfu_desktop.core.paths import user_catalog_path
from mfu_desktop.core.writing import ExportError, atomic_write

#: Column order of the files we write (the shipped file's product layout).
CATALOG_COLUMNS: tuple[str, ...] = (
    "vendor", "model", "architecture_type", "cube_fp16_tflops", "cube_fp32_tflops", "vector_fp16_tflops",
    "vector_fp32_tflops", "hbm_bandwidth_gbs", "memory_gb", "tdp_w", "notes", "interconnect_bandwidth", "cpu",
    "cube_bf16_tflops", "cube_fp8_tflops", "cube_int8_tflops", "cube_hf32_tflops", "interconnect_direction",
    "host_cpu", "ai_core_count", "cube_freq_mhz", "vector_core_count", "aliases", "alternatives", "confidence",
    "source", "die",
    "mamf_fp16_tflops", "mamf_bf16_tflops", "mamf_fp32_tflops", "mamf_fp8_tflops", "achievable_hbm_gbs",
    "achievable_source", "achievable_date",
)
assert set(CATALOG_COLUMNS) == set(NUMERIC_COLUMNS) | set(TEXT_COLUMNS)

#: The peak columns; a row needs at least one to be useful for MFU.
PEAK_COLUMNS = tuple(c for c in NUMERIC_COLUMNS if c.endswith("_tflops") and not c.startswith("mamf_"))


def _number_text(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:g}" if abs(value) < 1e15 else repr(value)


def chip_to_row(chip: Chip) -> dict[str, str]:
    """A catalog row as text cells (blank = not published)."""
    row = {c: "" for c in CATALOG_COLUMNS}
    row["vendor"], row["model"], row["architecture_type"] = chip.vendor, chip.model, chip.architecture
    for column in NUMERIC_COLUMNS:
        row[column] = _number_text(chip.values.get(column))
    for column in TEXT_COLUMNS:
        if column not in ("vendor", "model", "architecture_type"):
            row[column] = chip.text.get(column, "")
    return row


def rows_to_csv(rows: list[dict[str, str]]) -> str:
    """Rows as CSV text with the product header."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(CATALOG_COLUMNS), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: str(row.get(c, "") or "") for c in CATALOG_COLUMNS})
    return buffer.getvalue()


@dataclass
class CellProblem:
    """One invalid cell (``column`` is ``None`` for a whole-row problem)."""

    row: int
    column: str | None
    message: str


def validate_cell(column: str, text: str) -> str | None:
    """Why a cell is invalid, or ``None``.

    Numbers must be blank (not published) or a positive number; ``vendor``/``model`` must
    not be empty.
    """
    text = text.strip()
    if column in ("model",) and not text:
        return "model must not be empty"
    if column in NUMERIC_COLUMNS and text:
        try:
            value = float(text)
        except ValueError:
            return f"{text!r} is not a number (leave blank when not published)"
        if not math.isfinite(value) or value < MIN_CATALOG_VALUE:
            return f"must be a positive number of at least {MIN_CATALOG_VALUE:g} (leave blank when not published)"
    return None


def validate_rows(rows: list[dict[str, str]]) -> list[CellProblem]:
    """Every problem of a set of user rows: bad cells, rows without any peak, duplicate identifiers."""
    problems: list[CellProblem] = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        for column in CATALOG_COLUMNS:
            reason = validate_cell(column, str(row.get(column, "") or ""))
            if reason:
                problems.append(CellProblem(i, column, reason))
        if not any(str(row.get(c, "") or "").strip() for c in PEAK_COLUMNS):
            problems.append(CellProblem(i, None, "no peak column is filled; MFU needs at least one"))
        ident = f"{row.get('vendor', '').strip()} {row.get('model', '').strip()}".strip().lower()
        if ident in seen:
            problems.append(CellProblem(i, "model", f"same identifier as row {seen[ident] + 1}"))
        else:
            seen[ident] = i
    if not problems:  # the loader must agree with the editor
        load = read_catalog_text(rows_to_csv(rows), "edited rows")
        problems += [CellProblem(-1, None, p) for p in load.problems]
    return problems


def read_user_rows(path: Path | None = None) -> tuple[list[dict[str, str]], list[str]]:
    """The user catalog's rows as text cells, and any problems reading it."""
    path = path or user_catalog_path()
    if not path.exists():
        return [], []
    load = read_catalog_file(path, f"user catalog {path}")
    return [chip_to_row(c) for c in load.chips], load.problems


def save_user_rows(rows: list[dict[str, str]], path: Path | None = None) -> Path:
    """Validate and write the user catalog atomically.

    Raises:
        ValueError: When a row is invalid (nothing is written).
        mfu_desktop.core.writing.ExportError: When the file cannot be written.
    """
    path = path or user_catalog_path()
    problems = validate_rows(rows)
    if problems:
        first = problems[0]
        where = f"row {first.row + 1}" + (f", {first.column}" if first.column else "") if first.row >= 0 else ""
        raise ValueError(f"{where}: {first.message}" if where else first.message)
    text = rows_to_csv(rows)
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


@dataclass
class Quarantine:
    """What :func:`quarantine_user_catalog` did (``backup`` is ``None`` when it could not copy)."""

    problems: list[str]
    kept: int
    backup: Path | None

    def message(self) -> str:
        """The notice in English (the GUI shows a translated one)."""
        listed = "; ".join(self.problems[:3])
        if self.backup is None:
            return f"Your chip catalog has problems ({listed}); the bad rows are ignored."
        return (f"Your chip catalog had problems ({listed}). {self.kept} valid row(s) were kept; "
                f"the original file was saved as {self.backup.name}.")


def quarantine_user_catalog(path: Path | None = None) -> Quarantine | None:
    """Back up a user catalog that has problems and keep only its valid rows, byte for byte.

    A malformed row is skipped by the loader anyway; doing this once at start-up means the
    user is told once (with the backup's name) instead of at every launch, and no byte of
    the original file is lost: the backup holds it all, and the rows kept are the original
    lines (their values as written, columns MFU Desktop does not know included). A file that
    cannot be read as a catalog at all (no header) is backed up and left as it is.

    Returns:
        What was done, or ``None`` when the file is absent or clean.
    """
    path = path or user_catalog_path()
    if not path.exists():
        return None
    load = read_catalog_file(path, path.name)
    if not load.problems:
        return None
    backup = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        shutil.copy2(path, backup)
        kept = valid_lines(decode_catalog(path.read_bytes()))
        if kept is not None:
            text = "".join(kept)
            atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
    except (OSError, ExportError):
        return Quarantine(load.problems, len(load.chips), None)
    return Quarantine(load.problems, len(load.chips), backup)


def valid_lines(text: str) -> list[str] | None:
    """The header line and the lines of every row the loader accepts, as written; ``None`` without a header."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    reader = csv.reader(io.StringIO("".join(lines)))
    try:
        next(reader)
    except (StopIteration, csv.Error):
        return None
    header = "".join(lines[:reader.line_num])
    kept = [header if header.endswith(("\n", "\r")) else header + "\n"]
    start = reader.line_num
    while start < len(lines):
        try:
            next(reader)
        except StopIteration:
            break
        except csv.Error:
            start = max(start + 1, reader.line_num)  # a row the reader cannot parse: left out
            continue
        record = "".join(lines[start:reader.line_num])
        start = reader.line_num
        check = read_catalog_text(header + ("" if header.endswith(("\n", "\r")) else "\n") + record, "row")
        if check.chips and not check.problems:
            kept.append(record if record.endswith(("\n", "\r")) else record + "\n")
    return kept
