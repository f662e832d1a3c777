"""The step windows of a PyTorch profiler trace and their breakdown (profiler-formats.md §13, "Steps").

* **A kernel's step** is the ``ProfilerStep#N`` range on the CPU that holds its launching op;
  a kernel whose launch is unknown (no linked op) takes the window that holds its start.
* **A step's window** is its GPU ``ProfilerStep#N`` range when that range holds at least
  :data:`MIN_RANGE_COVERAGE` of the kernel time its CPU step launched (public traces have
  17 µs ranges for 19 ms steps, or ranges over the forward pass only); otherwise, and without
  GPU ranges, it is the GPU span of the kernels the CPU step launched — with a warning.
* **Windows are disjoint and ordered**: in step order, a window ends at the next step's first
  kernel on the compute stream and starts at the previous window's end, so a side-stream
  prefetch of step N+1 that starts while step N still runs does not open step N+1 early. Summed
  step times never exceed the trace's GPU span (kernels and GPU step ranges), and busy time
  never exceeds the union of all kernels.
* **Breakdown** per window, by time: every kernel interval clipped to the window; computing =
  union of the non-communication kernels, communication not overlapped = union of all −
  computing, free = window − union of all (the interval arithmetic of Ascend's step trace).

Everything per kernel is vectorised; loops run over steps (hundreds at most).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: A GPU step range is trusted when it holds at least this share of the kernel time its CPU step launched.
MIN_RANGE_COVERAGE = 0.9

Window = tuple[int, float, float]


@dataclass(frozen=True)
class KernelTimes:
    """What the step windows need of each kernel (one entry per kernel, memcpy/memset included).

    Attributes:
        start: Start (µs).
        end: End (µs).
        comm: Collective-communication kernels.
        compute: Kernels that compute (neither communication nor a memcpy/memset).
        stream: Stream id (−1 when unknown).
        launch_ts: Start of the launching op on the CPU (NaN when the kernel is not linked to an op).
    """

    start: np.ndarray
    end: np.ndarray
    comm: np.ndarray
    compute: np.ndarray
    stream: np.ndarray
    launch_ts: np.ndarray


@dataclass
class StepWindows:
    """Disjoint, ordered step windows, each kernel's step, where they came from, and what to tell the user."""

    windows: list[Window]
    step_of: np.ndarray
    source: str
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class _Step:
    """One step before the windows are made disjoint."""

    step: int
    key: float  # order: the CPU range's start, else the window's
    lo: float
    hi: float
    compute_start: float  # first launched kernel on the compute stream (NaN: none)
    from_range: bool


# --- intervals ------------------------------------------------------------------------------


def union_length(starts: np.ndarray, ends: np.ndarray) -> float:
    """Total length covered by intervals (overlaps counted once)."""
    if len(starts) == 0:
        return 0.0
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.concatenate([[True], s[1:] > reach[:-1]])
    block_start = s[new]
    block_end = np.maximum.reduceat(e, np.flatnonzero(new))
    return float((block_end - block_start).sum())


def window_of(windows: list[Window], times: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The step whose window holds each time (−1 outside every window); ``windows`` sorted and disjoint."""
    if not windows:
        return np.full(len(times), -1, dtype=np.int64)
    lo = np.array([w[1] for w in windows])
    hi = np.array([w[2] for w in windows])
    pos = np.searchsorted(lo, times, side="right") - 1
    ok = valid & (pos >= 0) & (times <= hi[np.clip(pos, 0, None)])
    return np.where(ok, np.array([w[0] for w in windows])[np.clip(pos, 0, None)], -1)


def _group_extreme(values: np.ndarray, group: np.ndarray, groups: int, lowest: bool) -> np.ndarray:
    """Per group (0 … groups−1) the smallest (or largest) value, NaN for an empty group."""
    out = np.full(groups, np.nan)
    ok = group >= 0
    if not ok.any():
        return out
    order = np.argsort(group[ok], kind="stable")
    g, v = group[ok][order], values[ok][order]
    first = np.flatnonzero(np.concatenate([[True], g[1:] != g[:-1]]))
    reduce = np.minimum.reduceat if lowest else np.maximum.reduceat
    out[g[first]] = reduce(v, first)
    return out


# --- the windows ----------------------------------------------------------------------------


def compute_stream(k: KernelTimes) -> int | None:
    """The stream that carries the most compute-kernel time (the one whose order is the steps' order)."""
    if not k.compute.any():
        return None
    streams, inverse = np.unique(k.stream[k.compute], return_inverse=True)
    busy = np.bincount(inverse, weights=(k.end - k.start)[k.compute])
    return int(streams[int(np.argmax(busy))])


@dataclass
class _Launched:
    """Per step (index into ``numbers``): the kernels its CPU range launched."""

    numbers: np.ndarray
    index: np.ndarray  # per kernel: its step's index, −1 when launched outside every CPU step (or unknown)
    lo: np.ndarray
    hi: np.ndarray
    busy: np.ndarray
    compute_start: np.ndarray


def _launched(numbers: np.ndarray, step: np.ndarray, k: KernelTimes) -> _Launched:
    """Group the kernels by the step that launched them (``step``: −1 for none)."""
    index = np.where(step >= 0, np.searchsorted(numbers, step), -1)
    s = len(numbers)
    dur = k.end - k.start
    busy = np.bincount(index[index >= 0], weights=dur[index >= 0], minlength=s)[:s]
    main = compute_stream(k)
    on_main = k.compute & (k.stream == main) if main is not None else np.zeros(len(index), bool)
    return _Launched(numbers, index, _group_extreme(k.start, index, s, True), _group_extreme(k.end, index, s, False),
                     busy, _group_extreme(k.start, np.where(on_main, index, -1), s, True))


def _coverage(launched: _Launched, gpu: dict[int, tuple[float, float]], k: KernelTimes) -> np.ndarray:
    """Per step: the share of its launched kernel time that lies inside its GPU range (NaN: nothing to check)."""
    s = len(launched.numbers)
    rlo = np.array([gpu.get(int(n), (np.nan, np.nan))[0] for n in launched.numbers])
    rhi = np.array([gpu.get(int(n), (np.nan, np.nan))[1] for n in launched.numbers])
    idx = launched.index
    mine = idx >= 0
    at = np.clip(idx, 0, None)
    inside = np.clip(np.minimum(k.end, rhi[at]) - np.maximum(k.start, rlo[at]), 0.0, None)
    inside = np.where(mine & np.isfinite(inside), inside, 0.0)
    held = np.bincount(idx[mine], weights=inside[mine], minlength=s)[:s]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(launched.busy > 0, held / launched.busy, np.nan)


def _raw_steps(cpu: list[Window], gpu: dict[int, tuple[float, float]], k: KernelTimes,
               launch_step: np.ndarray) -> tuple[list[_Step], list[str]]:
    """Each step's window before clipping: its checked GPU range, else its launched kernels' span; and warnings."""
    numbers = np.array(sorted({s for s, _, _ in cpu} | set(gpu)), dtype=np.int64)
    launched = _launched(numbers, launch_step, k)
    coverage = _coverage(launched, gpu, k)
    cpu_start = {s: lo for s, lo, _ in cpu}
    steps, refused, unchecked = [], [], 0
    for i, number in enumerate(launched.numbers.tolist()):
        has_kernels = bool(np.isfinite(launched.lo[i]))
        if number in gpu and not (has_kernels and coverage[i] < MIN_RANGE_COVERAGE):
            lo, hi = gpu[number]
            from_range = True
            unchecked += not has_kernels and number in cpu_start
        elif has_kernels:
            lo, hi = float(launched.lo[i]), float(launched.hi[i])
            from_range = False
            if number in gpu:
                refused.append((number, gpu[number], float(coverage[i]), float(launched.busy[i])))
        else:
            continue
        steps.append(_Step(number, cpu_start.get(number, lo), lo, hi, float(launched.compute_start[i]), from_range))
    return steps, _range_warnings(refused, unchecked, len(gpu))


def _range_warnings(refused: list[tuple[int, tuple[float, float], float, float]], unchecked: int,
                    ranges: int) -> list[str]:
    """What the check of the GPU step ranges found: ranges refused, ranges that could not be checked."""
    out = []
    if unchecked:
        out.append(f"{unchecked} of {ranges} GPU ProfilerStep# ranges could not be checked (no kernel is linked to an "
                   "op inside their CPU step): used as they are")
    if not refused:
        return out
    number, (lo, hi), share, busy = min(refused, key=lambda r: r[2])
    return [*out, f"{len(refused)} of {ranges} GPU ProfilerStep# ranges hold too little of the kernel time their "
            f"CPU step launched (< {MIN_RANGE_COVERAGE:.0%}; worst: ProfilerStep#{number}'s {hi - lo:,.1f} µs GPU "
            f"range holds {share:.1%} of {busy:,.1f} µs of kernels): those steps use the GPU span of the kernels their "
            "CPU step launched instead"]


def _disjoint(steps: list[_Step]) -> tuple[list[Window], int, float]:
    """Windows in step order, each clipped at the next step's compute start and the previous window's end.

    Returns:
        The windows, how many were clipped, and the time clipped off (µs).
    """
    ordered = sorted(steps, key=lambda s: (s.key, s.step))
    out: list[Window] = []
    prev_end, clipped, lost = -np.inf, 0, 0.0
    for i, s in enumerate(ordered):
        lo, hi = max(s.lo, prev_end), s.hi
        if i + 1 < len(ordered):
            nxt = ordered[i + 1]
            hi = min(hi, nxt.compute_start if np.isfinite(nxt.compute_start) else nxt.lo)
        hi = max(hi, lo)
        if (lo, hi) != (s.lo, s.hi):
            clipped += 1
            lost += (s.hi - s.lo) - (hi - lo)
        out.append((s.step, lo, hi))
        prev_end = hi
    return out, clipped, lost


def _source(steps: list[_Step]) -> str:
    ranges = sum(s.from_range for s in steps)
    if ranges == len(steps):
        return "ProfilerStep# on the GPU timeline"
    if ranges == 0:
        return "ProfilerStep# on the CPU (GPU span of the kernels it launched)"
    return (f"ProfilerStep# on the GPU timeline ({len(steps) - ranges} of {len(steps)} steps: the GPU span of the "
            "kernels their CPU step launched)")


def _no_window_reason(cpu: list[Window], gpu: dict[int, tuple[float, float]], k: KernelTimes) -> str:
    if not cpu and not gpu:
        return ("no ProfilerStep# range: step time and step MFU unavailable (use torch.profiler.schedule / "
                "prof.step())")
    linked = int(np.isfinite(k.launch_ts).sum())
    if linked == 0:
        return (f"{len(cpu)} ProfilerStep# range(s) on the CPU, but none of the {len(k.start):,} GPU kernels could be "
                "linked to a CPU op (no External id or correlation match): step time and step MFU unavailable")
    return (f"{len(cpu)} ProfilerStep# range(s) on the CPU, but none of the {linked:,} GPU kernels linked to a CPU op "
            "was launched inside them: step time and step MFU unavailable")


def step_windows(cpu: list[Window], gpu_ranges: list[Window], k: KernelTimes) -> StepWindows:
    """Disjoint, ordered step windows of a trace and each kernel's step (see the module docstring).

    Args:
        cpu: ``ProfilerStep#N`` ranges on the CPU (step, start, end).
        gpu_ranges: ``ProfilerStep#N`` ranges on the GPU timeline (a step seen twice spans both).
        k: The kernels.
    """
    gpu: dict[int, tuple[float, float]] = {}
    for number, lo, hi in gpu_ranges:
        old = gpu.get(number, (lo, hi))
        gpu[number] = (min(old[0], lo), max(old[1], hi))
    launch_step = window_of(sorted(cpu, key=lambda w: w[1]), k.launch_ts, np.isfinite(k.launch_ts))
    steps, warnings = _raw_steps(cpu, gpu, k, launch_step) if len(k.start) and (cpu or gpu) else ([], [])
    if not steps:
        return StepWindows([], np.full(len(k.start), -1, dtype=np.int64), "no ProfilerStep ranges",
                           [_no_window_reason(cpu, gpu, k)])
    windows, clipped, lost = _disjoint(steps)
    notes = []
    if clipped:
        notes.append(f"{clipped} step window(s) overlapped their neighbour (e.g. a side-stream copy of the next step "
                     "started while this step's kernels ran): clipped at the next step's first kernel on the compute "
                     f"stream or at the previous window's end ({lost:,.1f} µs in all), so steps are disjoint and "
                     "ordered")
    by_time = window_of(windows, k.start, np.ones(len(k.start), bool))
    step_of = np.where(np.isfinite(k.launch_ts) & bool(cpu), launch_step, by_time)
    return StepWindows(windows, step_of, _source(steps), warnings, notes)


def step_breakdown(windows: list[Window], k: KernelTimes) -> pd.DataFrame:
    """Per window: computing, communication (not overlapped, overlapped), free and the step time (µs).

    The frame's ``attrs["windows"]`` keeps the windows themselves (step, start, end).

    Every kernel interval is clipped to the window (the time on the GPU, whichever step launched
    the kernel); computing = union of the non-communication kernels; not-overlapped
    communication = union of all − computing; free = window − union of all.
    """
    order = np.argsort(k.start, kind="stable")
    start, end, comm = k.start[order], k.end[order], k.comm[order]
    longest = float((end - start).max()) if len(start) else 0.0
    rows = []
    for step, lo, hi in windows:
        a, b = np.searchsorted(start, [lo - longest, hi], side="left")
        sel = slice(int(a), int(b))
        keep = end[sel] > lo
        s, e, is_comm = np.clip(start[sel][keep], lo, hi), np.clip(end[sel][keep], lo, hi), comm[sel][keep]
        computing = union_length(s[~is_comm], e[~is_comm])
        everything = union_length(s, e)
        communication = union_length(s[is_comm], e[is_comm])
        not_overlapped = everything - computing
        span = hi - lo
        free = max(span - everything, 0.0)
        rows.append({"step": str(step), "computing": computing, "comm_not_overlapped": not_overlapped,
                     "overlapped": communication - not_overlapped, "communication": communication,
                     "free": free, "stage": span, "bubble": 0.0,
                     "step_time_us": computing + not_overlapped + free})
    frame = pd.DataFrame(rows)
    frame.attrs["windows"] = list(windows)  # where each step lies on the GPU timeline (µs)
    return frame
