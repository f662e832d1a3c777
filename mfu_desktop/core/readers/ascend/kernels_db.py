"""Reader of the SQLite export (``ascend_pytorch_profiler_*.db``, ``msprof_*.db``; profiler-formats.md §8).

Kernels are ``TASK ⋈ COMPUTE_TASK_INFO`` on ``globalTaskId`` with text through ``STRING_IDS``;
times are ns and converted once to µs; PMU values come from ``TASK_PMU_INFO``; communication
operators from ``COMMUNICATION_OP``; the chip family from ``NPU_INFO`` and the clock from
``AICORE_FREQ``; steps from ``STEP_TIME``. The database is opened read-only; a locked or
corrupt file is an error for that rank.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.ascend.kernels_csv import KernelFileError, KernelTable
from mfu_desktop.core.readers.records import DbExtras

#: DB PMU names (ns for *_time) → canonical columns (µs).
_PMU = {
    "aic_total_time": "aicore_time_us",
    "aic_total_cycles": "aic_total_cycles",
    "aic_mac_time": "aic_mac_time_us",
    "aic_mac_ratio": "aic_mac_ratio",
    "aic_scalar_time": "aic_scalar_time_us",
    "aic_mte1_time": "aic_mte1_time_us",
    "aic_mte2_time": "aic_mte2_time_us",
    "aic_fixpipe_time": "aic_fixpipe_time_us",
    "aiv_total_time": "aiv_time_us",
    "aiv_total_cycles": "aiv_total_cycles",
    "aiv_vec_time": "aiv_vec_time_us",
    "aiv_scalar_time": "aiv_scalar_time_us",
    "aiv_mte2_time": "aiv_mte2_time_us",
    "aiv_mte3_time": "aiv_mte3_time_us",
    "aic_cube_fops": "aic_cube_fops",
    "aic_main_mem_read_bw": "aic_main_mem_read_bw_gbps",
    "aic_main_mem_write_bw": "aic_main_mem_write_bw_gbps",
    "aiv_main_mem_read_bw": "aiv_main_mem_read_bw_gbps",
    "aiv_main_mem_write_bw": "aiv_main_mem_write_bw_gbps",
    "read_main_memory_datas": "aic_read_main_memory_datas_kb",
    "write_main_memory_datas": "aic_write_main_memory_datas_kb",
    "aic_read_main_memory_datas": "aic_read_main_memory_datas_kb",
    "aic_write_main_memory_datas": "aic_write_main_memory_datas_kb",
    "aiv_read_main_memory_datas": "aiv_read_main_memory_datas_kb",
    "aiv_write_main_memory_datas": "aiv_write_main_memory_datas_kb",
}
_PMU = {k: v for k, v in _PMU.items() if v in C.PMU_COLUMNS}

_TEXT_COLUMNS = {
    "name": C.NAME, "opType": C.OP_TYPE, "taskType": C.CORE_TYPE, "inputShapes": C.INPUT_SHAPES,
    "inputDataTypes": C.INPUT_DTYPES, "outputShapes": C.OUTPUT_SHAPES, "outputDataTypes": C.OUTPUT_DTYPES,
    "hf32Eligible": C.HF32_ELIGIBLE,
}




def connect_readonly(path: Path, timeout_s: float = 2.0) -> sqlite3.Connection:
    """Open a database read-only (``mode=ro`` URI); never creates or modifies the file."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout_s)


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _categorical(ids: np.ndarray, lookup_ids: np.ndarray, lookup_values: np.ndarray) -> pd.Categorical:
    """STRING_IDS ids → Categorical of their (quote-stripped) text; unknown ids become missing."""
    ids = np.asarray(ids)
    order = np.argsort(lookup_ids)
    sorted_ids = lookup_ids[order]
    pos = np.searchsorted(sorted_ids, ids)
    pos = np.clip(pos, 0, max(len(sorted_ids) - 1, 0))
    valid = (len(sorted_ids) > 0) & (sorted_ids[pos] == ids) if len(sorted_ids) else np.zeros(len(ids), bool)
    text = np.array([str(v).strip().strip('"').strip() if v is not None else "" for v in lookup_values[order]],
                    dtype=object)
    code_of_entry, uniques = pd.factorize(text)
    codes = np.where(valid, code_of_entry[pos] if len(code_of_entry) else -1, -1)
    # "N/A" (Level0) is missing, like in the CSV.
    na = np.flatnonzero(np.asarray(uniques, dtype=object) == "N/A")
    if len(na):
        codes = np.where(codes == na[0], -1, codes)
    return pd.Categorical.from_codes(codes.astype(np.int32), categories=pd.Index(uniques, dtype=object))


def _extras(conn: sqlite3.Connection, tables: set[str]) -> DbExtras:
    extras = DbExtras()
    if "NPU_INFO" in tables:
        row = conn.execute("SELECT name FROM NPU_INFO LIMIT 1").fetchone()
        extras.npu_name = str(row[0]) if row and row[0] else None
    if "AICORE_FREQ" in tables:
        freqs = [r[0] for r in conn.execute("SELECT freq FROM AICORE_FREQ") if isinstance(r[0], (int, float))]
        if freqs:
            extras.aicore_mhz = float(np.median(freqs))
    if "RANK_DEVICE_MAP" in tables:
        row = conn.execute("SELECT rankId FROM RANK_DEVICE_MAP LIMIT 1").fetchone()
        if row and isinstance(row[0], int) and row[0] >= 0:
            extras.rank_id = row[0]
    if "STEP_TIME" in tables:
        steps = pd.read_sql_query("SELECT id AS step, startNs AS start_ns, endNs AS end_ns FROM STEP_TIME", conn)
        extras.steps = steps.sort_values("start_ns").reset_index(drop=True)
    if "META_DATA" in tables:
        row = conn.execute("SELECT value FROM META_DATA WHERE name='SCHEMA_VERSION'").fetchone()
        extras.schema = row[0] if row else None
    return extras


class _DbRows(NamedTuple):
    """What :func:`read_kernel_db` takes from the database before it closes it."""

    extras: DbExtras
    #: ``STRING_IDS``: ids and their text.
    lookup_ids: np.ndarray
    lookup_values: np.ndarray
    #: ``COMPUTE_TASK_INFO`` text columns present (keys of ``_TEXT_COLUMNS``).
    text_cols: list[str]
    #: ``TASK ⋈ COMPUTE_TASK_INFO``: times, device, global task id, text ids, block dims.
    raw: pd.DataFrame
    #: PMU values by global task id (``None``: no ``TASK_PMU_INFO``).
    pmu: pd.DataFrame | None
    #: Communication operators as kernel rows (``None``: none).
    comm: pd.DataFrame | None


def read_kernel_db(path: Path) -> tuple[KernelTable, DbExtras]:
    """Read kernels (and communication operators) from a profiler database.

    Raises:
        KernelFileError: When the database cannot be opened (locked, corrupt, not SQLite) or
            lacks ``TASK`` / ``COMPUTE_TASK_INFO`` / ``STRING_IDS``.
    """
    problems: list[str] = []
    try:
        conn = connect_readonly(path)
    except sqlite3.Error as exc:
        raise KernelFileError(f"{path.name} cannot be opened read-only ({exc})") from None
    try:
        db = _read_rows(conn, path)
    except sqlite3.OperationalError as exc:
        raise KernelFileError(f"{path.name} cannot be read ({exc}); is it locked by another program?") from None
    except sqlite3.DatabaseError as exc:
        raise KernelFileError(f"{path.name} is corrupt ({exc})") from None
    finally:
        conn.close()
    frame = _kernel_frame(db)
    if db.pmu is None:
        problems.append(f"{path.name} has no TASK_PMU_INFO (Level0 or aic_metrics none): no hardware counters")
    missing = [c for c in (C.INPUT_SHAPES, C.OUTPUT_SHAPES) if c not in frame.columns
               or frame[c].isna().all()]
    return KernelTable(frame, path.name, [], missing, problems, 0), db.extras


def _read_rows(conn: sqlite3.Connection, path: Path) -> _DbRows:
    """Every query of the reader, on an open connection.

    Args:
        conn: The read-only connection.
        path: The database (for messages).

    Raises:
        KernelFileError: When the file is not a readable SQLite database or lacks a kernel table.
        sqlite3.DatabaseError: When a query fails (locked, corrupt).
    """
    try:
        tables = _tables(conn)
    except sqlite3.DatabaseError as exc:
        raise KernelFileError(f"{path.name} is not a readable SQLite database ({exc})") from None
    needed = {"TASK", "COMPUTE_TASK_INFO", "STRING_IDS"}
    if not needed <= tables:
        raise KernelFileError(f"{path.name} lacks table(s) {', '.join(sorted(needed - tables))}")
    extras = _extras(conn, tables)
    strings = pd.read_sql_query("SELECT id, value FROM STRING_IDS", conn)
    lookup_ids = strings["id"].to_numpy(dtype=np.int64)
    lookup_values = strings["value"].to_numpy(dtype=object)
    info_cols = _columns(conn, "COMPUTE_TASK_INFO")
    text_cols = [c for c in _TEXT_COLUMNS if c in info_cols]
    raw = _task_rows(conn, info_cols, text_cols)
    pmu = _pmu(conn, tables, lookup_ids, lookup_values)
    comm = _communication(conn, tables, info_cols)
    return _DbRows(extras, lookup_ids, lookup_values, text_cols, raw, pmu, comm)


def _block_columns(info_cols: list[str]) -> tuple[str | None, str | None]:
    """The block-dim and mix-block-dim columns of ``COMPUTE_TASK_INFO`` (``blockNum`` in newer schemas)."""
    if "blockNum" in info_cols:
        return "blockNum", "mixBlockNum" if "mixBlockNum" in info_cols else None
    block = "blockDim" if "blockDim" in info_cols else None
    mix = "mixBlockDim" if "mixBlockDim" in info_cols else None
    return block, mix


def _task_rows(conn: sqlite3.Connection, info_cols: list[str], text_cols: list[str]) -> pd.DataFrame:
    """``TASK ⋈ COMPUTE_TASK_INFO`` on ``globalTaskId``: times, device, stream, task id, text ids and block dims.

    Args:
        conn: The read-only connection.
        info_cols: Columns of ``COMPUTE_TASK_INFO``.
        text_cols: Its text columns to select.
    """
    block, mix = _block_columns(info_cols)
    task_cols = _columns(conn, "TASK")
    select = ["t.startNs AS start_ns", "t.endNs AS end_ns", "t.deviceId AS device_id", "c.globalTaskId AS gid"]
    if "streamId" in task_cols:
        select.append("t.streamId AS stream_id")
    select += [f"c.{c} AS {c}" for c in text_cols]
    if block:
        select.append(f"c.{block} AS block_dim")
    if mix:
        select.append(f"c.{mix} AS mix_block_dim")
    return pd.read_sql_query(
        f"SELECT {', '.join(select)} FROM TASK t JOIN COMPUTE_TASK_INFO c ON t.globalTaskId = c.globalTaskId",
        conn,
    )


def _kernel_frame(db: _DbRows) -> pd.DataFrame:
    """The canonical kernel frame: tasks (µs, text, block dims, PMU) and communication, by start, with steps.

    Args:
        db: The rows read from the database.

    Returns:
        The kernel frame in :data:`C.KERNEL_COLUMNS` order.
    """
    raw = db.raw
    start = pd.to_numeric(raw["start_ns"], errors="coerce")
    end = pd.to_numeric(raw["end_ns"], errors="coerce")
    data: dict[str, object] = {
        C.DEVICE_ID: pd.array(pd.to_numeric(raw["device_id"], errors="coerce"), dtype="Int64"),
        C.START_NS: start.fillna(-1).astype(np.int64).to_numpy(),
        C.DURATION_US: ((end - start) / 1000.0).to_numpy(dtype=np.float64),
        C.WAIT_US: np.full(len(raw), np.nan, dtype=np.float32),
    }
    if "stream_id" in raw.columns:
        stream = pd.to_numeric(raw["stream_id"], errors="coerce")
        data[C.STREAM_ID] = pd.array(stream.where((stream >= 0) & (stream < 2**31)), dtype="Int64")
    for src in db.text_cols:
        ids = pd.to_numeric(raw[src], errors="coerce").fillna(-1).to_numpy(dtype=np.int64)
        data[_TEXT_COLUMNS[src]] = _categorical(ids, db.lookup_ids, db.lookup_values)
    for col in ("block_dim", "mix_block_dim"):
        if col in raw.columns:
            values = pd.to_numeric(raw[col], errors="coerce")
            data[col] = pd.array(values.where(values >= 0), dtype="Int64")
    frame = pd.DataFrame(data)
    _add_pmu(frame, db.pmu, raw["gid"].to_numpy())
    frame = _with_communication(frame, db.comm)
    if not db.extras.steps.empty:
        frame[C.STEP_ID] = _assign_steps(frame[C.START_NS].to_numpy(), db.extras.steps)
    frame = frame.sort_values(C.START_NS, kind="stable").reset_index(drop=True)
    order = [c for c in C.KERNEL_COLUMNS if c in frame.columns]
    return frame[order]


def _add_pmu(frame: pd.DataFrame, pmu: pd.DataFrame | None, gids: np.ndarray) -> None:
    """Add the PMU columns to the task rows (in place), aligned on the global task ids."""
    if pmu is None or pmu.empty:
        return
    pmu = pmu.reindex(gids)
    for col in pmu.columns:
        frame[col] = pmu[col].to_numpy(dtype=np.float32 if col in C.FLOAT32_COLUMNS else np.float64)


def _with_communication(frame: pd.DataFrame, comm: pd.DataFrame | None) -> pd.DataFrame:
    """The task rows followed by the communication operators, text columns kept categorical."""
    if comm is None or comm.empty:
        return frame
    frame = pd.concat([frame, comm], ignore_index=True)
    for col in C.CATEGORY_COLUMNS:
        if col in frame.columns and not isinstance(frame[col].dtype, pd.CategoricalDtype):
            frame[col] = frame[col].astype("category")
    return frame


def _pmu(conn: sqlite3.Connection, tables: set[str], lookup_ids: np.ndarray,
         lookup_values: np.ndarray) -> pd.DataFrame | None:
    if "TASK_PMU_INFO" not in tables:
        return None
    wanted = {int(i): str(v) for i, v in zip(lookup_ids, lookup_values) if str(v) in _PMU}
    if not wanted:
        return pd.DataFrame()
    placeholders = ",".join("?" * len(wanted))
    rows = pd.read_sql_query(
        f"SELECT globalTaskId AS gid, name, value FROM TASK_PMU_INFO WHERE name IN ({placeholders})",
        conn, params=list(wanted),
    )
    if rows.empty:
        return pd.DataFrame()
    rows["name"] = rows["name"].map(wanted).map(_PMU)
    rows["value"] = pd.to_numeric(rows["value"], errors="coerce")
    ns = rows["name"].str.endswith("_us") & (rows["name"] != "aic_cube_fops")
    rows.loc[ns, "value"] = rows.loc[ns, "value"] / 1000.0  # DB *_time values are ns
    table = rows.pivot_table(index="gid", columns="name", values="value", aggfunc="first")
    table.columns.name = None
    return table


def _communication(conn: sqlite3.Connection, tables: set[str], info_cols: list[str]) -> pd.DataFrame | None:
    if "COMMUNICATION_OP" not in tables:
        return None
    rows = conn.execute(
        "SELECT s1.value, s2.value, o.startNs, o.endNs FROM COMMUNICATION_OP o "
        "LEFT JOIN STRING_IDS s1 ON s1.id = o.opName LEFT JOIN STRING_IDS s2 ON s2.id = o.opType"
    ).fetchall()
    if not rows:
        return None
    names = [str(r[0] or "hcom") for r in rows]
    types = [str(r[1] or "hcom") for r in rows]
    start = np.array([r[2] if isinstance(r[2], int) else -1 for r in rows], dtype=np.int64)
    end = np.array([r[3] if isinstance(r[3], int) else -1 for r in rows], dtype=np.int64)
    return pd.DataFrame({
        C.NAME: pd.Categorical(names),
        C.OP_TYPE: pd.Categorical(types),
        C.CORE_TYPE: pd.Categorical(["HCCL"] * len(rows)),
        C.START_NS: start,
        C.DURATION_US: np.where((start >= 0) & (end >= start), (end - start) / 1000.0, np.nan),
        C.WAIT_US: np.full(len(rows), np.nan, dtype=np.float32),
    })


def _assign_steps(start_ns: np.ndarray, steps: pd.DataFrame) -> pd.arrays.IntegerArray:
    """Step id per task: the step whose [start, end] contains the task start (vectorised)."""
    starts = steps["start_ns"].to_numpy(dtype=np.int64)
    ends = steps["end_ns"].to_numpy(dtype=np.int64)
    ids = pd.to_numeric(steps["step"], errors="coerce").fillna(-1).to_numpy(dtype=np.int64)
    idx = np.searchsorted(starts, start_ns, side="right") - 1
    ok = (idx >= 0) & (start_ns >= 0)
    idx_c = np.clip(idx, 0, len(starts) - 1)
    ok &= start_ns <= ends[idx_c]
    values = np.where(ok, ids[idx_c], 0)
    return pd.arrays.IntegerArray(values.astype(np.int64), ~ok | (values < 0))
