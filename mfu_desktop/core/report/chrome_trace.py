"""A rank's timeline as a Chrome trace (Trace Event Format JSON) that Perfetto and MindStudio Insight open.

What the file holds (every time in µs from the trace's origin, the earliest event written):

* process 1 "rank N device": one thread per timeline lane (``AI_CORE · stream 2``, ``stream 7`` …),
  one complete event (``ph: X``) per kernel with ``args`` {type, shapes, flops, mfu, bw_util,
  lost_us, bound, family, flops_source}. Kernels of a lane that partly overlap go to extra
  threads of the same name (``… (2)``): a viewer nests the slices of a thread and would cut
  a slice that is not nested;
* process 2 "rank N host": one thread per host thread, its framework operators, and a flow
  (``ph: s`` → ``ph: f``) from each operator to the kernels it launched — when the rank's files
  have host operators;
* process 3 "rank N steps": a thread with one event per step and a thread with the step
  breakdown (computing, communication not overlapped, free); the memory curve as counters
  (``ph: C``, MB) when the capture has it.

Lines are built column-wise with Arrow (no Python per kernel) and written through
:func:`~mfu_desktop.core.writing.atomic_write`, never inside a profile folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from mfu_desktop.core.analysis.families import family_codes, family_names
from mfu_desktop.core.analysis.timeline import RankTimeline, build_timeline, memory_series
from mfu_desktop.core.analysis.timeline_steps import BREAKDOWN_KINDS
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.writing import atomic_write, forbid_inside

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.memory import RankMemory
    from mfu_desktop.core.analysis.rank import RankAnalysis
    from mfu_desktop.core.readers.host_records import HostOps

DEVICE_PID, HOST_PID, STEPS_PID = 1, 2, 3
#: A lane's kernels are spread over at most this many threads (the rest share the last one).
MAX_OVERLAP_THREADS = 16
#: The ``args`` of every kernel event, in order.
KERNEL_ARGS = ("type", "shapes", "flops", "mfu", "bw_util", "lost_us", "bound", "family", "flops_source")


@dataclass
class TraceExport:
    """What a Chrome-trace export wrote.

    Attributes:
        path: The file.
        kernels: Kernel events written.
        kernel_time_us: Their summed durations.
        host_ops: Host-operator events written.
        origin_ns: The trace's origin on the capture clock.
        step: The step exported (``None``: the whole capture).
        notes: What was left out.
    """

    path: Path
    kernels: int
    kernel_time_us: float
    host_ops: int
    origin_ns: int
    step: str | None
    notes: list[str] = field(default_factory=list)


def _number(values: np.ndarray) -> pa.Array:
    """Numbers as JSON text (shortest round trip); NaN and infinities become ``null``."""
    arr = pa.array(values)
    text = pc.cast(arr, pa.string())
    return pc.if_else(pc.is_finite(arr), text, pa.scalar("null"))


def _quoted(values: pd.Series | pd.Categorical | np.ndarray) -> pa.Array:
    """Texts as JSON strings, escaped once per distinct text; missing → ``""``."""
    cat = pd.Categorical(values) if not isinstance(values, pd.Categorical) else values
    table = np.array([json.dumps(str(c), ensure_ascii=False) for c in cat.categories] + ['""'], dtype=object)
    codes = np.asarray(cat.codes)
    return pa.array(table[np.where(codes < 0, len(table) - 1, codes)], type=pa.string())


def _join(*parts: object) -> pa.Array:
    """Element-wise concatenation of string arrays and literal strings."""
    items = [pa.scalar(p) if isinstance(p, str) else p for p in parts]
    return pc.binary_join_element_wise(*items, "")


def overlap_levels(start: np.ndarray, end: np.ndarray, limit: int = MAX_OVERLAP_THREADS) -> np.ndarray:
    """A thread level per interval (sorted by start) so that the intervals of one level never partly overlap.

    An interval that starts before every earlier interval of its level has ended goes one level up
    (nested ones too: kernels of one stream do not nest). Vectorised, one pass per level; not the
    fewest levels (a kernel waits for all earlier ones of its level), which is fine for the rare
    overlaps of a stream's kernels. Past ``limit`` levels the rest share the last one.
    """
    level = np.zeros(len(start), dtype=np.int64)
    todo = np.arange(len(start))
    for depth in range(limit - 1):
        if len(todo) == 0:
            break
        e = end[todo]
        before = np.concatenate([[-np.inf], np.maximum.accumulate(e)[:-1]])
        clash = start[todo] < before
        level[todo[clash]] = depth + 1
        todo = todo[clash]
    return level


def _device_threads(tl: RankTimeline, chosen: np.ndarray) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Each chosen kernel's thread id and the threads (id, name), in lane order."""
    tid = np.zeros(len(tl.start_us), dtype=np.int64)
    threads: list[tuple[int, str]] = []
    for lane, items in zip(tl.lanes, tl.items):
        if lane.kind != "device":
            continue
        rows = items.rows[chosen[items.rows]]
        levels = overlap_levels(tl.start_us[rows], tl.end_us[rows])
        for level in range(int(levels.max(initial=-1)) + 1):
            threads.append((len(threads) + 1, lane.label if level == 0 else f"{lane.label} ({level + 1})"))
            tid[rows[levels == level]] = len(threads)
    return tid, threads


def _kernel_lines(kernels: pd.DataFrame, rows: np.ndarray, tid: np.ndarray, ts: np.ndarray) -> pa.Array:
    """One complete event per kernel (frame rows ``rows``)."""
    f = kernels.iloc[rows]
    n = len(rows)

    def text(column: str) -> pa.Array:
        return _quoted(f[column].array if column in f.columns else pd.Categorical([None] * n))

    def number(column: str, dtype: type = np.float64) -> pa.Array:
        return _number(f[column].to_numpy(dtype=dtype) if column in f.columns else np.full(n, np.nan))

    names = f[C.NAME] if C.NAME in f.columns else pd.Series([None] * n)
    family = np.array(family_names(), dtype=object)[family_codes(
        f[C.OP_TYPE] if C.OP_TYPE in f.columns else pd.Series([None] * n), names)]
    bound = f["bound"].astype(object).where(f["bound"].notna(), None) if "bound" in f.columns else [None] * n
    return _join('{"ph":"X","cat":"kernel","name":', _quoted(names.array), f',"pid":{DEVICE_PID},"tid":',
                 _number(tid[rows]), ',"ts":', _number(ts), ',"dur":', number(C.DURATION_US),
                 ',"args":{"type":', text(C.OP_TYPE), ',"shapes":', text(C.INPUT_SHAPES),
                 ',"flops":', number("flops"), ',"mfu":', number("mfu", np.float32),
                 ',"bw_util":', number("bw_util", np.float32), ',"lost_us":', number("lost_us", np.float32),
                 ',"bound":', _quoted(pd.Categorical(bound)), ',"family":', _quoted(pd.Categorical(family)),
                 ',"flops_source":', text("flops_source"), "}}")


def _metadata(pid: int, process: str, threads: list[tuple[int, str]]) -> list[str]:
    out = [json.dumps({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": process}},
                      ensure_ascii=False),
           json.dumps({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": pid}})]
    for tid, name in threads:
        out.append(json.dumps({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}},
                              ensure_ascii=False))
        out.append(json.dumps({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                               "args": {"sort_index": tid}}))
    return out


def _step_lines(tl: RankTimeline, step: str | None, shift: float) -> list[str]:
    """The step events and the breakdown segments (thread 1: steps, thread 2: breakdown)."""
    steps = tl.steps if step is None else tl.steps[tl.steps["step"] == step]
    lines = []
    for label, lo, hi in steps[["step", "start_us", "end_us"]].itertuples(index=False):  # a handful
        lines.append(json.dumps({"ph": "X", "cat": "step", "name": f"step {label}".strip(), "pid": STEPS_PID,
                                 "tid": 1, "ts": round(lo + shift, 3), "dur": round(hi - lo, 3)}))
    parts = tl.breakdown if step is None else tl.breakdown[tl.breakdown["step"] == step]
    kinds = np.array(BREAKDOWN_KINDS, dtype=object)[parts["kind"].to_numpy(np.int64)]
    ts = _number(np.round(parts["start_us"].to_numpy() + shift, 3))
    dur = _number(np.round(parts["end_us"].to_numpy() - parts["start_us"].to_numpy(), 3))
    if len(parts):
        lines += _join('{"ph":"X","cat":"breakdown","name":', _quoted(pd.Categorical(kinds)),
                       f',"pid":{STEPS_PID},"tid":2,"ts":', ts, ',"dur":', dur, "}").to_pylist()
    return lines


def _host_lines(host: HostOps, tl: RankTimeline, chosen: np.ndarray, device_tid: np.ndarray, shift: float,
                window: tuple[float, float] | None) -> tuple[list[str], int, list[tuple[int, str]]]:
    """Host operators (in the window) and their flows to the chosen kernels; the count and the threads.

    Args:
        host: The rank's host operators.
        tl: The rank's timeline.
        chosen: The kernels written.
        device_tid: Each kernel's device thread.
        shift: Timeline µs → trace µs.
        window: The exported time window (``None``: everything).
    """
    start = (host.start_ns - tl.origin_ns) / 1000.0
    end = start + host.dur_us
    keep = np.ones(len(start), dtype=bool) if window is None else (end >= window[0]) & (start <= window[1])
    ops = np.flatnonzero(keep)
    tids = host.thread[ops] + 1
    lines = _join('{"ph":"X","cat":"host_op","name":', _quoted(host.name[ops]), f',"pid":{HOST_PID},"tid":',
                  _number(tids), ',"ts":', _number(np.round(start[ops] + shift, 3)), ',"dur":',
                  _number(host.dur_us[ops]), "}").to_pylist()
    linked = np.flatnonzero(chosen & (host.kernel_op >= 0))
    linked = linked[keep[host.kernel_op[linked]]]
    if len(linked):
        op = host.kernel_op[linked]
        ids = _number(linked)
        lines += _join('{"ph":"s","cat":"launch","name":"launch","id":', ids, f',"pid":{HOST_PID},"tid":',
                       _number(host.thread[op] + 1), ',"ts":', _number(np.round(start[op] + shift, 3)),
                       "}").to_pylist()
        lines += _join('{"ph":"f","bp":"e","cat":"launch","name":"launch","id":', ids, f',"pid":{DEVICE_PID},"tid":',
                       _number(device_tid[linked]), ',"ts":', _number(np.round(tl.start_us[linked] + shift, 3)),
                       "}").to_pylist()
    threads = [(int(t) + 1, f"host thread {int(t)}") for t in np.unique(host.thread[ops])]
    return lines, len(ops), threads


def _counter_lines(memory: RankMemory | None, tl: RankTimeline, shift: float,
                   window: tuple[float, float] | None) -> list[str]:
    """The allocator's allocated and reserved MB as counter events (in the window)."""
    series = memory_series(memory, tl.origin_ns)
    if series is None:
        return []
    t = series["time_us"].to_numpy()
    keep = np.ones(len(t), dtype=bool) if window is None else (t >= window[0]) & (t <= window[1])
    if not keep.any():
        return []
    name = json.dumps(f"memory {memory.allocator} (MB)".replace("  ", " "), ensure_ascii=False)
    return _join('{"ph":"C","cat":"memory","name":', name, f',"pid":{STEPS_PID},"tid":3,"ts":',
                 _number(np.round(t[keep] + shift, 3)), ',"args":{"allocated":',
                 _number(series["allocated_mb"].to_numpy()[keep]), ',"reserved":',
                 _number(series["reserved_mb"].to_numpy()[keep]), "}}").to_pylist()


def _chosen_kernels(r: RankAnalysis, tl: RankTimeline, step: str | None) -> np.ndarray:
    """The kernels to export: every timed kernel, or those of step ``step`` (its Step Id, else its window)."""
    timed = np.isfinite(tl.start_us)
    if step is None:
        return timed
    if C.STEP_ID in r.kernels.columns and r.kernels[C.STEP_ID].notna().any():
        ids = pd.to_numeric(r.kernels[C.STEP_ID], errors="coerce").to_numpy(np.float64)
        try:
            wanted = float(step)
        except ValueError:
            return np.zeros_like(timed)
        return timed & (ids == wanted)
    window = tl.step_of(step)
    return timed & (tl.end_us >= window[0]) & (tl.start_us <= window[1]) if window else np.zeros_like(timed)


def _origin_shift(tl: RankTimeline, chosen: np.ndarray, host: HostOps | None, window: tuple[float, float] | None,
                  memory: RankMemory | None) -> float:
    """Timeline µs → trace µs: the earliest event written becomes 0."""
    firsts = [float(tl.start_us[chosen].min())] if chosen.any() else []
    if window is not None:
        firsts.append(window[0])
    elif len(tl.steps):
        firsts.append(float(tl.steps["start_us"].min()))
    if host is not None and len(host):
        start = (host.start_ns - tl.origin_ns) / 1000.0
        seen = start if window is None else start[(start + host.dur_us >= window[0]) & (start <= window[1])]
        if len(seen):
            firsts.append(float(seen.min()))
    series = memory_series(memory, tl.origin_ns)
    if series is not None:
        t = series["time_us"].to_numpy()
        seen = t if window is None else t[(t >= window[0]) & (t <= window[1])]
        if len(seen):
            firsts.append(float(seen.min()))
    return -min(firsts) if firsts else 0.0


def trace_lines(r: RankAnalysis, step: str | None = None, host: HostOps | None = None,
                memory: RankMemory | None = None, timeline: RankTimeline | None = None
                ) -> tuple[list[pa.Array | list[str]], dict[str, object]]:
    """Every event line of a rank's trace (see the module docstring) and what they hold.

    Args:
        r: The analysed rank (with its kernels).
        step: Export only this step (``None``: the whole capture).
        host: Its host operators, when read.
        memory: Its memory, when the capture has it.
        timeline: Its timeline when already built (else built here).

    Returns:
        Chunks of event lines (Arrow string arrays or lists), and ``kernels``, ``kernel_time_us``,
        ``host_ops``, ``origin_ns``, ``notes``.
    """
    tl = timeline or build_timeline(r.kernels, r.rank, host)
    chosen = _chosen_kernels(r, tl, step)
    window = tl.step_of(step) if step is not None else None
    shift = _origin_shift(tl, chosen, host, window, memory)
    tid, threads = _device_threads(tl, chosen)
    rows = np.flatnonzero(chosen)
    chunks: list[pa.Array | list[str]] = [_metadata(DEVICE_PID, f"rank {r.rank} device", threads)]
    chunks.append(_kernel_lines(r.kernels, rows, tid, np.round(tl.start_us[rows] + shift, 3)))
    host_ops = 0
    if host is not None and len(host):
        lines, host_ops, host_threads = _host_lines(host, tl, chosen, tid, shift, window)
        chunks += [_metadata(HOST_PID, f"rank {r.rank} host", host_threads), lines]
    steps_threads = [(1, "steps"), (2, "step breakdown")] + ([(3, "memory")] if memory is not None else [])
    chunks += [_metadata(STEPS_PID, f"rank {r.rank} steps", steps_threads), _step_lines(tl, step, shift),
               _counter_lines(memory, tl, shift, window)]
    dur = r.kernels[C.DURATION_US].to_numpy(np.float64)[rows]
    info = {"kernels": len(rows), "kernel_time_us": float(dur.sum()), "host_ops": host_ops,
            "origin_ns": int(tl.origin_ns - round(shift * 1000)), "notes": list(tl.notes)}
    return chunks, info


def write_chrome_trace(r: RankAnalysis, path: Path, step: str | None = None, host: HostOps | None = None,
                       memory: RankMemory | None = None, timeline: RankTimeline | None = None) -> TraceExport:
    """Write a rank's Chrome trace to ``path`` (see :func:`trace_lines`); never inside the rank's folder.

    Raises:
        ExportError: When ``path`` is inside the profile or cannot be written.
        ValueError: When ``step`` is not a step of the rank.
    """
    path = Path(path)
    forbid_inside(path, [r.folder.path])
    if step is not None:
        tl = timeline or build_timeline(r.kernels, r.rank, host)
        if tl.step_of(step) is None:
            steps = ", ".join(s for s in tl.steps["step"].astype(str) if s) or "none"
            raise ValueError(f"rank {r.rank} has no step {step} (its steps: {steps})")
        timeline = tl
    chunks, info = trace_lines(r, step, host, memory, timeline)
    other = {"generator": "MFU Desktop", "rank": r.rank, "profile": str(r.folder.path), "step": step,
             "origin_unix_ns": info["origin_ns"], "time_unit": "µs from the trace's origin (ts = 0)",
             "kernels": info["kernels"], "kernel_time_us": info["kernel_time_us"]}

    def writer(p: Path) -> None:
        with open(p, "wb") as fh:
            head = {"displayTimeUnit": "ms", "otherData": other}
            fh.write((json.dumps(head, ensure_ascii=False)[:-1] + ',"traceEvents":[\n').encode("utf-8"))
            for chunk in chunks:
                _write_lines(fh, chunk)
            # the last line closes the list (every line above ends with a comma)
            fh.write(json.dumps({"ph": "M", "name": "process_name", "pid": STEPS_PID, "tid": 0,
                                 "args": {"name": f"rank {r.rank} steps"}}).encode("utf-8") + b"\n]}\n")

    atomic_write(path, writer)
    return TraceExport(path, int(info["kernels"]), float(info["kernel_time_us"]), int(info["host_ops"]),
                       int(info["origin_ns"]), step, list(info["notes"]))


def _write_lines(fh: object, chunk: pa.Array | list[str]) -> None:
    """Write event lines, each followed by a comma and a line break (an Arrow array straight from its buffer)."""
    if isinstance(chunk, list):
        if chunk:
            fh.write(("".join(line + ",\n" for line in chunk)).encode("utf-8"))
        return
    if len(chunk) == 0:
        return
    lines = pc.binary_join_element_wise(chunk, pa.scalar(",\n"), "")
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    lines = lines.cast(pa.large_string())
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64, count=len(lines) + 1, offset=lines.offset * 8)
    data = lines.buffers()[2]
    fh.write(memoryview(data)[int(offsets[0]):int(offsets[-1])])
