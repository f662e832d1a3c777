"""MSTX marks in the Ascend profiler database: what a kernel alone does not record (profiler-formats.md §4.3).

Two public conventions put FLOP information into ``MSTX_EVENTS`` (text through ``STRING_IDS``,
the domain through ``domainId``):

* domain ``mfu_flops`` — torch_npu's ``with_flops=True`` wraps each counted call
  (``npu_fusion_attention``, the matmul family …) in one host range whose message is
  ``"<FLOPs>-<op name>"``;
* domain ``flash_attn_args`` — a mark the user's patch of ``npu_fusion_attention`` writes just
  before the call, with JSON ``{"input_layout", "sparse_mode", "actual_seq_qlen", "actual_seq_kvlen"}``.

Both are host-side, on the Python thread. A kernel is tied to them through the framework op that
launched it (``PYTORCH_API ⋈ CONNECTION_IDS ⋈ TASK``, §8.3): a kernel belongs to the innermost
``mfu_flops`` range on its op's thread that contains its op's start; an ``flash_attn_args`` mark
belongs to the next FlashAttention kernel whose op starts on the same thread within
:data:`ARGS_WINDOW_NS`. A range's FLOPs are spread over its kernels by time (as a GPU op's are).

The result is four columns on the kernel frame (``recorded_flops``, ``recorded_range``,
``attributes``, ``enrichment``); the analysis uses recorded FLOPs only for ranges where no kernel
has FLOPs from its own shapes, and says per kernel which source gave its FLOPs.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.database import open_database

if TYPE_CHECKING:
    from pathlib import Path

FLOPS_DOMAIN = "mfu_flops"
ARGS_DOMAIN = "flash_attn_args"
#: A flash_attn_args mark attaches to the next FlashAttention op starting within this window.
ARGS_WINDOW_NS = 3_000_000
#: A text-export kernel (µs with a fraction) and its database task start within this are the same task.
MATCH_TOLERANCE_NS = 1_000
#: The FlashAttention kernels a flash_attn_args mark may describe.
FA_TYPES = re.compile(r"^FlashAttention(Unpadding)?Score(Grad)?$")
#: The arguments a flash_attn_args mark may carry, in the order they are written to ``attributes``.
ARG_NAMES = ("input_layout", "sparse_mode", "actual_seq_qlen", "actual_seq_kvlen")
_FLOPS_MESSAGE = re.compile(r"^\s*(\d+)\s*-\s*(.+?)\s*$")


@dataclass
class Marks:
    """The ``mfu_flops`` ranges and ``flash_attn_args`` marks of one database."""

    ranges: pd.DataFrame  # start_ns, end_ns, tid, flops, op
    args: pd.DataFrame  # start_ns, tid, attributes
    problems: list[str] = field(default_factory=list)


def read_marks(conn: sqlite3.Connection) -> Marks | None:
    """The marks in our two domains, or ``None`` when the database has none."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not {"MSTX_EVENTS", "STRING_IDS"} <= tables:
        return None
    rows = pd.read_sql_query(
        "SELECT m.startNs AS start_ns, m.endNs AS end_ns, m.globalTid AS tid, d.value AS domain, s.value AS message "
        "FROM MSTX_EVENTS m JOIN STRING_IDS d ON d.id = m.domainId LEFT JOIN STRING_IDS s ON s.id = m.message "
        "WHERE d.value IN (?, ?)", conn, params=[FLOPS_DOMAIN, ARGS_DOMAIN])
    if rows.empty:
        return None
    for col in ("start_ns", "end_ns", "tid"):
        rows[col] = pd.to_numeric(rows[col], errors="coerce")
    problems: list[str] = []
    ranges = _flops_ranges(rows[rows["domain"] == FLOPS_DOMAIN], problems)
    args = _arg_marks(rows[rows["domain"] == ARGS_DOMAIN], problems)
    return Marks(ranges, args, problems)


def _flops_ranges(rows: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    parsed = rows["message"].astype(str).str.extract(_FLOPS_MESSAGE)
    flops = pd.to_numeric(parsed[0], errors="coerce")
    ok = flops.gt(0) & rows["start_ns"].notna() & rows["end_ns"].ge(rows["start_ns"])
    if (~ok).sum():
        problems.append(f"{int((~ok).sum())} of {len(rows)} {FLOPS_DOMAIN} ranges skipped: message not "
                        "'<FLOPs>-<op name>' with FLOPs > 0, or no end time")
    return pd.DataFrame({
        "start_ns": rows["start_ns"][ok].to_numpy(np.int64), "end_ns": rows["end_ns"][ok].to_numpy(np.int64),
        "tid": rows["tid"][ok].fillna(-1).to_numpy(np.int64), "flops": flops[ok].to_numpy(np.float64),
        "op": parsed[1][ok].to_numpy(object),
    })


def arguments_text(message: str) -> str | None:
    """``flash_attn_args`` JSON → ``input_layout=TND;sparse_mode=3;actual_seq_qlen=128,256;…`` (or ``None``)."""
    try:
        value = json.loads(message)
    except (TypeError, ValueError):
        return None
    if not isinstance(value, dict):
        return None
    parts = []
    for name in ARG_NAMES:
        item = value.get(name)
        if isinstance(item, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in item) and item:
            parts.append(f"{name}={','.join(str(x) for x in item)}")
        elif isinstance(item, (str, int)) and not isinstance(item, bool) and str(item).strip():
            parts.append(f"{name}={str(item).strip()}")
    return ";".join(parts) or None


def _arg_marks(rows: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    texts = [arguments_text(m) for m in rows["message"].tolist()]
    ok = np.array([t is not None for t in texts], dtype=bool) & rows["start_ns"].notna().to_numpy()
    if (~ok).sum():
        problems.append(f"{int((~ok).sum())} of {len(rows)} {ARGS_DOMAIN} marks skipped: message is not a JSON "
                        f"object with any of {', '.join(ARG_NAMES)}")
    return pd.DataFrame({
        "start_ns": rows["start_ns"][ok].to_numpy(np.int64), "tid": rows["tid"][ok].fillna(-1).to_numpy(np.int64),
        "attributes": np.asarray(texts, dtype=object)[ok],
    })


def read_launches(conn: sqlite3.Connection) -> pd.DataFrame | None:
    """Per device task: its start and the start and thread of the framework op that launched it.

    ``None`` when the database lacks the framework-op tables (then marks cannot be tied to kernels).
    Nested framework ops reaching the same task: the innermost (latest start) is kept.
    """
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not {"PYTORCH_API", "CONNECTION_IDS", "TASK"} <= tables:
        return None
    rows = pd.read_sql_query(
        "SELECT t.startNs AS task_ns, CAST(p.startNs AS INTEGER) AS op_ns, p.globalTid AS tid FROM PYTORCH_API p "
        "JOIN CONNECTION_IDS c ON c.id = p.connectionId JOIN TASK t ON t.connectionId = c.connectionId", conn)
    for col in ("task_ns", "op_ns", "tid"):
        rows[col] = pd.to_numeric(rows[col], errors="coerce")
    rows = rows.dropna(subset=["task_ns", "op_ns"])
    rows = rows.sort_values("op_ns").drop_duplicates("task_ns", keep="last")
    return rows.astype({"task_ns": np.int64, "op_ns": np.int64}).assign(tid=rows["tid"].fillna(-1).astype(np.int64))


def _kernel_ops(kernels: pd.DataFrame, launches: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per kernel row: its framework op's start and thread (−1 where no launch matches its start)."""
    start = kernels[C.START_NS].to_numpy(np.int64)
    order = np.argsort(launches["task_ns"].to_numpy(), kind="stable")
    task = launches["task_ns"].to_numpy()[order]
    op_ns = launches["op_ns"].to_numpy()[order]
    tid = launches["tid"].to_numpy()[order]
    if len(task) == 0:
        return np.full(len(start), -1, np.int64), np.full(len(start), -1, np.int64)
    pos = np.clip(np.searchsorted(task, start), 0, len(task) - 1)
    prev = np.clip(pos - 1, 0, len(task) - 1)
    nearest = np.where(np.abs(task[prev] - start) < np.abs(task[pos] - start), prev, pos)
    ok = (np.abs(task[nearest] - start) <= MATCH_TOLERANCE_NS) & (start >= 0)
    return np.where(ok, op_ns[nearest], -1), np.where(ok, tid[nearest], -1)


def _innermost_range(op_ns: np.ndarray, op_tid: np.ndarray, ranges: pd.DataFrame) -> np.ndarray:
    """Per kernel: index of the innermost range on its thread containing its op's start (−1 for none).

    Ranges are taken as properly nested (each wraps one call); a kernel outside the latest
    range that started before it climbs to that range's parents.
    """
    out = np.full(len(op_ns), -1, np.int64)
    for tid in np.unique(ranges["tid"].to_numpy()):
        on_thread = np.flatnonzero(ranges["tid"].to_numpy() == tid)
        r = ranges.iloc[on_thread]
        order = np.argsort(r["start_ns"].to_numpy(), kind="stable")
        starts, ends = r["start_ns"].to_numpy()[order], r["end_ns"].to_numpy()[order]
        parent = _parents(starts, ends)
        rows = np.flatnonzero((op_ns >= 0) & ((op_tid == tid) | (tid < 0) | (op_tid < 0)))
        cand = np.searchsorted(starts, op_ns[rows], side="right") - 1
        for _ in range(64):  # nesting depth; a few levels in practice
            outside = (cand >= 0) & (op_ns[rows] > ends[np.clip(cand, 0, None)])
            if not outside.any():
                break
            cand = np.where(outside, parent[np.clip(cand, 0, None)], cand)
        hit = cand >= 0
        out[rows[hit]] = on_thread[order[cand[hit]]]
    return out


def _parents(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Enclosing range of each range (sorted by start), −1 for top-level ones."""
    parent = np.full(len(starts), -1, np.int64)
    stack: list[int] = []
    for i in range(len(starts)):  # one pass over the ranges (not the kernels)
        while stack and ends[stack[-1]] < starts[i]:
            stack.pop()
        parent[i] = stack[-1] if stack else -1
        stack.append(i)
    return parent


def spread_by_time(group: np.ndarray, duration_us: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Each row's part of its group's total, by its share of the group's time (equal parts when all are 0).

    Args:
        group: Group index per row (−1 = none: NaN).
        duration_us: Row durations.
        totals: Total per group.
    """
    out = np.full(len(group), np.nan)
    has = group >= 0
    if not has.any():
        return out
    g, dur = group[has], np.nan_to_num(np.clip(duration_us[has], 0, None))
    time = np.bincount(g, weights=dur, minlength=len(totals))
    n = np.bincount(g, minlength=len(totals))
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(time[g] > 0, dur / time[g], 1.0 / n[g])
    out[has] = totals[g] * share
    return out


def _attach_args(kernels: pd.DataFrame, op_ns: np.ndarray, op_tid: np.ndarray, args: pd.DataFrame) -> np.ndarray:
    """Per kernel: the attributes of the flash_attn_args mark just before its FlashAttention op (or None)."""
    out = np.full(len(kernels), None, dtype=object)
    if args.empty or C.OP_TYPE not in kernels.columns:
        return out
    types = kernels[C.OP_TYPE].astype(str).to_numpy()
    is_fa = np.array([bool(FA_TYPES.match(t)) for t in pd.unique(types)])
    fa_rows = np.flatnonzero(np.isin(types, pd.unique(types)[is_fa]) & (op_ns >= 0))
    for tid in np.unique(args["tid"].to_numpy()):
        rows = fa_rows[(op_tid[fa_rows] == tid) | (tid < 0)]
        if len(rows) == 0:
            continue
        rows = rows[np.argsort(op_ns[rows], kind="stable")]
        marks = args[args["tid"] == tid].sort_values("start_ns", kind="stable")
        pos = np.searchsorted(op_ns[rows], marks["start_ns"].to_numpy(), side="left")
        ok = pos < len(rows)
        ok[ok] &= op_ns[rows[pos[ok]]] - marks["start_ns"].to_numpy()[ok] <= ARGS_WINDOW_NS
        out[rows[pos[ok]]] = marks["attributes"].to_numpy()[ok]  # a later mark for the same op wins
    return out


@dataclass
class Enrichment:
    """The columns to add to a kernel frame and what was found."""

    columns: dict[str, object]
    notes: list[str]
    problems: list[str]


def enrich_kernels(kernels: pd.DataFrame, db: Path) -> Enrichment | None:
    """Tie a database's marks to a kernel frame read from that database or its text export.

    Returns:
        The new columns and notes, or ``None`` when the database holds no marks of ours.
    """
    try:
        conn = open_database(db)
    except sqlite3.Error:
        return None
    try:
        marks = read_marks(conn)
        if marks is None:
            return None
        launches = read_launches(conn)
    except sqlite3.DatabaseError as exc:
        return Enrichment({}, [], [f"MSTX marks in {db.name} could not be read ({exc})"])
    finally:
        conn.close()
    if launches is None:
        return Enrichment({}, [], [f"{db.name} has {FLOPS_DOMAIN}/{ARGS_DOMAIN} marks but no PYTORCH_API/"
                                   "CONNECTION_IDS tables to tie them to kernels: marks not used"])
    op_ns, op_tid = _kernel_ops(kernels, launches)
    rng = _innermost_range(op_ns, op_tid, marks.ranges) if len(marks.ranges) else np.full(len(kernels), -1)
    dur = kernels[C.DURATION_US].to_numpy(np.float64)
    recorded = spread_by_time(rng, dur, marks.ranges["flops"].to_numpy(np.float64))
    attrs = _attach_args(kernels, op_ns, op_tid, marks.args)
    has_args = np.array([a is not None for a in attrs], dtype=bool)
    labels = np.where(rng >= 0, np.where(has_args, f"{FLOPS_DOMAIN}, {ARGS_DOMAIN}", FLOPS_DOMAIN),
                      np.where(has_args, ARGS_DOMAIN, None))
    columns: dict[str, object] = {
        C.RECORDED_FLOPS: recorded, C.RECORDED_RANGE: rng.astype(np.int32),
        C.ENRICHMENT: pd.Categorical(labels),
    }
    if has_args.any():
        columns[C.ATTRIBUTES] = pd.Categorical(attrs)
    used = np.unique(rng[rng >= 0])
    notes = [f"{db.name}: {len(marks.ranges)} {FLOPS_DOMAIN} ranges ({len(used)} tied to "
             f"{int((rng >= 0).sum())} kernels), {len(marks.args)} {ARGS_DOMAIN} marks ({int(has_args.sum())} tied "
             "to FlashAttention kernels)"]
    problems = list(marks.problems)
    if len(marks.ranges) and len(used) < len(marks.ranges):
        problems.append(f"{len(marks.ranges) - len(used)} {FLOPS_DOMAIN} ranges cover no kernel of this capture "
                        "(no framework op started inside them)")
    if len(marks.args) and int(has_args.sum()) < len(marks.args):
        problems.append(f"{len(marks.args) - int(has_args.sum())} {ARGS_DOMAIN} marks have no FlashAttention "
                        f"kernel launched within {ARGS_WINDOW_NS / 1e6:g} ms after them on their thread")
    return Enrichment(columns, notes, problems)
