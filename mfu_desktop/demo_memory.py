"""Memory files of the synthetic demo (profile_memory=True): a training step's allocator, as torch_npu writes it.

Per rank, the three text exports of profiler-formats.md §14 (``memory_record.csv``,
``operator_memory.csv``, ``npu_module_mem.csv``), on the same clock as the rank's kernels:

* a resident part allocated before the capture's first step (weights, gradients, optimizer
  states — :data:`RESIDENT_MB`), one optimizer buffer allocated in the first step and never
  released (:data:`LATE_STATE_MB`);
* per step, the forward pass allocates activations until :data:`FORWARD_SHARE` of the step
  (:data:`ACTIVATIONS_MB` in :data:`ACTIVATIONS` tensors), the backward pass releases them in
  reverse order while each layer's gradient scratch (:data:`SCRATCH_MB`) comes and goes;
* PTA's reserved memory is the running maximum of its allocated memory plus
  :data:`FRAGMENTATION`; ``PTA+GE`` adds :data:`GE_MB` of graph-engine workspace; ``APP`` (the
  whole process) adds the runtime and HCCL buffers of ``npu_module_mem.csv``.

Rank :data:`HEAVY_RANK` holds :data:`HEAVY_EXTRA` more activations (an uneven split), so the
cluster's memory view has a highest rank. Everything is deterministic (a generator per rank):
the kernel files of the demo do not change.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

RESIDENT_MB = 30_720.0
LATE_STATE_MB = 1_024.0
ACTIVATIONS_MB = 14_336.0
ACTIVATIONS = 32
SCRATCH_MB = 512.0
FORWARD_SHARE = 0.45
FRAGMENTATION = 0.05
GE_MB = 256.0
HCCL_MB = 1_600.0
RUNTIME_MB = 620.0
HEAVY_RANK = 3
HEAVY_EXTRA = 0.06

RECORD_HEADER = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type"
OPERATOR_HEADER = ("Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
                   "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
                   "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
                   "Release Total Active(MB),Stream Ptr,Device Type")
MODULE_HEADER = "Component,Timestamp(us),Total Reserved(MB),Device"
#: Operators that allocate the activations, in forward order (cycled).
_FORWARD_OPS = ("aten::empty_strided", "aten::mm", "npu::npu_fusion_attention", "aten::mul", "npu::npu_rms_norm",
                "aten::silu", "aten::add")


@dataclass
class Allocation:
    """One tensor of ``operator_memory.csv``: who made it, its size and its life (release ``None``: never)."""

    name: str
    size_mb: float
    allocated_us: float
    released_us: float | None


def _step_allocations(start: float, end: float, scale: float, rng: np.random.Generator) -> list[Allocation]:
    """The activations and gradient scratch of one step (forward allocates, backward releases in reverse)."""
    span = end - start
    forward_end = start + FORWARD_SHARE * span
    sizes = rng.dirichlet(np.full(ACTIVATIONS, 4.0)) * ACTIVATIONS_MB * scale
    times = start + np.sort(rng.uniform(0.02, 1.0, ACTIVATIONS)) * (forward_end - start)
    releases = forward_end + (1.0 - (times - start) / (forward_end - start)) * (end - forward_end) * 0.96 + 1.0
    out = [Allocation(_FORWARD_OPS[i % len(_FORWARD_OPS)], round(float(s), 3), round(float(t), 3), round(float(r), 3))
           for i, (s, t, r) in enumerate(zip(sizes, times, releases))]
    for layer in range(4):  # each backward layer's scratch, freed before the next one's
        t0 = forward_end + (layer + 0.5) * (end - forward_end) / 4
        out.append(Allocation("aten::empty", SCRATCH_MB, round(t0, 3), round(t0 + 0.4 * (end - forward_end) / 4, 3)))
    return out


def allocations(windows: list[tuple[float, float]], rank: int) -> list[Allocation]:
    """Every allocation of a rank: the resident part, the first step's late optimizer state, each step's tensors."""
    rng = np.random.default_rng(1000 + rank)
    scale = 1.0 + (HEAVY_EXTRA if rank == HEAVY_RANK else 0.0)
    first = windows[0][0]
    out = [Allocation("aten::empty_strided", RESIDENT_MB, round(first - 5_000.0, 3), None)]
    for i, (start, end) in enumerate(windows):
        if i == 0:
            out.append(Allocation("aten::zeros", LATE_STATE_MB, round(end - 500.0, 3), None))
        out += _step_allocations(start, end, scale, rng)
    return sorted(out, key=lambda a: a.allocated_us)


def _totals(allocs: list[Allocation]) -> tuple[np.ndarray, np.ndarray]:
    """The allocator's allocated total after every allocation and release event, in time order."""
    events = [(a.allocated_us, a.size_mb) for a in allocs]
    events += [(a.released_us, -a.size_mb) for a in allocs if a.released_us is not None]
    events.sort(key=lambda e: (e[0], -e[1]))
    times = np.array([e[0] for e in events])
    return times, np.cumsum([e[1] for e in events])


def _cell(value: float) -> str:
    return f"{value:.3f}"


def _ts(value: float) -> str:
    return f"{value:.3f}\t"  # torch_npu's timestamps carry a trailing tab


def _record_rows(times: np.ndarray, allocated: np.ndarray) -> list[str]:
    reserved = np.maximum.accumulate(allocated) * (1.0 + FRAGMENTATION)
    rows = [f"APP,{_ts(times[0] - 10.0)},,{_cell(reserved[0] + GE_MB + HCCL_MB + RUNTIME_MB)},,,NPU:0"]
    for t, a, r in zip(times, allocated, reserved):
        rows.append(f"PTA,{_ts(t)},{_cell(a)},{_cell(r)},{_cell(a)},187650000000000,NPU:0")
        rows.append(f"PTA+GE,{_ts(t)},{_cell(a + GE_MB)},{_cell(r + GE_MB)},{_cell(a + GE_MB)},187650000000000,NPU:0")
    for t in times[:: max(1, len(times) // 40)]:  # the process is sampled, not recorded per event
        r = float(np.maximum.accumulate(allocated)[times <= t][-1]) * (1.0 + FRAGMENTATION)
        rows.append(f"APP,{_ts(t)},,{_cell(r + GE_MB + HCCL_MB + RUNTIME_MB)},,,NPU:0")
    return rows


def _operator_rows(allocs: list[Allocation], times: np.ndarray, allocated: np.ndarray) -> list[str]:
    reserved = np.maximum.accumulate(allocated) * (1.0 + FRAGMENTATION)

    def at(t: float) -> tuple[str, str]:
        i = int(np.searchsorted(times, t, side="right")) - 1
        return _cell(allocated[max(i, 0)]), _cell(reserved[max(i, 0)])

    rows = []
    for a in allocs:
        alloc_total, alloc_reserved = at(a.allocated_us)
        released = ["", "", "", "", "", "", ""]
        if a.released_us is not None:
            dur = _cell(a.released_us - a.allocated_us) + "\t"
            rel_total, rel_reserved = at(a.released_us)
            released = [_ts(a.released_us), _ts(a.released_us), dur, dur, rel_total, rel_reserved, rel_total]
        cells = [a.name, _cell(a.size_mb * 1024), _ts(a.allocated_us), *released[:4], alloc_total, alloc_reserved,
                 alloc_total, *released[4:], "187650000000000", "NPU:0"]
        rows.append(",".join(cells))
    return rows


def _module_rows(windows: list[tuple[float, float]]) -> list[str]:
    first, last = windows[0][0] - 6_000.0, windows[-1][1]
    rows = []
    for t, hccl in ((first, 0.0), (first + 1_000.0, HCCL_MB * 0.5), (windows[0][0], HCCL_MB), (last, HCCL_MB)):
        rows += [f"SLOG,{_ts(t)},0.0,NPU:0", f"HCCL,{_ts(t)},{_cell(hccl)},NPU:0",
                 f"RUNTIME,{_ts(t)},{_cell(RUNTIME_MB)},NPU:0"]
    return rows


def _write(path: Path, header: str, rows: list[str], newline: str = "\r\n") -> None:
    path.write_bytes((newline.join([header, *rows]) + newline).encode("utf-8"))


def write_memory(out: Path, rank: int, windows: list[tuple[float, float]]) -> None:
    """Write a rank's memory files into its ``ASCEND_PROFILER_OUTPUT`` (``windows``: each step's start, end in µs)."""
    allocs = allocations(windows, rank)
    times, allocated = _totals(allocs)
    _write(out / "memory_record.csv", RECORD_HEADER, _record_rows(times, allocated))
    _write(out / "operator_memory.csv", OPERATOR_HEADER, _operator_rows(allocs, times, allocated))
    _write(out / "npu_module_mem.csv", MODULE_HEADER, _module_rows(windows), newline="\n")
