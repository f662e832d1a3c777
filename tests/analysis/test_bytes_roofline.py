"""Minimum bytes, bandwidth utilisation and the roofline (mfu.md §6), against hand-computed values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.roofline import ridge_point, roofline
from mfu_desktop.core.analysis.roofline_figures import cluster_roofline, judged_figure, roofline_rates
from mfu_desktop.core.formulas.bytes import element_bytes, min_bytes
from mfu_desktop.core.pipeline.analyze import analyze_paths
from tests.helpers import HEADER_B, kernel_row, make_rank

BW_910B2 = 1600.0  # GB/s (chips.csv)
PEAK_910B2 = 353.8944  # TFLOP/s BF16 (24 × 1800 MHz × 8192)


def q(cell: str) -> str:
    """A shapes cell the way torch_npu quotes it."""
    return f'"{cell}"'


# --- bytes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("spelling", "size"), [
    ("DT_BF16", 2), ("FLOAT16", 2), ("c10::BFloat16", 2), ("FLOAT", 4), ("float", 4), ("INT64", 8),
    ("BOOL", 1), ("UINT8", 1), ("DOUBLE", 8), ("HF32", 4), ("float8_e4m3fn", 1), ("NOT_A_TYPE", None), ("", None),
])
def test_element_bytes(spelling, size):
    assert element_bytes(spelling) == size


def test_element_wise_add_reads_both_inputs_and_writes_the_output():
    # Add [4096,4096] + [4096,4096] → [4096,4096], BF16: 3 × 16,777,216 × 2 = 100,663,296 bytes
    b = min_bytes(q("4096,4096;4096,4096"), q("4096,4096"), "DT_BF16;DT_BF16", "DT_BF16")
    assert b.bytes == 3 * 4096 * 4096 * 2 == 100_663_296
    assert b.detail == "33,554,432 + 33,554,432 read + 33,554,432 written = 100,663,296 bytes"


def test_broadcast_input_counts_its_stored_size():
    # Mul [8,1024,4096] × [4096] (a broadcast bias): 8·1024·4096·2 + 4096·2 read, 8·1024·4096·2 written
    b = min_bytes(q("8,1024,4096;4096"), q("8,1024,4096"), "DT_BF16;DT_BF16", "DT_BF16")
    assert b.bytes == 2 * (2 * 8 * 1024 * 4096) + 4096 * 2 == 134_225_920


def test_cast_changes_the_element_size():
    # Cast FP32 → BF16 of [1024,1024]: 4 MiB read + 2 MiB written
    b = min_bytes(q("1024,1024"), q("1024,1024"), "FLOAT", "DT_BF16")
    assert b.bytes == 1024 * 1024 * (4 + 2) == 6_291_456


def test_reduction_writes_the_reduced_output():
    # ReduceSum [4096,4096] → [4096], BF16: 33,554,432 + 8,192
    b = min_bytes(q("4096,4096"), q("4096"), "DT_BF16", "DT_BF16")
    assert b.bytes == 4096 * 4096 * 2 + 4096 * 2 == 33_562_624


def test_rms_norm_reads_input_and_gamma_writes_output_and_rstd():
    # RmsNorm x [4096,4096] BF16, gamma [4096] BF16 → y [4096,4096] BF16, rstd [4096,1] FP32
    b = min_bytes(q("4096,4096;4096"), q("4096,4096;4096,1"), "DT_BF16;DT_BF16", "DT_BF16;FLOAT")
    assert b.bytes == 33_554_432 + 8_192 + 33_554_432 + 16_384 == 67_133_440


def test_matmul_reads_a_and_b_once_and_writes_c():
    # (M,K)·(K,N) → (M,N) with M=4096, K=4096, N=11008, BF16: 2·(M·K + K·N + M·N)
    m, k, n = 4096, 4096, 11008
    b = min_bytes(q(f"{m},{k};{n},{k}"), q(f"{m},{n}"), "DT_BF16;DT_BF16", "DT_BF16")
    assert b.bytes == 2 * (m * k + k * n + m * n) == 213_909_504
    # batched: × B
    bb = min_bytes(q("32,1024,128;32,128,1024"), q("32,1024,1024"), "DT_BF16;DT_BF16", "DT_BF16")
    assert bb.bytes == 32 * 2 * (1024 * 128 + 128 * 1024 + 1024 * 1024) == 83_886_080


def test_flash_attention_forward_minimum_io_skips_absent_optionals():
    # BSND Q [1,4096,32,128], K/V [1,4096,8,128], mask [2048,2048] UINT8 → softmax_max/sum [1,32,4096,8] FP32 ×2,
    # O [1,4096,32,128]; the absent optional inputs (empty segments) count 0.
    inputs = "1,4096,32,128;1,4096,8,128;1,4096,8,128;;;;2048,2048;;;;;"
    types = "DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL;INT64;INT64;INT64;INT64;INT64"
    outputs = "1,32,4096,8;1,32,4096,8;;1,4096,32,128"
    b = min_bytes(q(inputs), q(outputs), types, "FLOAT;FLOAT;DT_BF16;DT_BF16")
    q_bytes, kv_bytes = 4096 * 32 * 128 * 2, 4096 * 8 * 128 * 2
    stats = 32 * 4096 * 8 * 4
    # the mask's dtype is the 7th type (positions follow the tensors, absent ones included)
    mask = 2048 * 2048 * 1
    assert b.bytes == q_bytes + 2 * kv_bytes + mask + 2 * stats + q_bytes


def test_flash_attention_backward_reads_q_k_v_o_do_and_stats_writes_dq_dk_dv():
    inputs = "1,4096,32,128;1,4096,8,128;1,4096,8,128;1,4096,32,128;2048,2048;1,32,4096,8;1,32,4096,8;;1,4096,32,128;"
    types = "DT_BF16;DT_BF16;DT_BF16;DT_BF16;BOOL;FLOAT;FLOAT;DT_BF16;DT_BF16;INT64"
    outputs = "1,4096,32,128;1,4096,8,128;1,4096,8,128;"
    b = min_bytes(q(inputs), q(outputs), types, "DT_BF16;DT_BF16;DT_BF16")
    q_bytes, kv_bytes, stats, mask = 4096 * 32 * 128 * 2, 4096 * 8 * 128 * 2, 32 * 4096 * 8 * 4, 2048 * 2048
    # read: Q, K, V, dO, mask, max, sum, O; written: dQ, dK, dV
    assert b.bytes == (q_bytes + 2 * kv_bytes + q_bytes + mask + 2 * stats + q_bytes) + (q_bytes + 2 * kv_bytes)


def test_trace_ops_without_outputs_take_the_largest_input_as_output():
    b = min_bytes("8,1024;8,1024;", None, "c10::BFloat16;c10::BFloat16;Scalar", None)
    assert b.bytes == 3 * 8 * 1024 * 2
    assert "largest input" in b.assumption


@pytest.mark.parametrize(("inputs", "types", "why"), [
    (None, None, "no shapes"),
    (q("4,4"), "SOMETHING", "no known dtype"),
    (q("4,x"), "DT_BF16", "malformed"),
])
def test_unknown_bytes_say_why(inputs, types, why):
    b = min_bytes(inputs, q("4,4"), types, "DT_BF16")
    assert b.bytes is None and why in b.reason


# --- the roofline ------------------------------------------------------------------------------------


def test_ridge_point_of_the_910b2():
    assert ridge_point(PEAK_910B2, BW_910B2) == pytest.approx(221.2, abs=0.1)


def test_roofline_per_kernel_by_hand():
    # 1) the Add above: 100,663,296 bytes in 80 µs, no FLOPs → memory-bound
    #    achieved 1,258.3 GB/s, 78.6 % of 1,600; t* = 100,663,296 / 1.6e12 s = 62.9 µs; lost 17.1 µs
    # 2) a matmul M=K=N=4096: 2·4096³ = 137.4 GFLOP, bytes 3·4096²·2 = 100,663,296 → I = 1365 FLOP/byte
    #    (compute-bound: above the ridge 221); t* = 137.4e9 / 353.9e12 = 388.4 µs; measured 550 µs → lost 161.6
    # 3) a small matmul M=16, K=N=4096: 536.9 MFLOP, bytes 2·(16·4096 + 4096² + 16·4096) = 33,816,576
    #    → I = 15.9 (memory-bound); t* = 21.1 µs; measured 40 µs
    flops = np.array([np.nan, 2 * 4096**3, 2 * 16 * 4096 * 4096], dtype=np.float64)
    nbytes = np.array([100_663_296, 100_663_296, 33_816_576], dtype=np.float64)
    dur = np.array([80.0, 550.0, 40.0])
    r = roofline(flops, nbytes, dur, np.full(3, PEAK_910B2), BW_910B2)
    assert r["achieved_gbs"][0] == pytest.approx(1258.29, abs=0.01)
    assert r["bw_util"][0] == pytest.approx(0.78643, abs=1e-5)
    assert r["attainable_us"][0] == pytest.approx(62.9146, abs=1e-4)
    assert r["roof_lost_us"][0] == pytest.approx(17.0854, abs=1e-4)
    assert np.isnan(r["intensity"][0]) and r["bound"][0] == 1
    assert r["intensity"][1] == pytest.approx(1365.33, abs=0.01) and r["bound"][1] == 0
    assert r["attainable_us"][1] == pytest.approx(388.36, abs=0.01)
    assert r["roof_util"][1] == pytest.approx(388.36 / 550, abs=1e-4)  # = the kernel's MFU
    assert r["roof_lost_us"][1] == pytest.approx(161.64, abs=0.01)
    assert r["intensity"][2] == pytest.approx(15.876, abs=1e-3) and r["bound"][2] == 1
    assert r["attainable_us"][2] == pytest.approx(21.135, abs=1e-3)


def test_roofline_without_bandwidth_keeps_compute_time_and_leaves_memory_unknown():
    r = roofline(np.array([2e12, np.nan]), np.array([1e9, 1e9]), np.array([10_000.0, 50.0]),
                 np.array([400.0, np.nan]), None)
    assert r["attainable_us"][0] == pytest.approx(5000.0) and r["bound"][0] == 0
    assert np.isnan(r["attainable_us"][1]) and r["bound"][1] == -1 and np.isnan(r["bw_util"][1])


def test_judged_figure_labels_mfu_or_bandwidth():
    assert judged_figure({"bound": "compute", "mfu": 0.62, "bw_util": 0.1}) == ("MFU", 0.62)
    assert judged_figure({"bound": "memory", "mfu": None, "bw_util": 0.8}) == ("BW", 0.8)
    assert judged_figure({"bound": "", "mfu": None, "bw_util": None}) == ("", None)


def test_rates_and_the_cluster_point():
    sums = {"bytes": 2e9, "flops": 4e12, "time_us": 20_000.0, "attainable_us": 15_000.0,
            "memory_bound_us": 2_000.0, "memory_bound_bytes": 1.6e9}
    r = roofline_rates(sums, 1600.0)
    assert r["intensity"] == 2000.0 and r["achieved_tflops"] == pytest.approx(200.0)
    assert r["achieved_gbs"] == pytest.approx(100.0) and r["bw_util"] == pytest.approx(0.0625)
    assert r["bw_util_memory_bound"] == pytest.approx(0.5) and r["roof_util"] == 0.75
    # the cluster: means per rank of the sums, same ratios; a rank without figures counts in the mean
    a = {"roofline": {**sums, "lost_us": 5000.0, "bw_gbs": 1600.0}}
    b = {"roofline": {**{k: v * 3 for k, v in sums.items()}, "lost_us": 15000.0, "bw_gbs": 1600.0}}
    c = cluster_roofline([a, b])
    assert c["time_us"] == 40_000.0 and c["lost_us"] == 10_000.0
    assert c["intensity"] == 2000.0 and c["bw_util_memory_bound"] == pytest.approx(0.5)


# --- through the analysis ------------------------------------------------------------------------------


MEMORY_HEADER = HEADER_B + ",aiv_main_mem_read_bw(GB/s),aiv_main_mem_write_bw(GB/s)"
NO_COUNTERS = {"aiv_main_mem_read_bw(GB/s)": "N/A", "aiv_main_mem_write_bw(GB/s)": "N/A"}


def test_every_kernel_judged_lost_time_and_counters(tmp_path):
    """A no-FLOP-rule vector kernel gets bytes, bandwidth, a bound and lost time; counters sit beside."""
    add_bytes = 3 * 4096 * 4096 * 2
    rows = [
        # Add: 80 µs → 78.6 % of HBM; hardware says 1,300 GB/s read+write over 78 µs busy = 101.4 MB
        kernel_row("Add_1", "Add", "AI_VECTOR_CORE", "1000.0", 80.0, "4096,4096;4096,4096", "DT_BF16;DT_BF16",
                   "4096,4096", "DT_BF16", pmu={"aiv_time(us)": 78.0, "aiv_main_mem_read_bw(GB/s)": 866.0,
                                                "aiv_main_mem_write_bw(GB/s)": 434.0}),
        # a 4096³ matmul at 550 µs (compute-bound)
        kernel_row("MatMul_1", "MatMulV2", "AI_CORE", "1100.0", 550.0, "4096,4096;4096,4096", "DT_BF16;DT_BF16",
                   "4096,4096", "DT_BF16", pmu=NO_COUNTERS),
        # an all-reduce: never on the roofline
        kernel_row("hcom_allReduce_1", "hcom_allReduce_", "HCCL", "1700.0", 300.0, pmu=NO_COUNTERS),
    ]
    make_rank(tmp_path, "r_ascend_pt", 0, rows, header=MEMORY_HEADER)
    r = analyze_paths([tmp_path / "r_ascend_pt"], AnalysisOptions(chip="910B2"), use_cache=False).ranks[0]
    k = r.kernels.set_index("name")
    assert k.loc["Add_1", "bytes"] == add_bytes
    assert float(k.loc["Add_1", "bw_util"]) == pytest.approx(add_bytes / 80e-6 / 1.6e12, rel=1e-5)
    assert k.loc["Add_1", "bound"] == "memory"
    assert float(k.loc["Add_1", "lost_us"]) == pytest.approx(80.0 - add_bytes / 1.6e6, rel=1e-5)
    assert k.loc["Add_1", "hw_bytes"] == pytest.approx((866.0 + 434.0) * 78.0 * 1e3)
    assert k.loc["MatMul_1", "bound"] == "compute"
    assert float(k.loc["MatMul_1", "roof_util"]) == pytest.approx(float(k.loc["MatMul_1", "mfu"]), rel=1e-5)
    assert pd.isna(k.loc["hcom_allReduce_1", "lost_us"]) and pd.isna(k.loc["hcom_allReduce_1", "bound"])
    # hot operators by lost time now rank the Add, judged by its bandwidth
    hot = r.hot_by_lost.set_index("type")
    assert "Add" in hot.index and hot.loc["Add", "bound"] == "memory"
    assert hot.loc["Add", "bw_util"] == pytest.approx(add_bytes / 80e-6 / 1.6e12, rel=1e-5)
    # the by-shape table lists the Add with its bandwidth; the rank's counter ratio is hardware / minimum
    shapes = r.by_shape.set_index("type")
    assert shapes.loc["Add", "achieved_gbs"] == pytest.approx(add_bytes / 80.0 / 1e3, rel=1e-6)
    doc = r.document if r.document is not None else None
    assert doc is None
    from mfu_desktop.core.cluster.rank_document import rank_document

    roof = rank_document(r)["roofline"]
    assert roof["hw_bytes_ratio"] == pytest.approx(1300 * 78e3 / add_bytes, rel=1e-6)
    assert roof["memory_bound_us"] == pytest.approx(80.0)  # one step
    assert roof["time_us"] == pytest.approx(630.0)


def test_faster_than_hbm_is_flagged_not_hidden(tmp_path):
    rows = [kernel_row("Add_1", "Add", "AI_VECTOR_CORE", "1000.0", 20.0, "4096,4096;4096,4096",
                       "DT_BF16;DT_BF16", "4096,4096", "DT_BF16")]
    make_rank(tmp_path, "r_ascend_pt", 0, rows)
    r = analyze_paths([tmp_path / "r_ascend_pt"], AnalysisOptions(chip="910B2"), use_cache=False).ranks[0]
    assert any("faster than the chip's HBM bandwidth" in w for w in r.warnings)
    assert float(r.kernels["lost_us"].iloc[0]) == 0.0


def test_write_only_ops_read_nothing():
    # ZerosLike of 544,404,480 FP16 elements (a real msprof-analyze sample row): 1,088,808,960 bytes written
    b = min_bytes(q("544404480"), q("544404480"), "FLOAT16", "FLOAT16", "ZerosLike")
    assert b.bytes == 544_404_480 * 2 and "without reading" in b.assumption


def test_gathers_and_strided_views_read_only_what_they_write():
    # AsStrided [1024,4,4608] FP16 → [1024,12,512] (a real sample row): the view reads 1024·12·512 elements
    b = min_bytes(q("1024,4,4608;3;3;"), q("1024,12,512"), "FLOAT16;INT64;INT64;INT64", "FLOAT16", "AsStrided")
    out = 1024 * 12 * 512 * 2
    assert b.bytes == out + 3 * 8 + 3 * 8 + out
    # GatherV2 of 4096 rows from a [32000,4096] BF16 table with INT64 indices
    g = min_bytes(q("32000,4096;4096"), q("4096,4096"), "DT_BF16;INT64", "DT_BF16", "GatherV2")
    assert g.bytes == 4096 * 4096 * 2 + 4096 * 8 + 4096 * 4096 * 2


def test_scalar_output_counts_nothing_but_is_not_missing():
    # ReduceSumD of 75,497,472 FP32 to a 0-d scalar (recorded as an empty output shape)
    b = min_bytes(q("75497472"), q(""), "FLOAT", "FLOAT", "ReduceSumD")
    assert b.bytes == 75_497_472 * 4 and b.assumption == ""


def test_trace_gathers_infer_their_output_or_say_it_is_unknown():
    # aten::embedding(weight [30522,512] FP32, indices [4,128]) → [4,128,512]: 512 rows read, not the table
    e = min_bytes("30522,512;4,128", None, "float;long int", None, "aten::embedding")
    rows = 4 * 128 * 512 * 4
    assert e.bytes == rows + 4 * 128 * 8 + rows and "embedding width" in e.assumption
    # aten::index_select(self [30522,512], dim, index [128]) (dim 0 assumed)
    s = min_bytes("30522,512;;128", None, "float;Scalar;long int", None, "aten::index_select")
    assert s.bytes == 128 * 512 * 4 * 2 + 128 * 8
    # aten::index: the output is not recorded and cannot be inferred from the inputs
    i = min_bytes("30522,512;4,128", None, "float;long int", None, "aten::index")
    assert i.bytes is None and "not recorded" in i.reason
