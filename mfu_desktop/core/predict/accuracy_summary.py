"""The accuracy report's figures from :func:`~mfu_desktop.core.predict.accuracy.accuracy_table`.

Errors are signed fractions ``(predicted − measured) / measured``; a summary gives the number of
pairs, the median and 90th percentile of ``|error|`` and the signed bias (median error). The
headline counts every unordered pair once (``upward``: predicting the chip with more HBM bandwidth
from the one with less), so a bias reads "predicted too fast (−) or too slow (+)"; the bands the
Prediction tab quotes use both directions, as users predict either way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfu_desktop.core.predict.accuracy import COMBINATIONS, combination
from mfu_desktop.core.predict.error_categories import ERROR_CATEGORIES

#: Kernel duration buckets (µs, measured on the source chip) of the "error vs duration" table.
DURATION_EDGES = (0.0, 5.0, 20.0, 100.0, 1000.0, np.inf)
#: Pair classes of the bands (and "any": both).
PAIR_CLASSES = ("same vendor", "cross vendor")
#: Columns of ``resources/accuracy_bands.csv``.
BAND_COLUMNS = ("model", "basis", "pair_class", "category", "pairs", "p10", "median", "p90")


def stats(errors: pd.Series | np.ndarray) -> dict[str, float]:
    """``pairs``, ``median`` and ``p90`` of |error|, and ``bias`` (median signed error); NaN errors left out."""
    e = np.asarray(errors, dtype=np.float64)
    e = e[np.isfinite(e)]
    if not len(e):
        return {"pairs": 0, "median": np.nan, "p90": np.nan, "bias": np.nan}
    a = np.abs(e)
    return {"pairs": len(e), "median": float(np.median(a)), "p90": float(np.percentile(a, 90)),
            "bias": float(np.median(e))}


def headline(acc: pd.DataFrame, model: str, basis: str, mask: np.ndarray | None = None) -> pd.DataFrame:
    """Per error category and over all: the held-out upward pairs' statistics for one (model, basis)."""
    rows = acc[acc["held_out"] & acc["upward"] & (True if mask is None else mask)]
    errors = rows[f"{combination(model, basis)}_error"]
    out = [{"category": c, **stats(errors[rows["error_category"] == c])} for c in ERROR_CATEGORIES]
    out.append({"category": "all", **stats(errors)})
    return pd.DataFrame(out)


def combinations_table(acc: pd.DataFrame) -> pd.DataFrame:
    """Every (model, basis) on all held-out upward pairs: the table the default is chosen from."""
    rows = acc[acc["held_out"] & acc["upward"]]
    return pd.DataFrame([{"model": m, "basis": b, **stats(rows[f"{combination(m, b)}_error"])}
                         for m, b in COMBINATIONS])


def best_combination(acc: pd.DataFrame) -> tuple[str, str]:
    """The (model, basis) with the lowest median |error| on the held-out pairs (ties: the lower p90)."""
    table = combinations_table(acc)
    best = table.sort_values(["median", "p90"], kind="stable").iloc[0]
    return str(best["model"]), str(best["basis"])


def by_group(acc: pd.DataFrame, column: str, model: str, basis: str, upward_only: bool = True) -> pd.DataFrame:
    """Held-out statistics per value of ``column`` (dataset, chip pair …) for one (model, basis)."""
    rows = acc[acc["held_out"] & (acc["upward"] if upward_only else True)]
    errors = rows[f"{combination(model, basis)}_error"]
    return pd.DataFrame([{column: key, **stats(errors[rows[column] == key])}
                         for key in pd.unique(rows[column])]).sort_values(column, kind="stable")


def by_duration(acc: pd.DataFrame, model: str, basis: str) -> pd.DataFrame:
    """Held-out upward statistics per bucket of the source kernel's measured duration."""
    rows = acc[acc["held_out"] & acc["upward"]]
    errors = rows[f"{combination(model, basis)}_error"]
    bucket = np.digitize(rows["source_us"].to_numpy(), DURATION_EDGES[1:-1])
    out = []
    for i in range(len(DURATION_EDGES) - 1):
        low, high = DURATION_EDGES[i], DURATION_EDGES[i + 1]
        label = f"≥ {low:,.0f} µs" if np.isinf(high) else f"{low:,.0f}–{high:,.0f} µs"
        out.append({"duration": label, **stats(errors[bucket == i])})
    return pd.DataFrame(out)


def whole_workloads(acc: pd.DataFrame, dataset: str = "tracelens") -> pd.DataFrame:
    """Per workload and direction: Σ calls × time measured and predicted per combination, and the error."""
    rows = acc[acc["dataset"] == dataset]
    out = []
    for (model_name, source, target), part in rows.groupby(["model", "source_chip", "target_chip"], sort=True):
        calls = part["calls"].to_numpy()
        measured = float((calls * part["target_us"]).sum())
        row = {"workload": model_name, "source_chip": source, "target_chip": target,
               "held_out": bool(part["held_out"].all()), "source_us": float((calls * part["source_us"]).sum()),
               "measured_us": measured}
        for m, b in COMBINATIONS:
            predicted = float(np.nansum(calls * part[f"{combination(m, b)}_us"]))
            row[f"{combination(m, b)}_error"] = predicted / measured - 1.0 if measured > 0 else np.nan
        out.append(row)
    return pd.DataFrame(out)


def band_table(acc: pd.DataFrame) -> pd.DataFrame:
    """The bands the app quotes: per (model, basis, pair class, category) the 10/50/90 % quantiles of the signed error.

    Held-out pairs, both directions; a category ``all`` per class, and a class ``any`` over both.
    """
    rows = acc[acc["held_out"]]
    out = []
    for model, basis in COMBINATIONS:
        errors = rows[f"{combination(model, basis)}_error"].to_numpy()
        for pair in (*PAIR_CLASSES, "any"):
            in_class = np.ones(len(rows), dtype=bool) if pair == "any" else (rows["pair_class"] == pair).to_numpy()
            for category in (*ERROR_CATEGORIES, "all"):
                mask = in_class & ((rows["error_category"] == category).to_numpy() if category != "all" else True)
                e = errors[mask]
                e = e[np.isfinite(e)]
                if len(e):
                    out.append({"model": model, "basis": basis, "pair_class": pair, "category": category,
                                "pairs": len(e), "p10": float(np.percentile(e, 10)), "median": float(np.median(e)),
                                "p90": float(np.percentile(e, 90))})
    return pd.DataFrame(out, columns=list(BAND_COLUMNS))
