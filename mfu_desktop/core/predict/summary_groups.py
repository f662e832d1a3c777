"""The prediction's inputs kept by a cluster summary: kernel groups by (unit, precision, type), read back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.measured_step import MeasuredStep
from mfu_desktop.core.predict.kernels import KernelInputs
from mfu_desktop.core.predict.predictor import PreparedRank

if TYPE_CHECKING:
    pass


GROUP_COLUMNS = ("unit", "precision", "type", "count", "duration_us", "compute_weighted_us", "memory_weighted_us",
                 "fallback_compute_us", "fallback_memory_us")


def prepared_rank(doc: dict[str, Any]) -> PreparedRank | None:
    """The prediction's inputs of a summarised rank, or ``None`` when the summary has none."""
    pred = doc.get("prediction")
    if not pred:
        return None
    rows = pred["groups"]
    groups = pd.DataFrame({c: np.array([r.get(c) for r in rows], dtype=object) for c in GROUP_COLUMNS[:3]})
    for column in GROUP_COLUMNS[3:]:
        groups[column] = np.array([r.get(column) or 0.0 for r in rows], dtype=np.float64)
    excluded = pd.DataFrame(pred["excluded"], columns=["class", "count", "time_us"])
    measured = MeasuredStep(**pred["measured"]) if pred.get("measured") else None
    return PreparedRank(KernelInputs(pd.DataFrame(), groups, excluded, list(pred.get("flags") or [])),
                        int(pred.get("steps") or 1), measured)
