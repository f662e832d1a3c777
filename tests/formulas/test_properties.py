"""Invariants of the engine, checked with hypothesis."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mfu_desktop.core.chips.catalog import Peak
from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.formulas.flops import ResolveStatus, flash_attention_forward, mask_count, resolve_matmul
from mfu_desktop.core.formulas.mfu import calc_gemm
from tests.helpers import brute_mask_count

dims = st.integers(min_value=1, max_value=8192)
small = st.integers(min_value=1, max_value=64)


@settings(max_examples=300, deadline=None)
@given(m=dims, n=dims, k=dims, batch=st.integers(1, 16), ta=st.booleans(), tb=st.booleans())
def test_transposing_operands_never_changes_flops(m, n, k, batch, ta, tb):
    a = (batch, k, m) if ta else (batch, m, k)
    b = (batch, n, k) if tb else (batch, k, n)
    out = (batch, m, n)
    r = resolve_matmul(a, b, out)
    assert r.status is ResolveStatus.OK
    assert r.count.flops == 2 * batch * m * n * k


@settings(max_examples=300, deadline=None)
@given(sq=st.integers(1, 5000), skv=st.integers(1, 5000), mode=st.sampled_from([2, 3]))
def test_causal_never_exceeds_full(sq, skv, mode):
    causal, _ = mask_count(sq, skv, mode)
    assert 0 < causal <= sq * skv


@settings(max_examples=300, deadline=None)
@given(s=st.integers(2, 1_000_000), mode=st.sampled_from([2, 3]))
def test_exact_and_continuous_differ_by_one_over_s(s, mode):
    exact, _ = mask_count(s, s, mode, convention="exact")
    seed, _ = mask_count(s, s, mode, convention="seed")
    assert abs(exact - seed) / seed <= 1.0 / s + 1e-15


@settings(max_examples=200, deadline=None)
@given(sq=small, skv=small, mode=st.sampled_from([0, 1, 2, 3, 4]), pre=st.integers(0, 70), nxt=st.integers(0, 70))
def test_mask_count_matches_brute_force(sq, skv, mode, pre, nxt):
    assert mask_count(sq, skv, mode, pre, nxt)[0] == brute_mask_count(sq, skv, mode, pre, nxt)


@settings(max_examples=200, deadline=None)
@given(m=dims, n=dims, k=dims, t=st.floats(1.0, 1e6), factor=st.floats(1.01, 100.0))
def test_mfu_scales_inversely_with_time(m, n, k, t, factor):
    peak = Peak(353.9, ComputeDtype.BF16)
    fast = calc_gemm(m, n, k, t * 1e-6, peak)
    slow = calc_gemm(m, n, k, t * factor * 1e-6, peak)
    assert slow.mfu * factor == __import__("pytest").approx(fast.mfu, rel=1e-9)


@settings(max_examples=150, deadline=None)
@given(b=st.integers(1, 8), n=st.sampled_from([1, 2, 4, 8]), g=st.sampled_from([1, 2, 4]), s=st.integers(1, 512),
       d=st.sampled_from([16, 64, 128]))
def test_layouts_are_equivalent(b, n, g, s, d):
    nq = n * g
    bnsd = flash_attention_forward("BNSD", (b, nq, s, d), (b, n, s, d)).count.flops
    bsnd = flash_attention_forward("BSND", (b, s, nq, d), (b, s, n, d)).count.flops
    bsh = flash_attention_forward("BSH", (b, s, nq * d), (b, s, n * d)).count.flops
    sbh = flash_attention_forward("SBH", (s, b, nq * d), (s, b, n * d)).count.flops
    assert bnsd == bsnd == bsh == sbh == 2 * b * nq * s * s * 2 * d
