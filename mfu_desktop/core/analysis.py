"""Per-kernel FLOPs and MFU, aggregates, step MFU and the fallback tiers (mfu.md §2.3, §3.5, §4).

Input: a rank's canonical kernel frame (see :mod:`profiler.columns`). Output: the annotated
frame (class, FLOPs, dtype, peak, achieved TFLOP/s, MFU, status, reason …) and the figures
derived from it. Everything is vectorised over kernels; shape rules run once per distinct
(type, shapes, dtypes) combination.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import pandas as pd

from mfu_desktop.core.chip_detect import ChipResolution
from mfu_desktop.core.classify import CLASSES, KernelClass, class_codes
from mfu_desktop.core.dtypes import ComputeDtype, compute_dtype, first_input_dtype
from mfu_desktop.core.flops_registry import FlopEstimate, FlopOptions, estimate, rule_for
from mfu_desktop.core.grouping import categorical, codes_of, counts, group_ids, lookup, slots, sums
from mfu_desktop.core.profiler import columns as C
from mfu_desktop.core.profiler.step_trace import StepTrace

#: Hardware cube FLOPs sit 1–9 % above model FLOPs on real matmuls (tile padding); a ratio
#: outside this band points at a shape-parsing error (profiler-formats.md §3.7).
HW_RATIO_LOW = 0.99
HW_RATIO_HIGH = 1.15
#: A rank whose step time exceeds the fastest rank's by more than this is "slow".
SLOW_RANK_MARGIN = 0.05
#: Hot-operator lists show this many rows by default.
DEFAULT_TOP_N = 10


class Status(StrEnum):
    """Whether a kernel's FLOPs-based MFU counts."""

    COUNTED = "counted"
    SUSPICIOUS = "suspicious"  # MFU > 100 %: kept out of aggregates
    EXCLUDED = "excluded"  # a countable type that could not be counted (reason given)
    NO_RULE = "no FLOP rule"  # vector, communication … (not matmul-unit work)


@dataclass(frozen=True)
class AnalysisOptions:
    """User choices that change the figures; stamped into every report.

    Attributes:
        chip: Chip name chosen by the user (overrides detection), or ``None``.
        hf32: FP32 matmuls ran with HF32/TF32 (uses the HF32 peak where ``HF32 Eligible`` ≠ NO).
        flops: FlashAttention and mask conventions.
        include_suspicious: Keep MFU > 100 % kernels in aggregates (off by default).
        top_n: Rows in the hot-operator lists.
    """

    chip: str | None = None
    hf32: bool = False
    flops: FlopOptions = field(default_factory=FlopOptions)
    include_suspicious: bool = False
    top_n: int = DEFAULT_TOP_N

    def describe(self) -> list[str]:
        """Conventions as text lines."""
        return [
            "MFU = Σ (FLOPs_i / peak_i) / Σ t_i over counted kernels (operator achievement rate, 算子达成率)",
            "step MFU = Σ FLOPs_i / peak_i over the step time Computing + Communication(Not Overlapped) + Free",
            f"FP32 matmuls use the {'HF32/TF32' if self.hf32 else 'FP32 (HF32 off)'} peak",
            "kernels with MFU > 100 % are " + ("kept in" if self.include_suspicious else "kept out of") + " aggregates",
            *self.flops.describe(),
        ]


# --- annotation -----------------------------------------------------------------------------

_STATUSES = [s.value for s in Status]
_DTYPES = [d for d in ComputeDtype]


def _estimates(frame: pd.DataFrame, options: FlopOptions) -> tuple[np.ndarray, list[FlopEstimate | None]]:
    """Group index per row (−1 = no FLOP rule) and one estimate per distinct (type, shapes, dtypes)."""
    n = len(frame)
    group = np.full(n, -1, dtype=np.int64)
    if C.OP_TYPE not in frame.columns or n == 0:
        return group, []
    type_codes, type_cats = codes_of(frame[C.OP_TYPE])
    has_rule = np.array([rule_for(str(t)) is not None for t in type_cats] + [False])
    rows = np.flatnonzero(lookup(has_rule, type_codes))
    if len(rows) == 0:
        return group, []
    key_cols = [c for c in (C.OP_TYPE, C.INPUT_SHAPES, C.OUTPUT_SHAPES, C.INPUT_DTYPES, C.OUTPUT_DTYPES, C.ATTRIBUTES)
                if c in frame.columns]
    coded = {c: codes_of(frame[c]) for c in key_cols}
    ids, first = group_ids([coded[c][0][rows] for c in key_cols])
    group[rows] = ids
    first_rows = rows[first]

    def cells(col: str) -> list[str | None]:
        """The column's text at each group's first row (None when missing)."""
        if col not in coded:
            return [None] * len(first_rows)
        codes, cats = coded[col]
        table = np.array([str(c) for c in cats] + [None], dtype=object)
        return lookup(table, codes[first_rows]).tolist()

    columns = [cells(c) for c in (C.OP_TYPE, C.INPUT_SHAPES, C.OUTPUT_SHAPES, C.INPUT_DTYPES, C.OUTPUT_DTYPES,
                                  C.ATTRIBUTES)]
    estimates: list[FlopEstimate | None] = [estimate(t or "", i, o, di, do, options, a) for t, i, o, di, do, a in
                                            zip(*columns)]
    return group, estimates


def _dtype_codes(frame: pd.DataFrame, hf32: bool) -> np.ndarray:
    """Compute dtype per row as an index into ``_DTYPES`` (−1 = unknown)."""
    n = len(frame)
    if C.INPUT_DTYPES not in frame.columns:
        return np.full(n, -1, dtype=np.int8)
    codes, cats = codes_of(frame[C.INPUT_DTYPES])
    table = []
    for c in cats:
        d = compute_dtype(first_input_dtype(str(c)))
        table.append(_DTYPES.index(d) if d is not None else -1)
    out = lookup(np.array([*table, -1], dtype=np.int8), codes)
    if hf32:
        fp32, hf = _DTYPES.index(ComputeDtype.FP32), _DTYPES.index(ComputeDtype.HF32)
        eligible = np.ones(n, dtype=bool)
        if C.HF32_ELIGIBLE in frame.columns:
            e_codes, e_cats = codes_of(frame[C.HF32_ELIGIBLE])
            no = np.array([str(c).upper() == "NO" for c in e_cats] + [False])
            eligible = ~lookup(no, e_codes)
        out = np.where((out == fp32) & eligible, hf, out).astype(np.int8)
    return out


def annotate(frame: pd.DataFrame, chip: ChipResolution, options: AnalysisOptions) -> pd.DataFrame:
    """Add class, FLOPs, dtype, peak, achieved TFLOP/s, MFU, status and reason to a kernel frame.

    The input frame is not modified: a new frame shares its columns and adds the new ones.
    """
    n = len(frame)
    new: dict[str, object] = {}
    new["klass"] = pd.Categorical.from_codes(class_codes(frame), categories=CLASSES)
    group, estimates = _estimates(frame, options.flops)
    g = len(estimates)
    new["shape_group"] = group.astype(np.int32)
    idx = np.where(group < 0, g, group)

    def table(values: list[float | None]) -> np.ndarray:
        return np.array([np.nan if v is None else float(v) for v in values] + [np.nan], dtype=np.float64)[idx]

    # A kernel carries its share of its op's FLOPs (GPU ops launch several kernels; 1 on Ascend).
    share = frame[C.FLOPS_SHARE].to_numpy(dtype=np.float64) if C.FLOPS_SHARE in frame.columns else None
    flops = table([e.flops if e else None for e in estimates])
    if share is not None:
        flops = flops * share
    new["flops"] = flops
    if any(e is not None and e.executed_flops is not None for e in estimates):
        executed = table([e.executed_flops if e else None for e in estimates])
        new["executed_flops"] = executed * share if share is not None else executed
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)
    dtype_codes = _dtype_codes(frame, options.hf32)
    new["dtype"] = pd.Categorical.from_codes(dtype_codes, categories=[d.value for d in _DTYPES])
    # Peaks per dtype (a handful): lookup tables indexed by dtype code, last slot = unknown dtype.
    peak_t = np.full(len(_DTYPES) + 1, np.nan)
    lo_t = np.full(len(_DTYPES) + 1, np.nan)
    hi_t = np.full(len(_DTYPES) + 1, np.nan)
    why_t = [""] * (len(_DTYPES) + 1)
    for code in np.unique(dtype_codes[dtype_codes >= 0]):
        dtype = _DTYPES[int(code)]
        if chip.confirmed:
            value, why = chip.peak(dtype)
            if value is not None:
                peak_t[code] = value.tflops
            else:
                why_t[code] = why
        else:
            span = chip.peak_range(dtype)
            if span is not None:
                lo_t[code], hi_t[code] = span
            else:
                why_t[code] = f"no {dtype.value} peak for any candidate chip"
    d_idx = slots(dtype_codes, len(_DTYPES))
    peak = peak_t[d_idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        achieved = np.where(dur > 0, flops / dur / 1e6, np.nan)
        mfu = achieved / peak
        mfu_lo = achieved / hi_t[d_idx]
        mfu_hi = achieved / lo_t[d_idx]
    # Per-row rates are float32 for display (7 significant digits); every aggregate recomputes
    # ideal time from FLOPs and the float64 peaks.
    new["peak_tflops"] = peak
    new["achieved_tflops"] = achieved.astype(np.float32)
    new["mfu"] = mfu.astype(np.float32)
    if not chip.confirmed:
        new["peak_lo_tflops"] = lo_t[d_idx]
        new["peak_hi_tflops"] = hi_t[d_idx]
        new["mfu_lo"] = mfu_lo.astype(np.float32)
        new["mfu_hi"] = mfu_hi.astype(np.float32)
    has_rule = group >= 0
    known = np.isfinite(flops)
    bad_time = has_rule & known & ~(dur > 0)
    no_dtype = has_rule & known & (dtype_codes < 0)
    has_peak = np.isfinite(peak) if chip.confirmed else np.isfinite(lo_t[d_idx])
    no_peak = has_rule & known & ~no_dtype & ~has_peak
    reference = mfu if chip.confirmed else mfu_lo
    blocked = bad_time | no_dtype | no_peak
    suspicious = has_rule & known & ~blocked & (reference > 1.0)
    status = np.full(n, _STATUSES.index(Status.NO_RULE.value), dtype=np.int8)
    status[has_rule] = _STATUSES.index(Status.COUNTED.value)
    status[has_rule & ~known] = _STATUSES.index(Status.EXCLUDED.value)
    status[blocked] = _STATUSES.index(Status.EXCLUDED.value)
    status[suspicious] = _STATUSES.index(Status.SUSPICIOUS.value)
    new["status"] = pd.Categorical.from_codes(status, categories=_STATUSES)
    # Reason: estimate reasons first, then the per-row overrides (few distinct texts).
    reasons = [e.reason if e else "" for e in estimates]
    extra = ["duration ≤ 0 or missing", "input dtype unknown: no peak to divide by",
             "MFU > 100 %: check shapes / peak / dtype", *why_t]
    texts = [*reasons, "", *extra]
    r_idx = idx.copy()
    r_idx = np.where(bad_time, g + 1, r_idx)
    r_idx = np.where(no_dtype & ~bad_time, g + 2, r_idx)
    r_idx = np.where(no_peak & ~bad_time & ~no_dtype, g + 4 + d_idx, r_idx)
    r_idx = np.where(suspicious, g + 3, r_idx)
    new["reason"] = categorical(texts, r_idx)
    new["assumption"] = categorical([e.assumption if e else "" for e in estimates] + [""], idx)
    new["confidence"] = categorical([e.confidence if e and e.flops is not None else "" for e in estimates] + [""], idx)
    new["flops_detail"] = categorical([e.detail if e else "" for e in estimates] + [""], idx)
    counted_status = {_STATUSES.index(Status.COUNTED.value)}
    if options.include_suspicious:
        counted_status.add(_STATUSES.index(Status.SUSPICIOUS.value))
    use = np.isin(status, list(counted_status))
    lost_ref = mfu if chip.confirmed else mfu_hi
    new["lost_us"] = np.where(use, dur * np.clip(1.0 - lost_ref, 0.0, 1.0), np.nan).astype(np.float32)
    if "aic_cube_fops" in frame.columns:
        hw = frame["aic_cube_fops"].to_numpy(dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            new["hw_ratio"] = np.where(known & (hw > 0), hw / flops, np.nan).astype(np.float32)
    columns = {c: frame[c] for c in frame.columns}
    columns.update(new)
    return pd.DataFrame(columns, copy=False)


def counted_mask(annotated: pd.DataFrame, options: AnalysisOptions) -> np.ndarray:
    """Rows that enter FLOPs-based aggregates."""
    codes = annotated["status"].cat.codes.to_numpy()
    mask = codes == _STATUSES.index(Status.COUNTED.value)
    if options.include_suspicious:
        mask |= codes == _STATUSES.index(Status.SUSPICIOUS.value)
    return mask


def class_mask(annotated: pd.DataFrame, *classes: KernelClass) -> np.ndarray:
    """Rows whose kernel class is one of ``classes``."""
    codes = annotated["klass"].cat.codes.to_numpy()
    return np.isin(codes, [CLASSES.index(k.value) for k in classes])


def status_mask(annotated: pd.DataFrame, *statuses: Status) -> np.ndarray:
    """Rows whose status is one of ``statuses``."""
    codes = annotated["status"].cat.codes.to_numpy()
    return np.isin(codes, [_STATUSES.index(s.value) for s in statuses])


@dataclass
class Rate:
    """FLOPs over time, with MFU (or its range when the chip is not confirmed)."""

    flops: float = 0.0
    time_us: float = 0.0
    achieved_tflops: float | None = None
    mfu: float | None = None
    mfu_range: tuple[float, float] | None = None


def ideal_us(annotated: pd.DataFrame, mask: np.ndarray, confirmed: bool) -> dict[str, np.ndarray]:
    """Per-row ideal time at peak (µs), FLOPs / peak, for ``mask`` rows and 0 elsewhere.

    One array under ``"mfu"`` when the chip is confirmed; ``"mfu_lo"`` (highest candidate
    peak) and ``"mfu_hi"`` (lowest) otherwise.
    """
    flops = annotated["flops"].to_numpy(dtype=np.float64)
    pairs = (("mfu", "peak_tflops"),) if confirmed else (("mfu_lo", "peak_hi_tflops"), ("mfu_hi", "peak_lo_tflops"))
    out = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for key, peak_col in pairs:
            value = flops / annotated[peak_col].to_numpy(dtype=np.float64) / 1e6
            out[key] = np.where(mask & np.isfinite(value), value, 0.0)
    return out


def rate(frame: pd.DataFrame, mask: np.ndarray, confirmed: bool) -> Rate:
    """Operator achievement rate over ``mask`` rows (mixed dtypes: ideal time over actual time)."""
    flops = frame["flops"].to_numpy(dtype=np.float64)[mask]
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)[mask]
    total_flops = float(flops.sum())
    total_us = float(dur.sum())
    out = Rate(total_flops, total_us)
    if total_us <= 0 or len(flops) == 0:
        return out
    out.achieved_tflops = total_flops / total_us / 1e6
    parts = ideal_us(frame, mask, confirmed)
    if confirmed:
        peak = frame["peak_tflops"].to_numpy(dtype=np.float64)[mask]
        if np.isfinite(peak).all():
            out.mfu = float(parts["mfu"].sum()) / total_us
    else:
        lo_peak = frame["peak_hi_tflops"].to_numpy(dtype=np.float64)[mask]
        if np.isfinite(lo_peak).all():
            out.mfu_range = (float(parts["mfu_lo"].sum()) / total_us, float(parts["mfu_hi"].sum()) / total_us)
    return out


def _weighted_cube_utilization(frame: pd.DataFrame, rows: np.ndarray) -> float | None:
    if "cube_utilization_pct" not in frame.columns:
        return None
    cu = frame["cube_utilization_pct"].to_numpy(dtype=np.float64)[rows]
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)[rows]
    ok = np.isfinite(cu) & (dur > 0)
    if not ok.any() or dur[ok].sum() <= 0:
        return None
    return float((cu[ok] * dur[ok]).sum() / dur[ok].sum())


def _labels(codes: np.ndarray, cats: pd.Index, rows: np.ndarray) -> np.ndarray:
    """Text of ``codes[rows]`` ('' for missing)."""
    c = codes[rows]
    values = np.asarray([str(v) for v in cats] + [""], dtype=object)
    return values[slots(c, len(cats))]


def fine_table(annotated: pd.DataFrame, options: AnalysisOptions, confirmed: bool, steps: int = 1) -> pd.DataFrame:
    """One pass over the kernels: sums per finest group, from which every table is derived.

    Groups are (FLOP-rule shape group, type, input shapes, class, status, reason, and the kernel
    name when the type is missing — Level0). The result has a row per group (thousands at most,
    whatever the kernel count), so the per-type, per-shape, exclusion and hot-operator tables
    are cheap pandas group-bys over it. Its sums are totals over the capture; ``steps`` (the
    rank's captured steps, :func:`mfu_desktop.core.steps.captured_steps`) turns every table
    derived from it into means per step.
    """
    n = len(annotated)
    if n == 0:
        return pd.DataFrame()
    key_codes: list[np.ndarray] = []
    labels: dict[str, tuple[np.ndarray, pd.Index]] = {}
    if C.OP_TYPE in annotated.columns:
        t_codes, t_cats = codes_of(annotated[C.OP_TYPE])
    else:
        t_codes, t_cats = np.full(n, -1, dtype=np.int64), pd.Index([], dtype=object)
    labels["type"] = (t_codes, t_cats)
    missing_type = t_codes < 0
    na = np.flatnonzero(np.asarray([str(c) for c in t_cats], dtype=object) == "N/A")
    if len(na):
        missing_type |= t_codes == na[0]
    if missing_type.any() and C.NAME in annotated.columns:
        n_codes, n_cats = codes_of(annotated[C.NAME])
        labels["name"] = (np.where(missing_type, n_codes, -1), n_cats)
    for col in (C.INPUT_SHAPES, C.OUTPUT_SHAPES):
        if col in annotated.columns:
            labels[col] = codes_of(annotated[col])
    for col in ("dtype", "klass", "status", "reason", "assumption", "confidence"):
        labels[col] = codes_of(annotated[col])
    shape_group = annotated["shape_group"].to_numpy()
    for name in ("type", "name", C.INPUT_SHAPES, "klass", "status", "reason"):
        if name in labels:
            key_codes.append(labels[name][0])
    key_codes.append(shape_group)
    ids, first = group_ids(key_codes)
    g = len(first)
    dur = annotated[C.DURATION_US].to_numpy(dtype=np.float64)
    use = counted_mask(annotated, options)
    flops = annotated["flops"].to_numpy(dtype=np.float64)
    out = pd.DataFrame({name: _labels(codes, cats, first) for name, (codes, cats) in labels.items()})
    if "name" not in out:
        out["name"] = ""
    out["display_type"] = np.where(out["name"] != "", out["name"], np.where(out["type"] == "", "N/A", out["type"]))
    out["type"] = np.where(out["type"] == "", "N/A", out["type"])
    out["count"] = counts(ids, g)
    out["time_us"] = sums(ids, g, dur)
    out["counted"] = counts(ids[use], g)
    out["counted_time_us"] = sums(ids[use], g, dur[use])
    out["flops"] = sums(ids[use], g, flops[use])
    out["flops_per_call"] = flops[first]
    ids_use = ids[use]
    for key, values in ideal_us(annotated, use, confirmed).items():
        out[f"ideal_{key}"] = sums(ids_use, g, values[use])
    del ids_use
    mfu = annotated["mfu"].to_numpy()
    finite = np.isfinite(mfu)
    out["mfu_time_us"] = sums(ids[finite], g, dur[finite])
    out["mfu_ideal_us"] = sums(ids[finite], g, mfu[finite] * dur[finite])
    del mfu, finite
    lost = annotated["lost_us"].to_numpy()
    has = np.isfinite(lost)
    out["lost_us"] = sums(ids[has], g, lost[has])
    out["lost_n"] = counts(ids[has], g)
    del lost, has
    if "cube_utilization_pct" in annotated.columns:
        cu = annotated["cube_utilization_pct"].to_numpy()
        ok = np.isfinite(cu) & (dur > 0)
        out["cu_time"] = sums(ids[ok], g, cu[ok] * dur[ok])
        out["cu_weight"] = sums(ids[ok], g, dur[ok])
    out.attrs["total_time_us"] = float(np.nansum(dur))
    out.attrs["steps"] = max(int(steps), 1)
    return out


#: Additive columns of the derived tables: totals in the fine table, means per step in every table shown.
PER_STEP_COLUMNS = ("count", "time_us", "counted", "counted_time_us", "flops", "lost_us")


def _per_step(out: pd.DataFrame, steps: int) -> pd.DataFrame:
    """Divide the additive columns by the captured steps (rates and shares are unchanged)."""
    for column in PER_STEP_COLUMNS:
        if column in out.columns:
            out[column] = out[column].astype(np.float64) / steps
    return out


_SUM_COLUMNS = ("count", "time_us", "counted", "counted_time_us", "flops", "ideal_mfu", "ideal_mfu_lo", "ideal_mfu_hi",
                "mfu_time_us", "mfu_ideal_us", "lost_us", "lost_n", "cu_time", "cu_weight")


def _rollup(fine: pd.DataFrame, keys: list[str], firsts: tuple[str, ...] = (),
            keep: tuple[str, ...] = ()) -> pd.DataFrame:
    """Sum the fine table over ``keys`` and derive rates (achieved, MFU, cube util, time share)."""
    cols = [c for c in _SUM_COLUMNS if c in fine.columns]
    agg = {c: (c, "sum") for c in cols}
    agg.update({c: (c, "first") for c in firsts})
    out = fine.groupby(keys, sort=False, dropna=False).agg(**agg).reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        has_time = out["counted_time_us"] > 0
        out["achieved_tflops"] = np.where(has_time, out["flops"] / out["counted_time_us"] / 1e6, np.nan)
        for key in ("mfu", "mfu_lo", "mfu_hi"):
            if f"ideal_{key}" in out:
                out[key] = np.where(has_time, out[f"ideal_{key}"] / out["counted_time_us"], np.nan)
        if "mfu" not in out:
            out["mfu"] = np.nan
        if "cu_time" in out:
            out["cube_utilization"] = np.where(out["cu_weight"] > 0, out["cu_time"] / out["cu_weight"], np.nan)
        out["lost_us"] = np.where(out["lost_n"] > 0, out["lost_us"], np.nan)
    total = fine.attrs.get("total_time_us", float(out["time_us"].sum()))
    out["time_share"] = out["time_us"] / total if total > 0 else np.nan
    drop = [c for c in ("ideal_mfu", "ideal_mfu_lo", "ideal_mfu_hi", "mfu_ideal_us", "lost_n", "cu_time", "cu_weight")
            if c in out and c not in keep]
    return _per_step(out.drop(columns=drop), fine.attrs.get("steps", 1))


def by_type(fine: pd.DataFrame) -> pd.DataFrame:
    """Per operator type: count, time, counted kernels, FLOPs, achieved TFLOP/s, MFU, cube util, lost time."""
    if fine.empty:
        return pd.DataFrame(columns=["type", "count", "time_us", "counted", "flops", "achieved_tflops", "mfu"])
    out = _rollup(fine, ["type"]).drop(columns=["mfu_time_us"])
    return out.sort_values("time_us", ascending=False, kind="stable").reset_index(drop=True)


def by_shape(fine: pd.DataFrame) -> pd.DataFrame:
    """Per (type, input shapes, output shapes, dtype) of kernels with a FLOP rule."""
    columns = ["type", "input_shapes", "output_shapes", "dtype", "count", "time_us"]
    if fine.empty:
        return pd.DataFrame(columns=columns)
    ruled = fine[fine["status"] != Status.NO_RULE.value]
    if ruled.empty:
        return pd.DataFrame(columns=columns)
    keys = [k for k in ("type", C.INPUT_SHAPES, C.OUTPUT_SHAPES, "dtype") if k in ruled.columns]
    out = _rollup(ruled, keys, ("flops_per_call", "status", "reason", "assumption", "confidence"))
    out["mean_us"] = out["time_us"] / out["count"]
    out = out.drop(columns=["mfu_time_us"])
    return out.sort_values("time_us", ascending=False, kind="stable").reset_index(drop=True)


def exclusions(fine: pd.DataFrame) -> pd.DataFrame:
    """Countable kernels that were not counted, grouped by (type, reason), with count and time."""
    if fine.empty:
        return pd.DataFrame(columns=["type", "reason", "status", "count", "time_us"])
    rows = fine[fine["status"].isin([Status.EXCLUDED.value, Status.SUSPICIOUS.value])]
    if rows.empty:
        return pd.DataFrame(columns=["type", "reason", "status", "count", "time_us"])
    out = rows.groupby(["type", "reason", "status"], sort=False).agg(count=("count", "sum"),
                                                                     time_us=("time_us", "sum")).reset_index()
    out = _per_step(out, fine.attrs.get("steps", 1))
    return out.sort_values("time_us", ascending=False, kind="stable").reset_index(drop=True)


def hot_operators(fine: pd.DataFrame, top_n: int, by: str = "time_us") -> pd.DataFrame:
    """Hot operators grouped by (type, input shapes): by total time, or by lost time (time × (1 − MFU)).

    Level0 kernels have no type: their name is used instead.
    """
    columns = ["type", "input_shapes", "klass", "count", "time_us", "lost_us", "mfu", "time_share"]
    if fine.empty:
        return pd.DataFrame(columns=columns)
    src = fine if by != "lost_us" else fine[fine["lost_n"] > 0]
    if src.empty:
        return pd.DataFrame(columns=columns)
    keys = ["display_type", *([C.INPUT_SHAPES] if C.INPUT_SHAPES in src.columns else []), "klass"]
    out = _rollup(src, keys, keep=("mfu_ideal_us",))
    with np.errstate(divide="ignore", invalid="ignore"):
        out["mfu"] = np.where(out["mfu_time_us"] > 0, out["mfu_ideal_us"] / out["mfu_time_us"], np.nan)
    out = out.drop(columns=["mfu_ideal_us", "mfu_time_us"]).rename(columns={"display_type": "type"})
    if C.INPUT_SHAPES not in out:
        out[C.INPUT_SHAPES] = ""
    out = out.sort_values(by, ascending=False, kind="stable").head(top_n).reset_index(drop=True)
    return out[[c for c in columns if c in out.columns] + [c for c in out.columns if c not in columns]]


def merge_hot_operators(tables: list[pd.DataFrame], by: str, top_n: int, ranks: int | None = None) -> pd.DataFrame:
    """Hot-operator tables of several ranks merged: mean per rank (per step); MFU weighted by time.

    Args:
        tables: Each rank's hot-operator table (per step).
        by: ``time_us`` or ``lost_us``.
        top_n: Rows kept.
        ranks: Ranks the mean is over (default: the number of tables).
    """
    n_ranks = max(ranks if ranks is not None else len(tables), 1)
    tables = [t for t in tables if t is not None and not t.empty]
    if not tables:
        return pd.DataFrame(columns=["type", "input_shapes", "count", "time_us", "lost_us", "mfu"])
    f = pd.concat(tables, ignore_index=True)
    mfu = f["mfu"].to_numpy(dtype=np.float64)
    time_us = f["time_us"].to_numpy(dtype=np.float64)
    f["_ideal"] = np.where(np.isfinite(mfu), mfu * time_us, 0.0)
    f["_mt"] = np.where(np.isfinite(mfu), time_us, 0.0)
    out = f.groupby(["type", "input_shapes"], sort=False, dropna=False).agg(
        count=("count", "sum"), time_us=("time_us", "sum"), lost_us=("lost_us", lambda v: v.sum(min_count=1)),
        _ideal=("_ideal", "sum"), _mt=("_mt", "sum")).reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["mfu"] = np.where(out["_mt"] > 0, out["_ideal"] / out["_mt"], np.nan)
    out = out.drop(columns=["_ideal", "_mt"])
    for column in ("count", "time_us", "lost_us"):
        out[column] = out[column] / n_ranks
    if by == "lost_us":
        out = out[out["lost_us"].notna()]
    return out.sort_values(by, ascending=False, kind="stable").head(top_n).reset_index(drop=True)


# --- steps, tiers, summaries ----------------------------------------------------------------


@dataclass
class Tier:
    """Which MFU figure the report leads with (mfu.md §4.4) and why the better ones are missing."""

    tier: int
    label: str
    value: float | None
    why: list[str] = field(default_factory=list)


def step_table(annotated: pd.DataFrame, trace: StepTrace | None, options: AnalysisOptions,
               confirmed: bool) -> tuple[pd.DataFrame, list[str]]:
    """Per step: breakdown, step time, FLOPs and end-to-end step MFU (mfu.md §4.2).

    Kernels are assigned to steps by Step Id; with one step and no Step Id all kernels belong
    to it. Without Step Ids and several steps only the total over all steps is meaningful, so
    the per-step FLOPs are left out and a note says so.
    """
    notes: list[str] = []
    if trace is None or trace.empty:
        return pd.DataFrame(), notes
    steps = trace.frame.copy()
    use = counted_mask(annotated, options)
    parts = ideal_us(annotated, use, confirmed)
    flops = np.where(use, annotated["flops"].to_numpy(dtype=np.float64), 0.0)
    labels = steps["step"].astype(str).tolist()
    row_of = {label: i for i, label in enumerate(labels)}
    has_ids = C.STEP_ID in annotated.columns and annotated[C.STEP_ID].notna().any()
    if has_ids:
        step_ids = annotated[C.STEP_ID]
        codes, uniques = pd.factorize(step_ids, use_na_sentinel=True)
        table = np.array([row_of.get(str(int(u)), -1) for u in uniques] + [-1], dtype=np.int64)
        kernel_row = lookup(table, codes)
    elif len(steps) == 1:
        kernel_row = np.zeros(len(annotated), dtype=np.int64)
        notes.append("one step and no Step Id: all kernels belong to it")
    else:
        kernel_row = np.full(len(annotated), -1, dtype=np.int64)
        notes.append("kernels carry no Step Id and the trace has several steps: only the step MFU over all steps "
                     "is given")
        steps.attrs["all_steps"] = {"flops": float(flops.sum()), **{k: float(v.sum()) for k, v in parts.items()}}
    inside = kernel_row >= 0
    if has_ids and (~inside & use).any():
        notes.append(f"{int((~inside & use).sum())} counted kernels fall outside the traced steps (not in step MFU)")
    m = len(steps)
    steps["flops"] = np.bincount(kernel_row[inside], weights=flops[inside], minlength=m)[:m]
    step_time = steps["step_time_us"].to_numpy(dtype=np.float64)
    counted_in_step = np.bincount(kernel_row[inside & use], minlength=m)[:m] > 0
    for key, values in parts.items():
        ideal = np.bincount(kernel_row[inside], weights=values[inside], minlength=m)[:m]
        with np.errstate(divide="ignore", invalid="ignore"):
            # a step without a single counted kernel has no step MFU (unknown, not 0 %)
            steps[f"{key}_step"] = np.where(counted_in_step, ideal / step_time, np.nan)
    return steps, notes


@dataclass
class RankSummary:
    """Headline figures of one rank (the ``mfu analyze --json`` rank object, minus tables).

    ``flops``, ``countable_time_us`` and ``step_time_us`` are means per captured step
    (:mod:`mfu_desktop.core.steps`); ``kernels`` and ``countable_kernels`` count the whole capture.
    """

    rank: int
    path: str
    chip: str | None
    peak_source: str
    kernels: int
    countable_kernels: int
    flops: float
    countable_time_us: float
    achieved_tflops: float | None
    mfu_ops: float | None
    mfu_ops_range: tuple[float, float] | None
    step_time_us: float | None
    mfu_step: float | None
    mfu_step_range: tuple[float, float] | None
    cube_utilization: float | None
    tier: Tier
    device_busy_proxy: float | None = None
    hw_flops_ratio: float | None = None
    steps: int = 1
    steps_source: str = ""


def device_busy_proxy(annotated: pd.DataFrame, span_us: float | None, cores: int | None) -> tuple[float | None, str]:
    """Tier 3: Σ compute-kernel time / step span, corrected down for AI_CPU time and idle cores.

    Kernels whose Block Dim is below the core count are weighted by Block Dim / cores. Labelled
    "proxy, not MFU" wherever shown.
    """
    if not span_us or span_us <= 0 or annotated.empty:
        return None, "no step span"
    dur = annotated[C.DURATION_US].to_numpy(dtype=np.float64)
    compute = class_mask(annotated, KernelClass.CUBE, KernelClass.VECTOR, KernelClass.MIX,
                         KernelClass.UNKNOWN) & (dur > 0)
    weight = np.ones(len(annotated))
    note = "AI_CPU time excluded"
    if cores and C.BLOCK_DIM in annotated.columns:
        blocks = annotated[C.BLOCK_DIM].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
        known = np.isfinite(blocks) & (blocks > 0)
        weight = np.where(known, np.minimum(blocks / cores, 1.0), 1.0)
        note += f"; kernels with Block Dim < {cores} cores weighted by Block Dim / cores"
    else:
        note += "; Block Dim correction not applied (core count or Block Dim unknown)"
    busy = float((dur * weight)[compute].sum())
    return busy / span_us, note


def choose_tier(annotated: pd.DataFrame, mfu: float | None, mfu_range: tuple[float, float] | None,
                cube_util: float | None, proxy: float | None, missing_columns: list[str], aic_metrics: str | None,
                excluded: pd.DataFrame) -> Tier:
    """Tier 1 FLOPs-based MFU, else 2 hardware cube utilisation, else 3 device-busy proxy."""
    why: list[str] = []
    counted = int(status_mask(annotated, Status.COUNTED).sum()) if not annotated.empty else 0
    if counted and (mfu is not None or mfu_range is not None):
        return Tier(1, "FLOPs-based MFU", mfu, why)
    if C.INPUT_SHAPES in missing_columns:
        why.append("no shape columns in the capture (Ascend: Level0 collects none, use Level1+; PyTorch profiler: "
                   "a GPU-only trace, or record_shapes off)")
    elif counted == 0:
        if status_mask(annotated, Status.NO_RULE).all():
            why.append("no matmul/FlashAttention kernels with a FLOP rule in the profile")
        elif not excluded.empty:
            top = excluded.iloc[0]
            why.append(f"every countable kernel was excluded; largest: {top['type']} — {top['reason']}")
    if cube_util is not None:
        return Tier(2, "hardware cube utilisation (cube_utilization, not MFU)", cube_util / 100.0, why)
    why.append(f"no cube_utilization: aic_metrics was {aic_metrics or 'unknown'}, not PipeUtilization")
    return Tier(3, "device-busy proxy (proxy, not MFU)", proxy, why)


def slow_ranks(step_times: dict[int, float]) -> tuple[list[int], float | None]:
    """Ranks whose step time exceeds the fastest by more than :data:`SLOW_RANK_MARGIN`."""
    valid = {r: t for r, t in step_times.items() if t is not None and np.isfinite(t) and t > 0}
    if not valid:
        return [], None
    threshold = min(valid.values()) * (1.0 + SLOW_RANK_MARGIN)
    return sorted(r for r, t in valid.items() if t > threshold), threshold
