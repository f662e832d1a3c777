"""Number formatting shared by derivations, the CLI and the window (core/numbers.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mfu_desktop.core.numbers import calls, finite_number, grouped, pct, sci, short, sig, to_seconds


@pytest.mark.parametrize(("value", "text"), [
    (0.457123, "0.457"), (45.7123, "45.7"), (167.5, "168"), (999.6, "1000"), (0.0, "0"), (-12.34, "-12.3"),
    (1234567.0, "1234567"), (1.5e9, "1.50e+09"), (0.00001234, "1.23e-05"), (None, "n/a"), (math.nan, "n/a"),
    (math.inf, "inf"), (-math.inf, "-inf"),
])
def test_three_significant_figures(value, text):
    assert sig(value) == text


def test_percentages_and_counts():
    assert pct(0.457123) == "45.7 %"
    assert pct(0.0682) == "6.82 %"
    assert pct(None) == "n/a" and pct(math.nan) == "n/a"
    assert calls(4.0) == "4" and calls(2.5) == "2.5" and calls(1024) == "1,024" and calls(1.125) == "1.12"
    assert calls(None) == "n/a"
    assert grouped(68719476736) == "68,719,476,736" and grouped(1234.5) == "1,234.500"
    assert sci(68719476736) == "6.87e+10" and sci(None) == "n/a"
    assert short(353.9) == "353.9" and short(5.4e11) == "5.4e+11" and short(275.0) == "275"


@pytest.mark.parametrize(("value", "expected"), [
    (3, 3.0), ("2.5", 2.5), (None, None), (True, None), (math.nan, None), (math.inf, None), ("x", None),
    ([1], None),
])
def test_finite_number(value, expected):
    assert finite_number(value) == expected


def test_time_units():
    assert to_seconds(410.188, "µs") == pytest.approx(410.188e-6)
    assert to_seconds(410.188, "us") == pytest.approx(410.188e-6)
    assert to_seconds(2, "ms") == pytest.approx(2e-3)
    with pytest.raises(ValueError, match="unknown time unit"):
        to_seconds(1, "min")


# --- derivation operands ------------------------------------------------------------------------


def test_operands_carry_the_digits_their_result_needs():
    from mfu_desktop.core.numbers import Exact, operands, pct, sig

    # 68,719,476,736 FLOPs in 410.188 µs = 167.53 TFLOP/s; on a 294.9 peak: 56.81 % (168 / 294.9 = 56.97 %)
    achieved = 68_719_476_736 / 410.188e-6 / 1e12
    assert operands(lambda a, p: a / p, pct, achieved, 294.9) == ["167.5", "294.9"]
    # 51,539,607,552 FLOPs in 200 µs = 257.70 TFLOP/s: 258 / 353.9 would show 72.9 %, the result is 72.8 %
    assert operands(lambda a, p: a / p, pct, 51_539_607_552 / 200e-6 / 1e12, 353.9) == ["257.7", "353.9"]
    assert operands(lambda a, p: a / p, pct, 100.0, 400.0) == ["100", "400"]
    # a typed number is shown as typed, an Exact one as written, whatever the figures
    assert operands(lambda f, t: f / t / 1e12, sig, Exact(68_719_476_736, "68,719,476,736"), 410.188e-6) == [
        "68,719,476,736", "0.000410188"]
    # a division by zero does not fail: the operands at the base figures
    assert operands(lambda a, b: a / b, pct, 1.0, 0.0) == ["1", "0"]


@given(a=st.floats(1e-3, 1e6), b=st.floats(1e-3, 1e6))
def test_operands_reproduce_the_result_shown(a, b):
    from mfu_desktop.core.numbers import operands, pct

    shown = operands(lambda x, y: x / y, pct, a, b)
    assert pct(float(shown[0]) / float(shown[1])) == pct(a / b)
