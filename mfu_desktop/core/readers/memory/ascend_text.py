"""Memory files of the Ascend text export (``ASCEND_PROFILER_OUTPUT``; profiler-formats.md §14).

``memory_record.csv`` (the allocators' totals over time: ``PTA``, ``GE``, ``PTA+GE``; ``APP`` is the
whole process), ``operator_memory.csv`` (one row per tensor allocation, an empty release time =
not released within the capture), ``npu_module_mem.csv`` (runtime components' reserved memory)
and ``static_op_mem.csv`` (graph mode). msprof's ``*_N.csv`` files have the same columns in KB
(:mod:`.msprof_text` reuses :func:`memory_from_files`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.readers.memory.records import CAPTURE_HINT, MemoryData, missing
from mfu_desktop.core.readers.memory.tables import Column, Table, main_device, need, read_table

#: The file roles of a rank folder (:attr:`RankFolder.files`) and their file names in ASCEND_PROFILER_OUTPUT.
FILE_ROLES = {
    "memory_record": "memory_record.csv",
    "operator_memory": "operator_memory.csv",
    "npu_module_mem": "npu_module_mem.csv",
    "static_op_mem": "static_op_mem.csv",
}

_DEVICE = {"device type": Column("device", "text"), "device": Column("device", "text"),
           "device id": Column("device_id", "text")}
RECORD_SPEC = {"component": Column("component", "text"), "timestamp": Column("ts_us", "time"),
               "total allocated": Column("allocated_mb", "memory"), "total reserved": Column("reserved_mb", "memory"),
               "total active": Column("active_mb", "memory"), **_DEVICE}
OPERATOR_SPEC = {"name": Column("name", "text"), "size": Column("size_mb", "memory"),
                 "allocation time": Column("alloc_us", "time"), "release time": Column("release_us", "time"),
                 "duration": Column("duration_us", "time"),
                 "allocation total allocated": Column("total_allocated_mb", "memory"),
                 "allocation total reserved": Column("total_reserved_mb", "memory"),
                 "release total allocated": Column("release_total_allocated_mb", "memory"),
                 "release total reserved": Column("release_total_reserved_mb", "memory"), **_DEVICE}
MODULE_SPEC = {"component": Column("component", "text"), "timestamp": Column("ts_us", "time"),
               "total reserved": Column("reserved_mb", "memory"), **_DEVICE}
STATIC_SPEC = {"op name": Column("name", "text"), "model name": Column("model", "text"),
               "graph id": Column("graph_id", "text"), "node index start": Column("start"),
               "node index end": Column("end"), "size": Column("size_mb", "memory"),
               "device id": Column("device", "text")}
#: msprof ``npu_mem_*.csv``: process (``APP``) and device memory over time.
NPU_MEM_SPEC = {"event": Column("event", "text"), "hbm": Column("hbm_mb", "memory"), "ddr": Column("ddr_mb", "memory"),
                "memory": Column("memory_mb", "memory"), "timestamp": Column("ts_us", "time"), **_DEVICE}
#: Components of memory_record.csv that are the whole process, not an allocator.
PROCESS_COMPONENTS = ("APP",)


def _unusable(md: MemoryData, table: Table, why: str) -> None:
    """A file without rows is a note; one without the needed columns is a problem."""
    (md.notes if table.frame.empty else md.problems).append(why)


def _nonnegative(frame: pd.DataFrame, columns: tuple[str, ...]) -> None:
    """−1 means "not collected" (msprof): every negative memory value becomes NaN."""
    for c in columns:
        if c in frame.columns:
            frame[c] = frame[c].where(frame[c] >= 0)


def _timed(frame: pd.DataFrame, column: str, source: str, md: MemoryData) -> pd.DataFrame:
    """Rows with a timestamp (the others are counted in a note)."""
    ok = frame[column].notna()
    dropped = int((~ok).sum())
    if dropped:
        md.problems.append(f"{source}: {dropped} row(s) without a timestamp skipped")
    return frame[ok]


def _records(table: Table, md: MemoryData) -> None:
    why = need(table, ("component", "ts_us", "reserved_mb"), "the allocator totals")
    md.problems.extend(table.problems)
    if why:
        _unusable(md, table, why)
        return
    f = main_device(table.frame, md.problems, table.source)
    for c in ("allocated_mb", "active_mb"):
        if c not in f.columns:
            f = f.assign(**{c: np.nan})
    _nonnegative(f, ("allocated_mb", "reserved_mb", "active_mb"))
    if table.rounded_times:
        md.timed = False
        md.problems.append(f"{table.source}: timestamps are rounded ({_example(f)}: the file was saved by a "
                           "spreadsheet); the peaks are read, not when they happen")
    else:
        f = _timed(f, "ts_us", table.source, md)
    is_process = f["component"].isin(PROCESS_COMPONENTS)
    proc = f[is_process]
    if not proc.empty:
        md.process = pd.DataFrame({"ts_us": proc["ts_us"].to_numpy(np.float64),
                                   "reserved_mb": proc["reserved_mb"].to_numpy(np.float64)})
    alloc = f[~is_process]
    md.records = pd.DataFrame({
        "component": pd.Categorical(alloc["component"]), "ts_us": alloc["ts_us"].to_numpy(np.float64),
        "allocated_mb": alloc["allocated_mb"].to_numpy(np.float64),
        "reserved_mb": alloc["reserved_mb"].to_numpy(np.float64),
        "active_mb": alloc["active_mb"].to_numpy(np.float64),
    })


def _example(frame: pd.DataFrame) -> str:
    ts = frame["ts_us"].dropna()
    return f"{ts.iloc[0]:.6g}" if len(ts) else "no value"


def _allocations(table: Table, md: MemoryData) -> None:
    why = need(table, ("name", "size_mb", "alloc_us"), "the allocations")
    md.problems.extend(table.problems)
    if why:
        _unusable(md, table, why)
        return
    f = main_device(table.frame, md.problems, table.source)
    f = _timed(f, "alloc_us", table.source, md)
    if table.rounded_times:
        md.problems.append(f"{table.source}: timestamps are rounded (the file was saved by a spreadsheet): "
                           "allocation times are approximate")
    if "release_us" not in f.columns and "duration_us" in f.columns:  # msprof: allocation time + duration
        f = f.assign(release_us=f["alloc_us"] + f["duration_us"])
    columns = {"name": pd.Categorical(f["name"]),
               "size_mb": f["size_mb"].to_numpy(np.float64)}
    for c in ("alloc_us", "release_us", "total_allocated_mb", "total_reserved_mb", "release_total_allocated_mb",
              "release_total_reserved_mb"):
        columns[c] = f[c].to_numpy(np.float64) if c in f.columns else np.full(len(f), np.nan)
    md.allocations = pd.DataFrame(columns)
    _nonnegative(md.allocations, ("size_mb",))


def _modules(table: Table, md: MemoryData) -> None:
    why = need(table, ("component", "ts_us", "reserved_mb"), "the components' memory")
    md.problems.extend(table.problems)
    if why:
        _unusable(md, table, why)
        return
    f = main_device(table.frame, md.problems, table.source)
    f = f[f["ts_us"].notna()]
    md.modules = pd.DataFrame({"component": pd.Categorical(f["component"]),
                               "ts_us": f["ts_us"].to_numpy(np.float64),
                               "reserved_mb": f["reserved_mb"].where(f["reserved_mb"] >= 0).to_numpy(np.float64)})


def _static(table: Table, md: MemoryData) -> None:
    md.problems.extend(table.problems)
    why = need(table, ("name", "size_mb"), "the static-graph operators")
    if why:
        _unusable(md, table, why)
        return
    f = table.frame
    blank = pd.Series("", index=f.index)
    graph = (f["model"].astype(str) if "model" in f.columns else blank).str.cat(
        f["graph_id"].astype(str) if "graph_id" in f.columns else blank, sep="/")
    md.static_ops = pd.DataFrame({
        "name": f["name"].astype(str), "graph": graph,
        "start": f["start"].to_numpy(np.float64) if "start" in f.columns else np.nan,
        "end": f["end"].to_numpy(np.float64) if "end" in f.columns else np.nan,
        "size_mb": f["size_mb"].to_numpy(np.float64)})


def _process_from_npu_mem(table: Table, md: MemoryData) -> None:
    md.problems.extend(table.problems)
    f = table.frame
    if f.empty or "event" not in f.columns or "ts_us" not in f.columns:
        return
    app = f[f["event"].astype(str).str.upper().eq("APP") & f["ts_us"].notna()]
    value = app.get("hbm_mb")
    if value is None or not (value > 0).any():
        value = app.get("memory_mb")
    if value is None or app.empty:
        return
    md.process = pd.DataFrame({"ts_us": app["ts_us"].to_numpy(np.float64),
                               "reserved_mb": value.where(value >= 0).to_numpy(np.float64)})


def memory_from_files(files: dict[str, list[Path]], where: str, profile_memory: bool | None) -> MemoryData:
    """Read the memory files of one rank into :class:`MemoryData`.

    Roles: ``memory_record``, ``operator_memory``, ``npu_module_mem``, ``static_op_mem``, ``npu_mem``
    (several files of a role are slices, in order).

    Args:
        files: The rank's memory files by role.
        where: The folder they are in (for the notes).
        profile_memory: The capture's ``profile_memory`` switch, when recorded.
    """
    if not files.get("memory_record") and not files.get("operator_memory"):
        return missing(no_memory_reason(profile_memory, f"no memory_record or operator_memory file in {where}"))
    md = MemoryData()
    read: list[str] = []
    if files.get("memory_record"):
        table = read_table(files["memory_record"], RECORD_SPEC)
        _records(table, md)
        read.append(table.source)
    else:
        md.notes.append("memory_record file absent: the peaks come from operator_memory's allocator totals (seen "
                        "at allocations and releases only)")
    if files.get("operator_memory"):
        table = read_table(files["operator_memory"], OPERATOR_SPEC)
        _allocations(table, md)
        read.append(table.source)
    else:
        md.notes.append("operator_memory file absent: the largest live allocations and the memory not released "
                        "are unknown")
    if files.get("npu_module_mem"):
        table = read_table(files["npu_module_mem"], MODULE_SPEC)
        _modules(table, md)
        read.append(table.source)
    else:
        md.notes.append("npu_module_mem file absent: no per-component reserved memory (HCCL, RUNTIME …)")
    if files.get("npu_mem") and md.process is None:
        table = read_table(files["npu_mem"], NPU_MEM_SPEC)
        _process_from_npu_mem(table, md)
        read.append(table.source)
    if files.get("static_op_mem"):
        table = read_table(files["static_op_mem"], STATIC_SPEC)
        _static(table, md)
        read.append(table.source)
    md.source = ", ".join(read)
    if not md.available:
        detail = "; ".join(md.problems[-2:]) or "the files have no rows"
        out = missing(no_memory_reason(profile_memory, f"{md.source} unreadable ({detail})"))
        out.problems = md.problems
        return out
    return md


def no_memory_reason(profile_memory: bool | None, detail: str) -> str:
    """"no memory data: …" with what the capture recorded and how to get the data."""
    if profile_memory is False:
        return f"no memory data: the capture had profile_memory=False ({CAPTURE_HINT})"
    return f"no memory data: {detail} ({CAPTURE_HINT})"
