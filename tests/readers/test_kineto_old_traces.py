"""Traces of PyTorch ≤ 1.10 (issue 21 §1, spec §13): categories Kernel/Runtime/Memcpy/Memset/Operator, ids in
"external id", GPU threads named "stream 7", ProfilerStep#N written as an Operator — read as today's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.kineto.read import read_trace

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132, "totalGlobalMem": 85018279936}
GEMM = "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn"


def old_trace(path: Path) -> Path:
    """One step: a copy (memcpy), an fp16 mm (its GEMM), a zero_ (memset), as PyTorch 1.8–1.10 wrote them."""
    cpu, gpu = {"pid": 13721, "tid": "123"}, {"pid": 0, "tid": "stream 7"}

    def op(name, ts, dur, ext, **args):
        return {"ph": "X", "cat": "Operator", "name": name, **cpu, "ts": ts, "dur": dur,
                "args": {"External id": ext, **args}}

    def launch(name, ts, corr, ext):
        return {"ph": "X", "cat": "Runtime", "name": name, **cpu, "ts": ts, "dur": 3,
                "args": {"correlation": corr, "external id": ext}}

    def device(cat, name, ts, dur, corr, ext):
        return {"ph": "X", "cat": cat, "name": name, **gpu, "ts": ts, "dur": dur,
                "args": {"device": 0, "stream": 7, "correlation": corr, "external id": ext}}

    events = [
        op("ProfilerStep#1", 0, 400, 1, **{"Input Dims": []}),
        op("aten::copy_", 20, 30, 3, **{"Input Dims": [[256, 512], [256, 512]], "Input type": ["c10::Half"] * 2}),
        launch("cudaMemcpyAsync", 25, 41, 3),
        device("Memcpy", "Memcpy HtoD (Pageable -> Device)", 30, 4, 41, 3),
        op("aten::mm", 100, 50, 4, **{"Input Dims": [[256, 512], [512, 1024]], "Input type": ["c10::Half"] * 2}),
        launch("cudaLaunchKernel", 110, 40, 4),
        device("Kernel", GEMM, 200, 10, 40, 4),
        op("aten::zero_", 300, 10, 5, **{"Input Dims": [[256, 1024]], "Input type": ["c10::Half"]}),
        launch("cudaMemsetAsync", 302, 42, 5),
        device("Memset", "Memset (Device)", 310, 2, 42, 5),
    ]
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [H100], "traceEvents": events}))
    return path


def test_old_categories_read_as_todays(tmp_path):
    ev = read_trace(old_trace(tmp_path / "worker0.pt.trace.json"))
    assert [ev.strings.values[c] for c in ev.k_cat] == ["gpu_memcpy", "kernel", "gpu_memset"]
    assert list(ev.k_ext) == [3, 4, 5]  # "external id" on kernels
    assert [ev.strings.values[c] for c in ev.op_name] == ["aten::copy_", "aten::mm", "aten::zero_"]
    assert ev.cpu_steps == [(1, 0.0, 400.0)] and ev.gpu_steps == []  # the ProfilerStep Operator is a step
    assert list(ev.l_corr) == [41, 40, 42] and ev.skipped == 0


def test_an_old_trace_has_the_hand_computed_figures(tmp_path):
    """Before: "has no GPU kernels". By hand (H100 SXM, FP16 dense peak 989.4 TFLOP/s):

    * the mm: 2·256·512·1024 = 268,435,456 FLOPs in its GEMM's 10 µs → 26.84 TFLOP/s, MFU 2.713 %;
    * the step: its GPU window is the span of the kernels it launched, 30 → 312 µs = 282 µs (nothing
      overlaps: computing 4 + 10 + 2 = 16 µs, free 266 µs); step MFU 268,435,456 / (989.4e12 × 282e-6) = 0.962 %.
    """
    result = analyze_paths([old_trace(tmp_path / "worker0.pt.trace.json")], AnalysisOptions(), use_cache=False)
    assert not result.failures, [f.reason for f in result.failures]
    rank = result.ranks[0]
    k = rank.kernels
    assert rank.summary.chip == "NVIDIA H100 SXM" and len(k) == 3
    gemm = k[k[C.NAME] == GEMM].iloc[0]
    assert gemm[C.OP_TYPE] == "aten::mm" and gemm["status"] == Status.COUNTED.value
    assert gemm["flops"] == 2 * 256 * 512 * 1024
    assert gemm["mfu"] == pytest.approx(268_435_456 / 10e-6 / 989.4e12, rel=1e-6)  # 2.713 %
    assert rank.summary.steps == 1 and rank.summary.step_time_us == pytest.approx(282.0)
    assert rank.steps["computing"].tolist() == pytest.approx([16.0])
    assert rank.summary.mfu_step == pytest.approx(268_435_456 / (989.4e12 * 282e-6), rel=1e-6)  # 0.962 %
    assert set(k[C.CORE_TYPE].astype(str)) == {"GPU_COPY", "GPU_MATRIX"}  # memcpy and memset are copies
