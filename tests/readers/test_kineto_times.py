"""Trace times that cannot be right are excluded and counted with their reason (issue 22 §3), never silently
dropped, and no kernel inherits the FLOPs of a kernel that was left out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.analysis.annotate import UNSHARED_REASON, Status
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.kineto.read import read_trace
from mfu_desktop.demo import write_kineto_trace

GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas"
#: One generated layer (demo.write_kineto_trace): the addmm's FLOPs 2·T·H·H with T = H = 1024.
ADDMM_FLOPS = 2 * 1024 * 1024 * 1024  # 2,147,483,648
FLASH_FLOPS = 2 * 16 * (1024 * 1025 // 2) * (2 * 64)  # causal SDPA, 16 heads of 64: 2,149,580,800
MM_FLOPS = 2 * 1024 * 1024 * 4096  # 8,589,934,592
H100_BF16 = 989.4e12


def trace_with(tmp_path: Path, change) -> Path:
    """A one-step, one-layer generated trace with ``change(event)`` applied to every event."""
    folder = tmp_path / "trace"
    folder.mkdir(exist_ok=True)
    path = folder / "rank0.pt.trace.json"
    write_kineto_trace(path, steps=1, layers=1, rank=0)
    trace = json.loads(path.read_text())
    for event in trace["traceEvents"]:
        change(event)
    path.write_text(json.dumps(trace, allow_nan=True))
    return path


def analyse(path: Path):
    result = analyze_paths([path], AnalysisOptions(), use_cache=False)
    assert not result.failures, [f.reason for f in result.failures]
    return result.ranks[0]


@pytest.mark.parametrize(("value", "reason"), [
    (float("nan"), "start or duration missing or not a number"), ("30", "start or duration missing or not a number"),
    (None, "start or duration missing or not a number"), (float("inf"), "infinite start or duration"),
    (-30.0, "negative start or duration"), (1e300, "longer than the capture could hold")])
def test_a_gemm_with_an_unusable_duration_is_excluded_and_its_memset_gets_none_of_its_flops(tmp_path, value, reason):
    """Before: the GEMM vanished and the addmm's memset got all 2·1024³ FLOPs in 2 µs — 1,073.7 TFLOP/s,
    MFU 108.5 % of the 989.4 TFLOP/s peak (1e300: kept, the step time became 1e300 µs)."""
    path = trace_with(tmp_path, lambda e: e.update(dur=value) if e.get("name") == GEMM else None)
    rank = analyse(path)
    k = rank.kernels
    assert len(k) == 5 and GEMM not in set(k[C.NAME].astype(str))  # 6 kernels, the GEMM excluded
    assert f"1 of 6 GPU kernels excluded: 1 {reason} — their ops' FLOPs are not counted" in " ".join(rank.warnings)
    memset = k[k[C.NAME] == "Memset (Device)"].iloc[0]
    assert np.isnan(memset["flops"]) and memset["status"] == Status.EXCLUDED.value
    assert memset["reason"] == UNSHARED_REASON
    counted = k[k["status"] == Status.COUNTED.value]
    assert sorted(counted["flops"]) == [FLASH_FLOPS, MM_FLOPS]
    # operator MFU = Σ FLOPs / peak / Σ time over the counted kernels: the flash kernel (50 µs) and the mm (40 µs)
    assert rank.summary.mfu_ops == pytest.approx((FLASH_FLOPS + MM_FLOPS) / H100_BF16 / 90e-6)  # 12.06 %
    assert (k["mfu"].fillna(0) <= 1.0).all()


def test_a_kernel_that_starts_before_zero_or_beyond_any_clock_is_excluded(tmp_path):
    def change(e):
        if e.get("cat") == "gpu_memset":
            e["ts"] = -5.0
        elif e.get("name", "").startswith("void at::native"):
            e["ts"] = 1e16  # µs: 317 years — beyond what int64 nanoseconds hold

    rank = analyse(trace_with(tmp_path, change))
    assert len(rank.kernels) == 4
    note = next(w for w in rank.warnings if "GPU kernels excluded" in w)
    assert note.startswith("2 of 6 GPU kernels excluded: ")
    assert "1 negative start or duration" in note and "1 start beyond any clock (> 9.2e15 µs)" in note


def test_absurd_durations_of_ops_and_steps_are_excluded_and_the_json_stays_valid(tmp_path, capsys):
    """A 1e300 µs CPU op and ProfilerStep range: excluded as longer than the capture; `--json` is strict JSON."""
    def change(e):
        if e.get("name") == "aten::add" or (e.get("name"), e.get("cat")) == ("ProfilerStep#1", "user_annotation"):
            e["dur"] = 1e300

    path = trace_with(tmp_path, change)
    ev = read_trace(path)
    assert dict(ev.excluded["CPU ops"]) == {"longer than the capture could hold": 1}
    assert dict(ev.excluded["ProfilerStep ranges"]) == {"longer than the capture could hold": 1}
    assert ev.cpu_steps == [] and len(ev.gpu_steps) == 1
    assert mfu(["analyze", str(path), "--json", "--no-cache"]) == 0
    doc = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
    warnings = " ".join(doc["ranks"][0]["warnings"])
    assert "1 of 7 CPU ops excluded: 1 longer than the capture could hold" in warnings
    assert "1 of 2 ProfilerStep ranges excluded" in warnings
    # the step still comes from its GPU range: kernels 138 µs, all-reduce not overlapped 15, free 30 (by hand)
    assert doc["ranks"][0]["step_time_us"] == pytest.approx(138 + 15 + 30)


def test_a_kernel_longer_than_the_capture_could_hold_is_excluded(tmp_path):
    """The starts span 10 µs: a capture holds at most 10 µs + a minute of one kernel (no kernel runs longer: the
    runtime's watchdog ends it). A 59 s kernel is kept (a last long kernel is plausible), a 61 s one is not."""
    events = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
               "args": {"External id": 1}},
              {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 15, "dur": 59e6, "args": {}},
              {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 20, "dur": 61e6, "args": {}}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}))
    ev = read_trace(path)
    assert ev.capture_us == 10.0 and list(ev.k_dur) == [59e6]
    assert dict(ev.excluded["GPU kernels"]) == {"longer than the capture could hold": 1}
