"""What a cluster summary keeps of one rank beyond its document: the tables, and the prediction's inputs.

:func:`summary_document` extends a rank document (:func:`mfu_desktop.core.cluster.rank_document.rank_document`)
with every step of the step breakdown, the by-(type, shape) aggregates (the longest
:data:`TOP_SHAPES`), the communication operators (longest link per collective and step), the
rank's input files (path, size, mtime) and the prediction's inputs — kernel groups by (unit,
precision, type) and the measured step — so that the cluster views and ``mfu predict`` work
from a summary without any kernel frame. A summary document is a few tens of KB whatever the
rank's kernel count.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.measured_step import measured_step
from mfu_desktop.core.analysis.steps import captured_steps
from mfu_desktop.core.predict.kernels import kernel_inputs
from mfu_desktop.core.readers.files import fingerprint

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.rank import RankAnalysis
from mfu_desktop.core.predict.summary_groups import GROUP_COLUMNS, ROOFLINE_SHAPE_COLUMNS

#: By-(type, shape) rows kept per rank (by time).
TOP_SHAPES = 200
#: Per-step columns kept.
STEP_COLUMNS = ("step", "computing", "comm_not_overlapped", "overlapped", "communication", "free", "bubble",
                "step_time_us", "flops", "mfu_step")
SHAPE_COLUMNS = ("type", "input_shapes", "dtype", "count", "calls", "time_us", "flops", "mfu", "lost_us", "status",
                 "reason", "bytes", "achieved_gbs", "bw_util", "intensity", "roof_util", "bound")


def _plain(value: Any) -> Any:
    """A JSON-able scalar (NaN/inf → None; numpy → Python)."""
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, (bool, int, str)):
        return value
    return None if pd.isna(value) else str(value)


def records(frame: pd.DataFrame, columns: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows of the given columns (those present) as JSON-able dicts."""
    if frame is None or frame.empty:
        return []
    present = [c for c in columns if c in frame.columns]
    values = {c: frame[c].tolist() for c in present}
    return [{c: _plain(values[c][i]) for c in present} for i in range(len(frame))]


def prediction_inputs(r: RankAnalysis) -> dict[str, Any]:
    """The prediction's inputs of one rank: groups, excluded classes, flags, steps, measured step."""
    inputs = kernel_inputs(r.kernels if r.kernels is not None else pd.DataFrame())
    steps = captured_steps(r.data.step_trace, r.data.kernels).count
    measured, _ = measured_step(r.data.step_trace, r.data.comm)
    return {
        "groups": records(inputs.groups, GROUP_COLUMNS),
        "shapes": records(inputs.shapes, ROOFLINE_SHAPE_COLUMNS),
        "excluded": records(inputs.excluded, ("class", "count", "time_us")),
        "flags": list(inputs.flags),
        "fallback_flags": dict(inputs.fallback_flags),
        "steps": steps,
        "measured": dataclasses.asdict(measured) if measured is not None else None,
    }


def summary_document(r: RankAnalysis, document: dict[str, Any]) -> dict[str, Any]:
    """A rank document with the tables a cluster summary keeps (see the module docstring)."""
    shapes = r.by_shape.sort_values("time_us", ascending=False, kind="stable").head(TOP_SHAPES) \
        if not r.by_shape.empty else r.by_shape
    comm = r.data.comm
    return {
        **document,
        "step_rows": records(r.steps, STEP_COLUMNS),
        "by_shape": records(shapes, SHAPE_COLUMNS),
        "collectives": [dataclasses.asdict(op) for op in comm.ops] if comm is not None else [],
        "prediction": prediction_inputs(r),
        "inputs": [list(f) for f in fingerprint(r.folder.input_files())],
        "reader": r.folder.reader,
    }
