"""Real communication time from ``communication_matrix.json`` (profiler-formats.md §7; prediction.md §4.1).

Two layouts exist. The 2023 one keys every operator by its full name
(``hcom_allReduce__483_2@<hash>``); every key is one operator. The current one keeps per-type
statistics (``allreduce-top1|middle|bottom1..3|total@<hash>``) where ``-total`` already sums
all operators of that type: only ``-total`` keys are used (adding top1/middle/bottom would
double-count). For every operator the link with the longest ``Transit Time(ms)`` is taken and
those are summed over the step.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from mfu_desktop.core.readers.ascend.info import load_json
from mfu_desktop.core.readers.database import open_database
from mfu_desktop.core.readers.records import CommMatrix, CommOp

_AGG_KEY = re.compile(r"^[a-z0-9_]+-(top\d+|middle|bottom\d+|total)@", re.IGNORECASE)
_TOTAL_KEY = re.compile(r"-total@", re.IGNORECASE)
TOTAL_OP_INFO = "Total Op Info"






def _number(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out >= 0 and out == out else None


def _longest(step: str, kind: str, op: str, links: Any, problems: list[str]) -> CommOp | None:
    if not isinstance(links, dict):
        return None
    best: CommOp | None = None
    for link, info in links.items():
        if not isinstance(info, dict):
            continue
        t = _number(info.get("Transit Time(ms)"))
        if t is None:
            continue
        size = _number(info.get("Transit Size(MB)")) or 0.0
        if best is None or t > best.transit_time_ms:
            best = CommOp(step, kind, op, str(link), str(info.get("Transport Type", "")), t, size)
    return best


def parse_comm_matrix(data: Any, source: str = "communication_matrix.json") -> CommMatrix:
    """Longest links per operator from a parsed ``communication_matrix.json`` (either layout)."""
    problems: list[str] = []
    if not isinstance(data, dict) or not data:
        return CommMatrix("empty", [], source, [f"{source} has no steps"])
    raw_keys = [k for step in data.values() if isinstance(step, dict)
                for group in step.values() if isinstance(group, dict) for k in group]
    aggregated = any(_AGG_KEY.match(k) for k in raw_keys)
    ops: list[CommOp] = []
    for step_key, step in data.items():
        if not isinstance(step, dict):
            continue
        label = re.sub(r"^step", "", str(step_key))
        for kind in ("collective", "p2p"):
            group = step.get(kind)
            if not isinstance(group, dict):
                continue
            for op, links in group.items():
                if op == TOTAL_OP_INFO:
                    continue
                if aggregated and not _TOTAL_KEY.search(op):
                    continue
                best = _longest(label, kind, op, links, problems)
                if best is not None:
                    ops.append(best)
    layout = "aggregated (-total keys)" if aggregated else "per operator (2023)"
    return CommMatrix(layout, ops, source, problems)


def read_comm_matrix(path: Path) -> CommMatrix:
    """Read ``communication_matrix.json``; an unreadable file is an empty matrix with a reason."""
    data, problem = load_json(path)
    if data is None:
        return CommMatrix("empty", [], path.name, [problem or f"{path.name} is empty"])
    matrix = parse_comm_matrix(data, path.name)
    if problem:  # values read as null (absurd numbers, deep nesting): said, the rest is used
        matrix.problems.insert(0, problem)
    return matrix


def read_comm_matrix_db(path: Path) -> CommMatrix:
    """The same from ``analysis.db`` → ``CommAnalyzerMatrix`` (db export)."""
    try:
        conn = open_database(path)
        try:
            rows = conn.execute(
                "SELECT hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size, transit_time, "
                "step, type FROM CommAnalyzerMatrix"
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return CommMatrix("empty", [], path.name, [f"{path.name}: CommAnalyzerMatrix cannot be read ({exc})"])
    data: dict[str, dict[str, dict[str, dict[str, dict[str, Any]]]]] = {}
    for op, group, src, dst, transport, size, time_ms, step, kind in rows:
        key = f"{op}@{group}"
        links = data.setdefault(str(step or "step"), {}).setdefault(str(kind or "collective"), {}).setdefault(key, {})
        links[f"{src}-{dst}"] = {"Transit Time(ms)": time_ms, "Transit Size(MB)": size, "Transport Type": transport}
    return parse_comm_matrix(data, f"{path.name} CommAnalyzerMatrix")
