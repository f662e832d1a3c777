"""Saved calibrations: per chip pair, basis and operator category, the factor measured / predicted.

``mfu predict --calibrate … --save-calibration`` writes them beside the user catalog
(``calibration.csv`` in the per-user data folder); every later prediction of that chip pair on
that basis and model multiplies the category's predicted time by the factor and names it in the
row's rules. A malformed row is reported and skipped, never fatal. A file without the ``model``
column was written before the roofline model: its factors are the seed model's.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from mfu_desktop.core.analysis.categories import CATEGORIES
from mfu_desktop.core.paths import user_calibration_path
from mfu_desktop.core.predict.basis import BASES, MODELS, SEED, SavedFactor
from mfu_desktop.core.writing import atomic_write

#: Columns of ``calibration.csv``.
CALIBRATION_COLUMNS = ("source", "target", "basis", "category", "factor", "fitted_on", "model")


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


def read_factors(path: Path | None = None) -> tuple[tuple[SavedFactor, ...], list[str]]:
    """The saved factors and one problem message per unreadable file or malformed row."""
    path = path or user_calibration_path()
    if not path.exists():
        return (), []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return (), [f"{path}: cannot read the saved calibrations ({exc}); predictions use none"]
    factors, problems = [], []
    for line, row in enumerate(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))), start=2):
        try:
            factors.append(_parse_row(row))
        except (ValueError, TypeError) as exc:
            problems.append(f"{path}: line {line}: {exc}; row skipped")
    return tuple(factors), problems


def save_factors(new: list[SavedFactor], path: Path | None = None) -> Path:
    """Add ``new`` to the saved factors, replacing those of the same pair, basis and category.

    Raises:
        ExportError: When the file cannot be written (the old file stays as it was).
    """
    path = path or user_calibration_path()
    old, _ = read_factors(path)
    keys = {(f.source, f.target, f.basis, f.category, f.model) for f in new}
    kept = [f for f in old if (f.source, f.target, f.basis, f.category, f.model) not in keys]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CALIBRATION_COLUMNS)
    for f in [*kept, *new]:
        writer.writerow([f.source, f.target, f.basis, f.category, f"{f.factor:.6g}", f.fitted_on, f.model])
    text = out.getvalue()
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
