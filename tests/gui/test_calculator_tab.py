"""Calculator tab: typing into the fields gives the engine's numbers (spec reference cases)."""

from __future__ import annotations

import math

import pytest
from PySide6.QtGui import QGuiApplication

from mfu_desktop.core.analysis.explain import CalculatorPrefill
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.formulas.mfu import calc_gemm
from mfu_desktop.core.numbers import pct
from mfu_desktop.gui.tabs.calculator_tab import CUSTOM_PEAK, KINDS, CalculatorTab

pytestmark = pytest.mark.gui


@pytest.fixture
def calc(qtbot):
    tab = CalculatorTab(default_catalog())
    qtbot.addWidget(tab)
    return tab


def type_into(qtbot, field, text: str) -> None:
    field.clear()
    qtbot.keyClicks(field, text)


def choose(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))


def test_gemm_transpose_trap_case_as_typed(calc, qtbot):
    choose(calc.kind, "gemm")
    type_into(qtbot, calc.fields["m"], "4096")
    type_into(qtbot, calc.fields["n"], "1024")
    type_into(qtbot, calc.fields["k"], "6144")
    choose(calc.chip, "Huawei Ascend 910B2")
    choose(calc.dtype, "bf16")
    type_into(qtbot, calc.time, "200")
    choose(calc.unit, "µs")
    qtbot.waitUntil(lambda: calc.card_flops.value.text() == "51,539,607,552")
    peak = default_catalog().peak("Huawei Ascend 910B2", "bf16")
    expected = calc_gemm(4096, 1024, 6144, 200e-6, peak)
    assert calc.card_mfu.value.text() == pct(expected.mfu) == "72.8 %"
    assert calc.card_achieved.value.text() == "258"
    assert calc.peak.text() == "353.9" and "Cube BF16" in calc.peak_source.text()
    text = calc.derivation.toPlainText()
    assert "2 × 4096 × 1024 × 6144" in text and "72.8 %" in text


def test_time_units_and_custom_peak(calc, qtbot):
    choose(calc.kind, "gemm")
    choose(calc.chip, CUSTOM_PEAK)
    type_into(qtbot, calc.peak, "400")
    type_into(qtbot, calc.time, "0.2")
    choose(calc.unit, "ms")
    expected = 2 * 4096 * 1024 * 6144 / 0.2e-3 / 1e12 / 400
    qtbot.waitUntil(lambda: calc.card_mfu.value.text() == pct(expected) == "64.4 %")
    choose(calc.unit, "s")
    qtbot.waitUntil(lambda: calc.card_mfu.value.text() == pct(expected / 1000))
    assert "entered by you" in calc.peak_source.text()


def test_invalid_and_missing_fields_are_marked(calc, qtbot):
    choose(calc.kind, "gemm")
    type_into(qtbot, calc.fields["m"], "40x6")
    qtbot.waitUntil(lambda: "M:" in calc.problems.text())
    assert calc.card_mfu.value.text() == "–"
    assert "not" in calc.fields["m"].toolTip()
    type_into(qtbot, calc.fields["m"], "4096")
    type_into(qtbot, calc.time, "")
    qtbot.waitUntil(lambda: "Missing inputs" in calc.problems.text() or "time" in calc.problems.text())
    assert calc.card_flops.value.text() == "51,539,607,552"  # FLOPs need no time


def test_flash_attention_sample_row(calc, qtbot):
    choose(calc.kind, "fa_fwd")
    choose(calc.fa_layout, "SBH")
    for key, text in (("fa_q", "4096,2,512"), ("fa_k", "4096,2,512"), ("fa_v", "4096,2,512"), ("fa_heads", "4")):
        type_into(qtbot, calc.fields[key], text)
    choose(calc.fa_mode, 0)
    choose(calc.chip, CUSTOM_PEAK)
    type_into(qtbot, calc.peak, "294.912")
    type_into(qtbot, calc.time, "410.188")
    choose(calc.unit, "µs")
    qtbot.waitUntil(lambda: calc.card_flops.value.text() == "68,719,476,736")
    assert calc.card_achieved.value.text() == "168"
    assert calc.card_mfu.value.text() == pct(68_719_476_736 / 410.188e-6 / 1e12 / 294.912)


def test_palm_reference_values(calc, qtbot):
    choose(calc.kind, "model")
    for key, text in (("md_params", "540e9"), ("md_layers", "118"), ("md_heads", "48"), ("md_head_dim", "256"),
                      ("md_seq", "2048"), ("md_tokens", "238.3e3")):
        type_into(qtbot, calc.fields[key], text)
    choose(calc.chip, CUSTOM_PEAK)
    type_into(qtbot, calc.peak, "275")
    type_into(qtbot, calc.chips_count, "6144")
    qtbot.waitUntil(lambda: calc.card_mfu.value.text() == "46.2 %")
    assert calc.card_achieved.value.text() == "45.7 %"  # without attention
    assert "HFU 57.8 %" in calc.card_mfu.detail.text()


def test_copy_derivation_as_markdown(calc, qtbot):
    calc.recompute()
    text = calc.copy_markdown()
    assert text.startswith("### ") and "FLOPs" in text
    assert QGuiApplication.clipboard().text() == text


def test_prefill_from_a_kernel(calc, qtbot):
    prefill = CalculatorPrefill(kind="gemm", values={"m": 8192, "n": 512, "k": 4096, "batch": 3}, dtype="fp16",
                                chip="Huawei Ascend 910B3", time_us=123.5)
    calc.prefill(prefill)
    assert calc.kind.currentData() == "batched"
    assert [calc.fields[k].text() for k in ("b_batch", "b_m", "b_n", "b_k")] == ["3", "8192", "512", "4096"]
    assert calc.chip.currentData() == "Huawei Ascend 910B3" and calc.dtype.currentData() == "fp16"
    assert calc.time.text() == "123.5" and calc.unit.currentData() == "µs"
    assert calc.card_flops.value.text() == f"{2 * 3 * 8192 * 512 * 4096:,}"


def test_every_kind_computes_without_errors_on_its_defaults(calc, qtbot):
    for kind in KINDS:
        choose(calc.kind, kind)
        calc.recompute()
        assert calc.card_flops.value.text() != "–", (kind, calc.problems.text())


def test_memory_bound_operator_by_hand(calc, qtbot):
    """Add [4096,4096] + [4096,4096] → [4096,4096] BF16 in 80 µs on a 910B2 (1,600 GB/s): 78.6 %."""
    choose(calc.kind, "memory")
    assert calc.card_mfu.caption.text() == "Bandwidth utilisation" and calc.peak.isHidden()
    choose(calc.chip, "Huawei Ascend 910B2")
    assert calc.bandwidth.text() == "1600"
    type_into(qtbot, calc.time, "80")
    calc.recompute()
    assert calc.card_flops.value.text() == "100,663,296"
    assert calc.card_achieved.value.text() == "1,258"  # 100,663,296 B / 80 µs = 1,258 GB/s, grouped
    assert calc.card_mfu.value.text() == pct(100_663_296 / 80e-6 / 1.6e12)
    assert "t* = bytes / BW" in calc.last_derivation.text()
    # a write-only type reads nothing: only the output's 33,554,432 bytes
    type_into(qtbot, calc.fields["mem_type"], "ZerosLike")
    calc.recompute()
    assert calc.card_flops.value.text() == "33,554,432"
    # an edited bandwidth is the user's; back to GEMM, the cards name FLOP figures again
    type_into(qtbot, calc.bandwidth, "800")
    calc.recompute()
    assert calc.card_mfu.value.text() == pct(33_554_432 / 80e-6 / 0.8e12)
    assert "entered by you" in calc.last_derivation.text()
    choose(calc.kind, "gemm")
    assert calc.card_mfu.caption.text() == "MFU" and calc.peak_source.text().startswith("Huawei Ascend 910B2")
    assert calc.peak.text() == "353.9"


def test_prefill_a_memory_bound_kernel(calc, qtbot):
    prefill = CalculatorPrefill(kind="memory", values={"inputs": "4096,4096;4096", "input_dtypes": "DT_BF16;DT_BF16",
                                                       "outputs": "4096,4096;4096,1", "output_dtypes": "DT_BF16;FLOAT",
                                                       "type": "RmsNorm"}, time_us=67.978, chip="Huawei Ascend 910B2")
    calc.prefill(prefill)
    assert calc.kind.currentData() == "memory" and calc.fields["mem_type"].text() == "RmsNorm"
    assert calc.card_flops.value.text() == "67,133,440"


def test_whole_model_mode_opens_on_sensible_numbers_with_its_own_titles(calc, qtbot):
    choose(calc.kind, "model")
    calc.recompute()
    captions = [c.caption.text() for c in (calc.card_flops, calc.card_achieved, calc.card_mfu)]
    assert captions == ["FLOPs per token", "MFU without attention", "MFU (with attention)"]
    peak = float(calc.peak.text())  # 910B2 BF16, from the catalog
    # 6N + 12·L·H·Q·T = 6 × 6.7e9 + 12 × 32 × 32 × 128 × 4096 = 40.2e9 + 6.442e9 FLOPs per token,
    # × 22,400 tokens/s over 8 accelerators × peak
    per_token = 6 * 6.7e9 + 12 * 32 * 32 * 128 * 4096
    expected = per_token * 22_400 / (8 * peak * 1e12)
    assert calc.card_mfu.value.text() == pct(expected) and 0.2 < expected < 0.6
    assert calc.problems.text() == ""
    type_into(qtbot, calc.chips_count, "1")
    calc.recompute()
    # 8× the MFU on one accelerator: impossible, and the message names the input (ceil(8 × MFU) accelerators)
    assert calc.card_mfu.value.text() == pct(expected * 8)
    assert f"at least {math.ceil(expected * 8)} accelerators, not 1" in calc.problems.text()
    type_into(qtbot, calc.fields["md_target"], "0.5")
    calc.recompute()
    assert [c.caption.text() for c in (calc.card_achieved, calc.card_mfu)] == ["Tokens/s needed", "Step time needed"]


def test_an_impossible_operator_mfu_names_the_time(calc, qtbot):
    choose(calc.kind, "gemm")
    type_into(qtbot, calc.time, "1")  # 4096 × 1024 × 6144 GEMM in 1 µs: far above any peak
    choose(calc.unit, "µs")
    calc.recompute()
    assert "the time is likely too short — is it in µs, and for one call" in calc.problems.text()
