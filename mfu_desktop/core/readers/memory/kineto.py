"""``[memory]`` instant events of a PyTorch profiler trace (profile_memory=True; profiler-formats.md §14).

Each event is one allocation (``Bytes`` > 0) or free (``Bytes`` < 0) of the caching allocator at
``Addr``, with the allocator's ``Total Allocated`` / ``Total Reserved`` after it (bytes) and the
``Device Type`` (1 = CUDA, 6 = HIP, 0 = CPU). The GPU events become the allocator's curve; an
allocation is paired with the next event on its address (its free) and attributed to the
innermost ``cpu_op`` running on its thread when it happened — the operator that made it.

The Kineto reader streams the events (:mod:`mfu_desktop.core.readers.kineto.events`) and hands
them over as a :class:`TraceMemory`; :func:`read_trace_memory` is what the enricher calls.
Everything is numpy over whole arrays: no Python per event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mfu_desktop.core.readers.memory.records import CAPTURE_HINT, MemoryData, missing
from mfu_desktop.core.readers.memory.tables import pair_events

#: The Device Type codes of GPU allocators (c10::DeviceType) and the allocator they are.
GPU_DEVICE_TYPES = {1: "CUDA caching allocator", 6: "CUDA caching allocator (HIP, ROCm)"}
#: The allocation's operator when no cpu_op encloses it.
NO_OPERATOR = "(outside any operator)"
_MB = 1.0 / 2**20


@dataclass
class TraceMemory:
    """A trace's ``[memory]`` events and what attributing them needs (ops, steps), as arrays."""

    file: str
    ts: np.ndarray
    nbytes: np.ndarray
    addr: np.ndarray
    allocated: np.ndarray
    reserved: np.ndarray
    device_type: np.ndarray
    device: np.ndarray
    thread: np.ndarray
    op_thread: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    op_ts: np.ndarray = field(default_factory=lambda: np.zeros(0))
    op_dur: np.ndarray = field(default_factory=lambda: np.zeros(0))
    op_name: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    names: list[str] = field(default_factory=list)
    steps: list[tuple[int, float, float]] = field(default_factory=list)
    profile_memory: bool | None = None


def trace_memory(ev: Any, file: str) -> TraceMemory:
    """The memory events of a streamed trace (a ``kineto.events.TraceEvents``; its ops kept only with events)."""
    flag = ev.header.get("profile_memory")
    out = TraceMemory(
        file, np.frombuffer(ev.m_ts, dtype=np.float64), np.frombuffer(ev.m_bytes, dtype=np.float64),
        np.frombuffer(ev.m_addr, dtype=np.int64), np.frombuffer(ev.m_allocated, dtype=np.float64),
        np.frombuffer(ev.m_reserved, dtype=np.float64), np.frombuffer(ev.m_device_type, dtype=np.int64),
        np.frombuffer(ev.m_device, dtype=np.int64), np.frombuffer(ev.m_thread, dtype=np.int64),
        steps=list(ev.cpu_steps), profile_memory=None if flag is None else bool(flag))
    if len(out.ts):
        out.op_thread = np.frombuffer(ev.op_thread, dtype=np.int64)
        out.op_ts = np.frombuffer(ev.op_ts, dtype=np.float64)
        out.op_dur = np.frombuffer(ev.op_dur, dtype=np.float64)
        out.op_name = np.frombuffer(ev.op_name, dtype=np.int32)
        out.names = ev.strings.values
    return out


def enclosing_ops(op_thread: np.ndarray, op_ts: np.ndarray, op_dur: np.ndarray, q_thread: np.ndarray,
                  q_ts: np.ndarray) -> np.ndarray:
    """For each query (thread, time): the index of the innermost op of that thread running then (−1: none).

    Ops of one thread nest; sorted by start, an op's depth is the ops started before it minus
    those ended by then, and its parent is the last op one level up before it. A query's op is
    the last op started by then, or the first of its ancestors still running.
    """
    n, m = len(op_ts), len(q_ts)
    if not n or not m:
        return np.full(m, -1, dtype=np.int64)
    _, codes = np.unique(np.concatenate([op_thread, q_thread]), return_inverse=True)
    op_code, q_code = codes[:n], codes[n:]
    t0 = float(min(op_ts.min(), q_ts.min()))
    width = float(max((op_ts + op_dur).max(), q_ts.max()) - t0) + 1.0  # threads laid end to end
    start = op_code * width + (op_ts - t0)
    order = np.lexsort((-op_dur, start))
    s = start[order]
    e = s + op_dur[order]
    depth = np.arange(n) - np.searchsorted(np.sort(e), s, side="right")
    depth = np.maximum(depth, 0)
    keys = np.sort(depth.astype(np.int64) * n + np.arange(n))
    want = (depth.astype(np.int64) - 1) * n + np.arange(n)
    at = np.searchsorted(keys, want, side="left") - 1
    found = (depth > 0) & (at >= 0)
    parent = np.full(n, -1, dtype=np.int64)
    cand = keys[np.clip(at, 0, n - 1)]
    ok = found & (cand // n == depth - 1)
    parent[ok] = cand[ok] % n
    q = q_code * width + (q_ts - t0)
    cur = np.searchsorted(s, q, side="right") - 1
    for _ in range(int(depth.max()) + 2):  # one level up per round
        live = cur >= 0
        if not live.any():
            break
        inside = np.zeros(m, dtype=bool)
        inside[live] = e[cur[live]] >= q[live]
        climb = live & ~inside
        if not climb.any():
            break
        cur[climb] = parent[cur[climb]]
    out = np.full(m, -1, dtype=np.int64)
    hit = cur >= 0
    out[hit] = order[cur[hit]]
    return out


def read_trace_memory(raw: TraceMemory | None) -> MemoryData:
    """The GPU allocator's curve and allocations of a trace (:class:`MemoryData`)."""
    if raw is None:
        return missing(f"no memory data: the trace was not read ({CAPTURE_HINT})")
    if not len(raw.ts):
        if raw.profile_memory is False:
            return missing(f"no memory data: the trace was captured with profile_memory=False ({CAPTURE_HINT})")
        return missing(f"no memory data: {raw.file} has no [memory] events ({CAPTURE_HINT})")
    gpu = np.isin(raw.device_type, list(GPU_DEVICE_TYPES))
    if not gpu.any():
        return missing(f"no memory data: the [memory] events of {raw.file} are host (CPU) allocations only "
                       f"({CAPTURE_HINT} and the CUDA activity)")
    md = MemoryData()
    kinds, counts = np.unique(raw.device_type[gpu], return_counts=True)
    kind = int(kinds[np.argmax(counts)])
    sel = raw.device_type == kind
    devices, dcounts = np.unique(raw.device[sel], return_counts=True)
    if len(devices) > 1:
        main = int(devices[np.argmax(dcounts)])
        md.problems.append(f"{raw.file}: [memory] events of {len(devices)} GPUs; only device {main}'s are read")
        sel &= raw.device == main
    idx = np.flatnonzero(sel)
    ts, nbytes = raw.ts[idx], raw.nbytes[idx]
    md.allocator = GPU_DEVICE_TYPES[kind]
    md.records = pd.DataFrame({"component": pd.Categorical(np.full(len(idx), "CUDA", dtype=object)),
                               "ts_us": ts, "allocated_mb": raw.allocated[idx] * _MB,
                               "reserved_mb": raw.reserved[idx] * _MB, "active_mb": np.nan})
    alloc, release = pair_events(ts, raw.addr[idx], nbytes)
    op = enclosing_ops(raw.op_thread, raw.op_ts, raw.op_dur, raw.thread[idx][alloc], ts[alloc])
    names = np.array([*raw.names, NO_OPERATOR], dtype=object)
    codes = np.where(op >= 0, raw.op_name[np.clip(op, 0, None)] if len(raw.op_name) else -1, -1)
    md.allocations = pd.DataFrame({
        "name": pd.Categorical(names[codes]), "size_mb": nbytes[alloc] * _MB, "alloc_us": ts[alloc],
        "release_us": release, "total_allocated_mb": raw.allocated[idx][alloc] * _MB,
        "total_reserved_mb": raw.reserved[idx][alloc] * _MB, "release_total_allocated_mb": np.nan,
        "release_total_reserved_mb": np.nan})
    md.steps = [(str(step), float(start), float(end)) for step, start, end in raw.steps]
    md.source = f"{raw.file} [memory] events ({len(idx):,} on the GPU)"
    return md
