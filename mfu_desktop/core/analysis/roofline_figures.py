"""A rank's and the cluster's roofline figures from their sums (pure Python: the cached CLI path uses it).

A rank document's ``roofline`` object holds sums per step over the kernels the roofline judges
(:func:`mfu_desktop.core.analysis.kernel_roofline.roofline_summary`) and the ratios derived from them here;
the cluster's object is the mean per rank of the ranks' sums, with the same ratios.
"""

from __future__ import annotations

import math
from typing import Any

from mfu_desktop.core.numbers import finite_number, sig

#: Sums per step (means per rank for the cluster).
ROOFLINE_SUMS = ("bytes", "flops", "time_us", "attainable_us", "lost_us", "memory_bound_us", "memory_bound_bytes")
#: The fields of a ``roofline`` object.
ROOFLINE_SUMMARY_FIELDS = (*ROOFLINE_SUMS, "intensity", "achieved_tflops", "achieved_gbs", "bw_util",
                           "bw_util_memory_bound", "roof_util", "hw_bytes_ratio", "bw_gbs")


def roofline_rates(sums: dict[str, Any], bw_gbs: float | None) -> dict[str, float | None]:
    """The ratios of roofline sums: intensity (FLOP/byte), TFLOP/s, GB/s, bandwidth and roofline utilisation."""
    def ratio(a: float | None, b: float | None, scale: float = 1.0) -> float | None:
        return a / b * scale if a is not None and b is not None and b > 0 else None

    achieved_gbs = ratio(sums.get("bytes"), sums.get("time_us"), 1e-3)
    memory_gbs = ratio(sums.get("memory_bound_bytes"), sums.get("memory_bound_us"), 1e-3)
    return {
        "intensity": ratio(sums.get("flops"), sums.get("bytes")) if sums.get("flops") else None,
        "achieved_tflops": ratio(sums.get("flops"), sums.get("time_us"), 1e-6),
        "achieved_gbs": achieved_gbs,
        "bw_util": ratio(achieved_gbs, bw_gbs),
        "bw_util_memory_bound": ratio(memory_gbs, bw_gbs),
        "roof_util": ratio(sums.get("attainable_us"), sums.get("time_us")),
        "bw_gbs": bw_gbs,
    }


def cluster_roofline(ranks: list[dict[str, Any]]) -> dict[str, float | None] | None:
    """The cluster's roofline object: each sum the mean per rank; bandwidth figures when every rank's chip agrees."""
    objects = [d.get("roofline") for d in ranks]
    objects = [o for o in objects if o and o.get("time_us")]
    if not objects:
        return None
    n = max(len(ranks), 1)
    out: dict[str, float | None] = {k: math.fsum(o.get(k) or 0.0 for o in objects) / n for k in ROOFLINE_SUMS}
    bandwidths = {o.get("bw_gbs") for o in objects}
    out.update(roofline_rates(out, bandwidths.pop() if len(bandwidths) == 1 else None))
    hw = [o["hw_bytes_ratio"] for o in objects if o.get("hw_bytes_ratio") is not None]
    out["hw_bytes_ratio"] = math.fsum(hw) / len(hw) if hw else None
    return out


#: Short labels of the figure that judges a kernel: MFU for compute-bound, bandwidth utilisation for memory-bound.
FIGURE_LABELS = {"compute": "MFU", "memory": "BW"}


def judged_figure(row: dict[str, Any]) -> tuple[str, float | None]:
    """The figure that judges a hot-operator row and its label: ``("MFU", mfu)`` or ``("BW", bw_util)``.

    A compute-bound row is judged by its MFU, a memory-bound one by its bandwidth utilisation
    (mfu.md §6); a row without a bound keeps its MFU when it has one.
    """
    bound = row.get("bound") or ""
    if bound == "memory" and finite_number(row.get("bw_util")) is not None:
        return FIGURE_LABELS["memory"], finite_number(row.get("bw_util"))
    mfu = finite_number(row.get("mfu"))
    return (FIGURE_LABELS["compute"], mfu) if mfu is not None else ("", None)


def judged_by(bound: object) -> str:
    """The column that judges a kernel, group or table cell: ``bw_util`` when memory-bound, ``mfu`` otherwise."""
    return "bw_util" if str(bound) == "memory" else "mfu"


def roofline_text(roof: dict[str, Any] | None) -> str | None:
    """One line for the console: where the judged time goes and the step's point on the roofline."""
    if not roof or not roof.get("time_us"):
        return None
    parts = []
    share = (roof.get("memory_bound_us") or 0.0) / roof["time_us"]
    util = roof.get("bw_util_memory_bound")
    at = f" at {util * 100:.0f} % of HBM bandwidth ({roof['bw_gbs']:,.0f} GB/s)" if util is not None else ""
    parts.append(f"memory-bound {share * 100:.1f} % of the judged time{at}")
    if roof.get("intensity") is not None:
        parts.append(f"step point {sig(roof['intensity'])} FLOP/byte, {sig(roof['achieved_tflops'])} TFLOP/s")
    if roof.get("roof_util") is not None:
        parts.append(f"roofline-attainable {roof['roof_util'] * 100:.1f} % of the time (t*/t)")
    return "; ".join(parts)
