"""Memory figures as console text, from the documents' ``memory`` objects (light: no numpy/pandas).

``mfu analyze`` prints :func:`rank_lines` in each rank block and :func:`cluster_line` in the
cluster block; ``mfu predict`` and ``mfu compare`` use :func:`mb` and :func:`fit_text`.
"""

from __future__ import annotations

from typing import Any

from mfu_desktop.core.numbers import finite_number, pct


def mb(value: float | None) -> str:
    """``1,188.1 MB`` ("–" when unknown)."""
    v = finite_number(value)
    return "–" if v is None else f"{v:,.1f} MB"


def gb(value: float | None) -> str:
    """``61.9 GB`` ("–" when unknown)."""
    v = finite_number(value)
    return "–" if v is None else f"{v:,.3g} GB" if abs(v) < 100 else f"{v:,.0f} GB"


def fit_text(footprint_mb: float | None, capacity_gb: float | None, headroom_gb: float | None) -> str:
    """``2,113.7 MB = 3.23 % of 64 GB (61.9 GB free)``, or ``does NOT fit``."""
    fp, cap = finite_number(footprint_mb), finite_number(capacity_gb)
    if fp is None:
        return "footprint unknown"
    if cap is None:
        return f"{mb(fp)} (capacity unknown: no memory_gb for the chip)"
    room = finite_number(headroom_gb)
    share = fp / (cap * 1024.0) if cap else None
    tail = f"{gb(room)} free" if room is not None and room >= 0 else f"does NOT fit: {gb(-room)} short" \
        if room is not None else ""
    return f"{mb(fp)} = {pct(share)} of {gb(cap)} ({tail})"


def rank_lines(doc: dict[str, Any]) -> list[str]:
    """The memory lines of a rank block (one line when there is no memory data)."""
    m = doc.get("memory")
    if not m:
        reason = doc.get("memory_reason") or "no memory data"
        return [f"   memory       n/a — {reason}"]
    when = ""
    if m.get("peak_at_us") is not None:
        where = f"step {m['peak_step']}" if m.get("peak_step") else "the capture"
        when = f", {m['peak_at_us']:,.1f} µs into {where}"
    lines = [f"   memory       peak {mb(m.get('peak_allocated_mb'))} allocated, {mb(m.get('peak_reserved_mb'))} "
             f"reserved ({m.get('allocator') or 'allocator'}){when}"]
    fit = fit_text(m.get("footprint_mb"), m.get("capacity_gb"), m.get("headroom_gb"))
    extra = f"; {mb(m['not_released_mb'])} not released within the capture" \
        if m.get("not_released_mb") is not None else ""
    lines.append(f"                {m.get('footprint_basis') or 'footprint'}: {fit}{extra}")
    live = m.get("top_live") or []
    if live:
        shown = ", ".join(f"{a['name']} {mb(a.get('mb'))}" for a in live[:3])
        lines.append(f"                live at the peak: {shown}" + (f" (+{len(live) - 3} more)" if len(live) > 3
                                                                     else ""))
    return lines


def cluster_line(cluster: dict[str, Any]) -> str | None:
    """The memory line of the cluster block: the highest rank decides (``None`` without any memory data)."""
    c = cluster.get("memory") or {}
    if not c.get("ranks"):
        reasons = c.get("reasons") or []
        return f"   memory       n/a — {reasons[0]}" if reasons else None
    several = cluster.get("ranks", 1) > 1
    line = (f"   memory       peak {mb(c.get('peak_allocated_mb'))} allocated, {mb(c.get('peak_reserved_mb'))} "
            f"reserved")
    if several:
        line += f" (highest: rank {c.get('peak_reserved_rank')})"
    if c.get("process_reserved_mb") is not None:
        line += f"; process {mb(c['process_reserved_mb'])}" + (f" (rank {c.get('process_reserved_rank')})"
                                                                 if several else "")
    if c.get("capacity_gb") is not None:
        room = finite_number(c.get("headroom_gb"))
        line += f"; {pct(c.get('share'))} of {gb(c['capacity_gb'])}"
        if room is not None:
            line += f", {gb(room)} free" if room >= 0 else f", does NOT fit ({gb(-room)} short)"
            if several:
                line += f" on the tightest rank {c.get('headroom_rank')}"
    if c.get("ranks_without"):
        line += f"; {c['ranks_without']} rank(s) without memory data"
    return line
