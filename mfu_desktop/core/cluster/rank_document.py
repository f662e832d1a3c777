"""One rank as a document: the ``mfu analyze --json`` rank object plus what the console and the cluster need.

A document is plain JSON (a few tens of KB whatever the kernel count): the cache keeps it, a
cluster summary is made of them, and every cluster figure is computed from them
(:mod:`~mfu_desktop.core.cluster.documents`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.kernel_roofline import chip_bandwidth, roofline_summary
from mfu_desktop.core.analysis.memory import memory_fields
from mfu_desktop.core.analysis.rank import RankAnalysis
from mfu_desktop.core.cluster import documents as summary
from mfu_desktop.core.numbers import finite_number


def _step_mean(steps: pd.DataFrame, column: str) -> float:
    """Mean per complete step of one step-trace column (NaN without a trace)."""
    if steps.empty or column not in steps.columns:
        return np.nan
    valid = steps[steps["step_time_us"].notna()] if "step_time_us" in steps.columns else steps
    return float(valid[column].mean()) if len(valid) else np.nan


def _records(frame: pd.DataFrame, columns: dict[str, str]) -> list[dict[str, object]]:
    out = []
    for row in frame.itertuples(index=False):
        values = row._asdict()
        record: dict[str, object] = {}
        for src, dst in columns.items():
            value = values.get(src)
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                record[dst] = int(value)
            elif isinstance(value, (float, np.floating)):
                record[dst] = finite_number(value)
            else:
                record[dst] = None if value is None or (isinstance(value, float) and math.isnan(value)) else value
        out.append(record)
    return out


def _hot_rows(frame: pd.DataFrame, top: int) -> list[dict[str, object]]:
    return _records(frame.head(top), {"type": "type", "input_shapes": "input_shapes", "count": "count",
                                      "time_us": "time_us", "mfu": "mfu", "lost_us": "lost_us",
                                      "bw_util": "bw_util", "roof_util": "roof_util", "bound": "bound",
                                      "time_share": "time_share", "klass": "klass"})


def rank_document(r: RankAnalysis, top_n: int | None = None) -> dict[str, object]:
    """One rank as a document: the ``mfu analyze --json`` rank object plus what the console and the cluster need."""
    s = r.summary
    top = top_n or 10
    mfu_col = "mfu" if "mfu" in r.by_type.columns else "mfu_lo"
    by_type_cols = {"type": "type", "count": "count", "flops": "flops", "time_us": "time_us",
                    "achieved_tflops": "achieved_tflops", mfu_col: "mfu"}
    return {
        "rank": s.rank,
        "path": s.path,
        "vendor": r.folder.vendor,
        "format": r.folder.reader,
        "chip": s.chip,
        "peak_source": s.peak_source,
        "kernels": s.kernels,
        "countable_kernels": s.countable_kernels,
        "steps": s.steps,
        "steps_source": s.steps_source,
        "flops": float(s.flops),
        "countable_time_us": float(s.countable_time_us),
        "achieved_tflops": finite_number(s.achieved_tflops),
        "mfu_ops": finite_number(s.mfu_ops),
        "step_time_us": finite_number(s.step_time_us),
        "mfu_step": finite_number(s.mfu_step),
        "cube_utilization": finite_number(s.cube_utilization),
        "tier": s.tier.tier,
        "by_type": [
            {**rec, "mfu": rec.get("mfu") if mfu_col == "mfu" else None}
            for rec in _records(r.by_type, by_type_cols)
        ],
        "excluded": _records(r.excluded, {"type": "type", "reason": "reason", "count": "count", "time_us": "time_us"}),
        "step_breakdown": {col: finite_number(_step_mean(r.steps, col)) for col in summary.BREAKDOWN},
        **_comm_split(r),
        **memory_fields(r, top),
        # extras beyond the contract
        "mfu_ops_range": [finite_number(v) for v in s.mfu_ops_range] if s.mfu_ops_range else None,
        "mfu_step_range": [finite_number(v) for v in s.mfu_step_range] if s.mfu_step_range else None,
        "tier_label": s.tier.label,
        "tier_value": finite_number(s.tier.value),
        "tier_why": list(s.tier.why),
        "device_busy_proxy": finite_number(s.device_busy_proxy),
        "hw_flops_ratio": finite_number(s.hw_flops_ratio),
        "roofline": rank_roofline(r),
        "kernel_source": r.data.kernel_source,
        "capture": r.folder.config.describe(),
        "rank_origin": r.folder.rank_origin,
        "incomplete": list(r.data.incomplete),
        "hot_by_time": _hot_rows(r.hot_by_time, top),
        "hot_by_lost": _hot_rows(r.hot_by_lost, top),
        "warnings": list(r.warnings),
        # internal (not in the contract): what the cluster and the console need
        "confirmed": bool(r.chip.confirmed),
        "chip_id": r.chip.chip.identifier if r.chip.chip is not None else None,
        "notes": [n for n in r.notes if n],
        "document_version": summary.DOCUMENT_VERSION,
    }


def rank_roofline(r: RankAnalysis) -> dict[str, float | None] | None:
    """The rank's roofline figures (:func:`~.kernel_roofline.roofline_summary`), kept by a summary."""
    if r.document is not None:
        return r.document.get("roofline")
    fields = roofline_summary(r.kernels, chip_bandwidth(r.chip), r.summary.steps)
    return {k: finite_number(v) for k, v in fields.items()}


def _comm_split(r: RankAnalysis) -> dict[str, float | None]:
    """Not-overlapped communication split into real transfer and waiting (means per step; prediction.md §4.1)."""
    if r.document is not None:
        return {k: r.document.get(k) for k in ("comm_transfer_us", "comm_wait_us")}
    from mfu_desktop.core.analysis.measured_step import measured_step

    measured, _ = measured_step(r.data.step_trace, r.data.comm)
    if measured is None:
        return {"comm_transfer_us": None, "comm_wait_us": None}
    return {"comm_transfer_us": finite_number(measured.transfer_us), "comm_wait_us": finite_number(measured.wait_us)}
