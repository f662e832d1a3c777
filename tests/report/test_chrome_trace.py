"""The Chrome-trace export: loaded back, every kernel with its figures, lanes as threads, µs from the origin."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mfu_desktop.core.analysis.memory import memory_of
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.host_ops import read_host_ops
from mfu_desktop.core.report.chrome_trace import KERNEL_ARGS, overlap_levels, write_chrome_trace
from mfu_desktop.core.writing import ExportError
from tests.helpers import check_trace_event_format, kernel_row, make_rank, snapshot

T0 = "1736000000000000"  # µs on the capture clock


def at(us: float) -> str:
    """A start time ``us`` µs after T0, as kernel_details writes it."""
    whole, frac = divmod(round(us * 1000), 1000)
    return f"{int(T0) + whole}.{frac:03d}"


ROWS = [
    kernel_row("MatMul_1", "MatMulV2", "AI_CORE", at(0), 100.0, "1024,1024;1024,1024", "DT_BF16;DT_BF16",
               "1024,1024", "DT_BF16", step=1),
    kernel_row('Add "quoted" 加', "Add", "AI_VECTOR_CORE", at(100.5), 20.0, "4096,4096;4096,4096",
               "DT_BF16;DT_BF16", "4096,4096", "DT_BF16", step=1),
    kernel_row("hcom_allReduce__1", "hcom_allReduce_", "HCCL", at(60), 80.0, step=1),
    kernel_row("hcom_allReduce__2", "hcom_allReduce_", "HCCL", at(90), 60.0, step=1),  # partly overlaps the first
    kernel_row("MatMul_2", "MatMulV2", "AI_CORE", at(300), 50.0, "4096,4096;4096,4096", "DT_BF16;DT_BF16",
               "4096,4096", "DT_BF16", step=2),
]


@pytest.fixture
def rank(tmp_path):
    folder = make_rank(tmp_path / "job", "r0_ascend_pt", 0, ROWS)
    result = analyze_paths([folder], AnalysisOptions(chip="910B2"), use_cache=False)
    return result.ranks[0]


def load(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    return data, check_trace_event_format(data)


def test_every_kernel_once_with_its_figures_in_us_from_the_origin(rank, tmp_path):
    out = tmp_path / "out" / "rank0.json"
    before = snapshot(rank.folder.path)
    export = write_chrome_trace(rank, out)
    data, counts = load(out)
    kernels = [e for e in data["traceEvents"] if e.get("cat") == "kernel"]
    # loaded back: one event per kernel, summed durations = the rank's kernel time (100 + 20 + 80 + 60 + 50)
    assert len(kernels) == len(rank.kernels) == export.kernels == 5
    assert sum(e["dur"] for e in kernels) == pytest.approx(310.0) == export.kernel_time_us
    assert rank.kernels[C.DURATION_US].sum() == pytest.approx(310.0)
    by_name = {e["name"]: e for e in kernels}
    # times in µs from the origin (the first kernel): 0, 100.5, 60, 90, 300
    assert [by_name[n]["ts"] for n in ("MatMul_1", 'Add "quoted" 加', "hcom_allReduce__1", "hcom_allReduce__2",
                                       "MatMul_2")] == [0, 100.5, 60, 90, 300]
    assert min(e["ts"] for e in data["traceEvents"] if "ts" in e) == 0
    mm = by_name["MatMul_1"]["args"]
    assert tuple(mm) == KERNEL_ARGS
    # 2·1024³ = 2,147,483,648 FLOPs in 100 µs = 21.47 TFLOP/s; on the 910B2 (353.9 TFLOP/s BF16) MFU = 6.068 %
    assert mm["flops"] == 2 * 1024**3
    assert mm["mfu"] == pytest.approx(2 * 1024**3 / 100e-6 / 353.9e12, rel=1e-6)
    assert mm["bound"] == "compute" and mm["lost_us"] == pytest.approx(100.0 * (1 - mm["mfu"]), rel=1e-5)
    assert mm["type"] == "MatMulV2" and mm["shapes"] == "1024,1024;1024,1024" and mm["family"] == "matmul"
    assert mm["flops_source"] == "shapes"
    comm = by_name["hcom_allReduce__1"]["args"]
    assert comm["mfu"] is None and comm["lost_us"] is None and comm["family"] == "communication"
    assert counts["X"] == 5 + 2 + len([e for e in data["traceEvents"] if e.get("cat") == "breakdown"])
    assert snapshot(rank.folder.path) == before and export.path == out


def test_lanes_are_threads_and_partly_overlapping_kernels_get_their_own(rank, tmp_path):
    out = tmp_path / "t.json"
    write_chrome_trace(rank, out)
    data, _ = load(out)
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in data["traceEvents"] if e["name"] == "thread_name"}
    device = {tid: name for (pid, tid), name in names.items() if pid == 1}
    assert list(device.values()) == ["AI_CORE · stream 2", "AI_VECTOR_CORE · stream 2", "HCCL · stream 2",
                                     "HCCL · stream 2 (2)"]
    tids = {e["name"]: device[e["tid"]] for e in data["traceEvents"] if e.get("cat") == "kernel"}
    assert tids["hcom_allReduce__1"] == "HCCL · stream 2" and tids["hcom_allReduce__2"] == "HCCL · stream 2 (2)"
    processes = {e["pid"]: e["args"]["name"] for e in data["traceEvents"] if e["name"] == "process_name"}
    assert processes == {1: "rank 0 device", 3: "rank 0 steps"}


def test_steps_and_breakdown_tracks(rank, tmp_path):
    out = tmp_path / "t.json"
    write_chrome_trace(rank, out)
    data, _ = load(out)
    steps = [(e["name"], e["ts"], e["dur"]) for e in data["traceEvents"] if e.get("cat") == "step"]
    assert steps == [("step 1", 0, 150.0), ("step 2", 300, 50.0)]  # step 1 ends with the second all-reduce
    parts = [(e["name"], e["ts"], e["dur"]) for e in data["traceEvents"] if e.get("cat") == "breakdown"]
    # step 1: compute 0–100 and 100.5–120.5; the all-reduces 60–150 are hidden until 100, then 100–100.5 and
    # 120.5–150 are not overlapped
    assert parts[:4] == [("computing", 0, 100.0), ("comm_not_overlapped", 100, 0.5), ("computing", 100.5, 20.0),
                         ("comm_not_overlapped", 120.5, 29.5)]
    assert parts[4] == ("computing", 300, 50.0)


def test_one_step(rank, tmp_path):
    out = tmp_path / "s2.json"
    export = write_chrome_trace(rank, out, step="2")
    data, _ = load(out)
    kernels = [e for e in data["traceEvents"] if e.get("cat") == "kernel"]
    assert [e["name"] for e in kernels] == ["MatMul_2"] and kernels[0]["ts"] == 0  # the step's start is the origin
    assert export.kernels == 1 and export.kernel_time_us == 50.0 and data["otherData"]["step"] == "2"
    assert data["otherData"]["origin_unix_ns"] == int(T0) * 1000 + 300_000
    with pytest.raises(ValueError, match="no step 7"):
        write_chrome_trace(rank, tmp_path / "s7.json", step="7")
    assert not (tmp_path / "s7.json").exists()


def test_never_inside_the_profile(rank, tmp_path):
    with pytest.raises(ExportError):
        write_chrome_trace(rank, rank.folder.path / "ASCEND_PROFILER_OUTPUT" / "trace.json")


def test_overlap_levels():
    # a serial stream stays on one thread; an interval starting before every earlier one of its level has ended
    # goes up a level: 5–8 and 6–30 start inside 0–10; 6–30 inside 5–8; 40–45 is after them all
    start = np.array([0.0, 5.0, 6.0, 40.0, 50.0])
    end = np.array([10.0, 8.0, 30.0, 45.0, 60.0])
    assert overlap_levels(start, end).tolist() == [0, 1, 2, 0, 0]
    assert overlap_levels(np.arange(5.0), np.arange(5.0) + 1).tolist() == [0] * 5  # back to back: one thread
    crowded = overlap_levels(np.zeros(40), np.full(40, 1.0), limit=16)
    assert crowded.max() == 15  # past the limit, the rest share the last thread


def test_host_ops_and_memory_of_a_trace(samples, tmp_path):
    r = analyze_paths([samples / "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"], AnalysisOptions(),
                      use_cache=False).ranks[0]
    host = read_host_ops(r.folder, r.kernels)
    memory = memory_of(r)
    out = tmp_path / "h100.json"
    export = write_chrome_trace(r, out, host=host, memory=memory)
    data, counts = load(out)
    assert export.host_ops == 479 and export.kernels == 61
    assert counts["s"] == counts["f"] == 61  # a launch flow per kernel
    assert counts["C"] == len(memory.curve)
    events = data["traceEvents"]
    assert sum(e["dur"] for e in events if e.get("cat") == "kernel") == pytest.approx(
        float(r.kernels[C.DURATION_US].sum()))
    assert min(e["ts"] for e in events if "ts" in e) == 0
