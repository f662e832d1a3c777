"""Aggregates of the annotated kernels, step MFU and the fallback tiers (mfu.md §2.3, §3.5, §4).

Input: a rank's annotated kernel frame (:func:`mfu_desktop.core.analysis.annotate.annotate`: class,
FLOPs, dtype, peak, achieved TFLOP/s, MFU, status, reason …). Output: the figures derived from
it. Everything is vectorised over kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.annotate import (
    Status,
    class_mask,
    counted_mask,
    status_mask,
)
from mfu_desktop.core.analysis.classify import KernelClass
from mfu_desktop.core.analysis.grouping import codes_of, counts, group_ids, lookup, slots, sums
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.roofline import BOUNDS
from mfu_desktop.core.chips.vendor_terms import VendorTerms, vendor_terms
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.step_trace import StepTrace

#: Hardware cube FLOPs sit 1–9 % above model FLOPs on real matmuls (tile padding); a ratio
#: outside this band points at a shape-parsing error (profiler-formats.md §3.7).
HW_RATIO_LOW = 0.99
HW_RATIO_HIGH = 1.15


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


def fine_table(annotated: pd.DataFrame, options: AnalysisOptions, confirmed: bool, steps: int = 1,
               bw_gbs: float | None = None) -> pd.DataFrame:
    """One pass over the kernels: sums per finest group, from which every table is derived.

    Groups are (FLOP-rule shape group, type, input shapes, class, status, reason, and the kernel
    name when the type is missing — Level0). The result has a row per group (thousands at most,
    whatever the kernel count), so the per-type, per-shape, exclusion and hot-operator tables
    are cheap pandas group-bys over it. ``count`` counts kernels, ``calls`` op calls
    (:func:`call_weights`); ``kernel`` is the name of each group's first kernel (a GPU group's
    family falls back on it when its launching op is not recognised). Its sums are totals over
    the capture; ``steps`` (the rank's captured steps,
    :func:`mfu_desktop.core.analysis.steps.captured_steps`) turns every table derived from it
    into means per step; ``bw_gbs`` (the chip's HBM bandwidth) turns bytes per
    second into bandwidth utilisation.
    """
    if len(annotated) == 0:
        return pd.DataFrame()
    labels = _fine_labels(annotated)
    key_codes = [labels[name][0] for name in ("type", "name", C.INPUT_SHAPES, "klass", "status", "reason")
                 if name in labels]
    key_codes.append(annotated["shape_group"].to_numpy())
    ids, first = group_ids(key_codes)
    g = len(first)
    dur = annotated[C.DURATION_US].to_numpy(dtype=np.float64)
    out = _fine_label_columns(labels, first)
    out["kernel"] = _labels(*codes_of(annotated[C.NAME]), first) if C.NAME in annotated.columns else ""
    _counted_sums(annotated, options, confirmed, ids, first, dur, out)
    _mfu_and_lost_sums(annotated, ids, g, dur, out)
    _roofline_sums(annotated, ids, g, dur, out)
    _cube_utilization_sums(annotated, ids, g, dur, out)
    out.attrs["total_time_us"] = float(np.nansum(dur))
    out.attrs["steps"] = max(int(steps), 1)
    out.attrs["bw_gbs"] = bw_gbs
    return out


def _fine_labels(annotated: pd.DataFrame) -> dict[str, tuple[np.ndarray, pd.Index]]:
    """Codes and categories of every text column of the fine table, in its column order.

    The kernel name is kept only for kernels whose type is missing or "N/A" (Level0), where it
    stands in for the type.

    Args:
        annotated: The annotated kernel frame.

    Returns:
        Column name → (code per kernel, categories).
    """
    n = len(annotated)
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
    return labels


def _fine_label_columns(labels: dict[str, tuple[np.ndarray, pd.Index]], first: np.ndarray) -> pd.DataFrame:
    """The fine table's text columns, one row per group (its first kernel's labels), and the display type."""
    out = pd.DataFrame({name: _labels(codes, cats, first) for name, (codes, cats) in labels.items()})
    if "name" not in out:
        out["name"] = ""
    out["display_type"] = np.where(out["name"] != "", out["name"], np.where(out["type"] == "", "N/A", out["type"]))
    out["type"] = np.where(out["type"] == "", "N/A", out["type"])
    return out


def _counted_sums(annotated: pd.DataFrame, options: AnalysisOptions, confirmed: bool, ids: np.ndarray,
                  first: np.ndarray, dur: np.ndarray, out: pd.DataFrame) -> None:
    """Per group: kernel count and time, counted kernels' count, time and FLOPs, and their ideal times.

    Args:
        annotated: The annotated kernel frame.
        options: Which kernels count (:func:`~mfu_desktop.core.analysis.annotate.counted_mask`).
        confirmed: Whether the chip is confirmed (one peak, else a range).
        ids: Group id per kernel.
        first: Position of each group's first kernel.
        dur: Duration per kernel (µs).
        out: The fine table, filled in place.
    """
    g = len(first)
    use = counted_mask(annotated, options)
    flops = annotated["flops"].to_numpy(dtype=np.float64)
    out["count"] = counts(ids, g)
    out["calls"] = sums(ids, g, call_weights(annotated, dur))
    out["time_us"] = sums(ids, g, dur)
    out["counted"] = counts(ids[use], g)
    out["counted_time_us"] = sums(ids[use], g, dur[use])
    out["flops"] = sums(ids[use], g, flops[use])
    out["flops_per_call"] = flops[first]
    ids_use = ids[use]
    for key, values in ideal_us(annotated, use, confirmed).items():
        out[f"ideal_{key}"] = sums(ids_use, g, values[use])


def call_weights(annotated: pd.DataFrame, dur: np.ndarray) -> np.ndarray:
    """1 for the kernel that stands for its op call, 0 for the op's other kernels (so sums count op calls).

    An op call is represented by its longest kernel (the first of equals), so a cuBLAS GEMM and
    the memset beside it count one ``aten::mm`` call wherever the GEMM's row is grouped. Kernels
    without an op call (:data:`~mfu_desktop.core.readers.columns.OP_CALL` missing or −1) are each
    their own call.

    Args:
        annotated: The kernel frame.
        dur: Duration per kernel (µs).
    """
    weights = np.ones(len(annotated), dtype=np.float64)
    if C.OP_CALL not in annotated.columns or len(annotated) == 0:
        return weights
    call = annotated[C.OP_CALL].to_numpy(dtype=np.int64, na_value=-1)
    valid = call >= 0
    every = bool(valid.all())
    rows = None if every else np.flatnonzero(valid)
    ids = call if every else call[rows]
    if len(ids) == 0:
        return weights
    if int(ids.max()) > 4 * len(ids):  # sparse ids: make them dense first
        ids = pd.factorize(ids)[0].astype(np.int64)
    d = dur if every else dur[rows]
    d = np.where(np.isnan(d), 0.0, d) if np.isnan(d).any() else d
    longest = np.full(int(ids.max()) + 1, -np.inf)
    np.maximum.at(longest, ids, d)
    candidates = np.flatnonzero(d == longest[ids])
    chosen = np.full(len(longest), -1, dtype=np.int64)
    chosen[ids[candidates[::-1]]] = candidates[::-1]  # the first longest kernel of each call
    chosen = chosen[chosen >= 0]
    weights[valid] = 0.0
    weights[chosen if every else rows[chosen]] = 1.0
    return weights


def _mfu_and_lost_sums(annotated: pd.DataFrame, ids: np.ndarray, g: int, dur: np.ndarray, out: pd.DataFrame) -> None:
    """Per group: time and ideal time of the kernels with an MFU, and the lost time of those with one."""
    mfu = annotated["mfu"].to_numpy()
    finite = np.isfinite(mfu)
    out["mfu_time_us"] = sums(ids[finite], g, dur[finite])
    out["mfu_ideal_us"] = sums(ids[finite], g, mfu[finite] * dur[finite])
    lost = annotated["lost_us"].to_numpy()
    has = np.isfinite(lost)
    out["lost_us"] = sums(ids[has], g, lost[has])
    out["lost_n"] = counts(ids[has], g)


def _cube_utilization_sums(annotated: pd.DataFrame, ids: np.ndarray, g: int, dur: np.ndarray,
                           out: pd.DataFrame) -> None:
    """Per group: time-weighted cube utilisation and its weight, when the profile has the counter."""
    if "cube_utilization_pct" not in annotated.columns:
        return
    cu = annotated["cube_utilization_pct"].to_numpy()
    ok = np.isfinite(cu) & (dur > 0)
    out["cu_time"] = sums(ids[ok], g, cu[ok] * dur[ok])
    out["cu_weight"] = sums(ids[ok], g, dur[ok])


def _roofline_sums(annotated: pd.DataFrame, ids: np.ndarray, g: int, dur: np.ndarray, out: pd.DataFrame) -> None:
    """Sums behind the groups' bandwidth, intensity, roofline utilisation and bound (mfu.md §6).

    Four passes over the kernels (bytes, attainable time, memory- and compute-bound time); the
    rest is per group: whether a group has bytes, is counted or is judged follows from its key
    (type, shapes, class, status), so the times and FLOPs they pair with are the group's own.
    """
    if "bytes" not in annotated.columns:
        return
    out["bytes"] = sums(ids, g, annotated["bytes"].to_numpy())
    out["attainable_us"] = sums(ids, g, annotated["attainable_us"].to_numpy())
    bound = annotated["bound"].cat.codes.to_numpy()
    for code, name in enumerate(BOUNDS):
        out[f"{name}_time_us"] = sums(ids, g, np.where(bound == code, dur, 0.0))
    has_bytes = out["bytes"].to_numpy() > 0
    out["bytes_time_us"] = np.where(has_bytes, out["time_us"], 0.0)
    out["roof_time_us"] = np.where(out["attainable_us"].to_numpy() > 0, out["time_us"], 0.0)
    out["roof_flops"] = np.where(has_bytes, out["flops"], 0.0)  # counted groups' FLOPs …
    out["roof_bytes"] = np.where(out["counted"].to_numpy() > 0, out["bytes"], 0.0)  # … over their bytes
    if "hw_bytes" in annotated.columns:
        hw = annotated["hw_bytes"].to_numpy(dtype=np.float64)
        pair = np.isfinite(hw) & np.isfinite(annotated["bytes"].to_numpy())
        out["hw_bytes"] = sums(ids[pair], g, hw[pair])
        out["hw_min_bytes"] = sums(ids[pair], g, annotated["bytes"].to_numpy()[pair])


#: Helper sums of the fine table that the derived tables turn into rates and drop.
_ROOF_HELPERS = ("bytes_time_us", "roof_flops", "roof_bytes", "roof_time_us", "compute_time_us", "memory_time_us",
                 "hw_min_bytes")


def _roofline_rates(out: pd.DataFrame, bw_gbs: float | None) -> None:
    """Achieved GB/s, bandwidth utilisation, intensity, roofline utilisation, bound and counter ratio of each group."""
    if "bytes" not in out.columns:
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        out["achieved_gbs"] = np.where(out["bytes_time_us"] > 0, out["bytes"] / out["bytes_time_us"] / 1e3, np.nan)
        out["bw_util"] = out["achieved_gbs"] / bw_gbs if bw_gbs else np.nan
        out["intensity"] = np.where(out["roof_bytes"] > 0, out["roof_flops"] / out["roof_bytes"], np.nan)
        out["roof_util"] = np.where(out["roof_time_us"] > 0, out["attainable_us"] / out["roof_time_us"], np.nan)
        if "hw_bytes" in out.columns:
            out["hw_bytes_ratio"] = np.where(out["hw_min_bytes"] > 0, out["hw_bytes"] / out["hw_min_bytes"], np.nan)
    memory, compute = out["memory_time_us"].to_numpy(), out["compute_time_us"].to_numpy()
    out["bound"] = np.where(memory > compute, BOUNDS[1], np.where(compute > 0, BOUNDS[0], ""))
    out["bytes"] = np.where(out["bytes_time_us"] > 0, out["bytes"], np.nan)
    out["attainable_us"] = np.where(out["roof_time_us"] > 0, out["attainable_us"], np.nan)


#: Additive columns of the derived tables: totals in the fine table, means per step in every table shown.
PER_STEP_COLUMNS = ("count", "calls", "time_us", "counted", "counted_time_us", "flops", "lost_us", "bytes",
                    "attainable_us", "hw_bytes")


def _per_step(out: pd.DataFrame, steps: int) -> pd.DataFrame:
    """Divide the additive columns by the captured steps (rates and shares are unchanged)."""
    for column in PER_STEP_COLUMNS:
        if column in out.columns:
            out[column] = out[column].astype(np.float64) / steps
    return out


_SUM_COLUMNS = ("count", "calls", "time_us", "counted", "counted_time_us", "flops", "ideal_mfu", "ideal_mfu_lo",
                "ideal_mfu_hi", "mfu_time_us", "mfu_ideal_us", "lost_us", "lost_n", "cu_time", "cu_weight", "bytes",
                "attainable_us", "hw_bytes", *_ROOF_HELPERS)


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
    _roofline_rates(out, fine.attrs.get("bw_gbs"))
    total = fine.attrs.get("total_time_us", float(out["time_us"].sum()))
    out["time_share"] = out["time_us"] / total if total > 0 else np.nan
    drop = [c for c in ("ideal_mfu", "ideal_mfu_lo", "ideal_mfu_hi", "mfu_ideal_us", "lost_n", "cu_time", "cu_weight",
                        *_ROOF_HELPERS) if c in out and c not in keep]
    return _per_step(out.drop(columns=drop), fine.attrs.get("steps", 1))


def by_type(fine: pd.DataFrame) -> pd.DataFrame:
    """Per operator type: count, time, counted kernels, FLOPs, achieved TFLOP/s, MFU, cube util, lost time."""
    if fine.empty:
        return pd.DataFrame(columns=["type", "count", "time_us", "counted", "flops", "achieved_tflops", "mfu"])
    out = _rollup(fine, ["type"]).drop(columns=["mfu_time_us"])
    return out.sort_values("time_us", ascending=False, kind="stable").reset_index(drop=True)


def by_shape(fine: pd.DataFrame) -> pd.DataFrame:
    """Per (type, input shapes, output shapes, dtype) of kernels with a FLOP rule or with bytes (mfu.md §6)."""
    columns = ["type", "input_shapes", "output_shapes", "dtype", "count", "time_us"]
    if fine.empty:
        return pd.DataFrame(columns=columns)
    with_bytes = fine["bytes"] > 0 if "bytes" in fine.columns else False
    ruled = fine[(fine["status"] != Status.NO_RULE.value) | with_bytes]
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
    """Hot operators grouped by (type, input shapes): by total time, or by lost time (t − t*, mfu.md §6).

    Level0 kernels have no type: their name is used instead.
    """
    columns = ["type", "input_shapes", "klass", "count", "time_us", "lost_us", "mfu", "bw_util", "roof_util", "bound",
               "time_share"]
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
    (:mod:`mfu_desktop.core.analysis.steps`); ``kernels`` and ``countable_kernels`` count the whole capture.
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


def device_busy_proxy(annotated: pd.DataFrame, span_us: float | None, cores: int | None,
                      terms: VendorTerms | None = None) -> tuple[float | None, str]:
    """Tier 3: Σ compute-kernel time / step span, corrected down for AI_CPU time and idle cores.

    Kernels whose Block Dim is below the core count are weighted by Block Dim / cores. Labelled
    "proxy, not MFU" wherever shown; the note says what was done in the vendor's words (a GPU
    trace has no AI CPU and no Block Dim: copies and communication are left out, nothing is
    weighted).
    """
    terms = terms or vendor_terms(None)
    if not span_us or span_us <= 0 or annotated.empty:
        return None, "no step span"
    dur = annotated[C.DURATION_US].to_numpy(dtype=np.float64)
    compute = class_mask(annotated, KernelClass.CUBE, KernelClass.VECTOR, KernelClass.MIX,
                         KernelClass.UNKNOWN) & (dur > 0)
    weight = np.ones(len(annotated))
    if terms.gpu:
        note = (f"memcpy/memset and communication kernels left out; no {terms.launch_size} weighting (kernels on "
                "concurrent streams add up)")
    elif cores and C.BLOCK_DIM in annotated.columns:
        blocks = annotated[C.BLOCK_DIM].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
        known = np.isfinite(blocks) & (blocks > 0)
        weight = np.where(known, np.minimum(blocks / cores, 1.0), 1.0)
        note = f"AI_CPU time excluded; kernels with Block Dim < {cores} cores weighted by Block Dim / cores"
    else:
        note = "AI_CPU time excluded; Block Dim correction not applied (core count or Block Dim unknown)"
    busy = float((dur * weight)[compute].sum())
    return busy / span_us, note


def choose_tier(annotated: pd.DataFrame, mfu: float | None, mfu_range: tuple[float, float] | None,
                cube_util: float | None, proxy: float | None, missing_columns: list[str], aic_metrics: str | None,
                excluded: pd.DataFrame, terms: VendorTerms | None = None) -> Tier:
    """Tier 1 FLOPs-based MFU, else 2 hardware cube utilisation, else 3 device-busy proxy.

    The reasons are in the vendor's words (``terms``): ``aic_metrics`` and Level0 on Ascend,
    CUPTI counters and ``record_shapes`` on a GPU trace.
    """
    terms = terms or vendor_terms(None)
    why: list[str] = []
    counted = int(status_mask(annotated, Status.COUNTED).sum()) if not annotated.empty else 0
    if counted and (mfu is not None or mfu_range is not None):
        return Tier(1, "FLOPs-based MFU", mfu, why)
    if C.INPUT_SHAPES in missing_columns:
        why.append(f"no shape columns in the capture ({terms.shapes})")
    elif counted == 0:
        if status_mask(annotated, Status.NO_RULE).all():
            why.append("no matmul/FlashAttention kernels with a FLOP rule in the profile")
        elif not excluded.empty:
            top = excluded.iloc[0]
            why.append(f"every countable kernel was excluded; largest: {top['type']} — {top['reason']}")
    if cube_util is not None:
        return Tier(2, "hardware cube utilisation (cube_utilization, not MFU)", cube_util / 100.0, why)
    why.append(f"no {terms.counters}: " + terms.no_counters.format(aic_metrics=aic_metrics or "unknown"))
    return Tier(3, "device-busy proxy (proxy, not MFU)", proxy, why)
