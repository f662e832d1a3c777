"""Number formatting shared by derivations, the CLI and the GUI."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


def finite_number(value: object) -> float | None:
    """A finite float, or ``None`` (NaN, inf, missing, a bool, not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


#: Significant figures of every headline result (mfu.md §1: "3 significant figures").
RESULT_SIG_FIGS = 3


def sig(value: float | int | None, figures: int = RESULT_SIG_FIGS) -> str:
    """Format a number with a fixed count of significant figures.

    Args:
        value: The number (``None`` or NaN gives ``"n/a"``).
        figures: Significant figures to keep.

    Returns:
        The formatted number, without exponent for magnitudes between 1e-4 and 1e9.
    """
    if value is None:
        return "n/a"
    value = float(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude >= 9 or magnitude < -4:
        return f"{value:.{figures - 1}e}"
    decimals = max(figures - 1 - magnitude, 0)
    rounded = round(value, decimals)
    # Rounding can add a digit (999.6 -> 1000); recompute the decimals once.
    if rounded != 0 and math.floor(math.log10(abs(rounded))) != magnitude:
        decimals = max(decimals - 1, 0)
        rounded = round(value, decimals)
    return f"{rounded:.{decimals}f}"


def pct(fraction: float | None, figures: int = RESULT_SIG_FIGS) -> str:
    """Format a fraction (0.457) as a percentage with significant figures ("45.7 %")."""
    if fraction is None or (isinstance(fraction, float) and math.isnan(fraction)):
        return "n/a"
    return f"{sig(fraction * 100.0, figures)} %"


def calls(value: float | int | None) -> str:
    """Format a call count, which is per step and so may be fractional ("4", "2.5", "1,024")."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    value = float(value)
    if value.is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def grouped(value: int | float) -> str:
    """Format an integer with thousands separators (68,719,476,736)."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.3f}"
    return f"{int(value):,}"


def sci(value: float | int | None, figures: int = RESULT_SIG_FIGS) -> str:
    """Format in scientific notation with significant figures (6.87e+10)."""
    if value is None:
        return "n/a"
    return f"{float(value):.{figures - 1}e}"


def short(value: float | int | None, figures: int = 6) -> str:
    """Format with at most ``figures`` significant digits and no trailing zeros (275, 353.9, 5.4e+11)."""
    if value is None:
        return "n/a"
    value = float(value)
    if math.isnan(value):
        return "n/a"
    return f"{value:.{figures}g}"


#: Time units the calculator accepts, in seconds.
TIME_UNITS = {"µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def to_seconds(value: float, unit: str) -> float:
    """A time in ``µs``, ``ms`` or ``s`` converted to seconds.

    Raises:
        ValueError: For an unknown unit.
    """
    try:
        return float(value) * TIME_UNITS[unit]
    except KeyError:
        raise ValueError(f"unknown time unit {unit!r}") from None


# --- derivation operands ------------------------------------------------------------------------


@dataclass(frozen=True)
class Exact:
    """A derivation operand shown as written (an integer FLOP count with separators, a named constant)."""

    value: float
    text: str


#: Most significant figures an operand is given.
MAX_OPERAND_FIGS = 12


def _operand_text(value: float, figures: int) -> str:
    """``value`` with ``figures`` significant figures, or as written when it is exact in at most 6 (294.9)."""
    written = short(value, 6)
    if written not in ("n/a", "inf", "-inf", "nan") and abs(float(written) - value) <= 1e-12 * abs(value):
        return written  # as typed (410.188e-6 is not exactly 0.000410188 in binary)
    return sig(value, figures)


def _operand_value(text: str) -> float:
    return float(text.replace(",", ""))


def operands(compute: Callable[..., float], result: Callable[[float], str], *values: float | Exact,
             figures: int = RESULT_SIG_FIGS) -> list[str]:
    """The operands of a derivation line, shown with the digits its result needs.

    Each operand gets the fewest significant figures (at least ``figures``) such that the
    result computed from the operands *as shown* formats like the true result: "MFU =
    167.5 / 294.9 = 56.8 %", never "168 / 294.9 = 56.8 %" (a calculator says 57.0 %). Every
    derivation line that computes its result from numbers it shows uses this.

    Args:
        compute: The line's arithmetic on the operands' values.
        result: How the line formats its result (``pct``, ``sig`` …).
        values: The operands: numbers, or :class:`Exact` ones shown as written.
        figures: The fewest significant figures of a number operand.

    Returns:
        The operands' texts, in order.
    """
    def texts(f: int) -> list[str]:
        return [v.text if isinstance(v, Exact) else _operand_text(v, f) for v in values]

    try:
        target = result(compute(*(v.value if isinstance(v, Exact) else v for v in values)))
    except (ZeroDivisionError, OverflowError, ValueError):
        return texts(figures)
    for f in range(figures, MAX_OPERAND_FIGS + 1):
        shown = texts(f)
        try:
            if result(compute(*(_operand_value(t) for t in shown))) == target:
                return shown
        except (ZeroDivisionError, OverflowError, ValueError):
            return shown
    return texts(MAX_OPERAND_FIGS)
