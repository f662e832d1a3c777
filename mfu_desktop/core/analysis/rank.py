"""One rank, analysed: the annotated kernels, every table derived from them, the tier and the warnings.

A rank that cannot be read is a :class:`RankFailure` with its reason; the others still load.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.aggregates import (
    HW_RATIO_HIGH,
    HW_RATIO_LOW,
    RankSummary,
    Rate,
    _weighted_cube_utilization,
    by_shape,
    by_type,
    choose_tier,
    device_busy_proxy,
    exclusions,
    fine_table,
    hot_operators,
    rate,
    step_table,
)
from mfu_desktop.core.analysis.annotate import Status, annotate, class_mask, counted_mask, status_mask
from mfu_desktop.core.analysis.chip_resolution import ChipResolution, resolve_chip
from mfu_desktop.core.analysis.classify import KernelClass
from mfu_desktop.core.analysis.kernel_roofline import chip_bandwidth, roofline_warnings
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.steps import captured_steps
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.chips.vendor_terms import vendor_terms
from mfu_desktop.core.process_memory import release_memory
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.base import RankData, RankFolder


@dataclass
class RankAnalysis:
    """One rank, analysed: the annotated kernels and every table derived from them."""

    data: RankData
    rank: int
    chip: ChipResolution
    kernels: pd.DataFrame
    summary: RankSummary
    by_type: pd.DataFrame
    by_shape: pd.DataFrame
    excluded: pd.DataFrame
    hot_by_time: pd.DataFrame
    hot_by_lost: pd.DataFrame
    steps: pd.DataFrame
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fine: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The summary document a rank from a cluster summary was made of (``None`` for a full analysis).
    document: dict | None = None

    @property
    def lite(self) -> bool:
        """True for a rank from a cluster summary: figures and tables, no kernels (:func:`summary_rank`)."""
        return self.document is not None

    @property
    def folder(self) -> RankFolder:
        """The rank folder."""
        return self.data.folder


@dataclass
class RankFailure:
    """A rank that could not be analysed, and why."""

    folder: RankFolder
    reason: str


def _cube_utilization_from_cycles(frame: pd.DataFrame, chip: ChipResolution) -> pd.DataFrame:
    """The db export has no cube_utilization: compute it (profiler-formats.md §3.7) when cores and clock are known."""
    if "cube_utilization_pct" in frame.columns or "aic_total_cycles" not in frame.columns:
        return frame
    if not chip.cores or not chip.mhz:
        return frame
    cycles = frame["aic_total_cycles"].to_numpy(dtype=np.float64)
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        cu = np.where(dur > 0, 100.0 * cycles / (chip.mhz * chip.cores * dur), np.nan)
    out = frame.copy(deep=False)
    out["cube_utilization_pct"] = cu
    return out


def _span_us(frame: pd.DataFrame) -> float | None:
    if C.START_NS not in frame.columns or frame.empty:
        return None
    start = frame[C.START_NS].to_numpy(dtype=np.int64)
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)
    ok = (start >= 0) & np.isfinite(dur)
    if not ok.any():
        return None
    return float(((start[ok] + dur[ok] * 1000).max() - start[ok].min()) / 1000.0)


def _hw_check(annotated: pd.DataFrame) -> tuple[float | None, list[str]]:
    """Model FLOPs vs hardware-counted cube FLOPs (ArithmeticUtilization): a built-in cross-check."""
    if "hw_ratio" not in annotated.columns:
        return None, []
    ratio = annotated["hw_ratio"].to_numpy(dtype=np.float64)
    ok = np.isfinite(ratio)
    if not ok.any():
        return None, []
    flops = annotated["flops"].to_numpy(dtype=np.float64)[ok]
    hw = annotated["aic_cube_fops"].to_numpy(dtype=np.float64)[ok]
    total = float(hw.sum() / flops.sum())
    warnings = []
    low = int((ratio[ok] < HW_RATIO_LOW).sum())
    high = int((ratio[ok] > HW_RATIO_HIGH).sum())
    if low:
        warnings.append(f"{low} kernels count fewer hardware cube FLOPs than model FLOPs (aic_cube_fops / FLOPs < "
                        f"{HW_RATIO_LOW}): a shape-parsing error is likely")
    if high:
        warnings.append(f"{high} kernels count > {HW_RATIO_HIGH:.2f}× model FLOPs in hardware (heavy tile padding "
                        "or recomputation, or a shape-parsing error)")
    return total, warnings


def _step_figures(steps: pd.DataFrame, confirmed: bool,
                  ops: Rate) -> tuple[float | None, float | None, tuple[float, float] | None]:
    """Mean step time, step MFU (or its range when the chip is not confirmed) over the complete steps."""
    if steps.empty or not steps["step_time_us"].notna().any():
        return None, None, None
    valid = steps["step_time_us"].notna()
    all_steps_us = float(steps.loc[valid, "step_time_us"].sum())
    step_time = all_steps_us / int(valid.sum())  # mean per step
    total_steps = steps.attrs.get("all_steps")

    def ideal(key: str) -> float:
        if total_steps:
            return total_steps[key]
        return float((steps.loc[valid, f"{key}_step"] * steps.loc[valid, "step_time_us"]).sum())

    if confirmed:
        value = ideal("mfu")
        # no counted kernel → no step MFU (unknown, never 0 %)
        return step_time, value / all_steps_us if all_steps_us > 0 and ops.mfu is not None and value > 0 else None, None
    if all_steps_us > 0 and ops.mfu_range is not None:
        return step_time, None, (ideal("mfu_lo") / all_steps_us, ideal("mfu_hi") / all_steps_us)
    return step_time, None, None


def _rank_chip(data: RankData, options: AnalysisOptions, catalog: ChipCatalog) -> ChipResolution:
    """The chip of a loaded rank, from the user's choice and all the evidence the rank carries.

    Raises:
        UnknownChipError: When ``options.chip`` names no catalog row.
    """
    extras = data.db_extras
    return resolve_chip(catalog, options.chip, data.device_infos, data.device_name if data.device is None else None,
                        extras.aicore_mhz if extras else None, data.kernels, data.device)


def _rank_warnings(data: RankData, chip: ChipResolution, annotated: pd.DataFrame, hw_warnings: list[str],
                   rank: int) -> list[str]:
    """A rank's warnings: reading problems, chip, hardware-counter and roofline caveats, impossible MFUs, rank id.

    Args:
        data: The loaded rank.
        chip: Its chip resolution.
        annotated: Its annotated kernels.
        hw_warnings: The model-vs-hardware FLOPs caveats (:func:`_hw_check`).
        rank: The rank shown (its placeholder when the id is unknown).
    """
    warnings = [*data.problems, *data.incomplete, *chip.warnings, *hw_warnings, *roofline_warnings(annotated)]
    n_suspicious = int(status_mask(annotated, Status.SUSPICIOUS).sum())
    if n_suspicious:
        warnings.append(f"{n_suspicious} kernels have MFU > 100 % (physically impossible): listed as suspicious, "
                        "kept out of aggregates — check shapes, peak and dtype")
    if data.folder.rank is None:
        warnings.append("rank id unknown (no profiler_info rank_id, database RANK_DEVICE_MAP, info.json or trace "
                        f"distributedInfo): shown as {rank}")
    return warnings


def analyze_rank(data: RankData, options: AnalysisOptions, catalog: ChipCatalog) -> RankAnalysis | RankFailure:
    """Analyse one loaded rank (see the module docstring)."""
    folder = data.folder
    if data.error is not None or data.kernels is None:
        return RankFailure(folder, data.error or "no kernels could be read")
    chip = _rank_chip(data, options, catalog)
    frame = _cube_utilization_from_cycles(data.kernels, chip) if data.db_extras is not None else data.kernels
    annotated = annotate(frame, chip, options)
    release_memory()
    use = counted_mask(annotated, options)
    ops = rate(annotated, use, chip.confirmed)
    captured = captured_steps(data.step_trace, annotated)
    fine = fine_table(annotated, options, chip.confirmed, captured.count, chip_bandwidth(chip))
    types = by_type(fine)
    shapes = by_shape(fine)
    excluded = exclusions(fine)
    steps, step_notes = step_table(annotated, data.step_trace, options, chip.confirmed)
    step_time, mfu_step, mfu_step_range = _step_figures(steps, chip.confirmed, ops)
    cube_rows = class_mask(annotated, KernelClass.CUBE, KernelClass.MIX)
    cube_util = _weighted_cube_utilization(annotated, cube_rows)
    span = (step_time * captured.count if step_time else None) or _span_us(annotated)
    terms = vendor_terms(folder.vendor)
    proxy, proxy_note = device_busy_proxy(annotated, span, chip.cores, terms)
    tier = choose_tier(annotated, ops.mfu, ops.mfu_range, cube_util, proxy, data.missing_columns,
                       folder.config.aic_metrics, excluded, terms)
    if tier.tier == 3:
        tier.why.append(f"proxy = Σ compute time / step span ({proxy_note})")
    hw_ratio, hw_warnings = _hw_check(annotated)
    rank = folder.rank if folder.rank is not None else folder.placeholder
    warnings = _rank_warnings(data, chip, annotated, hw_warnings, rank)
    summary = RankSummary(
        rank=rank,
        path=str(folder.path),
        chip=chip.name,
        peak_source=chip.source,
        kernels=len(annotated),
        countable_kernels=int(use.sum()),
        flops=captured.per_step(ops.flops),
        countable_time_us=captured.per_step(ops.time_us),
        steps=captured.count,
        steps_source=captured.source,
        achieved_tflops=ops.achieved_tflops,
        mfu_ops=ops.mfu,
        mfu_ops_range=ops.mfu_range,
        step_time_us=step_time,
        mfu_step=mfu_step,
        mfu_step_range=mfu_step_range,
        cube_utilization=None if cube_util is None else cube_util / 100.0,
        tier=tier,
        device_busy_proxy=proxy,
        hw_flops_ratio=hw_ratio,
    )
    notes = [data.kernel_source, *data.notes, *step_notes, *options.describe()]
    release_memory()
    return RankAnalysis(data, rank, chip, annotated, summary, types, shapes, excluded,
                        hot_operators(fine, options.top_n, "time_us"),
                        hot_operators(fine, options.top_n, "lost_us"), steps, warnings, notes, fine)
