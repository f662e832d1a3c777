"""Rank and folder documents: an analysis reduced to what the command line, the JSON and the cluster views need.

A **rank document** is a JSON-able dict (figures, tables of a few rows, warnings, notes) made
from a full analysis (:func:`mfu_desktop.core.cluster.rank_document.rank_document`). Everything the
cluster shows is computed here from rank documents, in plain Python — the same functions serve
a fresh analysis, the command line's cached path (which imports no pandas) and, later, merged
summaries of thousands of ranks. One definition of every cluster figure:

* operator MFU of the cluster = Σ (MFU_r · counted time_r) / Σ counted time_r (ideal time over
  time), when every chip is confirmed; a range when none is;
* step time: mean per rank of each rank's mean per step, the slowest rank beside it;
* slow ranks: step time above the fastest rank's + :data:`~mfu_desktop.core.analysis.steps.SLOW_RANK_MARGIN`;
* hot operators: each rank's top rows summed by (type, shapes) and divided by the rank count
  (mean per rank, per step); MFU weighted by time.

Light: no numpy/pandas.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from mfu_desktop.core.analysis.roofline_figures import cluster_roofline
from mfu_desktop.core.analysis.steps import PER_STEP_CONVENTION, across_ranks, slow_ranks
from mfu_desktop.core.cluster.memory import cluster_memory, memory_row
from mfu_desktop.core.cluster.memory import memory_json as cluster_memory_json
from mfu_desktop.core.numbers import finite_number as number

#: Bump when a document's fields change (cached documents of another version are rebuilt).
DOCUMENT_VERSION = 3
#: Step-breakdown columns a rank document carries (means per step).
BREAKDOWN = ("computing", "comm_not_overlapped", "free", "bubble")
#: Fields of a hot-operator row in the ``--json`` contract.
HOT_FIELDS = ("type", "input_shapes", "count", "time_us", "mfu", "lost_us", "bw_util", "roof_util", "bound")
#: Hot-row figures averaged over ranks weighted by time (each over the ranks that have it).
_HOT_WEIGHTED = ("mfu", "bw_util", "roof_util")
#: Rank fields that are internal to documents (not in the ``--json`` contract).
INTERNAL_FIELDS = ("confirmed", "chip_id", "notes", "document_version", "step_rows", "by_shape", "collectives",
                   "prediction", "inputs", "reader")


# --- hot operators across ranks --------------------------------------------------------------


def merge_hot_rows(tables: Iterable[list[dict[str, Any]]], by: str, top_n: int, ranks: int) -> list[dict[str, Any]]:
    """Hot-operator rows of several ranks merged: mean per rank (per step); MFU weighted by time.

    Args:
        tables: Each rank's hot-operator rows (per step): type, input_shapes, count, time_us, lost_us, mfu.
        by: ``time_us`` or ``lost_us`` (rows without a lost time are dropped for ``lost_us``).
        top_n: Rows kept.
        ranks: Ranks the mean is over.
    """
    n = max(ranks, 1)
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for rows in tables:
        for row in rows:
            _add_hot_row(merged, row)
    out = []
    for acc in merged.values():
        _finish_hot_row(acc, n)
        if by == "lost_us" and acc["lost_us"] is None:
            continue
        out.append(acc)
    out.sort(key=lambda r: -(r[by] or 0.0))  # stable: ties keep first-seen order
    return out[:top_n]


def _add_hot_row(merged: dict[tuple[str, str], dict[str, Any]], row: dict[str, Any]) -> None:
    """Add one rank's hot-operator row to the sums of its (type, input shapes).

    Args:
        merged: Sums by (type, input shapes), in first-seen order; updated in place. The
            time-weighted figures are kept as ``_name: [Σ value · time, Σ time]``.
        row: One hot-operator row.
    """
    key = (str(row.get("type") or ""), str(row.get("input_shapes") or ""))
    acc = merged.get(key)
    if acc is None:
        acc = merged[key] = {"type": key[0], "input_shapes": key[1], "count": 0.0, "time_us": 0.0,
                             "lost_us": None, "bound": row.get("bound") or None,
                             **{f"_{f}": [0.0, 0.0] for f in _HOT_WEIGHTED}}
    time_us = number(row.get("time_us")) or 0.0
    acc["count"] += number(row.get("count")) or 0.0
    acc["time_us"] += time_us
    lost = number(row.get("lost_us"))
    if lost is not None:
        acc["lost_us"] = (acc["lost_us"] or 0.0) + lost
    for name in _HOT_WEIGHTED:
        value = number(row.get(name))
        if value is not None:
            acc[f"_{name}"][0] += value * time_us
            acc[f"_{name}"][1] += time_us


def _finish_hot_row(acc: dict[str, Any], n: int) -> None:
    """Turn a merged row's sums into means per rank and its weighted sums into time-weighted figures (in place)."""
    for name in _HOT_WEIGHTED:
        weighted, weight = acc.pop(f"_{name}")
        acc[name] = weighted / weight if weight > 0 else None
    acc.update(count=acc["count"] / n, time_us=acc["time_us"] / n,
               lost_us=None if acc["lost_us"] is None else acc["lost_us"] / n)


# --- the cluster -------------------------------------------------------------------------------


def cluster_rows(ranks: list[dict[str, Any]], slow: list[int]) -> list[dict[str, Any]]:
    """One row per rank: the cluster table (the Ranks table in the window, the console's rank table)."""
    rows = []
    for d in ranks:
        lo_hi = d.get("mfu_ops_range") or [None, None]
        row = {"rank": d["rank"], "path": d["path"], "chip": d.get("chip"), "mfu_ops": number(d.get("mfu_ops")),
               "mfu_step": number(d.get("mfu_step")), "mfu_ops_lo": number(lo_hi[0]), "mfu_ops_hi": number(lo_hi[1]),
               "cube_utilization": number(d.get("cube_utilization")), "tier": d.get("tier"),
               "step_time_us": number(d.get("step_time_us")), "steps": d.get("steps", 1)}
        breakdown = d.get("step_breakdown") or {}
        row.update({col: number(breakdown.get(col)) for col in BREAKDOWN})
        row["comm_wait_us"] = number(d.get("comm_wait_us"))
        row.update(kernels=d.get("kernels", 0), countable_kernels=d.get("countable_kernels", 0),
                   slow=d["rank"] in slow)
        row.update(memory_row(d))
        rows.append(row)
    return rows


def cluster_rate(ranks: list[dict[str, Any]]) -> dict[str, Any]:
    """Σ FLOPs, Σ counted time, achieved TFLOP/s and operator MFU (or its range) over every rank."""
    flops = math.fsum(number(d.get("flops")) or 0.0 for d in ranks)
    time_us = math.fsum(number(d.get("countable_time_us")) or 0.0 for d in ranks)
    out: dict[str, Any] = {"flops": flops, "time_us": time_us, "achieved_tflops": None, "mfu": None,
                           "mfu_range": None}
    if time_us <= 0:
        return out
    out["achieved_tflops"] = flops / time_us / 1e6
    confirmed = [bool(d.get("confirmed")) for d in ranks]

    def weighted(value_of) -> float:
        return math.fsum((value_of(d) or 0.0) * (number(d.get("countable_time_us")) or 0.0) for d in ranks)

    if all(confirmed) and all(number(d.get("mfu_ops")) is not None or not number(d.get("countable_time_us"))
                              for d in ranks):
        out["mfu"] = weighted(lambda d: number(d.get("mfu_ops"))) / time_us
    elif not any(confirmed):
        lo = weighted(lambda d: number((d.get("mfu_ops_range") or [None, None])[0])) / time_us
        hi = weighted(lambda d: number((d.get("mfu_ops_range") or [None, None])[1])) / time_us
        out["mfu_range"] = [lo, hi]
    return out


def cluster_document(ranks: list[dict[str, Any]], top_n: int) -> dict[str, Any]:
    """Every cluster figure from the rank documents (see the module docstring for the definitions)."""
    slow, threshold = slow_ranks({d["rank"]: number(d.get("step_time_us")) for d in ranks if d["rank"] >= 0})
    steps = [v for d in ranks if (v := number(d.get("mfu_step"))) is not None]
    cube = [v for d in ranks if (v := number(d.get("cube_utilization"))) is not None]
    step_time = across_ranks((d["rank"], number(d.get("step_time_us"))) for d in ranks)
    return {
        "ranks": len(ranks),
        "rows": cluster_rows(ranks, slow),
        "slow_ranks": slow,
        "slow_threshold_us": threshold,
        "rate": cluster_rate(ranks),
        "mfu_step_range": [min(steps), max(steps)] if steps else None,
        "cube_utilization_mean": math.fsum(cube) / len(cube) if cube else None,
        "step_time": {"mean": step_time.mean, "slowest_rank": step_time.slowest_rank,
                      "slowest_value": step_time.slowest_value, "ranks": step_time.ranks},
        "hot_by_lost": merge_hot_rows((d.get("hot_by_lost") or [] for d in ranks), "lost_us", top_n, len(ranks)),
        "hot_by_time": merge_hot_rows((d.get("hot_by_time") or [] for d in ranks), "time_us", top_n, len(ranks)),
        "roofline": cluster_roofline(ranks),
        "memory": cluster_memory(ranks),
    }


def slow_rank_excess(cluster: dict[str, Any]) -> list[tuple[int, float]]:
    """Each slow rank with its step time over the fastest rank's, as a fraction (0.094 = +9.4 %)."""
    times: dict[int, float] = {}
    for row in cluster["rows"]:  # a rank found twice (re-runs): its slower copy
        t = number(row.get("step_time_us"))
        if t is not None:
            times[row["rank"]] = max(t, times.get(row["rank"], t))
    if not times:
        return []
    fastest = min(times.values())
    return [(rank, times[rank] / fastest - 1.0 if fastest > 0 else float("nan"))
            for rank in cluster["slow_ranks"] if rank in times]


def slow_rank_text(cluster: dict[str, Any]) -> str:
    """"rank 5 (+9.4 % step time vs the fastest rank)", or "none"."""
    parts = [f"rank {rank} (+{excess * 100:.2g} % step time vs the fastest rank)"
             for rank, excess in slow_rank_excess(cluster)]
    return ", ".join(parts) or "none"


#: Vendors that name a GPU; ``GPU`` is a GPU whose vendor the trace did not say.
_GPU_VENDORS = ("NVIDIA", "AMD", "GPU")


def _may_be_same(vendor: str, other: str) -> bool:
    """Whether a chip of ``vendor`` could be one of ``other`` (an unnamed GPU could be any GPU)."""
    return vendor == other or (vendor in _GPU_VENDORS and other in _GPU_VENDORS and "GPU" in (vendor, other))


def mixed_chips_warning(ranks: list[dict[str, Any]]) -> str | None:
    """The warning for a folder whose ranks ran on different chips (cluster figures mix them).

    A rank whose chip is not identified differs only when its vendor does: an unidentified
    NVIDIA GPU beside H100 ranks may well be an H100, an unidentified Ascend chip beside them
    is not.
    """
    known = {d["chip"]: str(d.get("vendor") or "Huawei") for d in ranks if d.get("chip")}
    unknown = {str(d.get("vendor") or "Huawei") for d in ranks if not d.get("chip")}
    chips = set(known)
    for vendor in sorted(unknown):
        if not any(_may_be_same(vendor, other) for other in known.values()):
            chips.add(f"an unidentified {vendor} chip")
    if len(chips) <= 1:
        return None
    return (f"the ranks ran on {len(chips)} different chips ({', '.join(sorted(chips))}): cluster figures mix them — "
            "to set chips against each other, compare two profiles")


# --- the folder ----------------------------------------------------------------------------------


def folder_document(roots: list[str], ranks: list[dict[str, Any]], failed: list[dict[str, Any]],
                    warnings: list[str], conventions: list[str], top_n: int) -> dict[str, Any]:
    """Everything ``mfu analyze`` prints: the ranks, the cluster, failures and warnings (mixed chips added)."""
    warnings = list(warnings)
    mixed = mixed_chips_warning(ranks)
    if mixed:
        warnings.append(mixed)
    return {"roots": roots, "ranks": ranks, "failed": failed, "warnings": warnings,
            "cluster": cluster_document(ranks, top_n), "conventions": conventions, "top_n": top_n}


def rank_json(doc: dict[str, Any], top_n: int) -> dict[str, Any]:
    """One rank in the ``mfu analyze --json`` contract (plus documented extras)."""
    out = {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}
    for key in ("hot_by_time", "hot_by_lost"):
        out[key] = [{f: row.get(f) for f in HOT_FIELDS} for row in (doc.get(key) or [])[:top_n]]
    return out


def analysis_json(folder: dict[str, Any]) -> dict[str, Any]:
    """The whole ``mfu analyze --json`` object, from a folder document."""
    c = folder["cluster"]
    st = c["step_time"]
    rate = c["rate"]
    return {
        "ranks": [rank_json(d, folder["top_n"]) for d in folder["ranks"]],
        "warnings": folder["warnings"],
        "failed": folder["failed"],
        "cluster": {
            "ranks": c["ranks"],
            "slow_ranks": c["slow_ranks"],
            "slow_threshold_us": number(c["slow_threshold_us"]),
            "achieved_tflops": number(rate["achieved_tflops"]),
            "mfu_ops": number(rate["mfu"]),
            "mfu_ops_range": rate["mfu_range"],
            "mfu_step_range": c["mfu_step_range"],
            "step_time_us": number(st["mean"]),
            "roofline": c.get("roofline"),
            "slowest_rank": None if st["slowest_rank"] is None else {
                "rank": st["slowest_rank"], "step_time_us": number(st["slowest_value"])},
            "memory": cluster_memory_json(c.get("memory")),
        },
        "convention": PER_STEP_CONVENTION,
        "conventions": folder["conventions"],
    }
