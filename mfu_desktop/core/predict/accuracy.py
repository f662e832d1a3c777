"""How wrong the prediction is on public measurements (validation.md), on both bases.

The shipped table ``accuracy_measurements.csv`` pairs two chips on the same benchmark or the
same workload: the source chip's measured time (split into the part a peak limits and the
part bandwidth limits), and the target chip's measured time. Each row is predicted with the
engine's own ratios (:func:`~mfu_desktop.core.predict.kernels.group_ratios`) on the advertised
and on the achievable basis; the error is ``(predicted − measured) / measured``.

Honesty rule (validation.md, "keep the comparison honest"): a chip's achievable value measured
by the row's own source is not evidence on that row — it is held out, and that quantity falls
back to the advertised basis for the row (said in its ``basis`` column).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.categories import CATEGORIES
from mfu_desktop.core.chips.catalog import ACHIEVABLE_COLUMNS, Chip, ChipCatalog
from mfu_desktop.core.paths import shipped_file
from mfu_desktop.core.predict.basis import ACHIEVABLE, BASES, Basis
from mfu_desktop.core.predict.kernels import group_predictions, group_ratios
from mfu_desktop.core.predict.rules import DEFAULT_RULES

#: Columns of the measurement table.
MEASUREMENT_COLUMNS = ("id", "source_ref", "category", "workload", "source_chip", "target_chip", "dtype",
                       "source_compute_us", "source_memory_us", "target_us", "note")
#: A representative operator type per category (the ratios depend on unit and precision, not on the name).
_CATEGORY_TYPE = {"matmul": "MatMul", "attention": "FlashAttentionScore", "element-wise": "Add"}


@dataclass(frozen=True)
class Measurement:
    """One public pair: the source chip's measured time and the target chip's, same work.

    Attributes:
        source_compute_us: Source time limited by a peak (scaled by the compute ratio).
        source_memory_us: Source time limited by bandwidth (scaled by the memory ratio).
        target_us: The target chip's measured time.
    """

    id: str
    source_ref: str
    category: str
    workload: str
    source_chip: str
    target_chip: str
    dtype: str
    source_compute_us: float
    source_memory_us: float
    target_us: float
    note: str = ""

    @property
    def repository(self) -> str:
        """``owner/name`` of the source (without the commit)."""
        return self.source_ref.split("@", 1)[0]


def measurements_path() -> Path:
    """The shipped measurement table."""
    return shipped_file("resources/accuracy_measurements.csv")


def read_measurements(path: Path | None = None) -> list[Measurement]:
    """The measurement table; raises ``ValueError`` naming the line of a malformed row."""
    path = path or measurements_path()
    rows = []
    text = path.read_text(encoding="utf-8")
    for line, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        try:
            if row["category"] not in CATEGORIES:
                raise ValueError(f"category {row['category']!r}")
            rows.append(Measurement(
                row["id"], row["source_ref"], row["category"], row["workload"], row["source_chip"],
                row["target_chip"], row["dtype"], float(row["source_compute_us"]), float(row["source_memory_us"]),
                float(row["target_us"]), row.get("note") or ""))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: line {line}: {exc}") from None
    return rows


def held_out(chip: Chip, source_ref: str) -> Chip:
    """``chip`` without the achievable values its catalog row took from ``source_ref``'s repository."""
    repository = source_ref.split("@", 1)[0]
    if repository.lower() not in chip.text.get("achievable_source", "").lower():
        return chip
    values = dict(chip.values)
    for column in ACHIEVABLE_COLUMNS:
        values[column] = None
    return replace(chip, values=values)


def _groups(m: Measurement) -> pd.DataFrame:
    """The row as one kernel group of the predictor."""
    return pd.DataFrame({
        "unit": ["cube" if m.category != "element-wise" else "vector"], "precision": [m.dtype],
        "type": [_CATEGORY_TYPE[m.category]], "count": [1],
        "duration_us": [m.source_compute_us + m.source_memory_us],
        "compute_weighted_us": [m.source_compute_us], "memory_weighted_us": [m.source_memory_us],
        "fallback_compute_us": [0.0], "fallback_memory_us": [0.0],
    })


def predict_measurement(m: Measurement, catalog: ChipCatalog, basis: str) -> tuple[float, str]:
    """Predicted target time of one row on ``basis`` and the basis its ratios were on."""
    source, target = catalog.find(m.source_chip), catalog.find(m.target_chip)
    if basis == ACHIEVABLE:
        source, target = held_out(source, m.source_ref), held_out(target, m.source_ref)
    groups = _groups(m)
    ratios = group_ratios(groups, source, target, list(DEFAULT_RULES), basis=Basis(basis))
    predicted, ok = group_predictions(groups, ratios)
    return (float(predicted[0]) if ok[0] else float("nan")), ratios.basis[0]


def accuracy_table(measurements: list[Measurement], catalog: ChipCatalog) -> pd.DataFrame:
    """One row per measurement: measured, and per basis the predicted time, error and basis used."""
    rows = []
    for m in measurements:
        row: dict[str, object] = {"id": m.id, "source_ref": m.source_ref, "category": m.category,
                                  "workload": m.workload, "pair": f"{m.source_chip} → {m.target_chip}",
                                  "pair_class": pair_class(catalog.find(m.source_chip), catalog.find(m.target_chip)),
                                  "dtype": m.dtype, "source_us": m.source_compute_us + m.source_memory_us,
                                  "measured_us": m.target_us}
        for basis in BASES:
            predicted, used = predict_measurement(m, catalog, basis)
            row[f"{basis}_us"] = predicted
            row[f"{basis}_error"] = (predicted - m.target_us) / m.target_us
            row[f"{basis}_basis"] = used
        rows.append(row)
    return pd.DataFrame(rows)


def category_mape(table: pd.DataFrame) -> pd.DataFrame:
    """Mean absolute percentage error per category and overall, per basis (fractions), with row counts."""
    out = []
    for name, part in [*((c, table[table["category"] == c]) for c in CATEGORIES), ("overall", table)]:
        if part.empty:
            continue
        out.append({"category": name, "rows": len(part),
                    **{f"{b}_mape": float(np.nanmean(np.abs(part[f"{b}_error"]))) for b in BASES}})
    return pd.DataFrame(out)


def pair_class(source: Chip, target: Chip) -> str:
    """The class of a chip pair the report measures errors for: ``Huawei → NVIDIA``."""
    return f"{source.vendor} → {target.vendor}"


def pair_errors(table: pd.DataFrame, source: Chip, target: Chip, basis: str) -> dict[str, float]:
    """Mean signed error per category on the report's rows of this pair's class (empty: none measured)."""
    part = table[table["pair_class"] == pair_class(source, target)]
    return {c: float(part.loc[part["category"] == c, f"{basis}_error"].mean())
            for c in CATEGORIES if (part["category"] == c).any()}


def error_text(errors: dict[str, float], source: Chip, target: Chip) -> str:
    """``Huawei → NVIDIA: matmul −2 %, element-wise +8 %`` (empty when nothing was measured)."""
    if not errors:
        return ""
    items = ", ".join(f"{c} {f'{e * 100:+.0f}'.replace('-', '−')} %" for c, e in errors.items())
    return f"{pair_class(source, target)}: {items}"
