"""PyTorch profiler (Kineto) traces: the same engine as Ascend, checked against TraceLens's own reports."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.readers.kineto.byte_stream import TraceFormatError
from mfu_desktop.core.readers.kineto.read import read_trace
from mfu_desktop.core.readers.kineto.steps import union_length
from mfu_desktop.demo import write_kineto_trace
from tests.conftest import SAMPLES, requires_samples

TRACELENS = SAMPLES / "tracelens"
PAIRS = [(gpu, model) for gpu in ("h100", "mi300")
         for model in ("gaunernst_bert-small-uncased__1016001", "Falconsai_nsfw_image_detection__1016002")]


def analyse(path: Path):
    result = analyze_paths([path], AnalysisOptions(), use_cache=False)
    assert not result.failures, [f.reason for f in result.failures]
    return result.ranks[0]


def groups(kernels: pd.DataFrame) -> dict[tuple[str, str], tuple[float, float]]:
    """Our FLOPs and kernel time per (op, input shapes), summed over every kernel of every call."""
    k = kernels[kernels[C.OP_TYPE].notna()]
    out = {}
    for (op, shapes), g in k.groupby([k[C.OP_TYPE].astype(str), k[C.INPUT_SHAPES].astype(str)], observed=True):
        out[(op, shapes)] = (float(np.nansum(g["flops"])), float(g[C.DURATION_US].sum()))
    return out


@requires_samples
@pytest.mark.parametrize(("gpu", "model"), PAIRS)
def test_flops_and_kernel_time_equal_tracelens_per_op(gpu, model):
    """Every GEMM/SDPA/CONV row of TraceLens's report: our FLOPs per call and kernel time per op.

    Convention difference, on purpose: TraceLens counts an addmm's bias add (M·N FLOPs); mfu.md §2.1
    does not (it is not matrix-unit work). SDPA and convolutions agree exactly.
    """
    rank = analyse(TRACELENS / gpu / f"{model}.json.gz")
    ours = groups(rank.kernels)
    reports = TRACELENS / gpu / f"{model}_perf_report_csvs"
    checked = 0
    for report in ("GEMM.csv", "SDPA_fwd.csv", "CONV_fwd.csv"):
        if not (reports / report).exists():
            continue
        with (reports / report).open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                dims = json.loads(row["Input Dims_first"])
                shapes = ";".join(",".join(str(x) for x in d) for d in dims)
                flops, time_us = ours[(row["name"], shapes)]
                calls = int(row["name_count"])
                expected = float(row["GFLOPS_first"]) * 1e9
                if report == "GEMM.csv" and row["param: bias"] == "True":
                    expected -= int(row["param: M"]) * int(row["param: N"]) * int(row["param: B"] or 1)
                assert flops / calls == pytest.approx(expected, rel=1e-9), (report, row["name"], shapes)
                # TraceLens's kernel times carry timestamp rounding (33.089 → 33.089111328125 µs): 0.002 µs a call
                assert time_us == pytest.approx(float(row["Kernel Time (µs)_sum"]), abs=2e-3 * calls), (report, shapes)
                checked += 1
    assert checked >= 3


@requires_samples
@pytest.mark.parametrize(("gpu", "chip"), [("h100", "NVIDIA H100 SXM"), ("mi300", "AMD MI300X")])
def test_chip_steps_and_vendor_from_the_trace(gpu, chip):
    path = TRACELENS / gpu / "gaunernst_bert-small-uncased__1016001.json.gz"
    rank = analyse(path)
    assert rank.chip.confirmed and rank.summary.chip == chip
    assert rank.folder.vendor == ("NVIDIA" if gpu == "h100" else "AMD")
    assert rank.summary.steps == 1 and rank.summary.tier.tier == 1
    with gzip.open(path, "rt") as fh:
        events = json.load(fh)["traceEvents"]
    window = next(e for e in events if e.get("cat") == "gpu_user_annotation" and e["name"].startswith("ProfilerStep"))
    assert rank.summary.step_time_us == pytest.approx(window["dur"])
    kernels = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    assert len(rank.kernels) == len(kernels)
    assert rank.kernels[C.DURATION_US].sum() == pytest.approx(sum(e["dur"] for e in kernels))


@requires_samples
def test_gpu_only_trace_falls_back_with_a_reason():
    rank = analyse(TRACELENS / "mi210" / "gpu_only_trace.json.gz")
    assert rank.summary.tier.tier == 3 and rank.summary.mfu_ops is None
    # the MI210 joined the catalog with the public validation GPUs: its deviceProperties name the row
    assert rank.chip.confirmed and rank.chip.chip.identifier == "AMD MI210" and "MI210" in rank.chip.source
    assert any("GPU-only" in p for p in rank.warnings)
    assert (rank.kernels["status"] != Status.COUNTED.value).all()


def test_generated_trace_has_the_known_answer(tmp_path):
    path = tmp_path / "node3.pt.trace.json.gz"
    truth = write_kineto_trace(path, steps=2, layers=3, rank=3, gzip_output=True)
    found = discover([tmp_path])
    assert [(r.reader, r.rank, r.rank_origin) for r in found.ranks] == [
        ("kineto", 3, "node3.pt.trace.json.gz distributedInfo.rank")]
    rank = analyse(tmp_path)
    s = rank.summary
    assert s.chip == "NVIDIA H100 SXM" and s.steps == 2
    assert s.flops == pytest.approx(truth.flops_per_step)  # per step
    k = rank.kernels
    assert len(k) == truth.kernels
    assert k[C.DURATION_US].sum() / 2 == pytest.approx(truth.kernel_us_per_step)
    # the addmm's FLOPs are spread over its GEMM and memset kernels by time (30 : 2)
    addmm = k[k[C.OP_TYPE] == "aten::addmm"]
    assert sorted(addmm[C.FLOPS_SHARE].round(6).unique()) == pytest.approx([2 / 32, 30 / 32])
    # the mm linked by correlation only still has its FLOPs; SDPA counted above _flash_attention_forward
    assert (k.loc[k[C.OP_TYPE] == "aten::mm", "status"] == Status.COUNTED.value).all()
    assert "aten::_flash_attention_forward" not in set(k[C.OP_TYPE].astype(str))
    # classes: GEMM/flash = matrix, the add vector, NCCL communication, memset a copy
    by_core = k.groupby(k[C.CORE_TYPE].astype(str))[C.DURATION_US].sum() / 2
    assert by_core["GPU_COMM"] == pytest.approx(20.0) and by_core["GPU_VECTOR"] == pytest.approx(8.0 * 3)
    assert by_core["GPU_MATRIX"] == pytest.approx(truth.matrix_kernel_us_per_step)
    # bytes from the launching op's shapes (the output taken as large as the largest input): the add
    # [1024,1024] + [1024,1024] BF16 → 3 × 1024·1024·2 = 6,291,456 bytes in 8 µs → 786.4 GB/s, 23.5 % of 3,350
    add = k[k[C.OP_TYPE] == "aten::add"]
    assert (add["bytes"] == 3 * 1024 * 1024 * 2).all() and (add["bound"] == "memory").all()
    assert float(add["bw_util"].iloc[0]) == pytest.approx(6_291_456 / 8e-6 / 3.35e12, rel=1e-5)
    # the addmm's bytes are shared over its kernels like its FLOPs: 2·(1024 + 1024² + 1024² + 1024²)
    mm_bytes = 2 * (1024 + 3 * 1024 * 1024)
    assert addmm["bytes"].sum() / 6 == pytest.approx(mm_bytes)  # 3 layers × 2 steps
    # step breakdown, by hand for 3 layers: kernels 138 µs per layer, all-reduce [409, 429] over the add [404, 412]
    steps = rank.steps
    assert steps["computing"].tolist() == pytest.approx([130.0 * 3] * 2)
    assert steps["comm_not_overlapped"].tolist() == pytest.approx([17.0] * 2)
    assert steps["step_time_us"].tolist() == pytest.approx([138 * 3 + 15 + 30] * 2)


def test_tf32_kernels_use_the_tf32_peak(tmp_path):
    path = tmp_path / "fp32.pt.trace.json"
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50,
         "args": {"External id": 1, "Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_tf32f32_tf32f32_f32_tn_n", "pid": 0, "tid": 7, "ts": 20,
         "dur": 1000.0, "args": {"External id": 1, "device": 0, "stream": 7, "correlation": 9}},
    ]
    path.write_text(json.dumps({"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132,
                                                      "totalGlobalMem": 85018279936}],
                                "cuda_runtime_version": 1, "traceEvents": events}))
    k = analyse(path).kernels
    assert k["dtype"].iloc[0] == "hf32" and k["peak_tflops"].iloc[0] == pytest.approx(494.7)
    events[1]["name"] = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n"  # plain FP32: the CUDA-core peak
    path.write_text(json.dumps({"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132,
                                                      "totalGlobalMem": 85018279936}],
                                "cuda_runtime_version": 1, "traceEvents": events}))
    k = analyse(path).kernels
    assert k["dtype"].iloc[0] == "fp32" and k["peak_tflops"].iloc[0] == pytest.approx(66.9)


def test_streaming_reader_handles_chunk_boundaries_and_bad_files(tmp_path):
    path = tmp_path / "t.pt.trace.json"
    write_kineto_trace(path, steps=2, layers=2)
    whole = read_trace(path)
    small = read_trace(path, chunk_bytes=37)  # every event straddles a chunk boundary
    assert small.k_ts == whole.k_ts and small.op_name == whole.op_name and small.header == whole.header
    text = path.read_text()
    for cut in (0, 20, len(text) // 2, len(text) - 3):
        (tmp_path / "cut.json").write_text(text[:cut])
        with pytest.raises(TraceFormatError):
            read_trace(tmp_path / "cut.json")
    (tmp_path / "other.json").write_text('{"name": "not a trace"}')
    with pytest.raises(TraceFormatError, match="no traceEvents"):
        read_trace(tmp_path / "other.json")
    result = analyze_paths([tmp_path / "cut.json"], AnalysisOptions(), use_cache=False)
    assert result.failures and "truncated" in result.failures[0].reason


def test_union_length():
    starts, ends = np.array([0.0, 5.0, 20.0, 21.0]), np.array([10.0, 8.0, 25.0, 30.0])
    assert union_length(starts, ends) == 20.0
    assert union_length(np.array([]), np.array([])) == 0.0


def test_a_folder_of_traces_is_a_cluster_with_ascend_beside(tmp_path):
    from tests.helpers import kernel_row, make_rank

    for r in (0, 1):
        write_kineto_trace(tmp_path / "gpu" / f"worker{r}.pt.trace.json", steps=1, layers=1, rank=r) \
            if (tmp_path / "gpu").mkdir(exist_ok=True) is None else None
    make_rank(tmp_path, "npu_ascend_pt", 5, [kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.5", 10.0,
                                                        "64,64;64,64", "DT_BF16;DT_BF16", "64,64", "DT_BF16")])
    result = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False)
    assert sorted((r.rank, r.folder.vendor) for r in result.ranks) == [(0, "NVIDIA"), (1, "NVIDIA"), (5, "Huawei")]


def test_prediction_with_a_gpu_source(tmp_path):
    """H100 → MI300X by hand: matrix kernels by the BF16 peak ratio, vector kernels by the HBM ratio (no pipe
    counters on GPUs); memsets and NCCL kernels are not compute-class."""
    from mfu_desktop.core.chips.catalog import default_catalog
    from mfu_desktop.core.predict.inputs import choose_source, rank_inputs
    from mfu_desktop.core.predict.predictor import predict

    truth = write_kineto_trace(tmp_path / "a.pt.trace.json", steps=2, layers=2, rank=0)
    result = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False)
    catalog = default_catalog()
    source, why = choose_source(catalog, None, result)
    assert source.display_name == "NVIDIA H100 SXM" and why == "detected from the profile"
    p = predict(rank_inputs(result), source, [catalog.find("AMD MI300X"), catalog.find("Huawei Ascend 910B2")])
    vector_us = 8.0 * 2  # two adds per step
    assert p.baseline_compute_us == pytest.approx(truth.matrix_kernel_us_per_step + vector_us)
    mi300 = p.targets[0]
    expected = truth.matrix_kernel_us_per_step * 989.4 / 1307.4 + vector_us * 3350 / 5300
    assert mi300.predicted_compute_us == pytest.approx(expected) and not mi300.partial
    assert {r["class"] for _, r in p.excluded.iterrows()} == {"communication", "memory copy/set"}


def test_traces_beside_a_rank_folder_are_all_found_and_unknown_ranks_stay_apart(tmp_path):
    """Traces in the dropped folder itself do not hide the Ascend rank folder next to them; two traces without
    distributedInfo get distinct placeholder ids (-1, -2) everywhere; mixing chips is called out."""
    from tests.helpers import kernel_row, make_rank

    write_kineto_trace(tmp_path / "a.pt.trace.json", steps=1, layers=1, rank=None)
    write_kineto_trace(tmp_path / "b.pt.trace.json", steps=1, layers=1, rank=None)
    make_rank(tmp_path, "npu_ascend_pt", 5, [kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.5", 10.0,
                                                        "64,64;64,64", "DT_BF16;DT_BF16", "64,64", "DT_BF16")])
    found = discover(tmp_path)
    assert [(r.reader, r.rank, r.placeholder) for r in found.ranks] == [
        ("ascend", 5, -1), ("kineto", None, -1), ("kineto", None, -2)]
    result = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False)
    assert [r.rank for r in result.ranks] == [5, -1, -2]
    assert result.cluster.table["rank"].tolist() == [5, -1, -2]
    assert any("shown as -2" in w for w in result.ranks[2].warnings)
    mixed = [w for w in result.warnings if "different chips" in w]
    assert len(mixed) == 1 and "NVIDIA H100 SXM" in mixed[0]


def test_a_cached_gpu_rank_keeps_its_vendor_and_capture(tmp_path):
    """The second analysis (served from the cache) tells the same vendor and capture configuration."""
    write_kineto_trace(tmp_path / "a.pt.trace.json", steps=1, layers=1, rank=0)
    first = analyze_paths([tmp_path], AnalysisOptions(), use_cache=True).ranks[0]
    second = analyze_paths([tmp_path], AnalysisOptions(), use_cache=True).ranks[0]
    assert second.data.from_cache
    assert first.folder.vendor == second.folder.vendor == "NVIDIA"
    assert first.folder.config.describe() == second.folder.config.describe()
    assert "PyTorch profiler (CUDA)" in str(second.folder.config.describe())
