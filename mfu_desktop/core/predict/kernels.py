"""The per-kernel model of the cross-chip prediction (prediction.md §2).

Per kernel (vectorised over the kernel frame)::

    compute_ratio = source_peak / target_peak        # cube or vector peak, by class and precision
    memory_ratio  = source_hbm_bw / target_hbm_bw
    new_time      = compute · compute_ratio + memory · memory_ratio
    scale         = new_time / (compute + memory)
    predicted     = Duration · scale

Kernels are grouped once per rank by (peak unit, precision, type): totals for a target cost
O(groups), whatever the kernel count; the per-kernel table is only built for the detail file
and the app's detail view.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.categories import category_of
from mfu_desktop.core.analysis.classify import CLASSES as KERNEL_CLASSES
from mfu_desktop.core.analysis.classify import COMPUTE_CLASSES, KernelClass, class_codes, excluded_label
from mfu_desktop.core.analysis.grouping import categorical, codes_of, counts, group_ids, lookup, sums
from mfu_desktop.core.chips.catalog import Chip
from mfu_desktop.core.chips.dtypes import ComputeDtype, compute_dtype, first_input_dtype
from mfu_desktop.core.chips.vendor_terms import VendorTerms, vendor_terms
from mfu_desktop.core.predict.basis import (
    ACHIEVABLE,
    ADVERTISED,
    Basis,
    achievable_bandwidths,
    achievable_peaks,
    basis_label,
)
from mfu_desktop.core.predict.rules import Rule, bandwidth, efficiency
from mfu_desktop.core.readers import columns as C

#: Prediction classes (compute-class kernels); everything else is excluded and listed.
CLASSES = ("cube", "vector", "mix")
#: Precision of a kernel whose first input is not a matmul precision (INT32, INT64, BOOL …) / has no dtype.
OTHER_PRECISION = "other"
UNKNOWN_PRECISION = "unknown"


@dataclass(frozen=True)
class KernelInputs:
    """Per-kernel quantities that do not depend on the target (computed once per rank).

    Attributes:
        frame: Compute-class kernels: name, type, core, class, peak unit, precision, duration,
            compute and memory times, and ``group`` (index into ``groups``).
        groups: One row per (peak unit, precision, type): summed durations split by the pipe
            shares, so totals for a target cost O(groups), not O(kernels).
        excluded: Excluded classes (AI CPU, DSA, communication …) with count and time.
        flags: Caveats (fallback kernels, unknown dtypes).
    """

    frame: pd.DataFrame
    groups: pd.DataFrame
    excluded: pd.DataFrame
    flags: list[str]


def kernel_inputs(kernels: pd.DataFrame) -> KernelInputs:
    """Classify kernels and extract compute/memory times from the pipe columns (prediction.md §2)."""
    if len(kernels) == 0 or C.CORE_TYPE not in kernels.columns:
        return _without_core_types(kernels)
    all_classes = class_codes(kernels)
    klass = _prediction_classes(all_classes)
    compute_rows = klass != _NOT_PREDICTED
    excluded = _excluded_table(kernels, all_classes, compute_rows)
    rows = np.flatnonzero(compute_rows)
    sub_klass = klass[rows]
    is_cube, is_vec = sub_klass == 0, sub_klass == 1
    compute, memory, unit = _pipe_times(kernels, rows, is_cube, is_vec)
    precision = _precision_codes(kernels, rows)
    frame = _kernel_frame(kernels, rows, sub_klass, unit, precision, compute, memory)
    ids, first = _assign_groups(frame)
    fallback = compute + memory <= 0
    by_memory, by_roofline = _fallback_sides(kernels, rows, fallback, is_vec)
    frame["fallback"] = pd.Categorical.from_codes(np.where(~fallback, 0, np.where(by_roofline, 1, 2)).astype(np.int8),
                                                  categories=list(FALLBACKS))
    frame["fallback_memory"] = fallback & by_memory
    groups = _group_table(frame, ids, first, compute, memory, fallback, by_memory)
    flags = _input_flags(precision, fallback, by_memory, by_roofline, _terms_of(kernels))
    return KernelInputs(frame, groups, excluded, flags)


def _terms_of(kernels: pd.DataFrame) -> VendorTerms:
    """The vocabulary of a rank's kernels: a GPU's when the reader labelled them with GPU cores."""
    cats = kernels[C.CORE_TYPE].cat.categories if isinstance(kernels[C.CORE_TYPE].dtype, pd.CategoricalDtype) \
        else pd.unique(kernels[C.CORE_TYPE].dropna())
    gpu = len(cats) > 0 and all(str(c).startswith("GPU_") for c in cats)
    return vendor_terms("GPU" if gpu else None)


#: Prediction class code of a kernel that is not predicted (AI CPU, DSA, communication …).
_NOT_PREDICTED = 3
#: Precision names, in code order: the matmul precisions, then "other" and "unknown".
_PRECISION_NAMES = [d.value for d in ComputeDtype] + [OTHER_PRECISION, UNKNOWN_PRECISION]
_OTHER_CODE, _UNKNOWN_CODE = len(_PRECISION_NAMES) - 2, len(_PRECISION_NAMES) - 1


def _without_core_types(kernels: pd.DataFrame) -> KernelInputs:
    """Inputs of a rank with no kernels, or without the Accelerator Core column: everything excluded.

    Args:
        kernels: The rank's kernel frame (empty, or without :data:`C.CORE_TYPE`).

    Returns:
        Empty frame and groups; one excluded row naming the reason (and a flag when there were kernels).
    """
    n = len(kernels)
    reason = "no Accelerator Core column (Level0 capture?)" if n else "no kernels"
    total = float(kernels[C.DURATION_US].sum()) if n else 0.0
    return KernelInputs(pd.DataFrame(), pd.DataFrame(),
                        pd.DataFrame({"class": [reason], "count": [n], "time_us": [total]}), [reason] if n else [])


def _prediction_classes(all_classes: np.ndarray) -> np.ndarray:
    """Per kernel, its prediction class: 0 cube, 1 vector, 2 mix, 3 not predicted.

    Args:
        all_classes: Kernel class codes (indices into the classifier's class list).

    Returns:
        One ``int8`` code per kernel.
    """
    to_pred = np.full(len(KERNEL_CLASSES), _NOT_PREDICTED, dtype=np.int8)
    for i, k in enumerate(COMPUTE_CLASSES):
        to_pred[KERNEL_CLASSES.index(k.value)] = i
    return to_pred[all_classes]


def _excluded_table(kernels: pd.DataFrame, all_classes: np.ndarray, compute_rows: np.ndarray) -> pd.DataFrame:
    """Count and time of the kernels that are not predicted, by excluded class.

    Args:
        kernels: The rank's kernel frame.
        all_classes: Kernel class codes.
        compute_rows: Per kernel, whether it is predicted.

    Returns:
        Columns ``class``, ``count`` and ``time_us``, in order of first appearance.
    """
    if not (~compute_rows).any():
        return pd.DataFrame(columns=["class", "count", "time_us"])
    core_codes, core_cats = codes_of(kernels[C.CORE_TYPE])
    comm_code = KERNEL_CLASSES.index(KernelClass.COMM.value)
    excl_name = np.array([excluded_label(str(c)) for c in core_cats] + ["unknown (N/A)"], dtype=object)
    names = lookup(excl_name, core_codes)[~compute_rows]
    names = np.where(all_classes[~compute_rows] == comm_code, "communication", names)
    dur_excl = kernels[C.DURATION_US].to_numpy(dtype=np.float64)[~compute_rows]
    return pd.DataFrame({"class": names, "time_us": dur_excl}).groupby("class", sort=False) \
        .agg(count=("time_us", "size"), time_us=("time_us", "sum")).reset_index()


def _pipe_column(kernels: pd.DataFrame, name: str, rows: np.ndarray) -> np.ndarray:
    """A pipe-time column at ``rows`` as floats, NaN when the profile has no such column."""
    if name in kernels.columns:
        return kernels[name].to_numpy(dtype=np.float64)[rows]
    return np.full(len(rows), np.nan)


def _pipe_times(kernels: pd.DataFrame, rows: np.ndarray, is_cube: np.ndarray,
                is_vec: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compute and memory pipe times of the predicted kernels, and the peak unit each scales with.

    Args:
        kernels: The rank's kernel frame.
        rows: Positions of the predicted kernels.
        is_cube: Per predicted kernel, whether it is a cube kernel.
        is_vec: Per predicted kernel, whether it is a vector kernel.

    Returns:
        Compute time, memory time (0 where unknown) and the unit (0 cube, 1 vector). Mix kernels
        use the cube peak when the cube's share dominates (stated in the detail file).
    """
    mac, vec = _pipe_column(kernels, "aic_mac_time_us", rows), _pipe_column(kernels, "aiv_vec_time_us", rows)
    with np.errstate(invalid="ignore"):
        cube_mem = np.fmax(_pipe_column(kernels, "aic_mte1_time_us", rows),
                           _pipe_column(kernels, "aic_mte2_time_us", rows))
        vec_mem = np.fmax(_pipe_column(kernels, "aiv_mte2_time_us", rows),
                          _pipe_column(kernels, "aiv_mte3_time_us", rows))
        compute = np.nan_to_num(np.select([is_cube, is_vec], [mac, vec], np.fmax(mac, vec)))
        memory = np.nan_to_num(np.select([is_cube, is_vec], [cube_mem, vec_mem], np.fmax(cube_mem, vec_mem)))
    unit = np.where(is_vec, 1, np.where(is_cube, 0, np.where(np.nan_to_num(mac) >= np.nan_to_num(vec), 0, 1)))
    return compute, memory, unit


def _precision_codes(kernels: pd.DataFrame, rows: np.ndarray) -> np.ndarray:
    """Per predicted kernel, the code of its precision in :data:`_PRECISION_NAMES`.

    Args:
        kernels: The rank's kernel frame.
        rows: Positions of the predicted kernels.

    Returns:
        ``int8`` codes: the first input's compute dtype, "other" for a non-floating-point dtype,
        "unknown" when there is none (or no dtype column).
    """
    if C.INPUT_DTYPES not in kernels.columns:
        return np.full(len(rows), _UNKNOWN_CODE, dtype=np.int8)
    d_codes, d_cats = codes_of(kernels[C.INPUT_DTYPES])
    table = []
    for cat in d_cats:
        first = first_input_dtype(str(cat))
        dtype = compute_dtype(first)
        table.append(_PRECISION_NAMES.index(dtype.value) if dtype is not None
                     else (_UNKNOWN_CODE if first is None else _OTHER_CODE))
    table.append(_UNKNOWN_CODE)
    return lookup(np.array(table, dtype=np.int8), d_codes)[rows]


def _take_categorical(kernels: pd.DataFrame, column: str, rows: np.ndarray) -> pd.Categorical:
    """A text column at ``rows`` as a categorical ("N/A" throughout when the column is missing)."""
    if column in kernels.columns:
        values = kernels[column].array
        if isinstance(values, pd.Categorical):
            return values.take(rows)
        return pd.Categorical(np.asarray(values, dtype=object)[rows])
    return pd.Categorical.from_codes(np.zeros(len(rows), dtype=np.int8), categories=["N/A"])


def _kernel_frame(kernels: pd.DataFrame, rows: np.ndarray, sub_klass: np.ndarray, unit: np.ndarray,
                  precision: np.ndarray, compute: np.ndarray, memory: np.ndarray) -> pd.DataFrame:
    """The per-kernel frame of the predicted kernels (without the group and fallback columns).

    Args:
        kernels: The rank's kernel frame.
        rows: Positions of the predicted kernels.
        sub_klass: Their prediction classes.
        unit: Their peak units (0 cube, 1 vector).
        precision: Their precision codes.
        compute: Their compute pipe times.
        memory: Their memory pipe times.

    Returns:
        Name, type, core, class, unit, precision, duration, compute and memory times, and the
        step when the profile has one.
    """
    types = _take_categorical(kernels, C.OP_TYPE, rows)
    if types.isna().any():
        types = types.add_categories(["N/A"]).fillna("N/A") if "N/A" not in types.categories else types.fillna("N/A")
    frame = pd.DataFrame({
        "name": _take_categorical(kernels, C.NAME, rows),
        "type": types,
        "core": _take_categorical(kernels, C.CORE_TYPE, rows),
        "class": pd.Categorical.from_codes(sub_klass, categories=list(CLASSES)),
        "unit": pd.Categorical.from_codes(unit.astype(np.int8), categories=["cube", "vector"]),
        "precision": pd.Categorical.from_codes(precision, categories=_PRECISION_NAMES),
        "duration_us": kernels[C.DURATION_US].to_numpy(dtype=np.float64)[rows],
        "compute_us": compute,
        "memory_us": memory,
    }, copy=False)
    if C.STEP_ID in kernels.columns:
        frame["step"] = kernels[C.STEP_ID].array.take(rows)
    return frame


def _assign_groups(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Number the (unit, precision, type) groups and store each kernel's in ``frame["group"]``.

    Returns:
        The group id per kernel and the position of each group's first kernel.
    """
    keys = [frame[c].cat.codes.to_numpy() for c in ("unit", "precision", "type")]
    ids, first = group_ids(keys)
    frame["group"] = ids.astype(np.int32)
    return ids, first


def _group_table(frame: pd.DataFrame, ids: np.ndarray, first: np.ndarray, compute: np.ndarray,
                 memory: np.ndarray, fallback: np.ndarray, by_memory: np.ndarray) -> pd.DataFrame:
    """One row per group: its key, count, and summed durations split by the pipe shares.

    Args:
        frame: The per-kernel frame.
        ids: Group id per kernel.
        first: Position of each group's first kernel.
        compute: Compute pipe time per kernel.
        memory: Memory pipe time per kernel.
        fallback: Per kernel, whether it has no pipe times.
        by_memory: Per kernel without pipe times, whether it scales with the bandwidth ratio.

    Returns:
        The :attr:`KernelInputs.groups` table.
    """
    dur = frame["duration_us"].to_numpy()
    pipe = compute + memory
    with np.errstate(divide="ignore", invalid="ignore"):
        c_share = np.where(fallback, 0.0, compute / pipe)
        m_share = np.where(fallback, 0.0, memory / pipe)
    g = len(first)
    return pd.DataFrame({
        "unit": np.asarray(frame["unit"].array.take(first), dtype=object),
        "precision": np.asarray(frame["precision"].array.take(first), dtype=object),
        "type": np.asarray(frame["type"].array.take(first), dtype=object),
        "count": counts(ids, g), "duration_us": sums(ids, g, dur),
        "compute_weighted_us": sums(ids, g, dur * c_share), "memory_weighted_us": sums(ids, g, dur * m_share),
        "fallback_compute_us": sums(ids[fallback & ~by_memory], g, dur[fallback & ~by_memory]),
        "fallback_memory_us": sums(ids[fallback & by_memory], g, dur[fallback & by_memory]),
    })


def _input_flags(precision: np.ndarray, fallback: np.ndarray, by_memory: np.ndarray,
                 by_roofline: np.ndarray, terms: VendorTerms) -> list[str]:
    """The caveats of a rank's inputs: kernels without pipe times, without a floating-point dtype.

    Only kernels whose time scales with a peak need a precision: a kernel without pipe times
    predicted by the bandwidth ratio does not.
    """
    flags: list[str] = []
    if fallback.any():
        flags.append(_fallback_flag(fallback, by_roofline, terms))
    uses_peak = ~(fallback & by_memory)
    unknown = (precision == _UNKNOWN_CODE) & uses_peak
    if unknown.any():
        flags.append(f"{int(unknown.sum()):,} compute kernels have no input dtype: the FP16 peaks are used")
    other = (precision == _OTHER_CODE) & uses_peak
    if other.any():
        flags.append(f"{int(other.sum()):,} compute kernels have a non-floating-point input dtype (INT32, INT64, "
                     "BOOL …): the FP16 peaks are used")
    return flags


#: How a kernel without pipe times was split: not at all (it has pipe times), by its roofline bound, by its class.
FALLBACKS = ("", "roofline bound", "class")


def _fallback_sides(kernels: pd.DataFrame, rows: np.ndarray, fallback: np.ndarray,
                    is_vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which kernels without pipe times scale with the bandwidth ratio, and which were decided by the roofline.

    A vector kernel whose bytes (and FLOPs) are known has a roofline bound (mfu.md §6):
    memory-bound → the bandwidth ratio, compute-bound → the vector peak ratio. Cube and mix
    kernels keep their class (the cube peak ratio) whatever their bound: on the public H100 →
    MI300X pair, scaling memory-bound GEMMs by bandwidth made the matmul error worse (MAPE
    12.9 % vs 9.6 %, docs/accuracy.md) — small GEMMs run far below both roofs, at the matrix
    engine's own efficiency. Without bytes, the class decides (vector → bandwidth), as the
    seed's model did.
    """
    bound = kernels["bound"].cat.codes.to_numpy()[rows] if "bound" in kernels.columns else np.full(len(rows), -1)
    by_roofline = fallback & (bound >= 0) & is_vec
    by_memory = np.where(by_roofline, bound == 1, is_vec)
    return by_memory, by_roofline


def _fallback_flag(fallback: np.ndarray, by_roofline: np.ndarray, terms: VendorTerms) -> str:
    """The caveat naming how kernels without pipe times were predicted (why, in the vendor's words)."""
    n, roof = int(fallback.sum()), int(by_roofline.sum())
    text = f"{n:,} compute kernels have no pipe times ({terms.no_pipe_times}): "
    parts = []
    if roof:
        parts.append(f"{roof:,} predicted by their roofline bound from bytes and FLOPs (memory-bound → bandwidth "
                     "ratio, compute-bound → peak ratio)")
    if n - roof:
        unit = "matrix" if terms.gpu else "cube/mix"
        parts.append(f"{n - roof:,} without bytes by their class ({unit} → compute ratio, vector → memory ratio)")
    return text + "; ".join(parts)


def _peak_column(unit: str, precision: str, chip: Chip) -> tuple[str, str | None]:
    """Catalog column for a unit and precision, and a flag when it falls back (never silently)."""
    if unit == "vector":
        column = "vector_fp32_tflops" if precision in ("fp32", "hf32") else "vector_fp16_tflops"
        flag = None if precision in ("fp16", "bf16", "fp32", "hf32") else f"{precision} on vector: FP16 used"
        return column, flag
    table = {"fp16": "cube_fp16_tflops", "bf16": "cube_bf16_tflops", "fp32": "cube_fp32_tflops",
             "hf32": "cube_hf32_tflops", "int8": "cube_int8_tflops", "fp8": "cube_fp8_tflops"}
    column = table.get(precision, "cube_fp16_tflops")
    flag = None if precision in table else f"{precision}: FP16 peak used"
    if precision == "bf16" and chip.value(column) is None and chip.value("cube_fp16_tflops") is not None:
        return "cube_fp16_tflops", "BF16 column blank: the FP16 column used (seed-layout catalog)"
    if precision in ("int8", "fp8") and chip.value(column) is None:
        return "cube_fp16_tflops", f"{precision} peak not in the catalog: FP16 used"
    return column, flag



@dataclass
class GroupRatios:
    """Compute ratio per group, memory ratio, rules and reasons for one (source, target) pair.

    Attributes:
        compute_ratio: Per group: source peak / target peak (NaN: unknown).
        memory_ratio: Source bandwidth / target bandwidth.
        reasons: Per group: why a ratio is unknown ("" when known).
        rules: Per group: the rules and calibration factors that touched it ("; "-joined).
        flags: Caveats about columns that fell back.
        factor: Per group: the saved calibration factor applied to its predicted time (1: none).
        basis: Per group: the basis its ratios are on (:func:`~mfu_desktop.core.predict.basis.basis_label`).
    """

    compute_ratio: np.ndarray
    memory_ratio: float
    reasons: list[str]
    rules: list[str]
    flags: list[str]
    factor: np.ndarray | None = None
    basis: list[str] = field(default_factory=list)


def _memory_ratio(source: Chip, target: Chip, rules: list[Rule],
                  basis: Basis) -> tuple[float, str, list[str], str]:
    """Memory ratio, the reason it is unknown, the bandwidth rules used, and its basis."""
    if basis.name == ACHIEVABLE and (measured := achievable_bandwidths(source, target)) is not None:
        return measured.source / measured.target, "", [], ACHIEVABLE
    s_bw, s_bw_rules = bandwidth(source, target, rules, source.value("hbm_bandwidth_gbs"))
    t_bw, t_bw_rules = bandwidth(target, source, rules, target.value("hbm_bandwidth_gbs"))
    bw_rules = [f"{r} (source)" for r in s_bw_rules] + [f"{r} (target)" for r in t_bw_rules]
    if s_bw and t_bw:
        return s_bw / t_bw, "", bw_rules, ADVERTISED
    who = source if not s_bw else target
    return float("nan"), f"HBM bandwidth not published for {who.display_name}", bw_rules, ADVERTISED


def _group_ratio(unit: str, precision: str, op_type: str, source: Chip, target: Chip, rules: list[Rule],
                 basis: Basis) -> tuple[float, str, list[str], list[str], str]:
    """One (unit, precision, type) key: compute ratio, reason, rule names, flags and compute basis."""
    names: list[str] = []
    s_fac = t_fac = 1.0
    if unit == "cube":  # architecture efficiency rules act on the cube peak
        s_fac, s_names = efficiency(source, op_type, rules)
        t_fac, t_names = efficiency(target, op_type, rules)
        names = [f"{n} (source)" for n in s_names] + [f"{n} (target)" for n in t_names]
    measured = achievable_peaks(unit, precision, source, target) if basis.name == ACHIEVABLE else None
    if measured is not None:
        return (measured.source * s_fac) / (measured.target * t_fac), "", names, [], ACHIEVABLE
    s_col, s_flag = _peak_column(unit, precision, source)
    t_col, t_flag = _peak_column(unit, precision, target)
    key_flags = [f for f in (s_flag, t_flag) if f]
    s_val, t_val = source.value(s_col), target.value(t_col)
    if s_val is None or t_val is None:
        who = source if s_val is None else target
        return float("nan"), f"{s_col if s_val is None else t_col} not published for {who.display_name}", names, \
            key_flags, ADVERTISED
    return (s_val * s_fac) / (t_val * t_fac), "", names, key_flags, ADVERTISED


def group_ratios(groups: pd.DataFrame, source: Chip, target: Chip, rules: list[Rule],
                 memo: dict | None = None, basis: Basis | None = None) -> GroupRatios:
    """Per (unit, precision, type): compute_ratio = effective source peak / effective target peak.

    Args:
        groups: :attr:`KernelInputs.groups`.
        source: The chip that ran the profile.
        target: The chip predicted.
        rules: Architecture rules.
        memo: One dict per source, target, rules and basis: remembers each key's ratio across
            ranks (the ranks of a cluster share their kernel types).
        basis: Advertised (default) or achievable values, and the saved calibration factors.
    """
    basis = basis or Basis()
    flags: set[str] = set()
    memory_ratio, memory_reason, bw_rules, memory_basis = _memory_ratio(source, target, rules, basis)
    saved = basis.factors_for(source, target)
    ratios, reasons, labels, factors, bases = [], [], [], [], []
    # a group whose time is all predicted by bandwidth needs no peak: its peak caveats do not apply
    compute_us = groups["compute_weighted_us"].to_numpy() + groups["fallback_compute_us"].to_numpy()
    memory_us = groups["memory_weighted_us"].to_numpy() + groups["fallback_memory_us"].to_numpy()
    for unit, precision, op_type, c_us, m_us in zip(groups["unit"].tolist(), groups["precision"].tolist(),
                                                     groups["type"].tolist(), compute_us.tolist(), memory_us.tolist()):
        key = (unit, precision, op_type)
        if memo is None or key not in memo:
            ratio, reason, names, key_flags, compute_basis = _group_ratio(unit, precision, str(op_type), source,
                                                                          target, rules, basis)
            cal = saved.get(category_of(str(op_type)))
            if cal is not None:
                names = [*names, f"calibration {cal.category} ×{cal.factor:.3g} ({cal.fitted_on})"]
            value = (ratio, reason or (memory_reason if np.isfinite(ratio) else reason),
                     "; ".join(names + bw_rules), key_flags, cal.factor if cal else 1.0, compute_basis)
            if memo is not None:
                memo[key] = value
        else:
            value = memo[key]
        ratio, reason, label, key_flags, factor, compute_basis = value
        if c_us > 0:
            flags.update(key_flags)
        ratios.append(ratio)
        reasons.append(reason)
        labels.append(label)
        factors.append(factor)
        bases.append(basis_label(compute_basis if c_us > 0 else None, memory_basis if m_us > 0 else None))
    return GroupRatios(np.array(ratios, dtype=np.float64), memory_ratio, reasons, labels, sorted(flags),
                       np.array(factors, dtype=np.float64), bases)


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


def group_predictions(groups: pd.DataFrame, ratios: GroupRatios) -> tuple[np.ndarray, np.ndarray]:
    """Predicted time per group and whether it is predictable.

    A group is predictable when every ratio its kernels use is known; a ratio it does not use
    may be unknown (a vector kernel predicted by bandwidth needs no vector peak).
    """
    compute_us = groups["compute_weighted_us"].to_numpy() + groups["fallback_compute_us"].to_numpy()
    memory_us = groups["memory_weighted_us"].to_numpy() + groups["fallback_memory_us"].to_numpy()
    cr, mr = ratios.compute_ratio, ratios.memory_ratio
    needs_cr, needs_mr = compute_us > 0, memory_us > 0
    with np.errstate(invalid="ignore"):
        predicted = np.where(needs_cr, cr * compute_us, 0.0) + np.where(needs_mr, mr * memory_us, 0.0)
    if ratios.factor is not None:
        predicted = predicted * ratios.factor
    ok = (~needs_cr | np.isfinite(cr)) & (~needs_mr | np.isfinite(mr))
    return predicted, ok


def target_totals(inputs: KernelInputs, source: Chip, target: Chip, rules: list[Rule],
                  memo: dict | None = None, basis: Basis | None = None) -> TargetKernels:
    """Totals for one target from the group sums: O(groups), whatever the kernel count."""
    g = inputs.groups
    if g.empty:
        return TargetKernels(target.display_name, 0.0, 0.0, 0.0, 0.0, [], [])
    r = group_ratios(g, source, target, rules, memo, basis)
    predicted_g, ok = group_predictions(g, r)
    dur = g["duration_us"].to_numpy()
    by_reason: dict[str, float] = {}
    for i in np.flatnonzero(~ok):
        reason = r.reasons[i] or (f"HBM bandwidth not published for {target.display_name}")
        by_reason[reason] = by_reason.get(reason, 0.0) + float(dur[i])
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
        unpredictable_by_reason=by_reason,
        basis_us=by_basis,
    )


def predict_kernels(inputs: KernelInputs, source: Chip, target: Chip, rules: list[Rule],
                    basis: Basis | None = None) -> TargetKernels:
    """Per-kernel prediction for one target (the detail table): ratios, scale, predicted duration, rules."""
    totals = target_totals(inputs, source, target, rules, basis=basis)
    f = inputs.frame
    if f.empty:
        return totals
    r = group_ratios(inputs.groups, source, target, rules, basis=basis)
    group = f["group"].to_numpy()
    compute_ratio = r.compute_ratio[group]
    memory_ratio = np.full(len(f), r.memory_ratio)
    compute = f["compute_us"].to_numpy()
    memory = f["memory_us"].to_numpy()
    pipe = compute + memory
    fallback = pipe <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(fallback, np.where(f["fallback_memory"].to_numpy(), memory_ratio, compute_ratio),
                         (compute * compute_ratio + memory * memory_ratio) / pipe)
    if r.factor is not None:
        scale = scale * r.factor[group]
    predictable = np.isfinite(scale)
    totals.frame = pd.DataFrame({
        "compute_ratio": compute_ratio, "memory_ratio": memory_ratio, "scale": scale,
        "predicted_us": np.where(predictable, f["duration_us"].to_numpy() * scale, np.nan),
        "fallback": f["fallback"].array,
        "rules": categorical(r.rules, group),
        "basis": categorical(r.basis, group),
        "reason": categorical([x or "ratio unknown" for x in r.reasons], np.where(predictable, -1, group)),
    }, copy=False)
    return totals


