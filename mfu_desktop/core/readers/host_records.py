"""Host (framework) operators of a rank and the kernels each launched: what the host-operator readers fill.

:func:`mfu_desktop.core.readers.host_ops.read_host_ops` says where they come from; this module holds
the record and the two steps every source shares (nesting depth, finding a task among the kernels).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd



@dataclass
class HostOps:
    """A rank's host operators on the capture clock, and each kernel's launching operator.

    Attributes:
        name: Operator name per op (a categorical).
        thread: Thread id per op (the source's own numbers).
        start_ns: Start on the capture clock (the kernels' clock).
        dur_us: Duration.
        depth: Nesting depth on its thread (0 = outermost).
        kernel_op: For each row of the rank's kernel frame, the op that launched it (−1: none).
        source: What was read.
        notes: What could not be linked, and why.
    """

    name: pd.Categorical
    thread: np.ndarray
    start_ns: np.ndarray
    dur_us: np.ndarray
    depth: np.ndarray
    kernel_op: np.ndarray
    source: str = ""
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.start_ns)

    def kernels_of(self, op: int) -> np.ndarray:
        """The kernel-frame rows the op ``op`` launched."""
        return np.flatnonzero(self.kernel_op == op)


def nesting_depth(thread: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Each op's depth on its thread: how many earlier ops of the thread are still open when it starts.

    Ops are ordered by start, the longer first on ties (a parent before the child it starts with).
    """
    depth = np.zeros(len(start), dtype=np.int64)
    for t in np.unique(thread).tolist():  # a handful of threads
        rows = np.flatnonzero(thread == t)
        rows = rows[np.lexsort((-(end[rows] - start[rows]), start[rows]))]
        depth[rows] = np.arange(len(rows)) - np.searchsorted(np.sort(end[rows]), start[rows], side="right")
    return np.maximum(depth, 0)


def match_kernels(frame_start_ns: np.ndarray, task_start_ns: np.ndarray, tolerance_ns: int = 1000) -> np.ndarray:
    """For each task, the kernel-frame row that starts at the same time (within ``tolerance_ns``); −1 when none.

    Tasks with equal starts take equal-start rows in order (two streams can start a task at once).
    """
    order = np.argsort(frame_start_ns, kind="stable")
    starts = frame_start_ns[order]
    out = np.full(len(task_start_ns), -1, dtype=np.int64)
    if len(starts) == 0 or len(task_start_ns) == 0:
        return out
    t_order = np.argsort(task_start_ns, kind="stable")
    t = task_start_ns[t_order]
    pos = np.searchsorted(starts, t, side="left")
    # the k-th task of a run of equal starts takes the k-th row of that start
    first_of_run = np.concatenate([[True], t[1:] != t[:-1]])
    run_start = np.maximum.accumulate(np.where(first_of_run, np.arange(len(t)), 0))
    pos = pos + (np.arange(len(t)) - run_start)
    near = np.clip(pos, 0, len(starts) - 1)
    before = np.clip(np.searchsorted(starts, t, side="left") - 1, 0, len(starts) - 1)
    exact = (pos < len(starts)) & (starts[near] == t)
    close = np.abs(starts[near] - t) <= tolerance_ns
    alt = np.abs(starts[before] - t) <= tolerance_ns
    chosen = np.where(exact | close, near, np.where(alt, before, -1))
    out[t_order] = np.where(chosen >= 0, order[np.clip(chosen, 0, None)], -1)
    return out
