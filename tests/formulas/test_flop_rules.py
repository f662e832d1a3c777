"""The shape → FLOPs registry on real profiler rows (mfu.md §2.2–2.3, §3.5)."""

from __future__ import annotations

import pytest

from mfu_desktop.core.formulas.flop_rules import estimate, rule_for
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.formulas.registry import FlopEstimate, register

FA_IN = "4096,2,512;4096,2,512;4096,2,512;;;;4096,4096;;;;;"
FA_IN_TYPES = "DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL;INT64;INT64;INT64;INT64;INT64"
FA_OUT = "2,4,4096,8;2,4,4096,8;;4096,2,512"
FA_OUT_TYPES = "FLOAT;FLOAT;DT_BF16;DT_BF16"
GRAD_IN = "4096,2,512;4096,2,512;4096,2,512;4096,2,512;4096,4096;2,4,4096,8;2,4,4096,8;;4096,2,512;"
GRAD_TYPES = "DT_BF16;DT_BF16;DT_BF16;DT_BF16;BOOL;FLOAT;FLOAT;DT_BF16;DT_BF16;INT64"


def test_fa_sample_row_inferred_as_sbh():
    """mfu.md §3.5: softmax_max 2,4,4096,8 → SBH, B=2, N=4, S=4096, D=128; explicit 4096² mask → mode 0."""
    e = estimate("FlashAttentionScore", f'"{FA_IN}"', f'"{FA_OUT}"', FA_IN_TYPES, FA_OUT_TYPES)
    assert e.flops == 2 * 2 * 4 * 4096**2 * 256 == 68_719_476_736
    assert "layout SBH" in e.assumption and "N = 4" in e.assumption
    assert "explicit atten_mask [4096,4096]" in e.assumption
    assert e.confidence == "medium"
    assert e.flops / 410.188e-6 / 1e12 == pytest.approx(167.53, abs=0.01)


def test_fa_grad_finds_softmax_by_dtype_and_shape():
    e = estimate("FlashAttentionScoreGrad", GRAD_IN, "4096,2,512;4096,2,512;4096,2,512;", GRAD_TYPES,
                 "DT_BF16;DT_BF16;DT_BF16")
    assert e.flops == 2 * 68_719_476_736
    assert e.executed_flops == 68_719_476_736 * 5 // 2


def test_fa_backward_executed_option():
    e = estimate("FlashAttentionScoreGrad", GRAD_IN, "4096,2,512;4096,2,512;4096,2,512;", GRAD_TYPES,
                 "DT_BF16;DT_BF16;DT_BF16", FlopOptions(fa_backward="executed"))
    assert e.flops == 68_719_476_736 * 5 // 2


def test_fa_2023_flattened_softmax_uses_mask_for_layout():
    # Q 8192,2,640; mask 1,1,8192,8192; softmax flattened 655360 = B·N·S·8 → SBH, B=2, S=8192, N=5, D=128
    e = estimate("FlashAttentionScore", "8192,2,640;8192,2,640;8192,2,640;;83886112;;1,1,8192,8192",
                 "655360;655360;;10485760", "DT_BF16;DT_BF16;DT_BF16;FLOAT;UINT8;FLOAT;DT_BF16",
                 "FLOAT;FLOAT;DT_BF16;DT_BF16")
    assert e.flops == 2 * 2 * 5 * 8192**2 * (128 + 128)
    assert "N = 5" in e.assumption


def test_compressed_mask_is_causal_and_bsnd_layout():
    e = estimate("FlashAttentionScore", "1,4096,32,128;1,4096,8,128;1,4096,8,128;;;;2048,2048;;;;;",
                 "1,32,4096,8;1,32,4096,8;;1,4096,32,128", FA_IN_TYPES, FA_OUT_TYPES)
    assert e.flops == 2 * 1 * 32 * (4096 * 4097 // 2) * (128 + 128)
    assert "BSND" in e.assumption and "causal" in e.assumption


def test_sparse_mode_override():
    e = estimate("FlashAttentionScore", FA_IN, FA_OUT, FA_IN_TYPES, FA_OUT_TYPES, FlopOptions(fa_sparse_mode=2))
    assert e.flops == 2 * 2 * 4 * (4096 * 4097 // 2) * 256


def test_tnd_without_lengths_is_excluded():
    e = estimate("FlashAttentionScore", "4096,32,128;4096,8,128;4096,8,128;;;;2048,2048;;8;8;;",
                 "4096,32,8;4096,32,8;;4096,32,128", FA_IN_TYPES, FA_OUT_TYPES)
    assert e.flops is None and "actual_seq_qlen" in e.reason


def test_edited_sample_row_with_inconsistent_head_dim():
    e = estimate("FlashAttentionScore", "4096,2,511;4096,2,512;4096,2,512;;;;4096,4096;;;;;", FA_OUT, FA_IN_TYPES,
                 FA_OUT_TYPES)
    assert e.flops is None and e.reason.startswith("inconsistent shapes")


@pytest.mark.parametrize(("inputs", "output"), [("81920,4096;8192,512", "4096,512"),
                                                ("8192,15365;8192,4096", "1536,4096"),
                                                ("81920,1536;8192,4096", "1536,4096")])
def test_public_fixture_matmuls_are_inconsistent(inputs, output):
    e = estimate("MatMulV3", inputs, output, "DT_BF16;DT_BF16", "DT_BF16")
    assert e.flops is None and "inconsistent" in e.reason


def test_matmul_with_bias_input_ignored():
    e = estimate("MatMulV2", "32,9216;4096,9216;4096", "32,4096", "FLOAT;FLOAT;FLOAT", "FLOAT")
    assert e.flops == 2 * 32 * 4096 * 9216


def test_fused_compute_communication_is_excluded_even_without_shapes():
    for op in ("MatmulAllReduce", "AllGatherMatmul", "MatmulReduceScatter", "AllGatherMatmulAicpu"):
        e = estimate(op, "N/A", "N/A", "N/A", "N/A")
        assert e.flops is None and "fused compute+communication" in e.reason


def test_shapes_na_and_malformed():
    assert "shapes N/A" in estimate("MatMulV2", "N/A", "N/A", "", "").reason
    assert "malformed" in estimate("MatMulV2", "4096,abc;1,2", "1,2", "", "").reason


def test_grouped_matmul_counts_routed_tokens():
    e = estimate("GroupedMatmul", "8192,4096;8,4096,2816;8", "8192,2816", "DT_BF16;DT_BF16;INT64", "DT_BF16")
    assert e.flops == 2 * 8192 * 4096 * 2816


def test_conv2d_nchw_and_5d_storage():
    e = estimate("Conv2D", "32,3,224,224;64,3,11,11;64", "32,64,55,55", "FLOAT;FLOAT;FLOAT", "FLOAT")
    assert e.flops == 2 * 32 * 64 * 55 * 55 * 3 * 11 * 11
    skip = estimate("Conv2D", "32,1,224,224,8;121,4,16,8;64", "32,8,55,55,8", "FLOAT;FLOAT;FLOAT", "FLOAT")
    assert skip.flops is None and "storage format" in skip.reason


def test_vector_ops_have_no_rule():
    assert estimate("Add", "1,2;1,2", "1,2", "", "") is None
    assert rule_for("hcom_allReduce_") is None


def test_new_operator_type_is_one_function():
    @register("MyFancyGemm", exact=True)
    def _rule(ctx):
        (m, k), (_, n) = ctx.inputs[0], ctx.inputs[1]
        return FlopEstimate(2 * m * n * k, detail="test rule")

    assert estimate("MyFancyGemm", "8,16;16,4", "8,4", "DT_BF16;DT_BF16", "DT_BF16").flops == 2 * 8 * 4 * 16
