"""FLOPs and peaks of PyTorch profiler traces: TF32 tensor-core kernels, a decomposed linear (profiler-formats.md §13).

Generated traces (:func:`write_kineto_trace`) with hand-computed figures; tokens T, hidden H. Per layer:
linear [T, H] × [H, H] → 2·T·H·H FLOPs; mm [T, H] × [H, 4H] → 2·T·H·4H; causal flash attention (BF16).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.analysis.explain import explain_kernel
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.demo import A100_PG509_PROPERTIES, V100_PROPERTIES, TraceVariant, write_kineto_trace


def analyse(path: Path, **options):
    result = analyze_paths([path], AnalysisOptions(**options), use_cache=False)
    assert not result.failures, [f.reason for f in result.failures]
    return result.ranks[0]


def rows(kernels, op_type: str):
    return kernels[kernels[C.OP_TYPE].astype(str) == op_type]


def test_cutlass_tensorop_fp32_gemms_are_tf32_on_an_a100(tmp_path):
    """T = 256, H = 1024 on an A100 SXM 40GB (FP32 19.5, TF32 156 TFLOP/s), FP32 matmuls on tensorop_s1688gemm.

    addmm: 2·256·1024·1024 = 536,870,912 FLOPs; its GEMM carries 30/32 (503,316,480 in 30 µs = 16.78 TFLOP/s,
    10.75 % of 156), its memset 2/32 (same rate). mm: 2·256·1024·4096 = 2,147,483,648 in 40 µs = 53.69 TFLOP/s:
    34.4 % of TF32 — against the FP32 peak it was 275 % (suspicious, dropped from the MFU).
    Operator MFU = Σ FLOPs/peak / Σ t = (536,870,912 / 156e12 + 2,147,483,648 / 156e12 + 134,742,016 / 312e12)
    / 122 µs = (3.4415 + 13.7659 + 0.4319) / 122 = 14.46 % (flash attention: 2·16·(256·257/2)·128 FLOPs, BF16).
    """
    path = tmp_path / "a100.pt.trace.json"
    write_kineto_trace(path, steps=1, layers=1, tokens=256,
                       variant=TraceVariant(fp32=True, device=dict(A100_PG509_PROPERTIES)))
    rank = analyse(path)
    assert rank.summary.chip == "NVIDIA A100 SXM 40GB"
    k = rank.kernels
    matmuls = k[k[C.OP_TYPE].astype(str).isin(["aten::addmm", "aten::mm"])]
    assert (matmuls["dtype"].astype(str) == "hf32").all() and (matmuls["peak_tflops"] == 156.0).all()
    assert (matmuls[C.INPUT_DTYPES].astype(str).str.startswith("float")).all()  # the recorded inputs stay FP32
    assert (matmuls[C.HF32_ELIGIBLE].astype(str) == "TF32").all()
    assert (matmuls["status"] == Status.COUNTED.value).all()
    gemm = rows(k, "aten::addmm").iloc[0]
    assert gemm["flops"] == pytest.approx(536_870_912 * 30 / 32)
    assert float(gemm["mfu"]) == pytest.approx(503_316_480 / 30e-6 / 156e12, rel=1e-6)  # 10.75 %
    mm = rows(k, "aten::mm").iloc[0]
    assert float(mm["mfu"]) == pytest.approx(2_147_483_648 / 40e-6 / 156e12, rel=1e-6)  # 34.4 %
    ideal_us = 536_870_912 / 156e6 + 2_147_483_648 / 156e6 + 2 * 16 * (256 * 257 // 2) * 128 / 312e6
    assert rank.summary.mfu_ops == pytest.approx(ideal_us / 122.0, rel=1e-6)
    assert any("ran as TF32 on the Tensor Cores" in n and "judged against the TF32 peak" in n for n in rank.notes)
    derivation, _ = explain_kernel(mm.to_dict(), rank.summary.chip, rank.summary.peak_source, vendor="NVIDIA")
    dtype_line = dict(derivation.inputs)["compute dtype"]
    assert dtype_line.startswith("hf32 — TF32: FP32 inputs on a Tensor Core GEMM kernel")
    [mfu_line] = [line for line in derivation.steps if line.startswith("MFU = achieved / peak")]
    assert " / 156 = 34.4 %" in mfu_line  # the TF32 peak (against 19.5 it read 275 %)


def test_fp32_gemms_on_cuda_cores_keep_the_fp32_peak(tmp_path):
    """A V100 has no TF32: FP32 sgemm kernels stay FP32 (15.7 TFLOP/s), even when told HF32/TF32 was on."""
    path = tmp_path / "v100.pt.trace.json"
    write_kineto_trace(path, steps=1, layers=1, tokens=256,
                       variant=TraceVariant(fp32=True, device=dict(V100_PROPERTIES)))
    for hf32 in (False, True):
        k = analyse(path, hf32=hf32).kernels
        matmuls = k[k[C.OP_TYPE].astype(str).isin(["aten::addmm", "aten::mm"])]
        assert (matmuls["dtype"].astype(str) == "fp32").all() and (matmuls["peak_tflops"] == 15.7).all()
        assert (matmuls[C.HF32_ELIGIBLE].astype(str) == "NO").all()


def test_the_hf32_switch_reaches_fp32_gemms_whose_names_do_not_say(tmp_path):
    """An H100 FP32 GEMM named neither TF32 nor SIMT: FP32 (66.9) by default, TF32 (494.7) with --hf32."""
    path = tmp_path / "h100.pt.trace.json"
    write_kineto_trace(path, steps=1, layers=1, tokens=256, variant=TraceVariant(fp32=True))
    k = analyse(path).kernels
    assert (rows(k, "aten::mm")["peak_tflops"] == 494.7).all()  # cutlass tensorop_s1688gemm: TF32 by name
    text = path.read_text().replace("cutlass_80_tensorop_s1688gemm_256x128_16x3_tn_align4",
                                    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n")
    path.write_text(text)
    assert (rows(analyse(path).kernels, "aten::mm")["peak_tflops"] == 66.9).all()
    assert (rows(analyse(path, hf32=True).kernels, "aten::mm")["peak_tflops"] == 494.7).all()


def test_a_decomposed_linear_gives_its_flops_to_the_mm_and_none_to_the_bias_add(tmp_path):
    """aten::linear → aten::t + aten::matmul → aten::mm (GEMM, 30 µs) + aten::add_ (the bias, 2 µs).

    T = H = 1024: the mm kernel carries the linear's 2·1024³ = 2,147,483,648 FLOPs (all of them: the only
    kernel of the mm); the add_ kernel none — before, it took the linear's FLOPs a second time (2.1 GFLOP in
    2 µs: "MFU 108 %"). It is judged by its bytes: input [1024, 1024] + bias [1024] + output [1024, 1024] in
    BF16 = (2 · 1,048,576 + 1,024) · 2 = 4,196,352 bytes in 2 µs = 2,098 GB/s, 62.6 % of 3,350.
    """
    path = tmp_path / "linear.pt.trace.json"
    truth = write_kineto_trace(path, steps=1, layers=1, variant=TraceVariant(decomposed_linear=True))
    rank = analyse(path)
    k = rank.kernels
    assert rank.summary.flops == pytest.approx(truth.flops_per_step)
    bias = rows(k, "aten::add_")
    assert len(bias) == 1 and bias["status"].tolist() == [Status.NO_RULE.value] and bias["flops"].isna().all()
    assert bias[C.CORE_TYPE].astype(str).tolist() == ["GPU_VECTOR"]
    assert bias["bytes"].tolist() == [4_196_352] and bias["bound"].tolist() == ["memory"]
    assert float(bias["bw_util"].iloc[0]) == pytest.approx(4_196_352 / 2e-6 / 3.35e12, rel=1e-5)
    gemm = k[k[C.NAME].astype(str).str.startswith("sm90_xmma_gemm")]
    assert rows(gemm, "aten::mm")["flops"].tolist() == [2_147_483_648]
    assert "aten::linear" not in set(k[C.OP_TYPE].astype(str))
    by_core = k.groupby(k[C.CORE_TYPE].astype(str), observed=True)[C.DURATION_US].sum()
    assert by_core["GPU_MATRIX"] == pytest.approx(truth.matrix_kernel_us_per_step)  # 30 + 50 + 40
    assert by_core["GPU_VECTOR"] == pytest.approx(2.0 + 8.0)  # the bias add and the residual add
