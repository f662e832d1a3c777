"""The prediction's inputs kept by a cluster summary: kernel groups by (unit, precision, type), read back."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.measured_step import MeasuredStep
from mfu_desktop.core.predict.error_categories import base_category
from mfu_desktop.core.predict.kernels import KernelInputs
from mfu_desktop.core.predict.predictor import PreparedRank

GROUP_COLUMNS = ("unit", "precision", "type", "count", "duration_us", "compute_weighted_us", "memory_weighted_us",
                 "fallback_compute_us", "fallback_memory_us", "roofline_us", "roofline_memory_us", "category")
#: The roofline model's distinct shapes (a summary written before it has none: its groups are all ratios).
ROOFLINE_SHAPE_COLUMNS = ("group", "category", "flops", "bytes", "duration_us", "count")


def _groups(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The group table of a summarised rank (numbers missing from an older summary are 0)."""
    groups = pd.DataFrame({c: np.array([r.get(c) for r in rows], dtype=object) for c in GROUP_COLUMNS[:3]})
    for column in GROUP_COLUMNS[3:-1]:
        groups[column] = np.array([r.get(column) or 0.0 for r in rows], dtype=np.float64)
    groups["category"] = [r.get("category") or base_category(str(r.get("type"))) for r in rows]
    return groups


def _shapes(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The roofline shapes of a summarised rank (NaN where a FLOPs or bytes value was not recorded)."""
    out = {c: np.array([r.get(c) for r in rows], dtype=np.float64) for c in ROOFLINE_SHAPE_COLUMNS}
    frame = pd.DataFrame(out)
    frame["group"] = frame["group"].astype(np.int64)
    frame["category"] = frame["category"].astype(np.int8)
    return frame


def prepared_rank(doc: dict[str, Any]) -> PreparedRank | None:
    """The prediction's inputs of a summarised rank, or ``None`` when the summary has none."""
    pred = doc.get("prediction")
    if not pred:
        return None
    excluded = pd.DataFrame(pred["excluded"], columns=["class", "count", "time_us"])
    measured = MeasuredStep(**pred["measured"]) if pred.get("measured") else None
    inputs = KernelInputs(pd.DataFrame(), _groups(pred["groups"]), excluded, list(pred.get("flags") or []),
                          _shapes(pred.get("shapes") or []), dict(pred.get("fallback_flags") or {}))
    return PreparedRank(inputs, int(pred.get("steps") or 1), measured)
