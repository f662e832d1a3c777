"""A trace's ``[memory]`` events: the CUDA caching allocator's peak, live allocations and their operators."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mfu_desktop.core.analysis.memory import memory_of
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.memory.kineto import NO_OPERATOR, enclosing_ops
from mfu_desktop.demo import H100_PROPERTIES

MB = 2**20


def mem(ts, addr, nbytes, allocated, reserved, device_type=1, tid=1):
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": tid, "ts": ts,
            "args": {"Total Reserved": reserved, "Total Allocated": allocated, "Bytes": nbytes, "Addr": addr,
                     "Device Id": 0 if device_type else -1, "Device Type": device_type}}


def write_trace(path, memory_events, profile_memory=1):
    """Step 1 runs 1 000–2 000 µs; aten::linear (1 100–1 500) holds aten::addmm (1 150–1 300); aten::relu 1 600–1 700.

    Memory (hand-computed): +100 MB at 1 160 in addmm (addr A), +50 MB at 1 350 in linear after addmm
    ended (addr B) → the peak, 150 MB allocated / 192 MB reserved, 350 µs into the step; A freed at
    1 400, B at 1 800; +20 MB at 1 650 in relu (addr C), never freed.
    """
    events = [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000.0,
         "dur": 1000.0},
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 1100.0, "dur": 400.0,
         "args": {"External id": 1}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 1150.0, "dur": 150.0,
         "args": {"External id": 2, "Input Dims": [[64], [64, 64], [64, 64]],
                  "Input type": ["float", "float", "float"]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1200.0, "dur": 5.0,
         "args": {"correlation": 7, "External id": 2}},
        {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": 1210.0, "dur": 50.0,
         "args": {"External id": 2, "correlation": 7, "device": 0, "stream": 7}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 1600.0, "dur": 100.0,
         "args": {"External id": 3}},
        *memory_events,
    ]
    header = {"schemaVersion": 1, "deviceProperties": [H100_PROPERTIES], "cuda_runtime_version": 12040,
              "profile_memory": profile_memory, "traceEvents": events}
    path.write_text(json.dumps(header), encoding="utf-8")
    return path


EVENTS = [
    mem(1160.0, 0xA, 100 * MB, 100 * MB, 128 * MB),
    mem(1350.0, 0xB, 50 * MB, 150 * MB, 192 * MB),
    mem(1400.0, 0xA, -100 * MB, 50 * MB, 192 * MB),
    mem(1650.0, 0xC, 20 * MB, 70 * MB, 192 * MB),
    mem(1800.0, 0xB, -50 * MB, 20 * MB, 192 * MB),
    mem(1700.0, 0xD, 4096, 0, 0, device_type=0),  # a host (CPU) allocation: not the GPU's
]


def test_enclosing_ops_innermost_running_op():
    # thread 1: A [0,100] ⊃ B [10,20], C [30,60] ⊃ D [40,50]; thread 2: E [0,10]
    op_thread = np.array([1, 1, 1, 1, 2])
    op_ts = np.array([0.0, 10, 30, 40, 0])
    op_dur = np.array([100.0, 10, 30, 10, 10])
    q_thread = np.array([1, 1, 1, 1, 1, 2, 2, 3])
    q_ts = np.array([5.0, 15, 25, 45, 55, 5, 50, 5])
    assert enclosing_ops(op_thread, op_ts, op_dur, q_thread, q_ts).tolist() == [0, 1, 0, 3, 2, 4, -1, -1]
    assert enclosing_ops(op_thread[:0], op_ts[:0], op_dur[:0], q_thread, q_ts).tolist() == [-1] * 8


def test_trace_memory_hand_computed(tmp_path):
    path = write_trace(tmp_path / "rank0.pt.trace.json", EVENTS)
    result = analyze_paths([path], use_cache=False)
    assert not result.failures, [f.reason for f in result.failures]
    m = result.documents[0]["memory"]
    assert m["allocator"] == "CUDA caching allocator"
    assert (m["peak_allocated_mb"], m["peak_reserved_mb"]) == (150.0, 192.0)
    assert m["process_reserved_mb"] is None and m["footprint_basis"] == "CUDA caching allocator reserved"
    assert m["peak_at_us"] == pytest.approx(350.0) and m["peak_step"] == "1"
    assert [(a["name"], a["mb"], a["allocated_at_us"]) for a in m["top_live"]] == [
        ("aten::addmm", 100.0, 160.0), ("aten::linear", 50.0, 350.0)]
    assert m["not_released_mb"] == pytest.approx(20.0)
    assert m["capacity_gb"] == 80.0  # H100 SXM memory_gb
    mem_ = memory_of(result.ranks[0])
    assert len(mem_.curve) == 5  # the GPU events only


def test_allocation_outside_any_operator(tmp_path):
    events = [mem(1050.0, 0xE, 8 * MB, 8 * MB, 20 * MB)]
    m = analyze_paths([write_trace(tmp_path / "t.pt.trace.json", events)], use_cache=False).documents[0]["memory"]
    assert m["top_live"] == [{"name": NO_OPERATOR, "mb": 8.0, "allocated_at_us": 50.0}]


def test_trace_without_memory_events(tmp_path):
    path = write_trace(tmp_path / "rank0.pt.trace.json", [], profile_memory=0)
    doc = analyze_paths([path], use_cache=False).documents[0]
    assert doc["memory"] is None
    assert "profile_memory=False" in doc["memory_reason"]
    doc = analyze_paths([write_trace(tmp_path / "r.pt.trace.json", [])], use_cache=False).documents[0]
    assert doc["memory_reason"] == "no memory data: r.pt.trace.json has no [memory] events (capture with " \
                                   "profile_memory=True)"


def test_host_only_memory_events(tmp_path):
    doc = analyze_paths([write_trace(tmp_path / "h.pt.trace.json", EVENTS[-1:])], use_cache=False).documents[0]
    assert doc["memory"] is None and "host (CPU) allocations only" in doc["memory_reason"]


def test_malformed_memory_events_are_skipped(tmp_path):
    bad = [{"ph": "i", "name": "[memory]", "ts": "soon", "args": {"Bytes": 1}},
           {"ph": "i", "name": "[memory]", "ts": 1100.0, "args": "nope"},
           {"ph": "i", "name": "[memory]", "ts": 1100.0, "args": {"Bytes": None, "Device Type": 1}}]
    m = analyze_paths([write_trace(tmp_path / "m.pt.trace.json", [*bad, *EVENTS])],
                      use_cache=False).documents[0]["memory"]
    assert m["peak_allocated_mb"] == 150.0


@pytest.mark.parametrize(("gpu", "model", "alloc", "reserved", "top"), [
    ("h100", "Falconsai_nsfw_image_detection__1016002", 220.6162109375, 234.0, "aten::addmm"),
    ("h100", "gaunernst_bert-small-uncased__1016001", 96.6123046875, 116.0, "aten::addmm"),
    ("mi300", "Falconsai_nsfw_image_detection__1016002", 259.9990234375, 278.0, "aten::empty"),
    ("mi300", "gaunernst_bert-small-uncased__1016001", 139.6123046875, 214.0, "aten::empty"),
])
def test_public_traces(samples, gpu, model, alloc, reserved, top):
    path = samples / "tracelens" / gpu / f"{model}.json.gz"
    m = analyze_paths([path], use_cache=False).documents[0]["memory"]
    assert (m["peak_allocated_mb"], m["peak_reserved_mb"]) == (alloc, reserved)
    assert m["peak_step"] == "6" and m["not_released_mb"] == 0.0
    assert m["top_live"][0]["name"] == top


def test_public_trace_without_memory_events(samples):
    doc = analyze_paths([samples / "tracelens/mi210"], use_cache=False).documents[0]
    assert doc["memory"] is None and "[memory] events" in doc["memory_reason"]
