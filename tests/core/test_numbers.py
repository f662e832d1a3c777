"""Number formatting shared by derivations, the CLI and the window (core/numbers.py)."""

from __future__ import annotations

import math

import pytest

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
