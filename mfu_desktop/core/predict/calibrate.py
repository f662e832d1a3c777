"""Calibration: measure the prediction's error on two real profiles of the same workload (prediction.md §6).

Profile A ran on chip X, profile B on chip Y. A is predicted on Y and compared with B, per
operator type and overall, so the model's accuracy is measured, not asserted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.categories import CATEGORIES, category_of
from mfu_desktop.core.analysis.steps import captured_steps
from mfu_desktop.core.chips.catalog import Chip
from mfu_desktop.core.predict.basis import ADVERTISED, SEED, Basis, SavedFactor
from mfu_desktop.core.predict.kernel_model import predicted_groups
from mfu_desktop.core.predict.kernels import kernel_inputs
from mfu_desktop.core.predict.predictor import RankInput, predict
from mfu_desktop.core.predict.rules import DEFAULT_RULES, Rule


@dataclass
class Calibration:
    """Predicted vs measured compute time per operator type, and the overall errors.

    Attributes:
        by_type: type, predicted_us, measured_us, error (signed fraction), abs_error.
        mape: Mean absolute percentage error over the operator types present in both profiles.
        weighted_mape: The same, weighted by measured time.
        compute_error: Error of the total compute-class time.
        step_error: Error of the predicted step time (when both profiles have a step trace).
        unmatched: Types present in only one profile (not in the error figures).
    """

    source: str
    target: str
    by_type: pd.DataFrame
    mape: float | None
    weighted_mape: float | None
    compute_error: float | None
    step_error: float | None
    unmatched: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: category, predicted_us, measured_us, error, factor (measured / predicted) — over the matched types.
    by_category: pd.DataFrame = field(default_factory=pd.DataFrame)
    basis: str = ADVERTISED
    source_id: str = ""
    target_id: str = ""
    model: str = SEED

    def factors(self, fitted_on: str) -> list[SavedFactor]:
        """The per-category factors to save (categories with a positive prediction and measurement)."""
        return [SavedFactor(self.source_id, self.target_id, self.basis, r.category, float(r.factor), fitted_on,
                            self.model)
                for r in self.by_category.itertuples(index=False) if np.isfinite(r.factor) and r.factor > 0]

    def to_json(self) -> dict[str, object]:
        """JSON for ``mfu predict --calibrate``."""
        def num(v: float | None) -> float | None:
            return None if v is None or not math.isfinite(v) else float(v)

        return {
            "source": self.source, "target": self.target, "mape": num(self.mape),
            "weighted_mape": num(self.weighted_mape), "compute_error": num(self.compute_error),
            "step_error": num(self.step_error),
            "by_type": [{"type": r.type, "predicted_us": float(r.predicted_us), "measured_us": float(r.measured_us),
                         "error": num(r.error)} for r in self.by_type.itertuples(index=False)],
            "unmatched": self.unmatched, "notes": self.notes, "basis": self.basis, "model": self.model,
            "by_category": [{"category": r.category, "predicted_us": float(r.predicted_us),
                             "measured_us": float(r.measured_us), "error": num(r.error), "factor": num(r.factor)}
                            for r in self.by_category.itertuples(index=False)],
        }


def _per_rank_type_times(ranks: list[RankInput]) -> pd.Series:
    """Measured compute time per operator type, per step, mean per rank."""
    frames = []
    for r in ranks:
        f = kernel_inputs(r.kernels).frame
        if f.empty:
            continue
        steps = captured_steps(r.trace, r.kernels).count
        frames.append(pd.DataFrame({"type": np.asarray(f["type"], dtype=object),
                                    "duration_us": f["duration_us"].to_numpy() / steps}))
    if not frames:
        return pd.Series(dtype=float)
    joined = pd.concat(frames, ignore_index=True)
    return joined.groupby("type")["duration_us"].sum() / len(ranks)


def _by_category(table: pd.DataFrame) -> pd.DataFrame:
    """Matched types summed per category (op_category), with error and factor = measured / predicted."""
    if table.empty:
        return pd.DataFrame(columns=["category", "predicted_us", "measured_us", "error", "factor"])
    cats = table.assign(category=[category_of(t) for t in table["type"]]).groupby("category", sort=False)[
        ["predicted_us", "measured_us"]].sum()
    cats = cats.reindex([c for c in CATEGORIES if c in cats.index]).reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        cats["error"] = (cats["predicted_us"] - cats["measured_us"]) / cats["measured_us"]
        cats["factor"] = cats["measured_us"] / cats["predicted_us"]
    return cats


def calibrate(source_ranks: list[RankInput], measured_ranks: list[RankInput], source: Chip, target: Chip,
              rules: list[Rule] | None = None, default_cpu: float | None = None,
              basis: str = ADVERTISED, model_name: str = SEED) -> Calibration:
    """Predict ``source_ranks`` (run on ``source``) on ``target`` and compare with ``measured_ranks``.

    Times are per step and per rank (mean over each rank's steps, then over ranks), so profiles
    with different step and rank counts compare. The prediction uses ``basis`` and the model
    ``model_name`` without any saved calibration, so the factors it fits measure the model itself.
    """
    notes: list[str] = []
    model = Basis(basis, model=model_name)
    rules = list(DEFAULT_RULES if rules is None else rules)
    predicted_by_type: dict[str, float] = {}
    for r in source_ranks:
        inputs = kernel_inputs(r.kernels)
        if inputs.frame.empty:
            continue
        steps = captured_steps(r.trace, r.kernels).count
        g = inputs.groups
        pred, ok, _ = predicted_groups(inputs, source, target, rules, model)
        pred = np.where(ok, pred, np.nan)
        for op_type, value in zip(g["type"].astype(str), pred):
            predicted_by_type[op_type] = predicted_by_type.get(op_type, 0.0) + float(value) / steps
    predicted = pd.Series(predicted_by_type, dtype=float) / max(len(source_ranks), 1)
    measured = _per_rank_type_times(measured_ranks)
    common = sorted(set(predicted.index) & set(measured.index))
    unmatched = sorted(set(predicted.index) ^ set(measured.index))
    if unmatched:
        notes.append(f"{len(unmatched)} operator type(s) appear in only one profile and are left out of the errors")
    table = pd.DataFrame({"type": common, "predicted_us": [predicted[t] for t in common],
                          "measured_us": [measured[t] for t in common]})
    with np.errstate(divide="ignore", invalid="ignore"):
        table["error"] = (table["predicted_us"] - table["measured_us"]) / table["measured_us"]
    table["abs_error"] = table["error"].abs()
    valid = table[np.isfinite(table["error"]) & (table["measured_us"] > 0)]
    mape = float(valid["abs_error"].mean()) if not valid.empty else None
    weighted = float((valid["abs_error"] * valid["measured_us"]).sum() / valid["measured_us"].sum()) \
        if not valid.empty and valid["measured_us"].sum() > 0 else None
    total_pred, total_meas = float(valid["predicted_us"].sum()), float(valid["measured_us"].sum())
    compute_error = (total_pred - total_meas) / total_meas if total_meas > 0 else None
    step_error = None
    prediction = predict(source_ranks, source, [target], rules, default_cpu, basis=model)
    predicted_step = prediction.targets[0].predicted_step_us
    measured_steps = [r.trace.frame["step_time_us"].dropna().mean() for r in measured_ranks
                      if r.trace is not None and not r.trace.empty and r.trace.frame["step_time_us"].notna().any()]
    if predicted_step and measured_steps:
        measured_step = float(np.mean(measured_steps))
        step_error = (predicted_step - measured_step) / measured_step
    elif not measured_steps:
        notes.append("the measured profile has no step trace: no step-level error")
    else:
        notes.extend(prediction.targets[0].notes)
    table = table.sort_values("measured_us", ascending=False).reset_index(drop=True)
    return Calibration(source.display_name, target.display_name, table, mape, weighted, compute_error, step_error,
                       unmatched, notes, _by_category(valid), basis, source.identifier, target.identifier, model_name)


def calibrate_and_save(source_ranks: list[RankInput], measured_ranks: list[RankInput], source: Chip, target: Chip,
                       fitted_on: str, path: Path | None = None) -> tuple[list[Calibration], Path]:
    """Fit the per-category factors of a chip pair on every basis and model and save them (the Compare tab's button).

    Returns:
        The calibrations (each model on each basis) and the file written.

    Raises:
        ExportError: When the calibration file cannot be written.
    """
    from mfu_desktop.core.predict.basis import BASES, MODELS
    from mfu_desktop.core.predict.calibration_store import save_factors

    fits = [calibrate(source_ranks, measured_ranks, source, target, basis=name, model_name=model)
            for model in MODELS for name in BASES]
    written = save_factors([f for cal in fits for f in cal.factors(fitted_on)], path)
    return fits, written
