"""The db export's framework operators (``PYTORCH_API``) linked to their kernels (profiler-formats.md §8.3, §8.5).

An operator row (``type`` 50001, ``ENUM_API_TYPE`` "op") reaches its device tasks through
``PYTORCH_API.connectionId = CONNECTION_IDS.id`` and ``CONNECTION_IDS.connectionId =
TASK.connectionId``; only compute tasks (``COMPUTE_TASK_INFO``) are kernels. A task is found in
the kernel frame by its start time. ``startNs``/``endNs`` are TEXT in schema 1.0.0 (cast to integers
by SQLite: exact to the ns).
The database is opened read-only; any failure gives ``None``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.ascend.kernels_db import connect_readonly
from mfu_desktop.core.readers.host_records import HostOps, match_kernels, nesting_depth

#: ``ENUM_API_TYPE`` of framework operators.
OP_TYPE = 50001


def _tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    return {n: [r[1] for r in conn.execute(f"PRAGMA table_info({n})")] for n in names}


def _ops(conn: sqlite3.Connection, columns: list[str]) -> pd.DataFrame:
    """The operator rows: row id, times (ns), thread and name."""
    where = f"WHERE p.type = {OP_TYPE}" if "type" in columns else ""
    return pd.read_sql_query(
        "SELECT p.rowid AS op, CAST(p.startNs AS INTEGER) AS start_ns, CAST(p.endNs AS INTEGER) AS end_ns, "
        "p.globalTid AS tid, s.value AS name "
        f"FROM PYTORCH_API p LEFT JOIN STRING_IDS s ON s.id = p.name {where}", conn)


def _links(conn: sqlite3.Connection, tables: dict[str, list[str]]) -> pd.DataFrame:
    """(operator row id, start of a compute task it launched)."""
    needed = {"CONNECTION_IDS", "TASK", "COMPUTE_TASK_INFO"}
    if not needed <= set(tables) or "connectionId" not in tables["PYTORCH_API"]:
        return pd.DataFrame({"op": [], "task_start": []})
    return pd.read_sql_query(
        "SELECT p.rowid AS op, t.startNs AS task_start FROM PYTORCH_API p "
        "JOIN CONNECTION_IDS ci ON ci.id = p.connectionId JOIN TASK t ON t.connectionId = ci.connectionId "
        "JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId", conn)


def db_host_ops(path: Path, kernels: pd.DataFrame) -> HostOps | None:
    """The operators of the database at ``path`` linked to the rows of ``kernels``; ``None`` when it has none."""
    try:
        conn = connect_readonly(path)
        try:
            tables = _tables(conn)
            if "PYTORCH_API" not in tables or "STRING_IDS" not in tables:
                return None
            ops = _ops(conn, tables["PYTORCH_API"])
            links = _links(conn, tables)
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    # TEXT times cast by SQLite to exact 64-bit integers (float64 would round 1.7e18 ns to 256 ns)
    start = pd.to_numeric(ops["start_ns"], errors="coerce").astype("Int64")
    end = pd.to_numeric(ops["end_ns"], errors="coerce").astype("Int64")
    ok = (start.notna() & end.notna() & (end >= start).fillna(False)).to_numpy(dtype=bool)
    ops = ops[ok].reset_index(drop=True)
    if ops.empty:
        return None
    start, end = start[ok].to_numpy(np.int64), end[ok].to_numpy(np.int64)
    threads, thread = np.unique(pd.to_numeric(ops["tid"], errors="coerce").fillna(-1).to_numpy(np.int64),
                                return_inverse=True)
    kernel_op, linked = _kernel_ops(ops["op"].to_numpy(np.int64), links, kernels)
    notes = [] if linked or links.empty else ["no framework operator could be matched to a kernel of the frame"]
    return HostOps(name=pd.Categorical(ops["name"].fillna("").astype(str)), thread=thread.astype(np.int64),
                   start_ns=start, dur_us=(end - start) / 1000.0,
                   depth=nesting_depth(thread, start.astype(np.float64), end.astype(np.float64)),
                   kernel_op=kernel_op,
                   source=f"PYTORCH_API operators of {path.name} ({len(ops):,} ops on {len(threads)} thread(s))",
                   notes=notes)


def _kernel_ops(op_ids: np.ndarray, links: pd.DataFrame, kernels: pd.DataFrame) -> tuple[np.ndarray, int]:
    """Each kernel row's operator (index into the ops), and how many kernels were linked."""
    out = np.full(len(kernels), -1, dtype=np.int64)
    if links.empty or C.START_NS not in kernels.columns:
        return out, 0
    order = np.argsort(op_ids, kind="stable")
    link_op = links["op"].to_numpy(np.int64)
    pos = np.clip(np.searchsorted(op_ids[order], link_op), 0, len(order) - 1)
    known = op_ids[order][pos] == link_op
    task_start = pd.to_numeric(links["task_start"], errors="coerce").fillna(-1).to_numpy(np.int64)
    rows = match_kernels(kernels[C.START_NS].to_numpy(np.int64), task_start[known])
    hit = rows >= 0
    out[rows[hit]] = order[pos[known][hit]]
    return out, int(hit.sum())
