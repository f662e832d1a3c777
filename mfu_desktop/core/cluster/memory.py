"""Memory across ranks, from rank documents: the per-rank columns of the cluster table and the cluster's peak.

The cluster's figure is the **highest rank**, never a mean: memory must fit on every rank, so the
rank with the largest footprint decides (its number is given). Light: no numpy/pandas.
"""

from __future__ import annotations

from typing import Any

from mfu_desktop.core.numbers import finite_number as number

#: Per-rank memory columns of the cluster table (``None`` for a rank without memory data).
ROW_FIELDS = ("peak_allocated_mb", "peak_reserved_mb", "process_reserved_mb", "memory_share", "memory_headroom_gb",
              "memory_capacity_gb")


def memory_row(doc: dict[str, Any]) -> dict[str, float | None]:
    """A rank's memory columns of the cluster table."""
    mem = doc.get("memory") or {}
    return {"peak_allocated_mb": number(mem.get("peak_allocated_mb")),
            "peak_reserved_mb": number(mem.get("peak_reserved_mb")),
            "process_reserved_mb": number(mem.get("process_reserved_mb")),
            "memory_share": number(mem.get("share")), "memory_headroom_gb": number(mem.get("headroom_gb")),
            "memory_capacity_gb": number(mem.get("capacity_gb"))}


def _highest(docs: list[dict[str, Any]], key: str) -> tuple[float | None, int | None]:
    best: tuple[float | None, int | None] = (None, None)
    for d in docs:
        value = number((d.get("memory") or {}).get(key))
        if value is not None and (best[0] is None or value > best[0]):
            best = (value, d["rank"])
    return best


def cluster_memory(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The cluster's memory: each peak with the rank that has it, and the tightest rank against its chip."""
    with_memory = [d for d in docs if d.get("memory")]
    reasons = sorted({str(d.get("memory_reason")) for d in docs if not d.get("memory") and d.get("memory_reason")})
    out: dict[str, Any] = {"ranks": len(with_memory), "ranks_without": len(docs) - len(with_memory),
                           "reasons": reasons}
    for key in ("peak_allocated_mb", "peak_reserved_mb", "process_reserved_mb", "footprint_mb"):
        value, rank = _highest(with_memory, key)
        out[key] = value
        out[key.removesuffix("_mb") + "_rank"] = rank
    tight = [d for d in with_memory if number(d["memory"].get("headroom_gb")) is not None]
    if tight:
        worst = min(tight, key=lambda d: number(d["memory"]["headroom_gb"]))
        out.update(headroom_gb=number(worst["memory"]["headroom_gb"]), headroom_rank=worst["rank"],
                   capacity_gb=number(worst["memory"].get("capacity_gb")), share=number(worst["memory"].get("share")))
    else:
        out.update(headroom_gb=None, headroom_rank=None, capacity_gb=None, share=None)
    return out


def memory_json(cluster_mem: dict[str, Any] | None) -> dict[str, Any] | None:
    """The cluster's ``memory`` object of ``mfu analyze --json`` (``None`` when no rank has memory data)."""
    if not cluster_mem or not cluster_mem.get("ranks"):
        return None
    return {k: v for k, v in cluster_mem.items() if k != "reasons"}
