"""Step windows of PyTorch profiler traces: disjoint and ordered, GPU ranges checked (profiler-formats.md §13).

Generated traces (:func:`write_kineto_trace`) with hand-computed windows. One layer on the GPU, from the
step's first kernel at g (µs): GEMM [g, g+30], memset [g+31, g+33], flash [g+34, g+84], mm [g+86, g+126],
add [g+128, g+136]; the all-reduce on stream 20 [g+133, g+153] (3 µs over the add). Kernel time 150 µs;
computing 130 = 30 + 2 + 50 + 40 + 8; communication not overlapped 153 − 136 = 17; gaps 1 + 1 + 2 + 2 = 6:
a step whose window is its kernels' span lasts 130 + 17 + 6 = 153 µs (138 per extra layer).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.kineto.frame import kernel_frame
from mfu_desktop.core.readers.kineto.read import read_trace
from mfu_desktop.core.readers.kineto.steps import KernelTimes, step_windows, union_length
from mfu_desktop.demo import GPU_RANGES, TraceVariant, write_kineto_trace

T0 = 1_000_000.0  # the generator's first CPU step starts here; its GPU work 20 µs later


def frame_of(path: Path):
    return kernel_frame(read_trace(path))


def steps_of(traced) -> list[tuple[str, float, float, float, float]]:
    f = traced.steps.frame
    return list(zip(f["step"], f["computing"], f["comm_not_overlapped"], f["free"], f["step_time_us"]))


@pytest.mark.parametrize("ranges", ["none", "kernels"])
def test_a_side_stream_prefetch_does_not_open_the_next_step_early(tmp_path, ranges):
    """Step 2's HtoD copy (stream 21) runs at [T0+91, T0+101], while step 1's kernels run until T0+173.

    Step 1: GPU [T0+20, T0+173] = 153 µs (its CPU range [T0, T0+85] ran ahead: ops at half speed).
    Step 2: CPU from T0+86, the copy launched at T0+86 runs at T0+91; its compute waits for the GPU:
    first kernel at T0+173+20 = T0+193, last kernel end T0+193+153 = T0+346.
    Before: step 2's window opened at the copy, T0+91: 153 + 255 = 408 µs summed over a 326 µs GPU span.
    Now: step 1 ends where it ends (T0+173 < step 2's first compute kernel T0+193), step 2 starts at
    T0+173: 153 + 173 = 326 µs = the GPU span [T0+20, T0+346]. With Kineto-style GPU ranges (step 2's
    range spans its copy too) the same windows come out.
    """
    path = tmp_path / "prefetch.pt.trace.json"
    write_kineto_trace(path, steps=2, layers=1, variant=TraceVariant(prefetch=True, gpu_ranges=ranges))
    traced = frame_of(path)
    assert steps_of(traced) == [
        # step, computing, comm not overlapped, free, step time
        ("1", 130.0, 17.0, 153.0 - 147.0, 153.0),  # the copy [T0+91, T0+101] lies under the flash kernel
        ("2", 130.0, 17.0, 173.0 - 147.0, 173.0),  # 20 µs idle before its first kernel + 6 µs of gaps
    ]
    span = (T0 + 346.0) - (T0 + 20.0)
    assert sum(s[-1] for s in steps_of(traced)) == pytest.approx(span)
    assert any("clipped at the next step's first kernel on the compute stream" in n and "(82.0 µs in all)" in n
               for n in traced.notes)  # T0+173 − T0+91 = 82 µs of step 2's window overlapped step 1
    k = traced.kernels
    copy = k[k["name"] == "Memcpy HtoD (Pageable -> Device)"]
    assert copy["step_id"].tolist() == [2.0]  # launched in CPU step 2, wherever it ran on the GPU
    assert not traced.warnings


def test_a_gpu_range_that_holds_too_little_is_replaced_by_the_launched_kernels(tmp_path):
    """Two layers a step: kernels [g, g+291] (2 × 138 − 2 + 17 = 291 µs), GPU ranges 17 µs long at g.

    The 17 µs range holds 17 of the 2 × 130 + 20 = 280 µs of kernel time (6.1 %): refused, the window is
    the launched kernels' span, 291 µs (computing 2 × 130, communication not overlapped 17, free 2 × 8 − 2).
    Before, the step took 17 µs and its kernels outside it vanished. With the full ranges (30 µs past the
    last kernel) the range holds everything and is used: 321 µs.
    """
    path = tmp_path / "short.pt.trace.json"
    write_kineto_trace(path, steps=2, layers=2, variant=TraceVariant(gpu_ranges="short"))
    traced = frame_of(path)
    assert steps_of(traced) == [(s, 260.0, 17.0, 14.0, 291.0) for s in ("1", "2")]
    assert traced.steps.source == "Kineto ProfilerStep# on the CPU (GPU span of the kernels it launched)"
    [warning] = [w for w in traced.warnings if "GPU ProfilerStep# ranges" in w]
    assert warning.startswith("2 of 2 GPU ProfilerStep# ranges hold too little of the kernel time their CPU step "
                              "launched (< 90%;")
    assert "17.0 µs GPU range holds 6.1% of 280.0 µs of kernels" in warning  # 17 / 280
    result = analyze_paths([path], AnalysisOptions(), use_cache=False)
    rank = result.ranks[0]
    assert rank.summary.step_time_us == pytest.approx(291.0)
    assert warning in rank.warnings
    assert rank.summary.device_busy_proxy < 1.0  # was 49,880 % on the ROCm trace with 17 µs ranges
    full = tmp_path / "full.pt.trace.json"
    write_kineto_trace(full, steps=2, layers=2)
    trusted = frame_of(full)
    assert [s[-1] for s in steps_of(trusted)] == [291.0 + 30.0] * 2
    assert trusted.steps.source == "Kineto ProfilerStep# on the GPU timeline" and not trusted.warnings


def _strip_links(path: Path, keep_correlation: bool) -> Path:
    """The trace with kernels that cannot be linked to their op (no External id, no launch correlation)."""
    doc = json.loads(path.read_text())
    for e in doc["traceEvents"]:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            e["args"].pop("External id", None)
            if not keep_correlation:
                e["args"].pop("correlation", None)
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "gpu_user_annotation"]
    out = path.with_name("unlinked.json")
    out.write_text(json.dumps(doc))
    return out


def test_ranges_without_linked_kernels_say_so_instead_of_no_range(tmp_path):
    path = tmp_path / "t.pt.trace.json"
    truth = write_kineto_trace(path, steps=2, layers=1, variant=TraceVariant(gpu_ranges="none"))
    traced = frame_of(_strip_links(path, keep_correlation=False))
    assert traced.steps is None
    assert ("2 ProfilerStep# range(s) on the CPU, but none of the 12 GPU kernels could be linked to a CPU op (no "
            "External id or correlation match): step time and step MFU unavailable") in traced.warnings
    assert truth.kernels == 12 and not any(w.startswith("no ProfilerStep# range") for w in traced.warnings)
    # without any range at all, the message says there is none
    doc = json.loads(path.read_text())
    doc["traceEvents"] = [e for e in doc["traceEvents"] if "ProfilerStep" not in e.get("name", "")]
    (tmp_path / "none.json").write_text(json.dumps(doc))
    assert any(w.startswith("no ProfilerStep# range") for w in frame_of(tmp_path / "none.json").warnings)


def test_gpu_ranges_that_cannot_be_checked_are_used_and_said_so(tmp_path):
    """Full GPU ranges, kernels not linked: each range is used as it is (291 + 30 − 138 = 183 µs for one layer)."""
    path = tmp_path / "t.pt.trace.json"
    write_kineto_trace(path, steps=2, layers=1)
    doc = json.loads(path.read_text())
    for e in doc["traceEvents"]:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            e["args"] = {"device": 0, "stream": e["args"]["stream"]}
    (tmp_path / "u.json").write_text(json.dumps(doc))
    traced = frame_of(tmp_path / "u.json")
    assert [s[-1] for s in steps_of(traced)] == [153.0 + 30.0] * 2
    assert "2 of 2 GPU ProfilerStep# ranges could not be checked (no kernel is linked to an op inside their CPU " \
           "step): used as they are" in traced.warnings
    assert traced.kernels["step_id"].tolist() == [1.0] * 6 + [2.0] * 6  # by the window that holds their start


def test_windows_are_ordered_by_step_and_clipped_both_ways():
    """Three steps by hand; step 2's side-stream kernel (stream 3) starts inside step 1, its compute at 100.

    Step 1 compute [0, 90] and a comm kernel [80, 120] on stream 2 (its tail runs into step 2's time);
    step 2: copy [50, 60] on stream 3, compute [100, 150]; step 3: compute [150, 170].
    Windows: step 1 [0, min(120, 100)] = [0, 100]; step 2 [max(50, 100), min(150, 150)] = [100, 150];
    step 3 [150, 170]. The comm tail [100, 120] counts in step 2's window, overlapped by its compute.
    """
    start = np.array([0.0, 80.0, 50.0, 100.0, 150.0])
    end = np.array([90.0, 120.0, 60.0, 150.0, 170.0])
    comm = np.array([False, True, False, False, False])
    compute = np.array([True, False, False, True, True])
    stream = np.array([1, 2, 3, 1, 1])
    launch = np.array([-10.0, -9.0, 5.0, 6.0, 12.0])  # CPU: step 1 [-20, 0), step 2 [0, 10), step 3 [10, 20)
    cpu = [(1, -20.0, -0.5), (2, 0.0, 9.5), (3, 10.0, 20.0)]
    k = KernelTimes(start, end, comm, compute, stream, launch)
    sw = step_windows(cpu, [], k)
    assert sw.windows == [(1, 0.0, 100.0), (2, 100.0, 150.0), (3, 150.0, 170.0)]
    assert sw.step_of.tolist() == [1, 1, 2, 2, 3]
    assert "2 step window(s) overlapped" in sw.notes[0] and "(70.0 µs in all)" in sw.notes[0]  # 20 + 50
    from mfu_desktop.core.readers.kineto.steps import step_breakdown

    f = step_breakdown(sw.windows, k)
    # step 1: computing [0, 90], comm [80, 100] → not overlapped 10, free 0
    # step 2: compute [100, 150], comm [100, 120] → overlapped 20, not overlapped 0
    assert f[["computing", "comm_not_overlapped", "overlapped", "free", "step_time_us"]].values.tolist() == [
        [90.0, 10.0, 10.0, 0.0, 100.0], [50.0, 0.0, 20.0, 0.0, 50.0], [20.0, 0.0, 0.0, 0.0, 20.0]]


# --- the property: over random generated traces -------------------------------------------------


def _gpu_span_and_union(path: Path) -> tuple[float, float, float]:
    """From the file alone: the GPU span (kernels and GPU step ranges), the union of all kernels, and Σ kernels."""
    doc = json.loads(path.read_text())
    spans = [(e["ts"], e["ts"] + e["dur"]) for e in doc["traceEvents"]
             if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    ranges = [(e["ts"], e["ts"] + e["dur"]) for e in doc["traceEvents"] if e.get("cat") == "gpu_user_annotation"]
    everything = spans + ranges
    lo, hi = min(s for s, _ in everything), max(e for _, e in everything)
    union, reach = 0.0, -np.inf
    for s, e in sorted(spans):  # the plain way, to check the vectorised one
        if e > reach:
            union += e - max(s, reach)
            reach = e
    return hi - lo, union, sum(e - s for s, e in spans)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), steps=st.integers(1, 4), layers=st.integers(1, 3),
       ranges=st.sampled_from(GPU_RANGES), prefetch=st.booleans())
def test_steps_never_exceed_the_gpu_span_nor_busy_the_union_of_kernels(tmp_path, seed, steps, layers, ranges,
                                                                       prefetch):
    path = tmp_path / f"r{seed}.pt.trace.json"
    write_kineto_trace(path, steps=steps, layers=layers,
                       variant=TraceVariant(gpu_ranges=ranges, prefetch=prefetch, seed=seed))
    traced = frame_of(path)
    span, union, total = _gpu_span_and_union(path)
    assert union == pytest.approx(union_length(traced.kernels["start_ns"].to_numpy() / 1000.0,
                                               traced.kernels["start_ns"].to_numpy() / 1000.0
                                               + traced.kernels["duration_us"].to_numpy()), abs=1e-3)
    f = traced.steps.frame
    busy = f["computing"] + f["comm_not_overlapped"]
    tolerance = 1e-6 * span
    assert f["step_time_us"].sum() <= span + tolerance
    assert busy.sum() <= union + tolerance
    assert (f["free"] >= 0).all() and (busy <= f["step_time_us"] + tolerance).all()
    assert list(f["step"]) == sorted(f["step"], key=int)  # ordered
    windows = [(lo, hi) for _, lo, hi in f.attrs["windows"]]
    assert len(windows) == len(f) and all(lo <= hi for lo, hi in windows)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(windows))  # disjoint
    assert total >= union
