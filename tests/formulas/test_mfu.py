"""Per-operator MFU, derivations, interpretation, aggregates (mfu.md §1, §4)."""

from __future__ import annotations

import numpy as np
import pytest

from mfu_desktop.core.chips.catalog import Peak
from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.formulas.mfu import (
    MfuBand,
    aggregate,
    calc_flash_attention,
    calc_gemm,
    calc_linear,
    mfu_band,
    step_mfu,
)

BF16_910B2 = Peak(353.9, ComputeDtype.BF16, "Huawei Ascend 910B2", "cube_bf16_tflops", "catalog")


def test_gemm_mfu_hand_computed():
    # 2·4096·1024·6144 = 51,539,607,552 FLOPs in 200 µs → 257.7 TFLOP/s → 72.8 % of 353.9
    r = calc_gemm(4096, 1024, 6144, 200e-6, BF16_910B2)
    assert r.flops == 51_539_607_552
    assert r.achieved_tflops == pytest.approx(257.698, abs=1e-3)
    assert r.mfu == pytest.approx(257.698 / 353.9, abs=1e-5)
    text = r.derivation.text()
    assert "2 × 4096 × 1024 × 6144 = 51,539,607,552" in text
    assert "72.8 %" in text
    assert "close to the device limit" in r.derivation.interpretation


def test_derivation_follows_seed_structure():
    lines = calc_gemm(4096, 1024, 6144, 200e-6, BF16_910B2).derivation.lines()
    order = [lines.index(h) for h in ("Inputs:", "Formulas:", "Result:")]
    assert order == sorted(order)
    assert any(line.startswith("Interpretation:") for line in lines)


def test_missing_inputs_are_listed_with_where_to_find_them():
    r = calc_gemm(4096, None, 6144, None, None)
    names = [m.name for m in r.derivation.missing]
    assert names == ["N", "time", "peak"]
    assert r.flops is None and r.mfu is None
    assert all(m.where for m in r.derivation.missing)
    assert "Output Shapes" in r.derivation.missing[0].where


def test_hints_small_k_unaligned_fp32():
    peak = Peak(88.5, ComputeDtype.FP32)
    r = calc_gemm(4096, 1000, 64, 100e-6, peak)
    hints = " ".join(r.derivation.hints)
    assert "K = 64 is small" in hints
    assert "N=1000 not a multiple of 16" in hints
    assert "FP32 on the cube" in hints


def test_mfu_over_100_percent_is_flagged():
    r = calc_gemm(4096, 6144, 6144, 200e-6, BF16_910B2)  # the naive transpose reading of the seed's trap
    assert r.mfu > 1
    assert mfu_band(r.mfu) is MfuBand.IMPOSSIBLE
    assert "impossible" in r.derivation.interpretation


@pytest.mark.parametrize(("mfu", "band"), [(0.1, MfuBand.FAR), (0.25, MfuBand.LOW), (0.457, MfuBand.MEDIUM),
                                           (0.65, MfuBand.GOOD), (0.75, MfuBand.NEAR_LIMIT)])
def test_bands(mfu, band):
    assert mfu_band(mfu) is band


def test_calls_multiply_totals_not_mfu():
    one = calc_gemm(1024, 1024, 1024, 10e-6, BF16_910B2)
    many = calc_gemm(1024, 1024, 1024, 10e-6, BF16_910B2, calls=48)
    assert many.mfu == one.mfu
    assert "FLOPs for 48 calls" in many.derivation.text()


def test_linear_layer_mfu():
    r = calc_linear(8, 2048, 4096, 11008, 5e-3, BF16_910B2)
    assert r.flops == 1_477_468_749_824
    assert r.mfu == pytest.approx(1_477_468_749_824 / 5e-3 / 1e12 / 353.9)


def test_fa_sample_row_through_calculator():
    peak = Peak(294.9, ComputeDtype.BF16)  # 910B3-class (20 cores × 1800 MHz)
    r = calc_flash_attention("SBH", (4096, 2, 512), (4096, 2, 512), (4096, 2, 512), 410.188e-6, peak, heads=4)
    assert r.flops == 68_719_476_736
    assert r.achieved_tflops == pytest.approx(167.53, abs=0.01)
    assert r.mfu == pytest.approx(0.5681, abs=1e-4)


def test_fa_tnd_without_lengths_lists_them():
    r = calc_flash_attention("TND", (12, 4, 64), (12, 4, 64), None, 1e-3, BF16_910B2)
    assert r.flops is None
    assert "actual_seq_qlen / actual_seq_kvlen" in [m.name for m in r.derivation.missing]


def test_fa_backward_labels_both_counts():
    r = calc_flash_attention("BNSD", (1, 8, 2048, 128), (1, 8, 2048, 128), None, 1e-3, BF16_910B2, backward=True)
    fwd = 2 * 8 * 2048 * 2048 * 256
    assert r.flops == 2 * fwd
    assert r.executed_flops == fwd * 5 // 2
    assert "HFU view" in r.derivation.text()


def test_aggregate_single_dtype_equals_achieved_over_peak():
    flops = np.array([1e12, 3e12])
    t = np.array([0.01, 0.02])
    agg = aggregate(flops, t, np.array([353.9, 353.9]))
    assert agg.achieved_tflops == pytest.approx(4e12 / 0.03 / 1e12)
    assert agg.mfu == pytest.approx(agg.achieved_tflops / 353.9)


def test_aggregate_mixed_dtypes_uses_ideal_time():
    # 1 TFLOP of BF16 at 353.9 and 0.5 TFLOP of FP32 at 88.5 in 0.01 s + 0.02 s:
    # ideal = 1/353.9 + 0.5/88.5 = 0.0028257 + 0.0056497 = 0.0084754 s; MFU = 0.0084754/0.03 = 28.25 %
    agg = aggregate(np.array([1e12, 0.5e12]), np.array([0.01, 0.02]), np.array([353.9, 88.5]))
    assert agg.mfu == pytest.approx((1 / 353.9 + 0.5 / 88.5) / 0.03)
    assert agg.mfu == pytest.approx(0.28251, abs=1e-4)
    assert agg.achieved_tflops == pytest.approx(50.0)


def test_aggregate_unknown_peak_gives_no_mfu():
    agg = aggregate(np.array([1e12]), np.array([0.01]), np.array([np.nan]))
    assert agg.mfu is None and agg.achieved_tflops == pytest.approx(100.0)


def test_step_mfu_is_below_operator_rate():
    # public step trace: 8873.756 + 101963.203 + 25744.05 = 136581.009 µs
    step = (8873.756 + 101963.203 + 25744.05) * 1e-6
    flops = np.array([2e11, 3e11])
    peaks = np.array([88.5, 88.5])
    value = step_mfu(flops, peaks, step)
    assert value == pytest.approx(5e11 / 88.5e12 / step)
    ops = aggregate(flops, np.array([0.002, 0.004]), peaks).mfu
    assert value <= ops
