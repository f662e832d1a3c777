"""Cross-chip prediction: how fast would this profile run on another accelerator (prediction.md).

The work is split along its steps:

* :mod:`~mfu_desktop.core.predict.rules` — architecture rules (data, editable),
* :mod:`~mfu_desktop.core.predict.kernels` — the per-kernel model (ratios, scale),
* :mod:`~mfu_desktop.core.predict.step` — the step composite (transfer, wait, free),
* this module — every rank on every target, aggregated the one way every front end shows it,
* :mod:`~mfu_desktop.core.report.prediction_rows` — the rows the console, JSON, CSV and window format.

Every time is a mean **per step** (of each rank's captured steps) and **per rank** (mean over
ranks); the slowest rank is reported with its number and its values (:mod:`~mfu_desktop.core.analysis.steps`).
Kernels that cannot be predicted (a blank catalog value) are never given ratio 1: the speed-up
covers the predictable time only and says how much that is; the step keeps the unpredictable
time at its measured value and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.measured_step import MeasuredStep, measured_step
from mfu_desktop.core.analysis.steps import captured_steps
from mfu_desktop.core.chips.catalog import Chip, ChipCatalog
from mfu_desktop.core.predict.basis import FITTED, Basis
from mfu_desktop.core.predict.error_band import ErrorBand, error_band, profile_mix
from mfu_desktop.core.predict.kernel_model import predict_kernels, target_totals
from mfu_desktop.core.predict.kernels import KernelInputs, kernel_inputs
from mfu_desktop.core.predict.memory_fit import Footprint, MemoryFit, fit_on, footprint
from mfu_desktop.core.predict.rules import (
    DEFAULT_RULES,
    Rule,
)
from mfu_desktop.core.predict.step import StepComposite, comm_line, step_composite
from mfu_desktop.core.readers.records import CommMatrix
from mfu_desktop.core.readers.step_trace import StepTrace

#: Targets compared by default (the seed README's list plus the common NVIDIA parts).
DEFAULT_TARGETS = ("Huawei Ascend 910C", "Huawei Ascend 950DT", "Huawei Ascend 950PR", "NVIDIA H200", "NVIDIA H20",
                   "NVIDIA H100 SXM")


@dataclass
class PreparedRank:
    """A rank's prediction inputs worked out beforehand (a cluster summary carries them instead of kernels).

    Attributes:
        inputs: The kernel groups and excluded classes (the per-kernel frame may be empty).
        steps: Captured steps.
        measured: The measured step (means per step), when the rank had a step trace.
    """

    inputs: KernelInputs
    steps: int
    measured: MeasuredStep | None = None


@dataclass
class RankInput:
    """What the predictor needs from one rank: its kernels (with trace and matrix), or prepared inputs."""

    rank: int
    kernels: pd.DataFrame | None
    trace: StepTrace | None = None
    comm: CommMatrix | None = None
    prepared: PreparedRank | None = None
    #: The rank's ``memory`` object (rank document) and why it has none: "does it fit" on each target.
    memory: dict | None = None
    memory_reason: str | None = None


@dataclass
class RankPrediction:
    """One rank on one target; every time is a mean per captured step of that rank.

    Attributes:
        baseline_compute_us: Measured time of the kernels that could be predicted.
        predicted_compute_us: Their predicted time.
        unpredictable_compute_us: Measured time of the kernels that could not (kept unscaled in the step).
    """

    rank: int
    steps: int
    baseline_compute_us: float
    predicted_compute_us: float
    unpredictable_compute_us: float
    step: StepComposite

    @property
    def relative(self) -> float | None:
        """Speed-up over the predictable kernels."""
        return self.baseline_compute_us / self.predicted_compute_us if self.predicted_compute_us > 0 else None

    @property
    def all_compute_speedup(self) -> float | None:
        """Speed-up of all compute-class time with the unpredictable part kept at its measured time."""
        predicted = self.predicted_compute_us + self.unpredictable_compute_us
        return (self.baseline_compute_us + self.unpredictable_compute_us) / predicted if predicted > 0 else None


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None and np.isfinite(v)]
    return float(np.mean(known)) if known else None


@dataclass
class TargetResult:
    """One target chip over every rank: means per rank of per-step figures, and the slowest rank.

    ``relative_performance`` is measured / predicted compute over the predictable kernels;
    ``predicted_share`` says how much of the compute-class time that is (1.0 = all of it).
    """

    device: str
    chip: Chip
    ranks: list[RankPrediction]
    rules: list[str]
    notes: list[str]
    unpredictable_reasons: dict[str, float]
    fallback_time_share: float
    #: Measured time of the predictable kernels by the basis of their ratios (per step, mean per rank).
    basis_us: dict[str, float] = field(default_factory=dict)
    #: The profile's memory footprint on this target (:mod:`~mfu_desktop.core.predict.memory_fit`).
    memory: MemoryFit | None = None
    #: The error to expect for this profile's kernel mix (the accuracy report's held-out bands), if measured.
    error_band: ErrorBand | None = None

    @property
    def basis_text(self) -> str:
        """The basis of this target's ratios with the share of time on each: "achievable (92 %); advertised (8 %)"."""
        total = sum(self.basis_us.values())
        if total <= 0:
            return ""
        parts = sorted(self.basis_us.items(), key=lambda kv: -kv[1])
        return "; ".join(f"{name} ({us / total * 100:.3g} %)" for name, us in parts)

    # --- compute ------------------------------------------------------------------------------
    @property
    def baseline_compute_us(self) -> float:
        """Measured time of the predictable kernels, per step, mean per rank."""
        return float(np.mean([r.baseline_compute_us for r in self.ranks])) if self.ranks else 0.0

    @property
    def predicted_compute_us(self) -> float:
        """Predicted time of those kernels, per step, mean per rank."""
        return float(np.mean([r.predicted_compute_us for r in self.ranks])) if self.ranks else 0.0

    @property
    def unpredictable_compute_us(self) -> float:
        """Measured time of the kernels that cannot be predicted, per step, mean per rank."""
        return float(np.mean([r.unpredictable_compute_us for r in self.ranks])) if self.ranks else 0.0

    @property
    def relative_performance(self) -> float | None:
        """Compute speed-up over the predictable kernels."""
        pred = self.predicted_compute_us
        return self.baseline_compute_us / pred if pred > 0 else None

    @property
    def predicted_share(self) -> float:
        """Share of the compute-class time the speed-up covers."""
        total = self.baseline_compute_us + self.unpredictable_compute_us
        return self.baseline_compute_us / total if total > 0 else 1.0

    @property
    def unpredictable_time_share(self) -> float:
        """1 − :attr:`predicted_share`."""
        return 1.0 - self.predicted_share

    @property
    def partial(self) -> bool:
        """True when part of the compute-class time could not be predicted."""
        return self.unpredictable_compute_us > 0

    @property
    def partial_reason(self) -> str:
        """Why, with the share: "27 % of compute time not predictable: cube_fp32_tflops not published for …"."""
        if not self.partial:
            return ""
        causes = "; ".join(sorted(self.unpredictable_reasons)) or "ratio unknown"
        return f"{self.unpredictable_time_share * 100:.3g} % of compute time not predictable: {causes}"

    # --- step ---------------------------------------------------------------------------------
    @property
    def stepped(self) -> list[RankPrediction]:
        """Ranks whose step was predicted."""
        return [r for r in self.ranks if r.step.predicted_step_us is not None]

    def _step_mean(self, attr: str) -> float | None:
        return _mean([getattr(r.step, attr) for r in self.stepped])

    @property
    def measured_step_us(self) -> float | None:
        """Measured step (mean per rank) over the ranks whose step was predicted."""
        return self._step_mean("measured_step_us")

    @property
    def predicted_step_us(self) -> float | None:
        """Predicted step, mean per rank."""
        return self._step_mean("predicted_step_us")

    @property
    def step_relative_performance(self) -> float | None:
        """Measured / predicted step (means per rank)."""
        meas, pred = self.measured_step_us, self.predicted_step_us
        return meas / pred if meas is not None and pred else None

    @property
    def readme_formula_relative_performance(self) -> float | None:
        """The seed README's arithmetic-mean formula, mean per rank (shown for comparison only)."""
        return self._step_mean("readme_relative")

    @property
    def predicted_computing_us(self) -> float | None:
        """Predicted Computing, per step, mean per rank."""
        return self._step_mean("predicted_computing_us")

    @property
    def predicted_transfer_us(self) -> float | None:
        """Predicted real transfer (scaled by interconnect), per step, mean per rank."""
        return self._step_mean("predicted_transfer_us")

    @property
    def predicted_wait_us(self) -> float | None:
        """Waiting (unchanged), per step, mean per rank."""
        return self._step_mean("predicted_wait_us")

    @property
    def predicted_free_us(self) -> float | None:
        """Predicted free time (host CPU ratio), per step, mean per rank."""
        return self._step_mean("predicted_free_us")

    @property
    def step_not_predicted(self) -> str:
        """Why no rank's step was predicted (empty when at least one was)."""
        if self.stepped:
            return ""
        reasons = sorted({r.step.not_predicted for r in self.ranks if r.step.not_predicted})
        return "; ".join(reasons) or "step not predicted"

    @property
    def slowest(self) -> RankPrediction | None:
        """The rank with the longest predicted step (else the longest predicted compute)."""
        if self.stepped:
            return max(self.stepped, key=lambda r: r.step.predicted_step_us or 0.0)
        if self.ranks:
            return max(self.ranks, key=lambda r: r.predicted_compute_us + r.unpredictable_compute_us)
        return None

    @property
    def slowest_rank(self) -> int | None:
        """Number of :attr:`slowest`."""
        s = self.slowest
        return s.rank if s is not None else None

    @property
    def per_rank(self) -> pd.DataFrame:
        """One row per rank (per-step figures)."""
        rows = []
        for r in self.ranks:
            m = r.step.measured
            rows.append({
                "rank": r.rank, "steps": r.steps, "baseline_compute_us": r.baseline_compute_us,
                "predicted_compute_us": r.predicted_compute_us, "unpredictable_compute_us": r.unpredictable_compute_us,
                "relative_performance": r.relative, "measured_step_us": r.step.measured_step_us,
                "predicted_step_us": r.step.predicted_step_us, "step_relative_performance": r.step.relative,
                "computing_us": m.computing_us if m else None, "comm_not_overlapped_us": m.comm_not_overlapped_us
                if m else None, "transfer_us": m.transfer_us if m else None, "wait_us": m.wait_us if m else None,
                "free_us": m.free_us if m else None, "predicted_computing_us": r.step.predicted_computing_us,
                "predicted_transfer_us": r.step.predicted_transfer_us, "predicted_wait_us": r.step.predicted_wait_us,
                "predicted_free_us": r.step.predicted_free_us, "step_not_predicted": r.step.not_predicted,
            })
        return pd.DataFrame(rows)

    def comm_line(self, lang: str = "en") -> str:
        """This target's predicted not-overlapped communication (transfer scaled, wait kept), mean per rank."""
        transfer, wait = self.predicted_transfer_us, self.predicted_wait_us
        total = transfer + wait if transfer is not None and wait is not None else None
        return comm_line(total, transfer, wait, lang)


@dataclass
class SourceStep:
    """The measured source: per step, mean per rank, and the slowest measured rank."""

    ranks: dict[int, MeasuredStep]

    def mean(self, attr: str) -> float | None:
        """Mean per rank of a :class:`MeasuredStep` figure."""
        return _mean([getattr(m, attr) for m in self.ranks.values()])

    @property
    def slowest_rank(self) -> int | None:
        """Rank with the longest measured step."""
        if not self.ranks:
            return None
        return max(self.ranks, key=lambda r: self.ranks[r].step_us)


@dataclass
class Prediction:
    """The prediction of a profile on several targets (per step, mean per rank)."""

    source: Chip
    ranks: list[int]
    baseline_compute_us: float
    targets: list[TargetResult]
    excluded: pd.DataFrame
    warnings: list[str]
    rules: list[Rule]
    details: dict[tuple[int, str], pd.DataFrame] = field(default_factory=dict)
    inputs: dict[int, KernelInputs] = field(default_factory=dict)
    measured: SourceStep = field(default_factory=lambda: SourceStep({}))
    steps: dict[int, int] = field(default_factory=dict)
    assumed_cpu: float | None = None
    basis: Basis = field(default_factory=Basis)
    #: The profile's memory footprint (largest rank) and its fit on the source chip.
    footprint: Footprint | None = None
    source_memory: MemoryFit | None = None
    #: Compute-class time per report category (per step, mean per rank): the error bands' weights.
    mix: np.ndarray | None = None


def _excluded_per_step(inputs: dict[int, KernelInputs], steps: dict[int, int]) -> pd.DataFrame:
    """Excluded classes (AI CPU, DSA, communication …): count and time per step, mean per rank."""
    parts = []
    for rank, inp in inputs.items():
        if inp.excluded.empty:
            continue
        part = inp.excluded.copy()
        part["count"] = part["count"].astype(np.float64) / steps[rank]
        part["time_us"] = part["time_us"].astype(np.float64) / steps[rank]
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=["class", "count", "time_us"])
    joined = pd.concat(parts, ignore_index=True).groupby("class", sort=False).agg(
        count=("count", "sum"), time_us=("time_us", "sum")).reset_index()
    joined[["count", "time_us"]] = joined[["count", "time_us"]] / max(len(inputs), 1)
    return joined


def _predict_target(ranks: list[RankInput], inputs: dict[int, KernelInputs], steps: dict[int, int],
                    measured: dict[int, MeasuredStep | None], source: Chip, target: Chip, rules: list[Rule],
                    default_cpu: float | None, keep_details: bool,
                    details: dict[tuple[int, str], pd.DataFrame], basis: Basis) -> TargetResult:
    notes: list[str] = []
    reasons: dict[str, float] = {}
    by_basis: dict[str, float] = {}
    rule_names: set[str] = set()
    fallback = all_compute = 0.0
    out: list[RankPrediction] = []
    memo: dict = {}  # ratios per (unit, precision, type), shared by the ranks
    for r in ranks:
        n = steps[r.rank]
        tk = predict_kernels(inputs[r.rank], source, target, rules, basis) if keep_details else \
            target_totals(inputs[r.rank], source, target, rules, memo, basis)
        for name, us in tk.basis_us.items():
            by_basis[name] = by_basis.get(name, 0.0) + us / n / len(ranks)
        rule_names.update(tk.rules)
        notes.extend(tk.flags)
        for reason, us in tk.unpredictable_by_reason.items():
            reasons[reason] = reasons.get(reason, 0.0) + us / n / len(ranks)
        fallback += tk.fallback_us / n
        all_compute += (tk.baseline_us + tk.unpredictable_us) / n
        rank = RankPrediction(r.rank, n, tk.baseline_us / n, tk.predicted_us / n, tk.unpredictable_us / n,
                              StepComposite())
        rank.step = step_composite(measured[r.rank], rank.all_compute_speedup, source, target, default_cpu)
        notes.extend(rank.step.notes)
        out.append(rank)
        if keep_details and tk.frame is not None and not tk.frame.empty:
            details[(r.rank, target.display_name)] = tk.frame
    result = TargetResult(target.display_name, target, out, sorted(rule_names), [], reasons,
                          fallback / all_compute if all_compute > 0 else 0.0, by_basis)
    if result.partial:
        kept = "; the rest is kept at its measured time in the step" if result.stepped else ""
        result.notes.append(f"{result.partial_reason}; the speed-up covers the other "
                            f"{result.predicted_share * 100:.3g} %{kept} (a blank catalog value stays unknown)")
    missing = sorted({r.step.not_predicted for r in out if r.step.not_predicted})
    if result.stepped and missing:
        result.notes.append(f"step not predicted for {len(out) - len(result.stepped)} of {len(out)} rank(s): "
                            + "; ".join(missing))
    elif missing:
        result.notes.extend(missing)
    result.notes.extend(sorted(set(notes)))
    if basis.name == FITTED:
        result.notes.append("fitted values: " + "; ".join(
            basis.table.provenance(chip.identifier, chip.die) for chip in (source, target)))
    return result


def predict(ranks: list[RankInput], source: Chip, targets: list[Chip], rules: list[Rule] | None = None,
            default_cpu: float | None = None, keep_details: bool = False, basis: Basis | None = None) -> Prediction:
    """Predict every rank on every target (prediction.md §2–§5).

    Args:
        ranks: Kernels, step trace and communication matrix of each rank.
        source: The chip that ran the profile.
        targets: Chips to predict.
        rules: Architecture rules (default: :data:`DEFAULT_RULES`).
        default_cpu: CPU coefficient assumed for chips without one (``None``: their step is not predicted).
        keep_details: Keep the per-kernel frames (for the detail CSV and the GUI table).
        basis: Advertised peaks (default) or achievable values, and saved calibration factors
            (:mod:`~mfu_desktop.core.predict.basis`).
    """
    rules = list(DEFAULT_RULES if rules is None else rules)
    basis = basis or Basis()
    warnings: list[str] = []
    inputs = {r.rank: r.prepared.inputs if r.prepared else kernel_inputs(r.kernels) for r in ranks}
    steps = {r.rank: r.prepared.steps if r.prepared else captured_steps(r.trace, r.kernels).count for r in ranks}
    measured: dict[int, MeasuredStep | None] = {}
    for r in ranks:
        measured[r.rank] = r.prepared.measured if r.prepared else measured_step(r.trace, r.comm)[0]
    for rank, inp in inputs.items():
        flags = [*inp.flags, *([inp.fallback_flags[basis.model]] if basis.model in inp.fallback_flags else [])]
        warnings.extend(f"rank {rank}: {flag}" for flag in flags)
    excluded = _excluded_per_step(inputs, steps)
    baseline = _mean([float(inp.groups["duration_us"].sum()) / steps[rank] if not inp.groups.empty else 0.0
                      for rank, inp in inputs.items()]) or 0.0
    if "910C" in source.identifier and "die" not in source.identifier.lower():
        warnings.append(f"source {source.display_name} is a package row (two dies); a rank is one die: use "
                        "'Ascend 910C die …' for per-rank comparisons")
    details: dict[tuple[int, str], pd.DataFrame] = {}
    results = [_predict_target(ranks, inputs, steps, measured, source, target, rules, default_cpu, keep_details,
                               details, basis) for target in targets]
    source_step = SourceStep({rank: m for rank, m in measured.items() if m is not None})
    fp = footprint([(r.rank, r.memory, r.memory_reason) for r in ranks])
    mix = profile_mix(inputs, steps, source)
    for result in results:
        result.memory = fit_on(result.chip, fp)
        result.error_band = error_band(mix, basis.model, basis.name, source, result.chip)
    return Prediction(source, [r.rank for r in ranks], baseline, results, excluded, warnings, rules, details, inputs,
                      source_step, steps, default_cpu, basis, fp, fit_on(source, fp), mix)


def resolve_targets(catalog: ChipCatalog, names: list[str] | None) -> list[Chip]:
    """Target chips by name (default list when ``names`` is empty); raises on unknown names."""
    chosen = names or list(DEFAULT_TARGETS)
    return [catalog.find(n) for n in chosen]
