"""FLOP formulas of mfu.md §2–3, pinned to hand-computed values."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from mfu_desktop.core.formulas.flops import (
    BackwardCount,
    FlopError,
    ResolveStatus,
    attention_scores_flops,
    broadcast_matmul_flops,
    flash_attention_backward,
    flash_attention_forward,
    gemm_flops,
    grouped_matmul_flops,
    linear_flops,
    mask_count,
    resolve_matmul,
    sequence_lengths,
)
from tests.helpers import brute_mask_count

# --- §2.1 matmul family -----------------------------------------------------------------


def test_gemm_is_two_m_n_k():
    assert gemm_flops(4096, 1024, 6144).flops == 2 * 4096 * 1024 * 6144 == 51_539_607_552


def test_batched_gemm_multiplies_by_batch():
    assert gemm_flops(1024, 1024, 512, batch=12).flops == 12_884_901_888  # 2·12·1024·1024·512


def test_linear_layer_maps_to_gemm():
    # input (8, 2048, 4096) · weight (4096, 11008): M = 16384, K = 4096, N = 11008
    count = linear_flops(8, 2048, 4096, 11008)
    assert count.flops == 2 * 16384 * 11008 * 4096 == 1_477_468_749_824
    assert count.dims["M"] == 16384


def test_attention_scores_maps_to_batched_gemm():
    # Q=(2,32,4096,128), K=(2,32,4096,128): B' = 64, M = N = 4096, K = 128
    assert attention_scores_flops(2, 32, 4096, 4096, 128).flops == 2 * 64 * 4096 * 4096 * 128 == 274_877_906_944


def test_broadcast_matmul_is_two_numel_out_k():
    assert broadcast_matmul_flops((4, 8, 16, 32), 64).flops == 2 * (4 * 8 * 16 * 32) * 64 == 2_097_152


def test_grouped_matmul_counts_routed_tokens_only():
    # x (8192, 7168), weights (64, 7168, 2048), out (8192, 2048): E does not multiply
    assert grouped_matmul_flops(8192, 7168, 2048).flops == 2 * 8192 * 7168 * 2048 == 240_518_168_576


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_gemm_rejects_non_positive_or_non_integer(bad):
    with pytest.raises(FlopError):
        gemm_flops(bad, 2, 3)


def test_counts_are_exact_python_ints_beyond_int64():
    # B·N·S·S·D for a 1M-token context overflows int64; the count must stay exact.
    count = flash_attention_forward("BNSD", (512, 128, 1_048_576, 128), (512, 128, 1_048_576, 128)).count.flops
    assert count == 2 * 512 * 128 * 1_048_576**2 * 256
    assert count > np.iinfo(np.int64).max


# --- §2.2 transpose-safe resolver ---------------------------------------------------------


def test_seed_transpose_trap():
    """in=[4096,6144]·[6144,1024], out=[4096,1024] must give K = 6144, N = 1024."""
    r = resolve_matmul((4096, 6144), (6144, 1024), (4096, 1024))
    assert r.status is ResolveStatus.OK
    assert (r.m, r.n, r.k) == (4096, 1024, 6144)
    assert r.count.flops == 2 * 4096 * 1024 * 6144
    # The naive reading (B's first dim = N) would claim N = 6144: 6× the FLOPs.
    naive = 2 * 4096 * 6144 * 6144
    assert naive / r.count.flops == 6


@pytest.mark.parametrize(
    ("a", "b", "out", "k"),
    [
        ((4096, 12288), (4608, 12288), (4096, 4608), 12288),  # NT, from the ArithmeticUtilization sample
        ((12288, 4096), (12288, 4608), (4096, 4608), 12288),  # TN
        ((12288, 4096), (4608, 12288), (4096, 4608), 12288),  # TT
        ((32, 1000), (32, 4096), (1000, 4096), 32),  # level1 sample: dW = Xᵀ·dY
        ((12, 1024, 512), (12, 512, 1024), (12, 1024, 1024), 512),  # BatchMatMul sample
    ],
)
def test_resolver_handles_every_transpose(a, b, out, k):
    r = resolve_matmul(a, b, out)
    assert r.status is ResolveStatus.OK
    assert r.k == k
    assert r.count.flops == 2 * int(np.prod(out)) * k


def test_inconsistent_k_is_reported_not_counted():
    # msprof-analyze fixture: "81920,4096;8192,512" -> "4096,512"
    r = resolve_matmul((81920, 4096), (8192, 512), (4096, 512))
    assert r.status is ResolveStatus.INCONSISTENT
    assert r.count is None
    assert "81920" in r.reason and "8192" in r.reason


def test_volume_check_catches_storage_shape():
    # public fixture: A = 8192,15365 for an output 1536,4096
    r = resolve_matmul((8192, 15365), (8192, 4096), (1536, 4096))
    assert r.status is ResolveStatus.INCONSISTENT
    assert "elements" in r.reason


def test_broadcast_a_passes_volume_check():
    r = resolve_matmul((64, 128), (8, 128, 256), (8, 64, 256))
    assert r.status is ResolveStatus.OK
    assert r.count.flops == 2 * 8 * 64 * 256 * 128


def test_rank_one_operands_are_unresolved():
    assert resolve_matmul((4096,), (4096, 10), (10,)).status is ResolveStatus.UNRESOLVED


# --- §3.1 FlashAttention dense forward ----------------------------------------------------


def test_spec_sample_row_sbh():
    """mfu.md §3.5: Q/K/V 4096,2,512, softmax 2,4,4096,8 → SBH, B=2, N=4, S=4096, D=128."""
    fa = flash_attention_forward("SBH", (4096, 2, 512), (4096, 2, 512), (4096, 2, 512), heads=4)
    assert fa.count.flops == 2 * 2 * 4 * 4096**2 * 256 == 68_719_476_736
    assert fa.shape.d_qk == 128
    achieved = fa.count.flops / 410.188e-6 / 1e12
    assert achieved == pytest.approx(167.53, abs=0.01)


def test_layouts_agree_on_the_same_attention():
    b, n, s, d = 2, 8, 1024, 64
    bnsd = flash_attention_forward("BNSD", (b, n, s, d), (b, n, s, d)).count.flops
    bsnd = flash_attention_forward("BSND", (b, s, n, d), (b, s, n, d)).count.flops
    bsh = flash_attention_forward("BSH", (b, s, n * d), (b, s, n * d)).count.flops
    sbh = flash_attention_forward("SBH", (s, b, n * d), (s, b, n * d)).count.flops
    assert bnsd == bsnd == bsh == sbh == 2 * b * n * s * s * 2 * d


def test_gqa_scales_with_query_heads():
    # 32 query heads, 8 KV heads: FLOPs as for 32 heads
    gqa = flash_attention_forward("BNSD", (1, 32, 2048, 128), (1, 8, 2048, 128)).count.flops
    assert gqa == 2 * 1 * 32 * 2048 * 2048 * (128 + 128)


def test_gqa_in_bsh_uses_hidden_ratio():
    # H_q = 32·128 = 4096, H_k = H_v = 8·128 = 1024: 2·B·S·S·(H_q + H_v·H_q/H_k)
    count = flash_attention_forward("BSH", (1, 2048, 4096), (1, 2048, 1024), (1, 2048, 1024)).count.flops
    assert count == 2 * 2048 * 2048 * (4096 + 1024 * 4096 // 1024)
    assert count == flash_attention_forward("BNSD", (1, 32, 2048, 128), (1, 8, 2048, 128)).count.flops


def test_mla_value_head_dim_differs():
    # D_qk = 192, D_v = 128: (D_qk + D_v) = 320, the seed's (q_d + k_d) = 384 over-counts by 20 %
    fa = flash_attention_forward("BNSD", (1, 16, 4096, 192), (1, 16, 4096, 192), (1, 16, 4096, 128))
    assert fa.count.flops == 2 * 16 * 4096 * 4096 * 320
    seed = 2 * 16 * 4096 * 4096 * (192 + 192)
    assert seed / fa.count.flops == pytest.approx(1.2)
    assert any("D_v = 128" in note for note in fa.count.notes)


def test_contradictory_shapes_raise():
    with pytest.raises(FlopError):
        flash_attention_forward("BNSD", (2, 8, 1024, 64), (3, 8, 1024, 64))
    with pytest.raises(FlopError):
        flash_attention_forward("BNSD", (2, 12, 1024, 64), (2, 8, 1024, 64))  # 12 not a multiple of 8
    with pytest.raises(FlopError):
        flash_attention_forward("SBH", (4096, 2, 511), (4096, 2, 512))  # the edited "varlen" sample row


# --- §3.2 masks ---------------------------------------------------------------------------





@pytest.mark.parametrize("sq,skv", [(4, 4), (3, 7), (7, 3), (1, 1), (16, 5)])
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_exact_geometry_matches_brute_force(sq, skv, mode):
    assert mask_count(sq, skv, mode)[0] == brute_mask_count(sq, skv, mode)


def test_hand_computed_mask_counts():
    assert mask_count(4, 4, 2)[0] == 10  # 1+2+3+4
    assert mask_count(2, 4, 3)[0] == 7  # rows see 3 and 4 keys: S_q·(S_kv−S_q) + S_q(S_q+1)/2 = 4 + 3
    assert mask_count(6, 2, 2)[0] == 11  # 1 + 2·5: S_kv(S_kv+1)/2 + (S_q−S_kv)·S_kv = 3 + 8
    assert mask_count(6, 2, 3)[0] == 3  # S_kv(S_kv+1)/2
    assert mask_count(10, 10, 4, pre_tokens=3, next_tokens=0)[0] == 34  # 1+2+3+7·4


@pytest.mark.parametrize("sq,skv,pre,nxt", [(10, 10, 3, 0), (8, 12, 2, 1), (12, 8, 100, 0), (5, 5, 0, 0)])
def test_band_mode_matches_brute_force_right_down(sq, skv, pre, nxt):
    assert mask_count(sq, skv, 4, pre, nxt)[0] == brute_mask_count(sq, skv, 4, pre, nxt)


def test_seed_condition_uses_sequence_lengths_not_head_dims():
    """Seed error 1: it tests q_d > k_d where S_q > S_kv is meant. Equal head dims, S_q > S_kv:
    the S_q > S_kv branch must apply (count ≠ S_q·S_kv/2)."""
    fa = flash_attention_forward("BNSD", (1, 1, 8, 64), (1, 1, 4, 64), sparse_mode=2)
    assert fa.score_count == mask_count(8, 4, 2)[0] == 4 * 5 // 2 + 4 * 4 == 26


def test_seed_mode2_denominator_corrected():
    """Seed error 2: (q_s·k_s − k_s²/2)/(k_s·k_s) exceeds 1 (S_q = 2·S_kv → 1.5); the right
    denominator q_s·k_s gives 0.75."""
    sq, skv = 2048, 1024
    count, _ = mask_count(sq, skv, 2, convention="seed")
    assert Fraction(count, sq * skv) == Fraction(3, 4)
    seed_as_written = Fraction(sq * skv - Fraction(skv * skv, 2), skv * skv)
    assert seed_as_written == Fraction(3, 2)


def test_seed_numbers_where_the_seed_is_right():
    """Seed: sparse_mode 2/3 with q_s == k_s is full × 0.5 (continuous); mode 0 is full."""
    full = 2 * 1 * 8 * 4096 * 4096 * 256
    seed2 = flash_attention_forward("BNSD", (1, 8, 4096, 128), (1, 8, 4096, 128), sparse_mode=2, convention="seed")
    seed3 = flash_attention_forward("BNSD", (1, 8, 4096, 128), (1, 8, 4096, 128), sparse_mode=3, convention="seed")
    assert seed2.count.flops == seed3.count.flops == full // 2
    exact = flash_attention_forward("BNSD", (1, 8, 4096, 128), (1, 8, 4096, 128), sparse_mode=2)
    assert exact.count.flops == 2 * 8 * (4096 * 4097 // 2) * 256
    assert (exact.count.flops - seed2.count.flops) / seed2.count.flops == pytest.approx(1 / 4096)
    # seed mode 3, q_s > k_s: full × (k_s²/2)/(q_s·k_s); mode 2, q_s < k_s: full × (q_s²/2)/(q_s·k_s)
    assert mask_count(4096, 1024, 3, convention="seed")[0] == Fraction(1024 * 1024, 2)
    assert mask_count(1024, 4096, 2, convention="seed")[0] == Fraction(1024 * 1024, 2)
    # seed mode 3, q_s < k_s: full × (q_s·k_s − q_s²/2)/(q_s·k_s)
    assert mask_count(1024, 4096, 3, convention="seed")[0] == 1024 * 4096 - Fraction(1024 * 1024, 2)


def test_unsupported_modes_count_full_and_say_so():
    count, text = mask_count(128, 128, 6)
    assert count == 128 * 128
    assert "upper bound" in text


# --- §3.3 varlen ----------------------------------------------------------------------------


def test_sequence_lengths_from_cumulative():
    assert sequence_lengths([3, 7, 12]) == [3, 4, 5]
    assert sequence_lengths([3, 7, 12, 12, 0, 0]) == [3, 4, 5]  # trailing padding dropped
    with pytest.raises(FlopError):
        sequence_lengths([5, 3])


def test_tnd_full_is_sum_of_per_sequence_squares():
    # T = 12, N = 4, D = 64; q_lens = kv_lens = [3, 4, 5]
    fa = flash_attention_forward("TND", (12, 4, 64), (12, 4, 64), actual_seq_qlen=[3, 7, 12],
                                 actual_seq_kvlen=[3, 7, 12])
    assert fa.count.flops == 2 * 4 * (64 + 64) * (9 + 16 + 25)
    # The seed's TND formula 2·N·(D_q + D_k)·Σ q_i·k_i agrees for full masks.


def test_tnd_causal_applies_geometry_per_sequence():
    fa = flash_attention_forward("TND", (12, 4, 64), (12, 4, 64), sparse_mode=3, actual_seq_qlen=[3, 7, 12],
                                 actual_seq_kvlen=[3, 7, 12])
    assert fa.score_count == 6 + 10 + 15
    assert fa.count.flops == 2 * 4 * 128 * 31


def test_tnd_needs_lengths_and_uneven_packs_differ_from_average():
    with pytest.raises(FlopError, match="actual_seq_qlen"):
        flash_attention_forward("TND", (12, 4, 64), (12, 4, 64))
    fa = flash_attention_forward("TND", (12, 4, 64), (12, 4, 64), actual_seq_qlen=[2, 12], actual_seq_kvlen=[2, 12])
    averaged = 2 * 4 * 128 * ((12 // 2) ** 2 * 2)  # (T/B)²·B under-counts an uneven pack
    assert fa.count.flops == 2 * 4 * 128 * (4 + 100)
    assert averaged < fa.count.flops


# --- §3.4 backward --------------------------------------------------------------------------


def test_backward_model_is_twice_forward_executed_two_and_a_half():
    fwd = flash_attention_forward("BNSD", (2, 8, 2048, 128), (2, 8, 2048, 128), sparse_mode=2)
    model = flash_attention_backward(fwd, BackwardCount.MODEL)
    executed = flash_attention_backward(fwd, BackwardCount.EXECUTED)
    assert model.count.flops == 2 * fwd.count.flops
    assert executed.count.flops == model.count.executed_flops
    assert Fraction(executed.count.flops, fwd.count.flops) == Fraction(5, 2)


def test_backward_executed_with_mla_dims():
    # D_qk = 192, D_v = 128: recompute adds 2·B·N·count·D_qk
    fwd = flash_attention_forward("BNSD", (1, 2, 64, 192), (1, 2, 64, 192), (1, 2, 64, 128))
    bwd = flash_attention_backward(fwd, "executed")
    c = 64 * 64
    assert bwd.count.flops == 2 * 2 * c * (2 * 192 + 2 * 128) + 2 * 2 * c * 192
