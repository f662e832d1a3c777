"""What hovering a timeline row says: a kernel's figures, a host operator, a breakdown part, the memory."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from PySide6.QtCore import QCoreApplication

from mfu_desktop.core.analysis.roofline_figures import judged_figure
from mfu_desktop.core.analysis.timeline_steps import BREAKDOWN_KINDS
from mfu_desktop.core.numbers import pct
from mfu_desktop.core.readers import columns as C

translate = QCoreApplication.translate  # the "Timeline" context: the chart, its tips and the view


def part_name(kind: int) -> str:
    """The translated name of a breakdown part."""
    names = {0: translate("Timeline", "computing"), 1: translate("Timeline", "communication (not overlapped)"),
             2: translate("Timeline", "free")}
    return names.get(int(kind), BREAKDOWN_KINDS[int(kind)] if 0 <= kind < len(BREAKDOWN_KINDS) else "")


def us(value: float) -> str:
    """A duration with its unit (µs below 10 ms, else ms)."""
    return f"{value:,.2f} µs" if abs(value) < 10_000 else f"{value / 1000:,.3f} ms"


def kernel_tip(kernels: pd.DataFrame, row: int, lane: str) -> str:
    """Name, type and shapes, duration, MFU or bandwidth utilisation, lost time and lane of one kernel."""
    record = kernels.iloc[int(row)]
    get = record.get
    lines = [str(get(C.NAME, "") or get(C.OP_TYPE, ""))]
    shapes = get(C.INPUT_SHAPES)
    op = get(C.OP_TYPE)
    if isinstance(op, str) and op:
        lines.append(op + (f"  [{shapes}]" if isinstance(shapes, str) and shapes else ""))
    lines.append(translate("Timeline", "duration {0}").format(us(float(get(C.DURATION_US)))))
    label, value = judged_figure({"bound": get("bound"), "bw_util": get("bw_util"), "mfu": get("mfu")})
    if value is not None:
        lines.append(f"{label} {pct(value)}")
    lost = get("lost_us")
    if lost is not None and not (isinstance(lost, float) and math.isnan(lost)):
        lines.append(translate("Timeline", "lost {0} (measured − roofline-attainable)").format(us(float(lost))))
    lines.append(lane)
    return "\n".join(lines)


def host_tip(name: str, dur_us: float, kernels: int) -> str:
    """A host operator: name, duration, the kernels it launched (a click highlights them)."""
    text = f"{name}\n" + translate("Timeline", "host operator, {0}").format(us(dur_us))
    if kernels:
        text += "\n" + translate("Timeline", "launched {0} kernel(s): click to highlight them").format(kernels)
    return text


def part_tip(kind: int, length_us: float, step_us: float | None, rank: int | None = None) -> str:
    """A breakdown part: its length and share of the step."""
    share = f" ({pct(length_us / step_us)})" if step_us else ""
    text = f"{part_name(kind)}: {us(length_us)}{share}"
    if rank is not None:
        text = "\n".join((translate("Timeline", "rank {0}").format(rank), text,
                          translate("Timeline", "click to open this rank's lanes")))
    return text


def counter_tip(time_us: np.ndarray, series: dict[str, np.ndarray], at: float) -> str:
    """The memory at a time: allocated and reserved MB (the last sample before it)."""
    k = int(np.searchsorted(time_us, at, side="right")) - 1
    if k < 0:
        return translate("Timeline", "no memory sample before this time")
    return translate("Timeline", "allocated {0} MB, reserved {1} MB").format(f"{series['allocated'][k]:,.1f}",
                                                          f"{series['reserved'][k]:,.1f}")
