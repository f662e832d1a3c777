"""One target: each group's rates and ratios, the predicted time per group, per rank and per kernel.

The inputs are a rank's groups (:mod:`~mfu_desktop.core.predict.kernels`). Per (unit, precision,
type) key the effective peaks and bandwidths of both chips come from
:mod:`~mfu_desktop.core.predict.rates` on the chosen basis; the time of a group is then

* seed model: ``compute · compute_ratio + memory · memory_ratio`` (pipe split, or the class rule
  for kernels without pipe counters);
* roofline model: the same for kernels with pipe counters (and those without FLOPs or bytes), plus
  ``Σ duration · T̂_target / T̂_source`` over its kernels without pipe counters
  (:mod:`~mfu_desktop.core.predict.roofline_model`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.categories import category_of
from mfu_desktop.core.analysis.grouping import categorical
from mfu_desktop.core.chips.catalog import Chip
from mfu_desktop.core.predict.basis import FITTED, ROOFLINE, SEED, Basis, basis_label
from mfu_desktop.core.predict.kernels import FALLBACKS, KernelInputs
from mfu_desktop.core.predict.rates import pair_bandwidths, pair_peaks
from mfu_desktop.core.predict.roofline_model import (
    category_floors,
    category_memory_factors,
    group_sums,
    shape_ratios,
)
from mfu_desktop.core.predict.rules import Rule


@dataclass
class GroupRatios:
    """Rates and ratios per group, rules and reasons for one (source, target) pair.

    Attributes:
        compute_ratio: Per group: source peak / target peak (NaN: unknown).
        memory_ratio: Source bandwidth / target bandwidth.
        reasons: Per group: why a ratio is unknown ("" when known).
        rules: Per group: the rules and calibration factors that touched it ("; "-joined).
        flags: Caveats about columns that fell back.
        factor: Per group: the saved calibration factor applied to its predicted time (1: none).
        basis: Per group: the basis its ratios are on (:func:`~mfu_desktop.core.predict.basis.basis_label`).
        source_peak: Per group: the source chip's effective peak (TFLOP/s; NaN: unknown).
        target_peak: Per group: the target chip's.
        bandwidths: Source and target effective HBM bandwidth (GB/s; ``None``: unknown).
    """

    compute_ratio: np.ndarray
    memory_ratio: float
    reasons: list[str]
    rules: list[str]
    flags: list[str]
    factor: np.ndarray | None = None
    basis: list[str] = field(default_factory=list)
    source_peak: np.ndarray = field(default_factory=lambda: np.array([]))
    target_peak: np.ndarray = field(default_factory=lambda: np.array([]))
    bandwidths: tuple[float | None, float | None] = (None, None)


def group_times(groups: pd.DataFrame, model: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: the time scaled by the compute ratio, by the memory ratio, and by the roofline model.

    A summary written before the roofline model has no ``roofline_us``: its groups are all ratios.
    """
    compute = groups["compute_weighted_us"].to_numpy() + groups["fallback_compute_us"].to_numpy()
    memory = groups["memory_weighted_us"].to_numpy() + groups["fallback_memory_us"].to_numpy()
    if model != ROOFLINE or "roofline_us" not in groups.columns:
        return compute, memory, np.zeros(len(groups))
    roofline = groups["roofline_us"].to_numpy(dtype=np.float64)
    roofline_memory = groups["roofline_memory_us"].to_numpy(dtype=np.float64)
    return np.maximum(compute - (roofline - roofline_memory), 0.0), np.maximum(memory - roofline_memory, 0.0), roofline


def _key_value(unit: str, precision: str, op_type: str, source: Chip, target: Chip, rules: list[Rule],
               basis: Basis, bw_reason: str, bw_rules: list[str]) -> tuple:
    """Everything a (unit, precision, type) key needs, remembered across ranks by :func:`group_ratios`."""
    peaks = pair_peaks(unit, precision, op_type, source, target, rules, basis)
    names = list(peaks.rules)
    cal = basis.factors_for(source, target).get(category_of(op_type))
    if cal is not None:
        names.append(f"calibration {cal.category} ×{cal.factor:.3g} ({cal.fitted_on})")
    ratio = peaks.ratio
    reason = peaks.reason or (bw_reason if np.isfinite(ratio) else peaks.reason)
    return (ratio, reason, "; ".join(names + bw_rules), peaks.flags, cal.factor if cal else 1.0, peaks.basis,
            np.nan if peaks.source is None else peaks.source, np.nan if peaks.target is None else peaks.target)


def group_ratios(groups: pd.DataFrame, source: Chip, target: Chip, rules: list[Rule],
                 memo: dict | None = None, basis: Basis | None = None) -> GroupRatios:
    """Per (unit, precision, type): the effective peaks of both chips and their ratio.

    Args:
        groups: :attr:`KernelInputs.groups`.
        source: The chip that ran the profile.
        target: The chip predicted.
        rules: Architecture rules.
        memo: One dict per source, target, rules and basis: remembers each key across ranks (the
            ranks of a cluster share their kernel types).
        basis: The model, the basis of the rates, and the saved calibration factors.
    """
    basis = basis or Basis()
    flags: set[str] = set()
    bw = pair_bandwidths(source, target, rules, basis)
    compute_us, memory_us, roofline_us = group_times(groups, basis.model)
    values = []
    for unit, precision, op_type in zip(groups["unit"].tolist(), groups["precision"].tolist(),
                                        groups["type"].tolist()):
        key = (unit, precision, op_type)
        if memo is None or key not in memo:
            value = _key_value(unit, precision, str(op_type), source, target, rules, basis, bw.reason, bw.rules)
            if memo is not None:
                memo[key] = value
        else:
            value = memo[key]
        values.append(value)
    bases = []
    for (_, _, _, key_flags, _, compute_basis, _, _), c_us, m_us, r_us in zip(values, compute_us, memory_us,
                                                                             roofline_us):
        if c_us > 0 or r_us > 0:  # a group all predicted by bandwidth needs no peak: its caveats do not apply
            flags.update(key_flags)
        bases.append(basis_label(compute_basis if c_us > 0 or r_us > 0 else None,
                                 bw.basis if m_us > 0 or r_us > 0 else None))
    column = list(zip(*values)) if values else [[]] * 8
    return GroupRatios(np.array(column[0], dtype=np.float64), bw.ratio, list(column[1]), list(column[2]),
                       sorted(flags), np.array(column[4], dtype=np.float64), bases,
                       np.array(column[6], dtype=np.float64), np.array(column[7], dtype=np.float64),
                       (bw.source, bw.target))


def roofline_ratios(inputs: KernelInputs, ratios: GroupRatios, source: Chip, target: Chip,
                    basis: Basis) -> np.ndarray:
    """``T̂_target / T̂_source`` of each distinct roofline shape of a rank (empty for the seed model)."""
    if basis.model != ROOFLINE or inputs.shapes.empty:
        return np.array([], dtype=np.float64)
    table, fitted = basis.table, basis.name == FITTED
    floors = (category_floors(table, source, fitted), category_floors(table, target, fitted))
    memory = (category_memory_factors(table, source, fitted), category_memory_factors(table, target, fitted))
    return shape_ratios(inputs.shapes, ratios.source_peak, ratios.target_peak, ratios.bandwidths, floors,
                        table.power, memory)


def predicted_groups(inputs: KernelInputs, source: Chip, target: Chip, rules: list[Rule], basis: Basis,
                     memo: dict | None = None) -> tuple[np.ndarray, np.ndarray, GroupRatios]:
    """Predicted time and predictability of each group of a rank on ``target`` with the basis's model."""
    r = group_ratios(inputs.groups, source, target, rules, memo, basis)
    shape_ratio = roofline_ratios(inputs, r, source, target, basis)
    predicted, ok = group_predictions(inputs.groups, r, inputs.shapes, shape_ratio, basis.model)
    return predicted, ok, r


def group_predictions(groups: pd.DataFrame, ratios: GroupRatios, shapes: pd.DataFrame | None = None,
                      shape_ratio: np.ndarray | None = None, model: str = SEED) -> tuple[np.ndarray, np.ndarray]:
    """Predicted time per group and whether it is predictable.

    A group is predictable when every ratio its kernels use is known; a ratio it does not use
    may be unknown (a vector kernel predicted by bandwidth needs no vector peak). With the
    roofline model, ``shapes`` and ``shape_ratio`` predict its kernels without pipe counters.
    """
    compute_us, memory_us, _ = group_times(groups, model)
    cr, mr = ratios.compute_ratio, ratios.memory_ratio
    needs_cr, needs_mr = compute_us > 0, memory_us > 0
    with np.errstate(invalid="ignore"):
        predicted = np.where(needs_cr, cr * compute_us, 0.0) + np.where(needs_mr, mr * memory_us, 0.0)
    ok = (~needs_cr | np.isfinite(cr)) & (~needs_mr | np.isfinite(mr))
    if model == ROOFLINE and shapes is not None and shape_ratio is not None:
        roofline, bad = group_sums(shapes, shape_ratio, len(groups))
        predicted = predicted + roofline
        ok &= ~bad
    if ratios.factor is not None:
        predicted = predicted * ratios.factor
    return predicted, ok


@dataclass
class TargetKernels:
    """Prediction of one rank's compute-class kernels on one target."""

    device: str
    predicted_us: float
    baseline_us: float
    unpredictable_us: float
    fallback_us: float
    rules: list[str]
    flags: list[str]
    unpredictable_by_reason: dict[str, float] = field(default_factory=dict)
    frame: pd.DataFrame | None = None
    #: Measured time of the predictable kernels by the basis of their ratios.
    basis_us: dict[str, float] = field(default_factory=dict)
    #: Per group: measured and predicted time (predictable groups; the error band's kernel mix).
    group_us: tuple[np.ndarray, np.ndarray] | None = None


def _reasons(ratios: GroupRatios, ok: np.ndarray, dur: np.ndarray, target: Chip) -> dict[str, float]:
    by_reason: dict[str, float] = {}
    for i in np.flatnonzero(~ok):
        reason = ratios.reasons[i] or f"HBM bandwidth not published for {target.display_name}"
        by_reason[reason] = by_reason.get(reason, 0.0) + float(dur[i])
    return by_reason


def target_totals(inputs: KernelInputs, source: Chip, target: Chip, rules: list[Rule],
                  memo: dict | None = None, basis: Basis | None = None) -> TargetKernels:
    """Totals for one target from the group sums: O(groups + shapes), whatever the kernel count."""
    basis = basis or Basis()
    g = inputs.groups
    if g.empty:
        return TargetKernels(target.display_name, 0.0, 0.0, 0.0, 0.0, [], [])
    predicted_g, ok, r = predicted_groups(inputs, source, target, rules, basis, memo)
    dur = g["duration_us"].to_numpy()
    used = sorted({name for i in np.flatnonzero(ok & (dur > 0)) for name in r.rules[i].split("; ") if name})
    by_basis: dict[str, float] = {}
    for i in np.flatnonzero(ok):
        by_basis[r.basis[i]] = by_basis.get(r.basis[i], 0.0) + float(dur[i])
    return TargetKernels(
        device=target.display_name,
        predicted_us=float(np.where(ok, predicted_g, 0.0).sum()),
        baseline_us=float(dur[ok].sum()),
        unpredictable_us=float(dur[~ok].sum()),
        fallback_us=float((g["fallback_compute_us"].to_numpy() + g["fallback_memory_us"].to_numpy())[ok].sum()),
        rules=used,
        flags=r.flags,
        unpredictable_by_reason=_reasons(r, ok, dur, target),
        basis_us=by_basis,
        group_us=(np.where(ok, dur, 0.0), np.where(ok, predicted_g, 0.0)),
    )


def _kernel_scale(f: pd.DataFrame, r: GroupRatios, shape_ratio: np.ndarray, model: str) -> tuple[np.ndarray, ...]:
    """Per kernel: compute ratio, memory ratio, scale and how a kernel without pipe times was predicted."""
    group = f["group"].to_numpy()
    compute_ratio = r.compute_ratio[group]
    memory_ratio = np.full(len(f), r.memory_ratio)
    compute, memory = f["compute_us"].to_numpy(), f["memory_us"].to_numpy()
    pipe = compute + memory
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(pipe <= 0, np.where(f["fallback_memory"].to_numpy(), memory_ratio, compute_ratio),
                         (compute * compute_ratio + memory * memory_ratio) / pipe)
    fallback = f["fallback"].cat.codes.to_numpy().astype(np.int8)
    if model == ROOFLINE and len(shape_ratio) and "shape" in f.columns:
        shape = f["shape"].to_numpy()
        by_shape = shape >= 0
        scale = np.where(by_shape, shape_ratio[np.maximum(shape, 0)], scale)
        fallback = np.where(by_shape, FALLBACKS.index("roofline model"), fallback).astype(np.int8)
    if r.factor is not None:
        scale = scale * r.factor[group]
    return compute_ratio, memory_ratio, scale, fallback


def predict_kernels(inputs: KernelInputs, source: Chip, target: Chip, rules: list[Rule],
                    basis: Basis | None = None) -> TargetKernels:
    """Per-kernel prediction for one target (the detail table): ratios, scale, predicted duration, rules."""
    basis = basis or Basis()
    totals = target_totals(inputs, source, target, rules, basis=basis)
    f = inputs.frame
    if f.empty:
        return totals
    r = group_ratios(inputs.groups, source, target, rules, basis=basis)
    shape_ratio = roofline_ratios(inputs, r, source, target, basis)
    compute_ratio, memory_ratio, scale, fallback = _kernel_scale(f, r, shape_ratio, basis.model)
    group = f["group"].to_numpy()
    predictable = np.isfinite(scale)
    totals.frame = pd.DataFrame({
        "compute_ratio": compute_ratio, "memory_ratio": memory_ratio, "scale": scale,
        "predicted_us": np.where(predictable, f["duration_us"].to_numpy() * scale, np.nan),
        "fallback": pd.Categorical.from_codes(fallback, categories=list(FALLBACKS)),
        "rules": categorical(r.rules, group),
        "basis": categorical(r.basis, group),
        "reason": categorical([x or "ratio unknown" for x in r.reasons], np.where(predictable, -1, group)),
    }, copy=False)
    return totals
