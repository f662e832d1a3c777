"""The timeline engine: lanes, step windows, the breakdown as intervals, colourings, every rank's step."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mfu_desktop.core.analysis.timeline import build_timeline, host_lanes, kernel_times
from mfu_desktop.core.analysis.timeline_colors import kept_share, kernel_colors
from mfu_desktop.core.analysis.timeline_ranks import cluster_timeline
from mfu_desktop.core.analysis.timeline_steps import (
    COMM_NOT_OVERLAPPED,
    COMPUTING,
    FREE,
    breakdown_segments,
)
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.host_records import HostOps, match_kernels, nesting_depth
from mfu_desktop.core.readers.kineto.steps import KernelTimes, step_breakdown

T0 = 1_700_000_000_000_000_000  # a capture clock in ns


def frame(rows: list[tuple], origin: int = T0) -> pd.DataFrame:
    """Kernels (core, stream, start µs, duration µs, type, step) on the capture clock."""
    core, stream, start, dur, op, step = zip(*rows)
    return pd.DataFrame({
        C.STEP_ID: pd.array(step, dtype="Int64"),
        C.NAME: pd.Categorical([f"{o}_{i}" for i, o in enumerate(op)]),
        C.OP_TYPE: pd.Categorical(op),
        C.CORE_TYPE: pd.Categorical(core),
        C.STREAM_ID: pd.array([s if s is not None else pd.NA for s in stream], dtype="Int64"),
        C.START_NS: np.array([origin + round(s * 1000) for s in start], dtype=np.int64),
        C.DURATION_US: np.array(dur, dtype=np.float64),
    })


ASCEND = [
    ("AI_VECTOR_CORE", 2, 0.0, 10.0, "Add", 1),
    ("AI_CORE", 2, 10.0, 40.0, "MatMulV2", 1),
    ("HCCL", None, 30.0, 40.0, "hcom_allReduce_", 1),   # 30–70: overlaps the matmul until 50
    ("AI_CORE", 2, 80.0, 20.0, "MatMulV2", 2),
    ("DSA_SQE", 3, 85.0, 5.0, "DropOutGenMask", 2),
    ("AI_VECTOR_CORE", 2, 100.0, 10.0, "Cast", 2),
]


def test_ascend_lanes_are_core_type_and_stream_compute_first_communication_last():
    tl = build_timeline(frame(ASCEND), rank=3)
    assert [lane.label for lane in tl.lanes] == ["AI_CORE · stream 2", "AI_VECTOR_CORE · stream 2",
                                                 "DSA_SQE · stream 3", "HCCL"]
    rows = {lane.label: items.rows.tolist() for lane, items in zip(tl.lanes, tl.items)}
    assert rows == {"AI_CORE · stream 2": [1, 3], "AI_VECTOR_CORE · stream 2": [0, 5], "DSA_SQE · stream 3": [4],
                    "HCCL": [2]}
    assert tl.origin_ns == T0 and tl.span == (0.0, 110.0)
    assert tl.lane_of_kernel().tolist() == [1, 0, 3, 0, 2, 1]


def test_gpu_lanes_are_streams_whatever_the_kernel_class():
    gpu = frame([("GPU_MATRIX", 7, 0.0, 5.0, "aten::mm", 1), ("GPU_VECTOR", 7, 5.0, 1.0, "aten::add", 1),
                 ("GPU_COMM", 20, 2.0, 8.0, "nccl:all_reduce", 1), ("GPU_COPY", 7, 6.0, 1.0, "Memcpy", 1)])
    tl = build_timeline(gpu, rank=0)
    assert [lane.label for lane in tl.lanes] == ["stream 7", "stream 20"]
    assert tl.items[0].rows.tolist() == [0, 1, 3]


def test_steps_are_the_device_span_of_each_step_id():
    tl = build_timeline(frame(ASCEND), rank=0)
    assert tl.steps["step"].tolist() == ["1", "2"]
    assert tl.steps["start_us"].tolist() == [0.0, 80.0]
    assert tl.steps["end_us"].tolist() == [70.0, 110.0]  # step 1 ends with the all-reduce at 30 + 40
    assert tl.step_of("2") == (80.0, 110.0) and tl.step_of("9") is None


def test_breakdown_segments_hand_computed():
    # compute [10,40) and [30,50); communication [45,70) and [80,90); window [0,100]
    seg = breakdown_segments(np.array([10.0, 30.0, 45.0, 80.0]), np.array([40.0, 50.0, 70.0, 90.0]),
                             np.array([False, False, True, True]), 0.0, 100.0)
    assert seg.start.tolist() == [0, 10, 50, 70, 80, 90]
    assert seg.end.tolist() == [10, 50, 70, 80, 90, 100]
    assert seg.kind.tolist() == [FREE, COMPUTING, COMM_NOT_OVERLAPPED, FREE, COMM_NOT_OVERLAPPED, FREE]
    # computing 40, communication not overlapped 20 + 10 = 30, free 10 + 10 + 10 = 30: the window's 100 µs
    assert (seg.total(COMPUTING), seg.total(COMM_NOT_OVERLAPPED), seg.total(FREE)) == (40.0, 30.0, 30.0)


def test_the_step_breakdown_of_a_rank():
    tl = build_timeline(frame(ASCEND), rank=0)
    one = tl.breakdown[tl.breakdown["step"] == "1"]
    # step 1 [0, 70]: Add 0–10, MatMul 10–50 → computing 50; all-reduce 30–70 → not overlapped 50–70 = 20; free 0
    lengths = (one["end_us"] - one["start_us"]).groupby(one["kind"]).sum()
    assert lengths.to_dict() == {COMPUTING: 50.0, COMM_NOT_OVERLAPPED: 20.0}
    two = tl.breakdown[tl.breakdown["step"] == "2"]
    lengths = (two["end_us"] - two["start_us"]).groupby(two["kind"]).sum()
    assert lengths.to_dict() == {COMPUTING: 30.0}  # MatMul 80–100 (the DSA inside it), Cast 100–110


def test_breakdown_sums_agree_with_the_step_trace_arithmetic():
    rng = np.random.default_rng(11)
    start = np.sort(rng.uniform(0, 1000, 400))
    end = start + rng.exponential(6.0, 400)
    comm = rng.random(400) < 0.3
    seg = breakdown_segments(start, end, comm, 100.0, 900.0)
    times = KernelTimes(start=start, end=end, comm=comm, compute=~comm, stream=np.zeros(400, dtype=np.int64),
                        launch_ts=np.full(400, np.nan))
    reference = step_breakdown([(0, 100.0, 900.0)], times).iloc[0]
    assert seg.total(COMPUTING) == pytest.approx(reference["computing"])
    assert seg.total(COMM_NOT_OVERLAPPED) == pytest.approx(reference["comm_not_overlapped"])
    assert seg.total(FREE) == pytest.approx(reference["free"])
    assert seg.start[0] == 100.0 and seg.end[-1] == 900.0 and (seg.start[1:] == seg.end[:-1]).all()


def test_kernels_without_a_start_time_are_left_out_and_said():
    f = frame(ASCEND)
    f.loc[0, C.START_NS] = -1
    tl = build_timeline(f, rank=0)
    assert sum(len(it.rows) for it in tl.items) == 5
    assert "1 kernel(s) without a start time or a duration" in tl.notes[0]
    origin, start, _ = kernel_times(f)
    assert origin == T0 + 10_000 and np.isnan(start[0])


def test_colourings():
    f = frame(ASCEND)
    f["lost_us"] = np.array([5.0, 10.0, np.nan, 0.0, np.nan, 2.5], dtype=np.float32)
    f["mfu"] = np.array([np.nan, 0.75, np.nan, 0.5, np.nan, np.nan], dtype=np.float32)
    f["bw_util"] = np.array([0.5, np.nan, np.nan, np.nan, np.nan, 0.75], dtype=np.float32)
    f["bound"] = pd.Categorical(["memory", "compute", None, "compute", None, "memory"])
    # kept share 1 − lost / duration: Add 1 − 5/10, MatMul 1 − 10/40, Cast 1 − 2.5/10
    assert kept_share(f)[[0, 1, 3, 5]].tolist() == [0.5, 0.75, 1.0, 0.75]
    assert np.isnan(kept_share(f)[[2, 4]]).all()
    judged = kernel_colors(f, "mfu").value
    assert judged[[0, 1, 3, 5]].tolist() == [0.5, 0.75, 0.5, 0.75]
    family = kernel_colors(f, "family")
    assert [family.labels[c] for c in family.category] == ["element-wise", "matmul", "communication", "matmul",
                                                           "element-wise", "element-wise"]
    stream = kernel_colors(f, "stream")
    assert stream.category.tolist() == [0, 0, -1, 0, 1, 0] and stream.labels == ("stream 2", "stream 3")
    with pytest.raises(ValueError):
        kernel_colors(f, "rainbow")


def test_host_ops_lanes_and_links():
    thread = np.array([0, 0, 0, 1])
    start = np.array([0.0, 1.0, 2.0, 0.0])
    end = np.array([10.0, 5.0, 3.0, 4.0])
    assert nesting_depth(thread, start, end).tolist() == [0, 1, 2, 0]
    host = HostOps(pd.Categorical(["step", "linear", "mm", "loader"]), thread,
                   (T0 + start * 1000).astype(np.int64), end - start, nesting_depth(thread, start, end),
                   np.array([2, 2, -1, -1, -1, 1]))
    lanes, items, notes = host_lanes(host, T0)
    assert [lane.label for lane in lanes] == ["host thread 0 · depth 0", "host thread 0 · depth 1",
                                              "host thread 0 · depth 2", "host thread 1 · depth 0"]
    assert [it.rows.tolist() for it in items] == [[0], [1], [2], [3]] and notes == []
    assert host.kernels_of(2).tolist() == [0, 1]
    tl = build_timeline(frame(ASCEND), rank=0, host=host)
    assert [lane.kind for lane in tl.lanes].count("host") == 4


def test_tasks_are_found_among_the_kernels_by_start():
    frame_starts = np.array([500, 100, 100, 300], dtype=np.int64)
    tasks = np.array([100, 300, 100, 999_999, 800], dtype=np.int64)
    # two tasks at 100 take rows 1 and 2 in order; 300 → row 3; nothing near 999,999; 800 is 300 ns from 500
    assert match_kernels(frame_starts, tasks).tolist() == [1, 3, 2, -1, 0]


def rank_of(rank: int, rows: list[tuple], offset_us: float) -> SimpleNamespace:
    """A stand-in for an analysed rank: its kernels shifted by ``offset_us``."""
    kernels = frame(rows, T0 + round(offset_us * 1000))
    kernels["lost_us"] = np.zeros(len(kernels), dtype=np.float32)
    return SimpleNamespace(rank=rank, kernels=kernels, lite=False, document=None)


def test_every_rank_aligned_on_the_step_start():
    fast = rank_of(0, ASCEND, 0.0)
    slow_rows = [(c, s, t * 1.5, d * 1.5, o, st) for c, s, t, d, o, st in ASCEND]
    slow = rank_of(1, slow_rows, 12_345.0)  # another clock offset: alignment is per rank
    summary = SimpleNamespace(rank=2, lite=True, kernels=None, document={"step_rows": [
        {"step": "2", "computing": 20.0, "comm_not_overlapped": 5.0, "free": 3.0}]})
    ct = cluster_timeline([fast, slow, summary], step="2")
    assert ct.steps == ["1", "2"]
    r0, r1, r2 = ct.rows
    assert (r0.step_us, r1.step_us) == (30.0, 45.0)  # step 2 spans 80–110 µs, and 120–165 on the slow rank
    assert r0.index.start[0] == 0.0 and r1.index.start[0] == 0.0
    assert r0.rows.tolist() == [3, 4, 5]
    assert r2.summary and r2.step_us == 28.0
    assert r2.breakdown["start_us"].tolist() == [0.0, 20.0, 25.0]
    assert r2.breakdown["end_us"].tolist() == [20.0, 25.0, 28.0]
    assert ct.longest_us == 45.0
    default = cluster_timeline([fast, slow, summary])
    assert default.step == "2"  # the first step every rank has
    assert "rank 2 has no step 1" in cluster_timeline([fast, summary], step="1").notes[0]


def test_the_breakdown_of_a_public_sample_matches_its_step_trace(samples):
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.analyze import analyze_paths

    r = analyze_paths([samples / "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt"], AnalysisOptions(),
                      use_cache=False).ranks[0]
    tl = build_timeline(r.kernels, r.rank)
    parts = (tl.breakdown["end_us"] - tl.breakdown["start_us"]).groupby(tl.breakdown["kind"]).sum()
    trace = r.data.step_trace.frame.iloc[0]  # step_trace_time.csv: 8873.756, 101963.203, 25744.05 µs
    assert parts[COMPUTING] == pytest.approx(float(trace["computing"]), abs=0.02)
    assert parts[COMM_NOT_OVERLAPPED] == pytest.approx(float(trace["comm_not_overlapped"]), abs=0.02)
    assert parts[FREE] == pytest.approx(float(trace["free"]), abs=0.02)
    assert [lane.label for lane in tl.lanes] == ["AI_CORE · stream 2", "MIX_AIV · stream 2",
                                                 "AI_VECTOR_CORE · stream 2", "DSA_SQE · stream 3", "HCCL"]


def test_the_memory_curve_on_the_timelines_clock():
    from mfu_desktop.core.analysis.memory import RankMemory
    from mfu_desktop.core.analysis.timeline import memory_series

    # the memory engine's curve is µs from its origin (1,000 µs after the timeline's origin T0 here)
    memory = RankMemory(origin_us=T0 / 1000 + 1000.0, allocator="PTA", curve=pd.DataFrame({
        "time_us": [30.0, -10.0, 5.0], "allocated_mb": [3.0, 1.0, 2.0], "reserved_mb": [8.0, 8.0, 8.0]}))
    series = memory_series(memory, T0)
    assert series["time_us"].tolist() == [990.0, 1005.0, 1030.0]  # sorted, shifted by 1,000 µs
    assert series["allocated_mb"].tolist() == [1.0, 2.0, 3.0]
    assert memory_series(RankMemory(reason="no memory data"), T0) is None
    assert memory_series(None, T0) is None
