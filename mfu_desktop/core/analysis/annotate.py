"""Per-kernel FLOPs, dtype, peak, MFU, status and reason (mfu.md §2.3, §3.5): the annotated kernel frame.

Everything is vectorised over kernels; shape rules run once per distinct (type, shapes, dtypes,
attributes) combination. A kernel's FLOPs come from its own shapes (the FLOP rules, a GPU op's
share spread over its kernels by time), or — where a producer recorded them and no kernel of the
same recorded call has FLOPs from shapes — from the recording (MSTX ``mfu_flops``);
``flops_source`` says which, per kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.chip_resolution import ChipResolution
from mfu_desktop.core.analysis.classify import CLASSES, KernelClass, class_codes
from mfu_desktop.core.analysis.grouping import categorical, codes_of, group_ids, lookup, slots
from mfu_desktop.core.analysis.kernel_roofline import chip_bandwidth, counter_bytes, roofline_columns
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.dtypes import ComputeDtype, compute_dtype, first_input_dtype
from mfu_desktop.core.formulas.flop_rules import estimate, rule_for
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.formulas.registry import Confidence, FlopEstimate
from mfu_desktop.core.readers import columns as C


class Status(StrEnum):
    """Whether a kernel's FLOPs-based MFU counts."""

    COUNTED = "counted"
    SUSPICIOUS = "suspicious"  # MFU > 100 %: kept out of aggregates
    EXCLUDED = "excluded"  # a countable type that could not be counted (reason given)
    NO_RULE = "no FLOP rule"  # vector, communication … (not matmul-unit work)


#: Status values in category-code order (the ``status`` column's categories).
STATUS_VALUES = [s.value for s in Status]
_STATUSES = STATUS_VALUES
_DTYPES = [d for d in ComputeDtype]


class FlopsSource(StrEnum):
    """Where a kernel's FLOPs came from (the ``flops_source`` column)."""

    NONE = ""
    SHAPES = "shapes"
    SHAPES_AND_ARGS = "shapes + flash_attn_args"
    RECORDED = "mfu_flops range"


FLOPS_SOURCES = [s.value for s in FlopsSource]


def shape_estimates(frame: pd.DataFrame, options: FlopOptions) -> tuple[np.ndarray, list[FlopEstimate | None]]:
    """Group index per row (−1 = no FLOP rule) and one estimate per distinct (type, shapes, dtypes).

    The groups are the annotated frame's ``shape_group`` column: called again on an annotated
    frame with the same options, it gives the same groups (the advisor reads the estimates'
    dims — M/N/K, FlashAttention's mask — this way; the frame keeps only their FLOPs).
    """
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
    """Compute dtype per row as an index into ``_DTYPES`` (−1 = unknown).

    FP32 rows become HF32 (the HF32/TF32 peak) where ``hf32_eligible`` says the kernel ran so
    (``TF32``: a GPU kernel whose name shows tensor cores), and, with the ``hf32`` switch, where
    it does not say ``NO``.
    """
    n = len(frame)
    if C.INPUT_DTYPES not in frame.columns:
        return np.full(n, -1, dtype=np.int8)
    codes, cats = codes_of(frame[C.INPUT_DTYPES])
    table = []
    for c in cats:
        d = compute_dtype(first_input_dtype(str(c)))
        table.append(_DTYPES.index(d) if d is not None else -1)
    out = lookup(np.array([*table, -1], dtype=np.int8), codes)
    if C.HF32_ELIGIBLE not in frame.columns and not hf32:
        return out
    ran, no = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    if C.HF32_ELIGIBLE in frame.columns:
        e_codes, e_cats = codes_of(frame[C.HF32_ELIGIBLE])
        ran = lookup(np.array([str(c).upper() == C.HF32_RAN for c in e_cats] + [False]), e_codes)
        no = lookup(np.array([str(c).upper() == C.HF32_NO for c in e_cats] + [False]), e_codes)
    fp32, hf = _DTYPES.index(ComputeDtype.FP32), _DTYPES.index(ComputeDtype.HF32)
    return np.where((out == fp32) & (ran | (hf32 & ~no)), hf, out).astype(np.int8)



# --- FLOPs per kernel -----------------------------------------------------------------------------


@dataclass
class KernelFlops:
    """FLOPs per kernel and where they came from.

    Attributes:
        group: Shape group per row (−1: no FLOP rule).
        estimates: One estimate per shape group.
        flops: Model FLOPs per row (NaN when unknown).
        executed: Hardware-executed FLOPs per row when some estimate differs (FA backward), else ``None``.
        recorded: Rows whose FLOPs are the producer's recording.
        source: :data:`FLOPS_SOURCES` index per row.
        unshared: Rows whose op has FLOPs but no share for them (another kernel of the op was excluded).
    """

    group: np.ndarray
    estimates: list[FlopEstimate | None]
    flops: np.ndarray
    executed: np.ndarray | None
    recorded: np.ndarray
    source: np.ndarray = field(repr=False)
    unshared: np.ndarray | None = field(default=None, repr=False)


def _group_values(estimates: list[FlopEstimate | None], attribute: str, idx: np.ndarray) -> np.ndarray:
    """One attribute of each row's estimate (NaN where none); ``idx`` = group, or len(estimates) for none."""
    values = [getattr(e, attribute) if e is not None else None for e in estimates]
    return np.array([np.nan if v is None else float(v) for v in values] + [np.nan], dtype=np.float64)[idx]


def recorded_mask(frame: pd.DataFrame, shape_flops: np.ndarray) -> np.ndarray:
    """Rows that take the recorded FLOPs: in a recorded range where no kernel has FLOPs from its shapes."""
    if C.RECORDED_FLOPS not in frame.columns or C.RECORDED_RANGE not in frame.columns:
        return np.zeros(len(frame), dtype=bool)
    rng = frame[C.RECORDED_RANGE].to_numpy(dtype=np.int64)
    value = frame[C.RECORDED_FLOPS].to_numpy(dtype=np.float64)
    inside = rng >= 0
    if not inside.any():
        return np.zeros(len(frame), dtype=bool)
    covered = np.zeros(int(rng.max()) + 1, dtype=bool)
    covered[rng[inside & np.isfinite(shape_flops)]] = True
    return inside & np.isfinite(value) & ~covered[np.clip(rng, 0, None)]


def kernel_flops(frame: pd.DataFrame, options: FlopOptions) -> KernelFlops:
    """FLOPs of every kernel: shape rules first, a recorded range's FLOPs where no kernel of it has any."""
    group, estimates = shape_estimates(frame, options)
    idx = np.where(group < 0, len(estimates), group)
    # A kernel carries its share of its op's FLOPs (GPU ops launch several kernels; 1 on Ascend).
    share = frame[C.FLOPS_SHARE].to_numpy(dtype=np.float64) if C.FLOPS_SHARE in frame.columns else 1.0
    op_flops = _group_values(estimates, "flops", idx)
    flops = op_flops * share
    unshared = np.isfinite(op_flops) & np.isnan(share)
    executed = None
    if any(e is not None and e.executed_flops is not None for e in estimates):
        executed = _group_values(estimates, "executed_flops", idx) * share
    recorded = recorded_mask(frame, flops)
    source = np.where(np.isfinite(flops), FLOPS_SOURCES.index(FlopsSource.SHAPES), 0).astype(np.int8)
    if C.ENRICHMENT in frame.columns:
        e_codes, e_cats = codes_of(frame[C.ENRICHMENT])
        with_args = lookup(np.array(["flash_attn_args" in str(c) for c in e_cats] + [False]), e_codes)
        source[with_args & np.isfinite(flops)] = FLOPS_SOURCES.index(FlopsSource.SHAPES_AND_ARGS)
    if recorded.any():
        flops = np.where(recorded, frame[C.RECORDED_FLOPS].to_numpy(dtype=np.float64), flops)
        if executed is not None:
            executed = np.where(recorded, flops, executed)
        source[recorded] = FLOPS_SOURCES.index(FlopsSource.RECORDED)
    return KernelFlops(group, estimates, flops, executed, recorded, source, unshared & ~recorded)


# --- peaks, status, texts -------------------------------------------------------------------------


@dataclass
class _Peaks:
    """Peak TFLOP/s per dtype code (last slot: unknown dtype), or the candidates' range, and why none."""

    peak: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    why: list[str]


def _peaks(chip: ChipResolution, dtype_codes: np.ndarray) -> _Peaks:
    """Peaks for the handful of dtypes present (lookup tables indexed by dtype code)."""
    out = _Peaks(*(np.full(len(_DTYPES) + 1, np.nan) for _ in range(3)), [""] * (len(_DTYPES) + 1))
    for code in np.unique(dtype_codes[dtype_codes >= 0]):
        dtype = _DTYPES[int(code)]
        if chip.confirmed:
            value, why = chip.peak(dtype)
            if value is not None:
                out.peak[code] = value.tflops
            else:
                out.why[code] = why
        else:
            span = chip.peak_range(dtype)
            if span is not None:
                out.lo[code], out.hi[code] = span
            else:
                out.why[code] = f"no {dtype.value} peak for any candidate chip"
    return out


@dataclass
class _Verdict:
    """Status code per row and the masks behind it."""

    status: np.ndarray
    bad_time: np.ndarray
    no_dtype: np.ndarray
    no_peak: np.ndarray
    suspicious: np.ndarray


def _verdict(countable: np.ndarray, known: np.ndarray, dur: np.ndarray, dtype_codes: np.ndarray,
             has_peak: np.ndarray, reference: np.ndarray) -> _Verdict:
    """Counted, excluded (with a reason), suspicious (MFU > 100 %) or no FLOP rule, per row."""
    bad_time = countable & known & ~(dur > 0)
    no_dtype = countable & known & (dtype_codes < 0)
    no_peak = countable & known & ~no_dtype & ~has_peak
    blocked = bad_time | no_dtype | no_peak
    suspicious = countable & known & ~blocked & (reference > 1.0)
    status = np.full(len(dur), _STATUSES.index(Status.NO_RULE.value), dtype=np.int8)
    status[countable] = _STATUSES.index(Status.COUNTED.value)
    status[countable & ~known] = _STATUSES.index(Status.EXCLUDED.value)
    status[blocked] = _STATUSES.index(Status.EXCLUDED.value)
    status[suspicious] = _STATUSES.index(Status.SUSPICIOUS.value)
    return _Verdict(status, bad_time, no_dtype, no_peak, suspicious)


#: Why a kernel whose op lost another kernel (an unusable time in a trace) has no FLOPs.
UNSHARED_REASON = ("another kernel of its op was excluded (unusable time): the op's FLOPs cannot be shared over "
                   "the kernels left")
#: What a recorded-FLOPs kernel shows as its assumption, confidence and detail.
RECORDED_ASSUMPTION = ("FLOPs recorded by torch_npu (MSTX mfu_flops range), spread over the range's kernels by "
                       "time; no kernel of the range has FLOPs from its shapes")


def _text_columns(fl: KernelFlops, verdict: _Verdict, peaks: _Peaks, d_idx: np.ndarray) -> dict[str, object]:
    """Reason, assumption, confidence and detail per row (few distinct texts: categoricals)."""
    estimates, g = fl.estimates, len(fl.estimates)
    idx = np.where(fl.group < 0, g, fl.group)
    reasons = [e.reason if e else "" for e in estimates]
    extra = ["duration ≤ 0 or missing", "input dtype unknown: no peak to divide by",
             "MFU > 100 %: check shapes / peak / dtype", UNSHARED_REASON, *peaks.why]
    r_idx = np.where(fl.recorded, g, idx)  # a recorded kernel has no estimate reason
    r_idx = np.where(verdict.bad_time, g + 1, r_idx)
    r_idx = np.where(verdict.no_dtype & ~verdict.bad_time, g + 2, r_idx)
    r_idx = np.where(verdict.no_peak & ~verdict.bad_time & ~verdict.no_dtype, g + 5 + d_idx, r_idx)
    if fl.unshared is not None:
        r_idx = np.where(fl.unshared & ~verdict.bad_time, g + 4, r_idx)
    r_idx = np.where(verdict.suspicious, g + 3, r_idx)
    t_idx = np.where(fl.recorded, g + 1, idx)  # slot g: no estimate; g + 1: recorded

    def texts(values: list[str], recorded: str) -> pd.Categorical:
        return categorical([*values, "", recorded], t_idx)

    return {
        "reason": categorical([*reasons, "", *extra], r_idx),
        "assumption": texts([e.assumption if e else "" for e in estimates], RECORDED_ASSUMPTION),
        "confidence": texts([e.confidence if e and e.flops is not None else "" for e in estimates],
                            Confidence.HIGH),
        "flops_detail": texts([e.detail if e else "" for e in estimates], "recorded FLOPs × this kernel's share of "
                              "the range's time"),
    }


def annotate(frame: pd.DataFrame, chip: ChipResolution, options: AnalysisOptions) -> pd.DataFrame:
    """Add class, FLOPs, dtype, peak, achieved TFLOP/s, MFU, status and reason to a kernel frame.

    The input frame is not modified: a new frame shares its columns and adds the new ones.
    """
    new: dict[str, object] = {"klass": pd.Categorical.from_codes(class_codes(frame), categories=CLASSES)}
    fl = kernel_flops(frame, options.flops)
    new["shape_group"] = fl.group.astype(np.int32)
    new["flops"] = flops = fl.flops
    if fl.executed is not None:
        new["executed_flops"] = fl.executed
    new["flops_source"] = pd.Categorical.from_codes(fl.source, categories=FLOPS_SOURCES)
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)
    dtype_codes = _dtype_codes(frame, options.hf32)
    new["dtype"] = pd.Categorical.from_codes(dtype_codes, categories=[d.value for d in _DTYPES])
    peaks = _peaks(chip, dtype_codes)
    d_idx = slots(dtype_codes, len(_DTYPES))
    peak = peaks.peak[d_idx]
    # A duration of 1e-300 µs gives a rate beyond float32 (or float64): inf, which the verdict
    # below flags as MFU > 100 % like any impossible rate — not a RuntimeWarning on the console.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        achieved = np.where(dur > 0, flops / dur / 1e6, np.nan)
        mfu = achieved / peak
        mfu_lo = achieved / peaks.hi[d_idx]
        mfu_hi = achieved / peaks.lo[d_idx]
        # Per-row rates are float32 for display (7 significant digits); every aggregate recomputes
        # ideal time from FLOPs and the float64 peaks.
        new["peak_tflops"] = peak
        new["achieved_tflops"] = achieved.astype(np.float32)
        new["mfu"] = mfu.astype(np.float32)
        if not chip.confirmed:
            new["peak_lo_tflops"] = peaks.lo[d_idx]
            new["peak_hi_tflops"] = peaks.hi[d_idx]
            new["mfu_lo"] = mfu_lo.astype(np.float32)
            new["mfu_hi"] = mfu_hi.astype(np.float32)
    has_peak = np.isfinite(peak) if chip.confirmed else np.isfinite(peaks.lo[d_idx])
    verdict = _verdict((fl.group >= 0) | fl.recorded, np.isfinite(flops), dur, dtype_codes, has_peak,
                       mfu if chip.confirmed else mfu_lo)
    new["status"] = pd.Categorical.from_codes(verdict.status, categories=_STATUSES)
    new.update(_text_columns(fl, verdict, peaks, d_idx))
    roof_peak = peak if chip.confirmed else peaks.lo[d_idx]  # range: the lowest candidate peak (lost ≥ 0)
    counted = np.isin(verdict.status, list(_counted_codes(options)))
    no_rule = verdict.status == _STATUSES.index(Status.NO_RULE.value)
    new.update(roofline_columns(frame, new["klass"], counted, no_rule, flops, dur, roof_peak,
                                mfu if chip.confirmed else mfu_hi, chip_bandwidth(chip)))
    hw_bytes = counter_bytes(frame)
    if hw_bytes is not None:
        new["hw_bytes"] = hw_bytes
    if "aic_cube_fops" in frame.columns:
        hw = frame["aic_cube_fops"].to_numpy(dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            new["hw_ratio"] = np.where(np.isfinite(flops) & (hw > 0), hw / flops, np.nan).astype(np.float32)
    columns = {c: frame[c] for c in frame.columns}
    columns.update(new)
    return pd.DataFrame(columns, copy=False)


# --- masks ----------------------------------------------------------------------------------------


def _counted_codes(options: AnalysisOptions) -> set[int]:
    codes = {_STATUSES.index(Status.COUNTED.value)}
    if options.include_suspicious:
        codes.add(_STATUSES.index(Status.SUSPICIOUS.value))
    return codes


def counted_mask(annotated: pd.DataFrame, options: AnalysisOptions) -> np.ndarray:
    """Rows that enter FLOPs-based aggregates."""
    return np.isin(annotated["status"].cat.codes.to_numpy(), list(_counted_codes(options)))


def class_mask(annotated: pd.DataFrame, *classes: KernelClass) -> np.ndarray:
    """Rows whose kernel class is one of ``classes``."""
    codes = annotated["klass"].cat.codes.to_numpy()
    return np.isin(codes, [CLASSES.index(k.value) for k in classes])


def status_mask(annotated: pd.DataFrame, *statuses: Status) -> np.ndarray:
    """Rows whose status is one of ``statuses``."""
    codes = annotated["status"].cat.codes.to_numpy()
    return np.isin(codes, [_STATUSES.index(s.value) for s in statuses])
