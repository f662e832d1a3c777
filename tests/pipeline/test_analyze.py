"""Profile analysis on the public samples and generated profiles, against hand-computed values."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.demo import generate
from tests.helpers import kernel_row, make_rank

TEXT = "msinsight/test/data/pytorch/text"
FA_SAMPLE = "msprof-analyze/test/ut/advisor/compute_advice/data"
ARITH = "msprof-analyze/test/ut/advisor/advisor_backend/compute_advice"
EXACT_910B2 = 24 * 1800 * 8192 / 1e6  # 353.8944 TFLOP/s from 24 AI cores × 1800 MHz
EXACT_910B3 = 20 * 1800 * 8192 / 1e6  # 294.912
EXACT_910B1 = 24 * 1850 * 8192 / 1e6  # 363.7248


def one(path, **kw):
    result = analyze_paths([path], AnalysisOptions(**kw), use_cache=False)
    assert len(result.ranks) == 1, result.warnings
    return result.ranks[0]


def test_flash_attention_sample(samples):
    r = one(samples / FA_SAMPLE)
    assert r.chip.cores == 20 and r.chip.mhz == 1800
    assert r.chip.name == "Huawei Ascend 910B3"
    k = r.kernels
    fa = k[(k[C.OP_TYPE] == "FlashAttentionScore") & (k[C.DURATION_US] == 410.188)].iloc[0]
    assert fa["flops"] == 68_719_476_736
    assert fa["peak_tflops"] == pytest.approx(EXACT_910B3, rel=1e-6)
    assert fa["mfu"] == pytest.approx(68_719_476_736 / 410.188e-6 / 1e12 / EXACT_910B3, rel=1e-5)
    grad = k[k[C.OP_TYPE] == "FlashAttentionScoreGrad"].iloc[0]
    assert grad["flops"] == 2 * 68_719_476_736
    excluded = r.excluded.set_index(["type", "reason"])["count"]
    assert excluded.groupby(level=0).sum()["MatMulV3"] == 8 and excluded.groupby(level=0).sum()["MatMulV2"] == 4
    assert excluded.groupby(level=0).sum()["FlashAttentionScore"] == 1  # the Q 511 row
    counted = k[k["status"] == Status.COUNTED.value]
    expected = (counted["flops"] / (EXACT_910B3 * 1e12)).sum() / (counted[C.DURATION_US].sum() * 1e-6)
    assert r.summary.mfu_ops == pytest.approx(expected, rel=1e-6)
    assert r.summary.tier.tier == 1


def test_pipeutilization_level1_fp32_matmul_and_step_mfu(samples):
    r = one(samples / TEXT / "level1/rank0_ascend_pt")
    assert r.chip.name == "Huawei Ascend 910B2" and r.chip.cores == 24
    k = r.kernels
    row = k[(k[C.INPUT_SHAPES] == "32,4096;4096,4096") & (k[C.OUTPUT_SHAPES] == "32,4096")
            & (k[C.DURATION_US] == 45.921)].iloc[0]
    fp32_peak = 88.5 * EXACT_910B2 / 353.9  # catalog FP32 scaled to the counters' exact FP16 peak
    assert row["dtype"] == "fp32"
    assert row["flops"] == 2 * 32 * 4096 * 4096
    assert row["mfu"] == pytest.approx(2 * 32 * 4096 * 4096 / 45.921e-6 / 1e12 / fp32_peak, rel=1e-5)
    s = r.summary
    assert s.step_time_us == pytest.approx(8873.756 + 101963.203 + 25744.05, abs=1e-3)
    # single dtype: step MFU = operator MFU × counted time / step time
    assert s.mfu_step == pytest.approx(s.mfu_ops * s.countable_time_us / s.step_time_us, rel=1e-9)
    assert s.mfu_step < s.mfu_ops
    assert 0.70 < s.cube_utilization < 0.80
    conv = r.excluded[r.excluded["type"] == "Conv2D"]
    assert int(conv["count"].sum()) == 5 and "storage format" in conv["reason"].iloc[0]


def test_arithmetic_utilization_hardware_flops_cross_check(samples):
    r = one(samples / ARITH)
    assert r.chip.mhz == 1850
    mm = r.kernels[r.kernels[C.NAME] == "MatMul91"].iloc[0]
    assert mm["flops"] == 2 * 4096 * 4608 * 12288 == 463_856_467_968
    assert mm["hw_ratio"] == pytest.approx(473_250_242_560 / 463_856_467_968, rel=1e-6)
    assert mm["mfu"] == pytest.approx(463_856_467_968 / 1478.18e-6 / 1e12 / EXACT_910B1, rel=1e-5)
    ratios = r.kernels["hw_ratio"].dropna()
    assert len(ratios) == 13 and ratios.between(1.01, 1.09).all()
    assert 1.01 < r.summary.hw_flops_ratio < 1.09


def test_level0_falls_back_to_device_busy_proxy(samples):
    path = samples / TEXT / "level0/rank0_ascend_pt"
    r = one(path)
    tier = r.summary.tier
    assert tier.tier == 3 and "proxy" in tier.label
    assert any("Level0" in w for w in tier.why)
    with (path / "ASCEND_PROFILER_OUTPUT/kernel_details.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    busy = sum(float(x["Duration(us)"]) for x in rows if x["Accelerator Core"] != "HCCL")
    assert tier.value == pytest.approx(busy / 116251.182, rel=1e-6)
    assert r.summary.mfu_ops is None and r.summary.mfu_ops_range is None


def test_db_export_without_core_count_gives_a_range(samples):
    r = one(samples / "msinsight/test/data/pytorch/db/level2/rank0_ascend_pt")
    assert not r.chip.confirmed and r.summary.chip is None
    k = r.kernels
    mm = k[k[C.START_NS] == 1736414119662232892].iloc[0]
    achieved = 2 * 32 * 4096 * 9216 / ((1736414119662605819 - 1736414119662232892) * 1e-9) / 1e12
    assert mm["mfu_lo"] == pytest.approx(achieved / 88.5, rel=1e-5)  # 910B2-class FP32 peak
    assert mm["mfu_hi"] == pytest.approx(achieved / 73.7, rel=1e-5)  # 910B3-class FP32 peak
    lo, hi = r.summary.mfu_ops_range
    assert lo < hi and r.summary.mfu_ops is None
    assert "chip not confirmed" in r.summary.peak_source


def test_chosen_chip_overrides_detection_with_a_warning(samples):
    r = one(samples / TEXT / "level1/rank0_ascend_pt", chip="910B3")
    assert r.chip.name == "Huawei Ascend 910B3"
    assert any("disagrees" in w for w in r.warnings)
    fp32 = r.kernels[r.kernels["dtype"] == "fp32"]["peak_tflops"].dropna().unique()
    assert fp32 == pytest.approx([73.7])


def test_hf32_switch_respects_hf32_eligible(samples, tmp_path):
    # The public sample's FP32 matmuls say HF32 Eligible = NO: they keep the FP32 peak.
    r = one(samples / TEXT / "level1/rank0_ascend_pt", hf32=True)
    mm = r.kernels[r.kernels[C.OP_TYPE].astype(str).str.startswith("MatMul")]
    assert (mm["dtype"] == "fp32").all()
    # An eligible FP32 matmul on a 910B uses HF32, whose peak is not published: excluded with the reason.
    row = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512", "FLOAT;FLOAT",
                     "128,512", "FLOAT").replace(",NO,", ",YES,", 1)
    make_rank(tmp_path, "x_ascend_pt", 0, [row])
    r = one(tmp_path, hf32=True, chip="910B2")
    k = r.kernels.iloc[0]
    assert k["dtype"] == "hf32" and k["status"] == Status.EXCLUDED.value
    assert "HF32" in k["reason"] and "not published" in k["reason"]
    r = one(tmp_path, hf32=True, chip="H100 SXM")
    assert r.kernels.iloc[0]["peak_tflops"] == 494.7


def test_2023_memoryl0_flash_attention(samples):
    r = one(samples / "msinsight/server/src/test/test_data/test_rank_0")
    fa = r.kernels[r.kernels[C.OP_TYPE] == "FlashAttentionScore"]
    assert len(fa) == 3  # the short row was skipped, not shifted
    assert (fa["flops"] == 2 * 2 * 5 * 8192**2 * 256).all()


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    return generate(tmp_path_factory.mktemp("demo") / "profile", ranks=8, steps=2)


def test_demo_profile_end_to_end(demo):
    result = analyze_paths([demo], use_cache=False)
    assert len(result.ranks) == 8 and not result.failures
    assert result.cluster.slow == [5]
    r = result.ranks[0]
    assert r.chip.name == "Huawei Ascend 910B2" and "info.json" in r.summary.peak_source
    k = r.kernels
    qkv = k[k[C.NAME].astype(str).str.endswith("_0_qkv")].iloc[0]
    assert qkv["flops"] == 2 * 4096 * 6144 * 4096
    assert qkv["mfu"] == pytest.approx(qkv["flops"] / qkv[C.DURATION_US] / 1e6 / EXACT_910B2, rel=1e-5)
    fa = k[(k[C.OP_TYPE] == "FlashAttentionScore") & (k["status"] == Status.COUNTED.value)].iloc[0]
    assert fa["flops"] == 2 * 32 * (4096 * 4097 // 2) * 256  # BSND, compressed mask → causal
    reasons = " ".join(r.excluded["reason"])
    assert "varlen" in reasons and "fused compute+communication" in reasons and "inconsistent" in reasons
    grouped = k[k[C.OP_TYPE] == "GroupedMatmul"]
    assert (grouped["status"] == Status.COUNTED.value).all()
    router = k[k[C.NAME].astype(str).str.contains("router")].iloc[0]
    assert router["dtype"] == "fp32" and router["peak_tflops"] == pytest.approx(88.5 * EXACT_910B2 / 353.9)
    assert r.summary.tier.tier == 1 and 0.3 < r.summary.mfu_ops < 0.8
    assert r.summary.mfu_step < r.summary.mfu_ops
    assert not r.hot_by_lost.empty and r.hot_by_lost["lost_us"].is_monotonic_decreasing


def test_tables_agree_with_kernels(demo):
    """Aggregate tables are means per captured step: Σ over kernels / steps (the demo has 2 steps)."""
    r = analyze_paths([demo / "node0_31337_20260101000000000_ascend_pt"], use_cache=False).ranks[0]
    k = r.kernels
    steps = 2
    assert r.summary.steps == steps and r.summary.steps_source == "step trace"
    assert r.by_type["count"].sum() == len(k) / steps
    assert r.by_type["time_us"].sum() == pytest.approx(k[C.DURATION_US].sum() / steps)
    counted = k["status"] == Status.COUNTED.value
    assert r.by_type["flops"].sum() == pytest.approx(k.loc[counted, "flops"].sum() / steps)
    assert r.summary.flops == pytest.approx(k.loc[counted, "flops"].sum() / steps)
    assert r.summary.countable_time_us == pytest.approx(k.loc[counted, C.DURATION_US].sum() / steps)
    # the step time is the mean of the two traced steps, not their sum
    assert r.summary.step_time_us == pytest.approx(r.steps["step_time_us"].mean())
    # rates are unchanged by the division
    assert r.summary.achieved_tflops == pytest.approx(k.loc[counted, "flops"].sum()
                                                      / k.loc[counted, C.DURATION_US].sum() / 1e6)
    mm = r.by_type.set_index("type").loc["MatMulV2"]
    rows = k[(k[C.OP_TYPE] == "MatMulV2") & counted]
    assert mm["mfu"] == pytest.approx((rows["mfu"].astype(float) * rows[C.DURATION_US]).sum()
                                      / rows[C.DURATION_US].sum(), rel=1e-5)
    # by shape: every kernel with a FLOP rule, and every other kernel whose bytes are known (mfu.md §6)
    listed = (k["status"] != Status.NO_RULE.value) | (k["bytes"] > 0)
    assert r.by_shape["count"].sum() == int(listed.sum()) / steps


def test_million_rows_are_handled_vectorised(tmp_path):
    """A 50k-row rank analyses with every table (bench/ measures a million rows)."""
    path = generate(tmp_path / "big", ranks=1, kernels=50_000)
    r = analyze_paths([path], use_cache=False).ranks[0]
    assert len(r.kernels) == pytest.approx(50_000, rel=0.01)
    assert np.isfinite(r.summary.mfu_ops)
