"""Each chip's effective peak and bandwidth for one kernel key, on the chosen basis (prediction.md §2, §7).

Both models read their rates here: the seed's ratios (``source_peak / target_peak``) and the
roofline model's attainable times (``F / peak``, ``B / bandwidth``). On each basis:

* **advertised** — the catalog's peak for the unit and precision (architecture efficiency rules
  applied) and its HBM bandwidth (bandwidth rules applied);
* **achievable** — the measured matmul rate (MAMF) and HBM bandwidth where *both* chips have one
  for that quantity, else advertised for both (per quantity, said per row);
* **fitted** — advertised × each chip's efficiency fitted on the validation corpus's training rows
  (:mod:`~mfu_desktop.core.predict.model_table`); a chip the corpus never measured takes the prior.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mfu_desktop.core.chips.catalog import Chip
from mfu_desktop.core.predict.basis import (
    ACHIEVABLE,
    ADVERTISED,
    FITTED,
    Basis,
    achievable_bandwidths,
    achievable_peaks,
)
from mfu_desktop.core.predict.peaks import peak_column
from mfu_desktop.core.predict.rules import Rule, bandwidth, efficiency


@dataclass(frozen=True)
class PairPeaks:
    """Both chips' effective peaks for one (unit, precision, type) key.

    Attributes:
        source: Source chip's effective peak (TFLOP/s), ``None`` when unknown.
        target: Target chip's.
        basis: The basis the values are on.
        reason: Why one is unknown ("" when both are known).
        rules: Architecture rules that touched them.
        flags: Column fallbacks.
    """

    source: float | None
    target: float | None
    basis: str
    reason: str = ""
    rules: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        """``source / target`` (NaN when either is unknown)."""
        return self.source / self.target if self.source and self.target else float("nan")


@dataclass(frozen=True)
class PairBandwidths:
    """Both chips' effective HBM bandwidths (GB/s), their basis, why unknown, and the bandwidth rules used."""

    source: float | None
    target: float | None
    basis: str
    reason: str = ""
    rules: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        """``source / target`` (NaN when either is unknown)."""
        return self.source / self.target if self.source and self.target else float("nan")


def _fitted_factor(chip: Chip, unit: str, precision: str, basis: Basis) -> float:
    """The chip's (or its die's) fitted efficiency, else the table's catalog-wide prior.

    Not the chip's own measured ratio: two chips without fits must keep the advertised ratio between them,
    as the achievable basis uses a measurement only when both chips have one.
    """
    return basis.table.compute_efficiency(chip.identifier, unit, precision, chip.die)[0]


def pair_peaks(unit: str, precision: str, op_type: str, source: Chip, target: Chip, rules: list[Rule],
               basis: Basis) -> PairPeaks:
    """Both chips' effective peaks for one kernel key on ``basis`` (efficiency rules on the cube)."""
    names: list[str] = []
    s_fac = t_fac = 1.0
    if unit == "cube":  # architecture efficiency rules act on the cube peak
        s_fac, s_names = efficiency(source, op_type, rules)
        t_fac, t_names = efficiency(target, op_type, rules)
        names = [f"{n} (source)" for n in s_names] + [f"{n} (target)" for n in t_names]
    measured = achievable_peaks(unit, precision, source, target) if basis.name == ACHIEVABLE else None
    if measured is not None:
        return PairPeaks(measured.source * s_fac, measured.target * t_fac, ACHIEVABLE, "", names)
    s_col, s_flag = peak_column(unit, precision, source)
    t_col, t_flag = peak_column(unit, precision, target)
    flags = [f for f in (s_flag, t_flag) if f]
    s_val, t_val = source.value(s_col), target.value(t_col)
    if s_val is None or t_val is None:
        who = source if s_val is None else target
        return PairPeaks(s_val, t_val, ADVERTISED, f"{s_col if s_val is None else t_col} not published for "
                         f"{who.display_name}", names, flags)
    if basis.name == FITTED:
        s_fac *= _fitted_factor(source, unit, precision, basis)
        t_fac *= _fitted_factor(target, unit, precision, basis)
        return PairPeaks(s_val * s_fac, t_val * t_fac, FITTED, "", names, flags)
    return PairPeaks(s_val * s_fac, t_val * t_fac, ADVERTISED, "", names, flags)


def pair_bandwidths(source: Chip, target: Chip, rules: list[Rule], basis: Basis) -> PairBandwidths:
    """Both chips' effective HBM bandwidths on ``basis`` (bandwidth rules on the advertised values)."""
    if basis.name == ACHIEVABLE and (measured := achievable_bandwidths(source, target)) is not None:
        return PairBandwidths(measured.source, measured.target, ACHIEVABLE)
    s_bw, s_rules = bandwidth(source, target, rules, source.value("hbm_bandwidth_gbs"))
    t_bw, t_rules = bandwidth(target, source, rules, target.value("hbm_bandwidth_gbs"))
    names = [f"{r} (source)" for r in s_rules] + [f"{r} (target)" for r in t_rules]
    if not (s_bw and t_bw):
        who = source if not s_bw else target
        return PairBandwidths(s_bw, t_bw, ADVERTISED, f"HBM bandwidth not published for {who.display_name}", names)
    if basis.name == FITTED:
        s_eta = basis.table.memory_efficiency(source.identifier, source.die)[0]
        t_eta = basis.table.memory_efficiency(target.identifier, target.die)[0]
        return PairBandwidths(s_bw * s_eta, t_bw * t_eta, FITTED, "", names)
    return PairBandwidths(s_bw, t_bw, ADVERTISED, "", names)
