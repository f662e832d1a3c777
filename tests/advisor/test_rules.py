"""Each rule on a generated profile: the problem planted gives its exact time at stake, the clean step none.

Times at stake are per step (a total over the capture divided by its steps) and µs. The 910B2's
figures: BF16 353.9 TFLOP/s, FP32 88.5, HBM 1,600 GB/s, 24 AI cores, 48 vector cores, 64 GB.
"""

from __future__ import annotations

import numpy as np
import pytest

from mfu_desktop.core.advisor.finding import Confidence, EvidenceKind
from mfu_desktop.core.advisor.registry import rule_by_id
from tests.advisor.profiles import (
    ADD_BYTES,
    CLEAN,
    CLEAN_COMPUTING,
    FULL_MASK,
    K,
    Trace,
    advice_on,
    flash_attention,
    matmul,
    rank_context,
    swapped,
    write_profile,
)


def check(rule_id: str, path, **kwargs):
    """The rule's finding on the one rank under ``path`` (described), or None."""
    rule = rule_by_id(rule_id)
    finding = rule.check(rank_context(path, **kwargs))
    if finding is not None:
        finding.summary, finding.advice = rule.describe(finding)
    return finding


def test_the_clean_step_has_no_finding_at_all(tmp_path):
    advice = advice_on(write_profile(tmp_path))
    assert advice.findings == [] and advice.notes == []


# --- AI CPU -------------------------------------------------------------------------------------


def test_aicpu_time_per_step_is_the_ai_cpu_kernels_time(tmp_path):
    nonzero = K("NonZero_1", "NonZero", "AI_CPU", 500.0, "4096", "INT64", "4096,1", "INT64", block=1)
    steps = [[*CLEAN, nonzero], [*CLEAN, K(**{**nonzero.__dict__, "dur": 300.0})]]
    f = check("aicpu-fallback", write_profile(tmp_path, steps))
    assert f.time_at_stake_us == pytest.approx((500.0 + 300.0) / 2)  # per step over 2 steps
    assert f.confidence is Confidence.HIGH
    (row,) = f.evidence
    assert row.label.en == "NonZero [4096]" and row.count == 1.0 and row.time_us == pytest.approx(400.0)
    assert list(f.rows) == [4, 9]  # the two NonZero kernels: 5th of each step's 5
    step = CLEAN_COMPUTING + 400.0 + 20.0 + 5.0  # computing + comm + free per step
    assert f.share_of_step == pytest.approx(400.0 / step)
    assert "NonZero" in f.summary.en and "AI CPU" in f.summary.zh


def test_aicpu_below_a_thousandth_of_the_step_is_not_reported(tmp_path):
    tiny = K("NonZero_1", "NonZero", "AI_CPU", 1.0, "4096", "INT64", "4096,1", "INT64", block=1)
    assert check("aicpu-fallback", write_profile(tmp_path, [[*CLEAN, tiny]])) is None
    assert check("aicpu-fallback", write_profile(tmp_path / "clean")) is None


# --- host-bound ---------------------------------------------------------------------------------


def gapped_step() -> list[K]:
    """The clean step with 1, 50, 50 and 1,500 µs of idle before its four kernels."""
    return [K(**{**k.__dict__, "gap": gap}) for k, gap in zip(CLEAN, (1.0, 50.0, 50.0, 1500.0))]


def test_host_bound_free_time_from_the_step_trace_split_by_gap(tmp_path):
    trace = Trace(CLEAN_COMPUTING, 20.0, 2000.0)
    f = check("host-bound", write_profile(tmp_path, [gapped_step()], [trace]))
    assert f.time_at_stake_us == 2000.0 and f.confidence is Confidence.HIGH
    assert f.share_of_step == pytest.approx(2000.0 / (CLEAN_COMPUTING + 20.0 + 2000.0))
    rows = {e.key: e for e in f.evidence}
    # the first kernel's gap starts the capture (no gap before it); 50 + 50 short, 1,500 long
    assert rows["short-gaps"].count == 2 and rows["short-gaps"].time_us == pytest.approx(100.0)
    assert rows["long-gaps"].count == 1 and rows["long-gaps"].time_us == pytest.approx(1500.0)
    assert rows["between-steps"].time_us == pytest.approx(2000.0 - 1600.0)
    assert rows["hcom_allReduce_"].time_at_stake_us == pytest.approx(1500.0)  # started after the long gap
    assert list(f.rows) == [1, 2, 3]  # kernels that waited ≥ 10 µs
    assert f.advice.en.startswith("A few long gaps")  # the long gap dominates


def test_host_bound_without_step_trace_counts_the_gaps_between_kernels(tmp_path):
    f = check("host-bound", write_profile(tmp_path, [gapped_step()], step_trace=False))
    assert f.time_at_stake_us == pytest.approx(1600.0)  # 50 + 50 + 1,500 (the first gap is the capture's start)
    assert f.confidence is Confidence.MEDIUM
    busy = CLEAN_COMPUTING + 100.0
    assert f.step_time_us == pytest.approx(busy + 1600.0)  # the step rebuilt: busy + idle between kernels


def test_host_bound_idle_is_capped_by_the_recorded_wait(tmp_path):
    """A kernel list cut out of a capture: a 1,500 µs gap whose kernel says it waited 1 µs is no idle time."""
    steps = [[K(**{**k.__dict__, "gap": 1500.0}) for k in CLEAN]]
    path = write_profile(tmp_path, steps, step_trace=False)
    text = (path / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").read_text()
    (path / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").write_text(text.replace("\t,555.0,1500,", "\t,555.0,1,")
                                                                        .replace("\t,80.0,1500,", "\t,80.0,1,")
                                                                        .replace("\t,410.188,1500,", "\t,410.188,1,")
                                                                        .replace("\t,100.0,1500,", "\t,100.0,1,"))
    assert check("host-bound", path) is None


def test_host_bound_clean_step_is_not_reported(tmp_path):
    assert check("host-bound", write_profile(tmp_path)) is None


# --- small kernels -------------------------------------------------------------------------------


def small_step(gap: float) -> list[K]:
    """The clean step and 20 Mul kernels of 5 µs, each after ``gap`` µs of idle."""
    muls = [K(f"Mul_{i}", "Mul", "AI_VECTOR_CORE", 5.0, "64;64", BF16, "64", "DT_BF16", 48, gap) for i in range(20)]
    return [*CLEAN, *muls]


BF16 = "DT_BF16;DT_BF16"


def test_small_kernels_count_times_gap(tmp_path):
    f = check("small-kernels", write_profile(tmp_path, [small_step(30.0)]))
    assert f.time_at_stake_us == pytest.approx(20 * 30.0)
    assert f.facts["kernels_n"] == 20 and f.facts["mean_gap_us"] == pytest.approx(30.0)
    (row,) = f.evidence
    assert row.label.en == "Mul [64;64]" and row.figures["mean_gap_us"] == pytest.approx(30.0)
    assert len(f.rows) == 20


def test_small_kernels_gap_is_capped_at_a_launch(tmp_path):
    f = check("small-kernels", write_profile(tmp_path, [small_step(500.0)]))
    assert f.time_at_stake_us == pytest.approx(20 * 100.0)  # LAUNCH_GAP_CAP_US


def test_small_kernels_not_dominated_by_their_launch_are_not_reported(tmp_path):
    assert check("small-kernels", write_profile(tmp_path, [small_step(2.0)])) is None  # 2 µs gap < 5 µs run
    assert check("small-kernels", write_profile(tmp_path / "clean")) is None


# --- communication ------------------------------------------------------------------------------


def test_communication_not_overlapped_split_and_the_slow_rank(tmp_path):
    fast = write_profile(tmp_path, traces=[Trace(CLEAN_COMPUTING, 300.0, 4.0)], name="r0_ascend_pt", rank=0,
                         matrix_ms=0.1)
    slow = write_profile(tmp_path, traces=[Trace(1200.0, 300.0, 4.0)], name="r1_ascend_pt", rank=1, matrix_ms=0.1)
    advice = advice_on(fast, slow)
    f0 = advice.for_rank(0)[0]
    assert f0.rule == "comm-not-overlapped" and f0.time_at_stake_us == pytest.approx(300.0)
    rows = {e.key: e for e in f0.evidence}
    assert rows["transfer"].time_us == pytest.approx(100.0)  # the longest link: 0.1 ms
    assert rows["wait"].time_us == pytest.approx(200.0)  # 300 − 100
    step0, step1 = CLEAN_COMPUTING + 300.0 + 4.0, 1200.0 + 300.0 + 4.0
    assert rows["rank 1"].kind is EvidenceKind.RANK
    assert rows["rank 1"].figures["step_excess"] == pytest.approx(step1 / step0 - 1.0)
    assert rows["rank 1"].figures["computing_excess_us"] == pytest.approx(1200.0 - CLEAN_COMPUTING)
    assert "rank 1" in f0.summary.en
    f1 = advice.for_rank(1)[0]
    assert "rank 1" not in {e.key for e in f1.evidence} and f1.facts["this_rank_slow"] == "yes"
    (cluster,) = [f for f in advice.findings if f.rule == "comm-not-overlapped"]
    assert cluster.time_at_stake_us == pytest.approx(300.0) and cluster.ranks == [0, 1]
    assert cluster.step_time_us == pytest.approx((step0 + step1) / 2)


def test_communication_without_matrix_is_all_waiting(tmp_path):
    f = check("comm-not-overlapped", write_profile(tmp_path, traces=[Trace(CLEAN_COMPUTING, 300.0, 4.0)]))
    rows = {e.key: e for e in f.evidence}
    assert rows["transfer"].time_us == 0.0 and rows["wait"].time_us == pytest.approx(300.0)
    assert "No communication matrix" in f.summary.en


def test_communication_mostly_hidden_is_not_reported(tmp_path):
    assert check("comm-not-overlapped", write_profile(tmp_path)) is None  # 20 µs = 1.9 % of the step


# --- FP32 matmuls ---------------------------------------------------------------------------------


def test_fp32_compute_bound_matmul_saves_three_quarters(tmp_path):
    steps = [swapped(CLEAN, "MatMul_qkv", in_types="FLOAT;FLOAT", out_types="FLOAT", dur=2000.0)]
    f = check("fp32-matmul", write_profile(tmp_path, steps))
    # compute-bound at both dtypes: t*_BF16 / t*_FP32 = P_FP32 / P_BF16 = 88.5 / 353.9
    assert f.time_at_stake_us == pytest.approx(2000.0 * (1 - 88.5 / 353.9), rel=1e-6)
    assert f.facts["peak_ratio"] == pytest.approx(353.9 / 88.5)


def test_fp32_memory_bound_matmul_saves_half(tmp_path):
    """A router (4096,4096)·(8,4096): 67,371,008 bytes in FP32 take 42.1 µs at 1,600 GB/s > 3.0 µs of FLOPs."""
    router = matmul("Router", 4096, 8, 4096, 100.0, dtype="FLOAT")
    f = check("fp32-matmul", write_profile(tmp_path, [[*CLEAN, router]]))
    assert f.time_at_stake_us == pytest.approx(100.0 * 0.5, rel=1e-6)


def test_fp32_with_hf32_on_or_bf16_is_not_reported(tmp_path):
    fp32 = dict(in_types="FLOAT;FLOAT", out_types="FLOAT", dur=2000.0)
    eligible = write_profile(tmp_path / "eligible", [swapped(CLEAN, "MatMul_qkv", hf32_eligible="YES", **fp32)])
    assert check("fp32-matmul", eligible, hf32=True) is None  # the run used HF32
    not_eligible = write_profile(tmp_path / "not", [swapped(CLEAN, "MatMul_qkv", **fp32)])
    assert check("fp32-matmul", not_eligible, hf32=True) is not None  # HF32 on, but this kernel could not use it
    assert check("fp32-matmul", write_profile(tmp_path / "clean")) is None


# --- matmul alignment ----------------------------------------------------------------------------


def test_unaligned_matmul_against_the_aligned_mfu_of_its_type(tmp_path):
    unaligned = matmul("MatMul_vocab", 4096, 4000, 4096, 800.0)
    f = check("matmul-alignment", write_profile(tmp_path, [[*CLEAN, unaligned]]))
    # MFU_ref = ideal(4096³) / 555; ideal(4096·4000·4096) / ideal(4096³) = 4000 / 4096
    assert f.time_at_stake_us == pytest.approx(800.0 - 555.0 * 4000 / 4096, rel=1e-5)
    (row,) = f.evidence
    assert row.figures["unaligned"] == "N=4000"
    assert row.figures["mfu_ref"] == pytest.approx(2 * 4096**3 / 353.9e6 / 555.0, rel=1e-5)


def test_unaligned_matmul_without_an_aligned_reference_is_not_judged(tmp_path):
    steps = [swapped(CLEAN, "MatMul_qkv", inputs="4096,4096;4000,4096", outputs="4096,4000", dur=800.0)]
    assert check("matmul-alignment", write_profile(tmp_path, steps)) is None
    assert check("matmul-alignment", write_profile(tmp_path / "clean")) is None


# --- FlashAttention full mask ----------------------------------------------------------------------


def test_fa_full_mask_saves_the_masked_half(tmp_path):
    steps = [swapped(CLEAN, "FlashAttention", inputs=flash_attention("x", 0, FULL_MASK).inputs)]
    f = check("fa-full-mask", write_profile(tmp_path, steps))
    # causal share of S = 4096: S(S+1)/2 / S² = 4097/8192; the rest is at stake
    assert f.time_at_stake_us == pytest.approx(410.188 * (1 - 4097 / 8192), rel=1e-9)
    assert f.confidence is Confidence.MEDIUM and f.facts["seq"] == 4096


def test_fa_with_the_causal_mask_or_a_user_chosen_mode_is_not_reported(tmp_path):
    assert check("fa-full-mask", write_profile(tmp_path)) is None
    steps = [swapped(CLEAN, "FlashAttention", inputs=flash_attention("x", 0, FULL_MASK).inputs)]
    assert check("fa-full-mask", write_profile(tmp_path / "full", steps), fa_sparse_mode=0) is None


# --- memory-bound far below HBM ------------------------------------------------------------------


def test_memory_bound_far_below_hbm_is_its_lost_time(tmp_path):
    steps = [swapped(CLEAN, "Add_residual", dur=251.658)]  # 25 % of 1,600 GB/s
    f = check("memory-bound-low-bw", write_profile(tmp_path, steps))
    assert f.time_at_stake_us == pytest.approx(251.658 - ADD_BYTES / 1.6e6, rel=1e-6)
    assert f.evidence[0].figures["bw_util"] == pytest.approx(ADD_BYTES / 251.658e-6 / 1.6e12, rel=1e-5)


def test_memory_bound_near_hbm_or_short_is_not_reported(tmp_path):
    assert check("memory-bound-low-bw", write_profile(tmp_path)) is None  # 78.6 %
    short = [*CLEAN, K("Mul_small", "Mul", "AI_VECTOR_CORE", 10.0, "64;64", BF16, "64", "DT_BF16", 48)]
    assert check("memory-bound-low-bw", write_profile(tmp_path / "short", [short])) is None


# --- copies, transposes and casts ----------------------------------------------------------------


def test_data_movement_is_their_whole_time(tmp_path):
    moves = [K("Cast_1", "Cast", "AI_VECTOR_CORE", 150.0, "4096,4096", "DT_BF16", "4096,4096", "FLOAT", 48),
             K("TransData_1", "TransData", "AI_VECTOR_CORE", 100.0, "4096,4096", "DT_BF16", "256,256,16,16",
               "DT_BF16", 48)]
    f = check("data-movement", write_profile(tmp_path, [[*CLEAN, *moves]]))
    assert f.time_at_stake_us == pytest.approx(250.0) and f.facts["casts_us"] == pytest.approx(150.0)
    assert [e.label.en.split(" [")[0] for e in f.evidence] == ["Cast", "TransData"]


def test_data_movement_below_five_per_cent_is_not_reported(tmp_path):
    cast = K("Cast_1", "Cast", "AI_VECTOR_CORE", 20.0, "4096", "DT_BF16", "4096", "FLOAT", 48)
    assert check("data-movement", write_profile(tmp_path, [[*CLEAN, cast]])) is None


# --- memory near capacity ------------------------------------------------------------------------


def test_memory_near_capacity_is_a_risk_without_time(tmp_path):
    f = check("memory-capacity", write_profile(tmp_path, process_mb=60000.0))
    assert f.time_at_stake_us == 0.0 and f.facts["share"] == pytest.approx(60000.0 / (64 * 1024))
    assert f.facts["headroom_gb"] == pytest.approx(64 - 60000.0 / 1024)
    assert check("memory-capacity", write_profile(tmp_path / "roomy", process_mb=30000.0)) is None


# --- under-filled cores ---------------------------------------------------------------------------


def test_block_dim_below_the_core_count(tmp_path):
    steps = [swapped(swapped(CLEAN, "MatMul_qkv", block=12), "Add_residual", block=24)]
    f = check("block-dim", write_profile(tmp_path, steps))
    # 555 · (1 − 12/24) on the AI cores + 80 · (1 − 24/48) on the vector cores
    assert f.time_at_stake_us == pytest.approx(555.0 * 0.5 + 80.0 * 0.5)
    rows = {e.label.en.split(" [")[0]: e for e in f.evidence}
    assert rows["MatMulV2"].figures == {"block_dim": 12.0, "cores": 24.0}
    assert rows["Add"].figures == {"block_dim": 24.0, "cores": 48.0}


def test_block_dim_full_or_short_kernels_are_not_reported(tmp_path):
    assert check("block-dim", write_profile(tmp_path)) is None
    short = [*CLEAN, K("Mul_small", "Mul", "AI_VECTOR_CORE", 10.0, "64;64", BF16, "64", "DT_BF16", 1)]
    assert check("block-dim", write_profile(tmp_path / "short", [short])) is None


# --- the cluster -----------------------------------------------------------------------------------


def test_cluster_findings_are_means_per_rank(tmp_path):
    nonzero = K("NonZero_1", "NonZero", "AI_CPU", 400.0, "4096", "INT64", "4096,1", "INT64", block=1)
    with_cpu = write_profile(tmp_path, [[*CLEAN, nonzero]], name="r0_ascend_pt", rank=0)
    clean = write_profile(tmp_path, name="r1_ascend_pt", rank=1)
    advice = advice_on(with_cpu, clean)
    (f,) = advice.findings
    assert f.rule == "aicpu-fallback" and f.ranks == [0]
    assert f.time_at_stake_us == pytest.approx(400.0 / 2)  # rank 1 counts 0
    assert f.evidence[0].time_us == pytest.approx(200.0) and f.evidence[0].count == pytest.approx(0.5)
    assert f.summary.en.startswith("On 1 of 2 ranks (0)") and len(f.rows) == 0
    assert advice.for_rank(1) == []
    np.testing.assert_array_equal(advice.for_rank(0)[0].rows, [4])


def test_fp32_on_an_unconfirmed_chip_uses_the_candidates_lowest_ratio(tmp_path):
    """No chip chosen or detected: 910B1–B4 publish BF16/FP32 ratios of 3.998–4.001 (rounded): the lowest counts."""
    from mfu_desktop.core.advisor.advice import contexts
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.analyze import analyze_paths

    steps = [swapped(CLEAN, "MatMul_qkv", in_types="FLOAT;FLOAT", out_types="FLOAT", dur=2000.0)]
    result = analyze_paths([write_profile(tmp_path, steps)], AnalysisOptions(), use_cache=False)
    ctx = contexts(result)[0]
    assert not ctx.rank.chip.confirmed
    ratios = [c.value("cube_bf16_tflops") / c.value("cube_fp32_tflops") for c in ctx.rank.chip.candidates]
    assert max(ratios) / min(ratios) - 1 < 0.01
    finding = rule_by_id("fp32-matmul").check(ctx)
    assert finding.facts["peak_ratio"] == pytest.approx(min(ratios))
