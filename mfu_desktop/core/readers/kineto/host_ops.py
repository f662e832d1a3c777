"""A trace's ``cpu_op`` events as host operators, each kernel linked to the op that launched it (§13).

The trace is decoded again (:func:`~mfu_desktop.core.readers.kineto.read.read_trace`, shapes
not kept): kernels come back in the order the kernel frame was built from, so kernel ``i`` of the
trace is row ``i`` of the frame, and :func:`~mfu_desktop.core.readers.kineto.frame.launching_ops`
gives its op exactly as the analysis found it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.readers.host_records import HostOps
from mfu_desktop.core.readers.kineto.byte_stream import TraceFormatError
from mfu_desktop.core.readers.kineto.frame import OpTree, launching_ops
from mfu_desktop.core.readers.kineto.read import read_trace


def trace_host_ops(path: Path, kernels: pd.DataFrame) -> HostOps | None:
    """The ``cpu_op`` events of the trace at ``path``, linked to the rows of ``kernels``; ``None`` when unreadable."""
    try:
        ev = read_trace(path, keeps=lambda name: False)
    except (TraceFormatError, OSError):
        return None
    if ev.ops == 0:
        return None
    ts = np.frombuffer(ev.op_ts, dtype=np.float64)
    dur = np.frombuffer(ev.op_dur, dtype=np.float64)
    thread = np.frombuffer(ev.op_thread, dtype=np.int64)
    tree = OpTree(ts, ts + dur, thread)
    notes = []
    if ev.kernels == len(kernels):
        kernel_op = launching_ops(ev, tree)
    else:
        kernel_op = np.full(len(kernels), -1, dtype=np.int64)
        notes.append(f"{path.name} now holds {ev.kernels:,} kernels, the analysis {len(kernels):,}: the file changed "
                     "since it was analysed, host ops are not linked to kernels")
    table = ev.strings.table()
    codes = np.frombuffer(ev.op_name, dtype=np.int32).astype(np.int64)
    used, inverse = np.unique(codes, return_inverse=True)
    name = pd.Categorical.from_codes(inverse, categories=[str(t) for t in table[used]])  # interned: distinct
    threads, thread_ids = np.unique(thread, return_inverse=True)
    return HostOps(name=name, thread=thread_ids.astype(np.int64), start_ns=np.round(ts * 1000.0).astype(np.int64),
                   dur_us=dur.copy(), depth=tree.depth.copy(), kernel_op=kernel_op,
                   source=f"cpu_op events of {path.name} ({ev.ops:,} ops on {len(threads)} thread(s))", notes=notes)
