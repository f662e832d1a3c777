"""A Kineto trace's compact columns → the canonical kernel frame and the step trace (profiler-formats.md §13).

* **Kernels → ops.** A kernel's ``External id`` is its launching ``cpu_op``'s (else its
  ``correlation`` → the runtime launch → the innermost op on that thread around the launch).
  Its FLOPs belong to the innermost op *with a FLOP rule* at or above the launching op
  (``aten::addmm`` under ``aten::linear``; ``aten::_scaled_dot_product_flash_attention`` above
  ``aten::_flash_attention_forward``), spread over that op's kernels by time. A ruled op with
  a ruled descendant is decomposed: its other children (the bias ``aten::add_`` of a linear
  that became ``matmul → mm`` + ``add_``) carry no FLOPs and are judged by their bytes.
* **Op calls.** ``op_call`` names that op's call (its row among the ops), so a compare counts
  calls of ``aten::mm`` whatever the number of kernels each launched (cuBLAS: GEMM + memset).
* **Classes.** Kernels of ops with a FLOP rule are matrix work (``GPU_MATRIX``), NCCL/RCCL
  kernels communication, memcpy/memset copies, everything else vector.
* **TF32** (:mod:`.precision`): FP32 matmul kernels that ran on tensor cores are marked for the
  TF32 peak.
* **Steps** (:mod:`.steps`): disjoint, ordered windows from ``ProfilerStep#N`` — the GPU range
  when it holds the kernels its CPU step launched, else their GPU span — and the breakdown by
  the same interval arithmetic as Ascend's step trace.

Everything is vectorised: the op tree is built level by level (ops nest by time on a thread),
regexes run once per distinct kernel name, texts stay interned codes up to the categoricals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.kineto.device import GpuDevice
from mfu_desktop.core.readers.kineto.events import TraceEvents
from mfu_desktop.core.readers.kineto.precision import fp32_inputs, tf32_column, tf32_note
from mfu_desktop.core.readers.kineto.steps import KernelTimes, step_breakdown, step_windows
from mfu_desktop.core.readers.step_trace import StepTrace

#: Kernels of collective communication libraries.
COMM_KERNEL = re.compile(r"nccl|rccl", re.IGNORECASE)
#: Matrix-unit kernels recognised by name when no op says so (GPU-only traces).
MATRIX_KERNEL = re.compile(r"gemm|cutlass|xmma|cublas|hipblaslt|Cijk_|flash|fmha|conv", re.IGNORECASE)


# --- the op tree ----------------------------------------------------------------------------


class OpTree:
    """CPU ops nested by time per thread: each op's depth and parent, and each thread's ops in start order.

    Ops on one thread are ordered by start, longest first on ties; an op's depth is the number of
    earlier ops still open when it starts, its parent the latest earlier op one level up.
    """

    def __init__(self, ts: np.ndarray, end: np.ndarray, thread: np.ndarray) -> None:
        n = len(ts)
        self.ts, self.end = ts, end
        self.depth = np.zeros(n, dtype=np.int64)
        self.parent = np.full(n, -1, dtype=np.int64)
        self.position = np.zeros(n, dtype=np.int64)  # place in its thread's start order
        self.threads: dict[int, np.ndarray] = {}
        for t in np.unique(thread).tolist():
            rows = np.flatnonzero(thread == t)
            rows = rows[np.lexsort((-(end[rows] - ts[rows]), ts[rows]))]
            self.threads[t] = rows
            before = np.arange(len(rows))
            self.depth[rows] = before - np.searchsorted(np.sort(end[rows]), ts[rows], side="left")
            self.position[rows] = before
            self._link(rows)

    def _link(self, rows: np.ndarray) -> None:
        """Parent = the latest earlier op of the thread one level up (one pass per nesting level)."""
        depth = self.depth[rows]
        for level in range(1, int(depth.max(initial=0)) + 1):
            up = np.flatnonzero(depth == level - 1)  # positions in start order, ascending
            here = np.flatnonzero(depth == level)
            pos = np.searchsorted(up, here) - 1
            ok = pos >= 0
            self.parent[rows[here[ok]]] = rows[up[pos[ok]]]

    def levels(self) -> list[np.ndarray]:
        """Ops grouped by depth, shallowest first."""
        order = np.argsort(self.depth, kind="stable")
        bounds = np.searchsorted(self.depth[order], np.arange(int(self.depth.max(initial=-1)) + 2))
        return [order[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]

    def nearest(self, marked: np.ndarray) -> np.ndarray:
        """For each op, itself when marked, else its nearest marked ancestor (−1 when none)."""
        out = np.full(len(marked), -1, dtype=np.int64)
        for ops in self.levels():
            par = self.parent[ops]
            inherited = np.where(par >= 0, out[np.clip(par, 0, None)], -1)
            out[ops] = np.where(marked[ops], ops, inherited)
        return out

    def above(self, marked: np.ndarray) -> np.ndarray:
        """For each op, True when one of its descendants (not itself) is marked (one pass per level, deepest first)."""
        out = np.zeros(len(marked), dtype=bool)
        for ops in reversed(self.levels()):
            par = self.parent[ops]
            hit = (par >= 0) & (marked[ops] | out[ops])
            out[par[hit]] = True
        return out

    def innermost_at(self, thread: int, times: np.ndarray) -> np.ndarray:
        """The innermost op of ``thread`` open at each time (−1 when none)."""
        rows = self.threads.get(thread)
        if rows is None or len(times) == 0:
            return np.full(len(times), -1, dtype=np.int64)
        pos = np.searchsorted(self.ts[rows], times, side="right") - 1
        op = np.where(pos >= 0, rows[np.clip(pos, 0, None)], -1)
        for _ in range(int(self.depth.max(initial=0)) + 1):  # climb out of ops that ended before the time
            closed = (op >= 0) & (self.end[np.clip(op, 0, None)] < times)
            if not closed.any():
                break
            op = np.where(closed, self.parent[np.clip(op, 0, None)], op)
        return op


def launching_ops(ev: TraceEvents, tree: OpTree, ext: object = None, corr: object = None) -> np.ndarray:
    """The op that launched each kernel: by External id, else by correlation → launch → op around it.

    ``ext`` and ``corr`` give other kernels' ids instead (the excluded kernels' ``x_ext``/``x_corr``).
    """
    k_ext = np.frombuffer(ev.k_ext if ext is None else ext, dtype=np.int64)
    op_ext = np.frombuffer(ev.op_ext, dtype=np.int64)
    out = np.full(len(k_ext), -1, dtype=np.int64)
    known = np.flatnonzero(op_ext >= 0)
    if len(known):
        order = known[np.argsort(op_ext[known], kind="stable")]
        sorted_ext = op_ext[order]
        pos = np.clip(np.searchsorted(sorted_ext, k_ext), 0, len(order) - 1)
        hit = (k_ext >= 0) & (sorted_ext[pos] == k_ext)
        out[hit] = order[pos[hit]]
    missing = np.flatnonzero(out < 0)
    l_corr = np.frombuffer(ev.l_corr, dtype=np.int64)
    if len(missing) == 0 or len(l_corr) == 0 or ev.ops == 0:
        return out
    l_order = np.argsort(l_corr, kind="stable")
    k_corr = np.frombuffer(ev.k_corr if corr is None else corr, dtype=np.int64)[missing]
    pos = np.clip(np.searchsorted(l_corr[l_order], k_corr), 0, len(l_order) - 1)
    found = (k_corr >= 0) & (l_corr[l_order][pos] == k_corr)
    kernels, launch = missing[found], l_order[pos[found]]
    l_thread = np.frombuffer(ev.l_thread, dtype=np.int64)[launch]
    l_ts = np.frombuffer(ev.l_ts, dtype=np.float64)[launch]
    for thread in np.unique(l_thread).tolist():  # a handful of launching threads
        mine = l_thread == thread
        out[kernels[mine]] = tree.innermost_at(thread, l_ts[mine])
    return out


# --- the frame ------------------------------------------------------------------------------


def _name_flags(names: list[str], pattern: re.Pattern[str]) -> np.ndarray:
    """Per string code: whether the pattern matches (the regex runs once per distinct text)."""
    return np.array([bool(pattern.search(n)) for n in names] + [False], dtype=bool)


def _text_column(codes: np.ndarray, table: np.ndarray) -> pd.Categorical:
    """Interned codes (−1 = none) → a categorical whose empty texts are missing."""
    used, inverse = np.unique(codes, return_inverse=True)
    texts = [table[c] if c >= 0 else "" for c in used.tolist()]
    cats = [t for t in texts if t]
    index = {t: i for i, t in enumerate(dict.fromkeys(cats))}
    remap = np.array([index.get(t, -1) for t in texts], dtype=np.int64)
    return pd.Categorical.from_codes(remap[inverse] if len(codes) else np.zeros(0, np.int64),
                                     categories=list(index))


@dataclass
class TraceFrame:
    """What a trace gives a rank: its kernels, its step trace, warnings and notes."""

    kernels: pd.DataFrame
    steps: StepTrace | None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def flop_ops(ev: TraceEvents, tree: OpTree, launching: np.ndarray) -> np.ndarray:
    """Per kernel, the op whose FLOPs it carries (−1: none): the innermost op with a FLOP rule at or above its launcher.

    A ruled op with a ruled descendant (``aten::linear`` → ``aten::matmul`` → ``aten::mm``) is decomposed:
    its FLOPs are counted at the descendant, and its other children (the bias ``aten::add_``) get none.
    """
    ruled = ev.ruled_ops()
    if not len(ruled) or not len(launching):
        return np.full(len(launching), -1, dtype=np.int64)
    nearest = tree.nearest(ruled & ~tree.above(ruled))
    return np.where(launching >= 0, nearest[np.clip(launching, 0, None)], -1)


def kernel_frame(ev: TraceEvents, device: GpuDevice | None = None) -> TraceFrame:
    """The canonical kernel frame of a trace, its step trace and what was (not) found."""
    n = ev.kernels
    op_ts = np.frombuffer(ev.op_ts, dtype=np.float64)
    op_end = op_ts + np.frombuffer(ev.op_dur, dtype=np.float64)
    tree = OpTree(op_ts, op_end, np.frombuffer(ev.op_thread, dtype=np.int64))
    launching = launching_ops(ev, tree) if n else np.zeros(0, dtype=np.int64)
    ruled = flop_ops(ev, tree, launching)
    start = np.frombuffer(ev.k_ts, dtype=np.float64)
    dur = np.frombuffer(ev.k_dur, dtype=np.float64)
    k_name = np.frombuffer(ev.k_name, dtype=np.int32).astype(np.int64)
    is_comm = _name_flags(ev.strings.values, COMM_KERNEL)[k_name]
    copy = np.frombuffer(ev.k_cat, dtype=np.int32) != ev.strings.code("kernel")
    matrix = (ruled >= 0) | _name_flags(ev.strings.values, MATRIX_KERNEL)[k_name]
    core = np.where(is_comm, 0, np.where(copy, 1, np.where(matrix, 2, 3)))
    op_name = np.frombuffer(ev.op_name, dtype=np.int32).astype(np.int64)
    op_of = np.where(ruled >= 0, ruled, launching)
    share = _flops_share(op_of, dur, ev.ops)
    if len(ev.x_ext):  # an op whose kernel was excluded cannot share its FLOPs over the kernels left
        share[np.isin(op_of, _ops_of_excluded(ev, tree))] = np.nan
    shapes, dtypes, attrs = _op_cells(ev, op_of)
    tf32 = tf32_column(ev.strings.values, k_name, fp32_inputs(ev.strings.values, dtypes), ruled, device)
    times = KernelTimes(start, start + dur, is_comm, ~is_comm & ~copy, np.frombuffer(ev.k_stream, dtype=np.int64),
                        np.where(launching >= 0, op_ts[np.clip(launching, 0, None)] if ev.ops else np.nan, np.nan))
    steps = step_windows(ev.cpu_steps, ev.gpu_steps, times)
    table = ev.strings.table()
    frame = pd.DataFrame({
        C.STEP_ID: np.where(steps.step_of >= 0, steps.step_of, np.nan).astype(np.float32),
        C.NAME: _text_column(k_name, table),
        C.OP_TYPE: _text_column(np.where(op_of >= 0, op_name[np.clip(op_of, 0, None)] if ev.ops else -1, -1), table),
        C.CORE_TYPE: pd.Categorical.from_codes(core, categories=["GPU_COMM", "GPU_COPY", "GPU_MATRIX", "GPU_VECTOR"]),
        C.START_NS: np.round(start * 1000.0).astype(np.int64),
        C.DURATION_US: dur.copy(),
        C.HF32_ELIGIBLE: tf32,
        C.INPUT_SHAPES: _text_column(shapes, table),
        C.INPUT_DTYPES: _text_column(dtypes, table),
        C.ATTRIBUTES: _text_column(attrs, table),
        C.FLOPS_SHARE: share,  # float64: FLOPs × share must add up to the op's FLOPs
        C.STREAM_ID: times.stream.copy(),
        C.OP_CALL: op_of.astype(np.int64),  # the op whose type the kernel carries: calls are counted on it
    })
    trace = StepTrace(step_breakdown(steps.windows, times), f"Kineto {steps.source}") if steps.windows else None
    notes = [*steps.notes, tf32_note(tf32, device.vendor if device else "GPU")]
    return TraceFrame(frame, trace, [*_link_notes(ev, launching), *steps.warnings], [n for n in notes if n])


def _ops_of_excluded(ev: TraceEvents, tree: OpTree) -> np.ndarray:
    """The ops (the one carrying its FLOPs, else the launching one) of the kernels excluded for unusable times."""
    launching = launching_ops(ev, tree, ev.x_ext, ev.x_corr)
    ruled = flop_ops(ev, tree, launching)
    op_of = np.where(ruled >= 0, ruled, launching)
    return np.unique(op_of[op_of >= 0])


def _flops_share(op_of: np.ndarray, dur: np.ndarray, ops: int) -> np.ndarray:
    """Each kernel's share of its op's FLOPs and bytes: its part of the op's kernel time."""
    share = np.ones(len(op_of), dtype=np.float64)
    has = op_of >= 0
    if has.any():
        total = np.bincount(op_of[has], weights=dur[has], minlength=ops)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(has, dur / total[np.clip(op_of, 0, None)], 1.0)
        share = np.where(np.isfinite(share), share, 0.0)
    return share


def _op_cells(ev: TraceEvents, op_of: np.ndarray) -> tuple[np.ndarray, ...]:
    """Shape, dtype and attribute codes per kernel from its op (−1 = none).

    ``op_of`` is the ruled op where there is one, else the launching op (its shapes give bytes).
    """
    if ev.ops == 0:
        none = np.full(len(op_of), -1, dtype=np.int64)
        return none, none, none
    at = np.clip(op_of, 0, None)

    def cells(column: object) -> np.ndarray:
        codes = np.frombuffer(column, dtype=np.int32).astype(np.int64)
        return np.where(op_of >= 0, codes[at], -1)

    return cells(ev.op_dims), cells(ev.op_types), cells(ev.op_concrete)


def _link_notes(ev: TraceEvents, launching: np.ndarray) -> list[str]:
    notes = []
    if ev.ops == 0:
        notes.append("no CPU ops in the trace (GPU-only capture): no shapes, so no FLOPs-based MFU — capture with "
                     "activities CPU + CUDA and record_shapes=True")
    elif not ev.has_op_shapes():
        notes.append("no op with a FLOP rule recorded its shapes: capture with record_shapes=True")
    unlinked = int((launching < 0).sum())
    if unlinked and ev.ops:
        notes.append(f"{unlinked:,} of {ev.kernels:,} GPU kernels could not be linked to a CPU op")
    return notes
