"""Memory tables of the Ascend SQLite export (profiler-formats.md §8, §14).

``MEMORY_RECORD`` (allocator totals), ``OP_MEMORY`` (allocations), ``NPU_MODULE_MEM`` (components,
``moduleId`` → ``ENUM_MODULE``), ``NPU_MEM`` (``app`` rows: the whole process) and ``NPU_OP_MEM``
(GE's allocate/release events, read when ``OP_MEMORY`` is absent); ``STEP_TIME`` gives the step
windows. Bytes and ns; names through ``STRING_IDS``. One query per table, mapped with pandas.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.readers.memory.ascend_text import PROCESS_COMPONENTS, no_memory_reason
from mfu_desktop.core.readers.memory.records import MemoryData, missing
from mfu_desktop.core.readers.memory.tables import pair_events

TABLES = ("MEMORY_RECORD", "OP_MEMORY", "NPU_MODULE_MEM", "NPU_MEM", "NPU_OP_MEM")
_MB = 1.0 / 2**20
_US = 1e-3


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    try:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    except sqlite3.Error:
        return []


def _read(conn: sqlite3.Connection, table: str, problems: list[str]) -> pd.DataFrame | None:
    if not _columns(conn, table):
        return None
    try:
        return pd.read_sql_query(f"SELECT * FROM {table}", conn)
    except (sqlite3.Error, pd.errors.DatabaseError) as exc:
        problems.append(f"{table} cannot be read ({exc})")
        return None


def _number(frame: pd.DataFrame, column: str, scale: float = 1.0) -> np.ndarray:
    if column not in frame.columns:
        return np.full(len(frame), np.nan)
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(np.float64) * scale
    return values


def _text(frame: pd.DataFrame, column: str, strings: pd.Series, enum: pd.Series | None = None) -> pd.Series:
    """A column of ids shown through ``STRING_IDS`` (or an ``ENUM_*`` table); text cells are kept."""
    if column not in frame.columns:
        return pd.Series([""] * len(frame), index=frame.index, dtype=object)
    raw = frame[column]
    ids = pd.to_numeric(raw, errors="coerce")
    table = enum if enum is not None else strings
    mapped = ids.map(table) if table is not None and len(table) else pd.Series(np.nan, index=frame.index)
    return mapped.where(mapped.notna(), raw.astype(str)).astype(str)


def _lookup(conn: sqlite3.Connection, table: str, key: str, value: str) -> pd.Series:
    if not {key, value} <= set(_columns(conn, table)):
        return pd.Series(dtype=object)
    try:
        frame = pd.read_sql_query(f"SELECT {key}, {value} FROM {table}", conn)
    except (sqlite3.Error, pd.errors.DatabaseError):
        return pd.Series(dtype=object)
    return pd.Series(frame[value].astype(str).to_numpy(), index=pd.to_numeric(frame[key], errors="coerce"))


def _main_device(frame: pd.DataFrame, problems: list[str], table: str) -> pd.DataFrame:
    if "deviceId" not in frame.columns or frame.empty:
        return frame
    ids = frame["deviceId"]
    if ids.nunique() <= 1:
        return frame
    main = ids.value_counts().index[0]
    problems.append(f"{table}: rows of {ids.nunique()} devices; only device {main}'s are read")
    return frame[ids == main]


def read_db_memory(path: Path, profile_memory: bool | None) -> MemoryData:
    """The memory tables of a profiler database as :class:`MemoryData` (never raises)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error as exc:
        return missing(no_memory_reason(profile_memory, f"{path.name} cannot be opened ({exc})"))
    try:
        return _read_db(conn, path, profile_memory)
    finally:
        conn.close()


def _read_db(conn: sqlite3.Connection, path: Path, profile_memory: bool | None) -> MemoryData:
    """Every memory table of ``conn`` in turn, then the source line and the notes."""
    present = [t for t in TABLES if _columns(conn, t)]
    if "MEMORY_RECORD" not in present and "OP_MEMORY" not in present and "NPU_OP_MEM" not in present:
        return missing(no_memory_reason(profile_memory, f"{path.name} has no MEMORY_RECORD or OP_MEMORY table"))
    md = MemoryData()
    strings = _lookup(conn, "STRING_IDS", "id", "value")
    _records(conn, strings, md)
    ops = _op_memory(conn, strings, md)
    ge = None
    if (ops is None or ops.empty) and "NPU_OP_MEM" in present:
        _ge_events(conn, strings, md)
        ge = md.allocations
    _module_memory(conn, strings, md)
    app_from_npu = _npu_app_memory(conn, strings, md)
    md.steps = _steps(conn)
    used = [t for t, frame in (("MEMORY_RECORD", md.records), ("OP_MEMORY", ops), ("NPU_OP_MEM", ge),
                               ("NPU_MODULE_MEM", md.modules), ("NPU_MEM", md.process if app_from_npu else None))
            if frame is not None and not frame.empty]
    md.source = f"{path.name} ({', '.join(used)})"
    if not md.available:
        out = missing(no_memory_reason(profile_memory, f"the memory tables of {path.name} have no rows"))
        out.problems = md.problems
        return out
    if md.modules is None:
        md.notes.append(f"{path.name} has no NPU_MODULE_MEM rows: no per-component reserved memory")
    return md


def _records(conn: sqlite3.Connection, strings: pd.Series, md: MemoryData) -> None:
    """``MEMORY_RECORD``: the allocators' curves in ``md.records``, the process's (APP) in ``md.process``."""
    rec = _read(conn, "MEMORY_RECORD", md.problems)
    if rec is None or rec.empty:
        return
    rec = _main_device(rec, md.problems, "MEMORY_RECORD")
    component = _text(rec, "component", strings).str.strip()
    frame = pd.DataFrame({"component": component.to_numpy(), "ts_us": _number(rec, "timestamp", _US),
                          "allocated_mb": _number(rec, "totalAllocated", _MB),
                          "reserved_mb": _number(rec, "totalReserved", _MB),
                          "active_mb": _number(rec, "totalActive", _MB)})
    frame = frame[np.isfinite(frame["ts_us"])]
    is_process = frame["component"].isin(PROCESS_COMPONENTS)
    if is_process.any():
        md.process = frame.loc[is_process, ["ts_us", "reserved_mb"]].reset_index(drop=True)
    frame = frame[~is_process].reset_index(drop=True)
    frame["component"] = pd.Categorical(frame["component"])
    md.records = frame


def _op_memory(conn: sqlite3.Connection, strings: pd.Series, md: MemoryData) -> pd.DataFrame | None:
    """``OP_MEMORY`` (the framework's allocations by operator) in ``md.allocations``; the raw rows."""
    ops = _read(conn, "OP_MEMORY", md.problems)
    if ops is None or ops.empty:
        return ops
    ops = _main_device(ops, md.problems, "OP_MEMORY")
    frame = pd.DataFrame({
        "name": pd.Categorical(_text(ops, "name", strings).str.strip()),
        "size_mb": _number(ops, "size", _MB), "alloc_us": _number(ops, "allocationTime", _US),
        "release_us": _number(ops, "releaseTime", _US),
        "total_allocated_mb": _number(ops, "allocationTotalAllocated", _MB),
        "total_reserved_mb": _number(ops, "allocationTotalReserved", _MB),
        "release_total_allocated_mb": _number(ops, "releaseTotalAllocated", _MB),
        "release_total_reserved_mb": _number(ops, "releaseTotalReserved", _MB)})
    md.allocations = frame[np.isfinite(frame["alloc_us"])].reset_index(drop=True)
    return ops


def _module_memory(conn: sqlite3.Connection, strings: pd.Series, md: MemoryData) -> None:
    """``NPU_MODULE_MEM``: reserved memory per component (HCCL, RUNTIME, …) in ``md.modules``."""
    modules = _read(conn, "NPU_MODULE_MEM", md.problems)
    if modules is None or modules.empty:
        return
    modules = _main_device(modules, md.problems, "NPU_MODULE_MEM")
    names = _text(modules, "moduleId", strings, _lookup(conn, "ENUM_MODULE", "id", "name"))
    reserved = _number(modules, "totalReserved", _MB)
    md.modules = pd.DataFrame({"component": pd.Categorical(names.to_numpy()),
                               "ts_us": _number(modules, "timestampNs", _US),
                               "reserved_mb": np.where(reserved >= 0, reserved, np.nan)})


def _npu_app_memory(conn: sqlite3.Connection, strings: pd.Series, md: MemoryData) -> bool:
    """``NPU_MEM``'s APP rows (HBM + DDR) as the process curve when MEMORY_RECORD had none; whether used."""
    npu = _read(conn, "NPU_MEM", md.problems)
    if npu is None or npu.empty or md.process is not None:
        return False
    npu = _main_device(npu, md.problems, "NPU_MEM")
    kind = _text(npu, "type", strings).str.strip().str.lower()
    app = npu[kind.eq("app").to_numpy()]
    if app.empty:
        return False
    hbm = np.nan_to_num(_number(app, "hbm", _MB)) + np.nan_to_num(_number(app, "ddr", _MB))
    md.process = pd.DataFrame({"ts_us": _number(app, "timestampNs", _US), "reserved_mb": hbm})
    return True


def _ge_events(conn: sqlite3.Connection, strings: pd.Series, md: MemoryData) -> None:
    """``NPU_OP_MEM`` (GE's allocate/release events by address) as allocations."""
    ev = _read(conn, "NPU_OP_MEM", md.problems)
    if ev is None or ev.empty:
        return
    ev = _main_device(ev, md.problems, "NPU_OP_MEM")
    kind = _text(ev, "type", strings).str.lower()
    size = _number(ev, "size", _MB)
    signed = np.where(kind.str.contains("release").to_numpy(), -np.abs(size), np.abs(size))
    ts = _number(ev, "timestampNs", _US)
    addr = pd.to_numeric(ev.get("addr"), errors="coerce").fillna(-1).to_numpy(np.int64) \
        if "addr" in ev.columns else np.arange(len(ev))
    idx, release = pair_events(ts, addr, signed)
    names = _text(ev, "operatorName", strings).to_numpy()
    md.allocations = pd.DataFrame({
        "name": pd.Categorical(names[idx]), "size_mb": signed[idx], "alloc_us": ts[idx], "release_us": release,
        "total_allocated_mb": _number(ev, "totalAllocate", _MB)[idx],
        "total_reserved_mb": _number(ev, "totalReserve", _MB)[idx],
        "release_total_allocated_mb": np.nan, "release_total_reserved_mb": np.nan})
    md.notes.append("allocations from NPU_OP_MEM (GE operators only: OP_MEMORY is absent)")


def _steps(conn: sqlite3.Connection) -> list[tuple[str, float, float]]:
    if not {"id", "startNs", "endNs"} <= set(_columns(conn, "STEP_TIME")):
        return []
    try:
        rows = conn.execute("SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs").fetchall()
    except sqlite3.Error:
        return []
    out = []
    for step, start, end in rows:  # a handful of steps
        try:
            out.append((str(step), float(start) * _US, float(end) * _US))
        except (TypeError, ValueError):
            continue
    return out
