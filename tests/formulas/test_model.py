"""Model-level MFU/HFU: the PaLM reference values of mfu.md §5 and the modern option."""

from __future__ import annotations

import pytest

from mfu_desktop.core.formulas.flops import FlopError
from mfu_desktop.core.formulas.model import (
    Conventions,
    ModernArchitecture,
    model_mfu,
    palm_remat_flops_per_token,
    solve_step_time,
    solve_tokens_per_s,
    tokens_per_second,
)

PALM = {"params": 540e9, "layers": 118, "heads": 48, "head_dim": 256, "seq": 2048}


def palm(**kw):
    return model_mfu(**PALM, tokens_per_s=238.3e3, peak_tflops_per_chip=275, n_chips=6144, **kw)


def test_palm_mfu_without_and_with_attention():
    r = palm()
    assert round(r.mfu_without_attention * 100, 1) == 45.7
    assert round(r.mfu_with_attention * 100, 1) == 46.2
    assert round(r.flops_per_token / 1e12, 2) == 3.28
    assert r.attention_flops_per_token == 12 * 118 * 48 * 256 * 2048
    assert r.hfu is None


def test_palm_hfu_with_rematerialisation():
    remat = palm_remat_flops_per_token(**PALM, nonattention_fraction=0.75, attention_forward=True)
    r = palm(remat_flops_per_token=remat)
    assert round((r.flops_per_token + remat) / 1e12, 2) == 4.10
    assert round(r.hfu * 100, 1) == 57.8


def test_palm_hfu_from_paper_flops_per_token():
    # 238.3K tokens/s × 4.10 TFLOPs / (275 TFLOP/s × 6144) ≈ 57.8 %
    r = palm(remat_flops_per_token=4.10e12 - palm().flops_per_token)
    assert r.hfu == pytest.approx(238.3e3 * 4.10e12 / (275e12 * 6144))
    assert round(r.hfu * 100, 1) == 57.8


def test_derivation_states_hq_not_dmodel_and_convention():
    text = palm().derivation.text()
    assert "12 × 118 × 48 × 256 × 2048" in text
    assert "not d_model" in text
    assert "not halved" in text


def test_causal_halved_switch():
    halved = palm(conventions=Conventions(causal_halved=True))
    assert halved.attention_flops_per_token == 12 * 118 * 48 * 256 * 2048 / 2
    assert "halved" in " ".join(halved.conventions)


def test_tokens_from_batch_and_step_time():
    assert tokens_per_second(global_batch=1024, seq=4096, step_time_s=8.0) == 1024 * 4096 / 8.0
    with pytest.raises(FlopError):
        tokens_per_second()


def test_inverse_solves_roundtrip():
    r = palm()
    tokens = solve_tokens_per_s(r.mfu_with_attention, r.flops_per_token, 275, 6144)
    assert tokens == pytest.approx(238.3e3)
    step = solve_step_time(0.5, r.flops_per_token, 275, 6144, global_batch=2048, seq=2048)
    assert step == pytest.approx(2048 * 2048 * r.flops_per_token / (0.5 * 275e12 * 6144))


def test_modern_architecture_hand_computed():
    # L=2, d=1024, H=16, Q=64, KV=4, F=2816 SwiGLU, vocab 32000
    arch = ModernArchitecture(layers=2, d_model=1024, heads=16, head_dim=64, kv_heads=4, ffn_hidden=2816,
                              swiglu=True, vocab=32000)
    n, lines = arch.active_matmul_params()
    attn = 1024 * 1024 + 2 * 1024 * 256 + 1024 * 1024  # q, k+v (GQA), o
    ffn = 3 * 1024 * 2816
    assert n == 2 * (attn + ffn) + 1024 * 32000
    assert any("SwiGLU" in line for line in lines)


def test_moe_counts_active_experts_only():
    dense = ModernArchitecture(layers=1, d_model=512, heads=8, head_dim=64, ffn_hidden=1024, swiglu=True,
                               include_logits=False)
    moe = ModernArchitecture(layers=1, d_model=512, heads=8, head_dim=64, ffn_hidden=1024, swiglu=True,
                             include_logits=False, moe_experts=64, moe_top_k=2, moe_shared_experts=1)
    n_dense, _ = dense.active_matmul_params()
    n_moe, _ = moe.active_matmul_params()
    expert = 3 * 512 * 1024
    assert n_moe - n_dense == (2 + 1) * expert + 512 * 64 - expert  # 3 active experts + router − one dense FFN


def test_rejects_nonsense():
    with pytest.raises(FlopError):
        model_mfu(**PALM, tokens_per_s=0, peak_tflops_per_chip=275, n_chips=1)
