"""The per-kernel model of the cross-chip prediction (prediction.md §2; issue 23).

Kernels **with** pipe counters keep the seed's split (vectorised over the kernel frame)::

    compute_ratio = source_peak / target_peak        # cube or vector peak, by class and precision
    memory_ratio  = source_hbm_bw / target_hbm_bw
    new_time      = compute · compute_ratio + memory · memory_ratio
    scale         = new_time / (compute + memory)
    predicted     = Duration · scale

Kernels **without** pipe counters (GPU traces; Ascend without PipeUtilization) are predicted by
the chosen model: the **roofline** model (:mod:`~mfu_desktop.core.predict.roofline_model`) scales
each by ``T̂_target / T̂_source`` from its FLOPs and bytes when it has either; the **seed** model
(and the roofline model for a kernel with neither) by one ratio per class — cube/mix → compute
ratio, vector → bandwidth ratio (a vector kernel with bytes: its roofline bound decides).

This module works out a rank's inputs once (they do not depend on the target): kernels grouped
by (peak unit, precision, type), and the roofline kernels once more by (group, FLOPs, bytes), so
totals for a target cost O(groups + distinct shapes) whatever the kernel count
(:mod:`~mfu_desktop.core.predict.kernel_model` predicts a target from them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.classify import CLASSES as KERNEL_CLASSES
from mfu_desktop.core.analysis.classify import COMPUTE_CLASSES, KernelClass, class_codes, excluded_label
from mfu_desktop.core.analysis.grouping import codes_of, counts, group_ids, lookup, sums
from mfu_desktop.core.chips.dtypes import ComputeDtype, compute_dtype, first_input_dtype
from mfu_desktop.core.chips.vendor_terms import VendorTerms, vendor_terms
from mfu_desktop.core.predict.error_categories import BASE_CATEGORIES, base_category
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
    #: Kernels without pipe times that have FLOPs or bytes, by (group, FLOPs, bytes): group, category,
    #: flops, bytes, duration_us, count (what the roofline model scales).
    shapes: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: How the kernels without pipe times are predicted, per model (the caveat each prediction states).
    fallback_flags: dict[str, str] = field(default_factory=dict)


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
    flops, nbytes = _work(kernels, rows)
    has_work = fallback & ((flops > 0) | (nbytes > 0))
    groups = _group_table(frame, ids, first, compute, memory, fallback, by_memory, has_work)
    shapes = _shape_table(frame, ids, groups, flops, nbytes, has_work)
    flags = _input_flags(precision, fallback, by_memory, ~has_work)
    fallback_flags = _fallback_flags(fallback, by_roofline, has_work, _terms_of(kernels))
    return KernelInputs(frame, groups, excluded, flags, shapes, fallback_flags)


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
                 memory: np.ndarray, fallback: np.ndarray, by_memory: np.ndarray,
                 has_work: np.ndarray) -> pd.DataFrame:
    """One row per group: its key, count, and summed durations split by the pipe shares.

    Args:
        frame: The per-kernel frame.
        ids: Group id per kernel.
        first: Position of each group's first kernel.
        compute: Compute pipe time per kernel.
        memory: Memory pipe time per kernel.
        fallback: Per kernel, whether it has no pipe times.
        by_memory: Per kernel without pipe times, whether it scales with the bandwidth ratio.
        has_work: Per kernel without pipe times, whether it has FLOPs or bytes (the roofline model's).

    Returns:
        The :attr:`KernelInputs.groups` table; ``roofline_us`` (and ``roofline_memory_us``, the part
        of it the seed model scales by bandwidth) is the time the roofline model takes over.
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
        "roofline_us": sums(ids[has_work], g, dur[has_work]),
        "roofline_memory_us": sums(ids[has_work & by_memory], g, dur[has_work & by_memory]),
        "category": [base_category(str(t)) for t in frame["type"].array.take(first)],
    })


def _input_flags(precision: np.ndarray, fallback: np.ndarray, by_memory: np.ndarray,
                 without_work: np.ndarray) -> list[str]:
    """The caveats of a rank's inputs: kernels without a floating-point dtype.

    Only kernels whose time scales with a peak need a precision: a kernel without pipe times
    predicted by the bandwidth ratio (and without FLOPs) does not.
    """
    flags: list[str] = []
    uses_peak = ~(fallback & by_memory & without_work)
    unknown = (precision == _UNKNOWN_CODE) & uses_peak
    if unknown.any():
        flags.append(f"{int(unknown.sum()):,} compute kernels have no input dtype: the FP16 peaks are used")
    other = (precision == _OTHER_CODE) & uses_peak
    if other.any():
        flags.append(f"{int(other.sum()):,} compute kernels have a non-floating-point input dtype (INT32, INT64, "
                     "BOOL …): the FP16 peaks are used")
    return flags


#: How a kernel without pipe times was predicted: not at all (it has pipe times), by its roofline bound, by its
#: class (the seed model), from its FLOPs and bytes (the roofline model).
FALLBACKS = ("", "roofline bound", "class", "roofline model")


def _work(kernels: pd.DataFrame, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FLOPs and minimum bytes of the predicted kernels (NaN where unknown or the frame has none)."""
    flops = kernels["flops"].to_numpy(dtype=np.float64)[rows] if "flops" in kernels.columns else \
        np.full(len(rows), np.nan)
    nbytes = kernels["bytes"].to_numpy(dtype=np.float64)[rows] if "bytes" in kernels.columns else \
        np.full(len(rows), np.nan)
    return flops, nbytes


def _shape_table(frame: pd.DataFrame, ids: np.ndarray, groups: pd.DataFrame, flops: np.ndarray,
                 nbytes: np.ndarray, has_work: np.ndarray) -> pd.DataFrame:
    """The roofline kernels by (group, FLOPs, bytes); stores each kernel's row in ``frame["shape"]`` (−1: none).

    Returns:
        ``group``, ``category`` (index into :data:`BASE_CATEGORIES`), ``flops``, ``bytes``,
        ``duration_us`` and ``count`` per distinct shape.
    """
    where = np.flatnonzero(has_work)
    shape = np.full(len(frame), -1, dtype=np.int32)
    if not len(where):
        frame["shape"] = shape
        return pd.DataFrame({"group": np.array([], dtype=np.int64), "category": np.array([], dtype=np.int8),
                             "flops": [], "bytes": [], "duration_us": [], "count": []})
    f_codes, _ = pd.factorize(flops[where], use_na_sentinel=True)
    b_codes, _ = pd.factorize(nbytes[where], use_na_sentinel=True)
    sid, first = group_ids([ids[where], f_codes, b_codes])
    shape[where] = sid
    frame["shape"] = shape
    n = len(first)
    group = ids[where][first]
    category = np.array([BASE_CATEGORIES.index(c) for c in groups["category"]], dtype=np.int8)[group]
    dur = frame["duration_us"].to_numpy()[where]
    return pd.DataFrame({"group": group, "category": category, "flops": flops[where][first],
                         "bytes": nbytes[where][first], "duration_us": sums(sid, n, dur), "count": counts(sid, n)})


def _fallback_sides(kernels: pd.DataFrame, rows: np.ndarray, fallback: np.ndarray,
                    is_vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which kernels without pipe times scale with the bandwidth ratio, and which were decided by the roofline.

    This is the seed model's rule (the roofline model replaces it for kernels with FLOPs or
    bytes). A vector kernel whose bytes (and FLOPs) are known has a roofline bound (mfu.md §6):
    memory-bound → the bandwidth ratio, compute-bound → the vector peak ratio. Cube and mix
    kernels keep their class (the cube peak ratio) whatever their bound, as issue 13 decided on
    14 public rows; on the 21,708 pairs of docs/accuracy.md that costs the seed model its
    memory-bound GEMMs (median |error| 50.8 % against the roofline model's 16.4 %). Without
    bytes, the class decides (vector → bandwidth), as the seed's model did.
    """
    bound = kernels["bound"].cat.codes.to_numpy()[rows] if "bound" in kernels.columns else np.full(len(rows), -1)
    by_roofline = fallback & (bound >= 0) & is_vec
    by_memory = np.where(by_roofline, bound == 1, is_vec)
    return by_memory, by_roofline


def _fallback_flags(fallback: np.ndarray, by_roofline: np.ndarray, has_work: np.ndarray,
                    terms: VendorTerms) -> dict[str, str]:
    """Per model, the caveat naming how kernels without pipe times were predicted (why, in the vendor's words)."""
    n, roof, work = int(fallback.sum()), int(by_roofline.sum()), int(has_work.sum())
    if not n:
        return {}
    text = f"{n:,} compute kernels have no pipe times ({terms.no_pipe_times}): "
    unit = "matrix" if terms.gpu else "cube/mix"
    seed = []
    if roof:
        seed.append(f"{roof:,} predicted by their roofline bound from bytes and FLOPs (memory-bound → bandwidth "
                    "ratio, compute-bound → peak ratio)")
    if n - roof:
        seed.append(f"{n - roof:,} without bytes by their class ({unit} → compute ratio, vector → memory ratio)")
    roofline = []
    if work:
        roofline.append(f"{work:,} predicted by the roofline model from their FLOPs and bytes (measured × T̂ target / "
                        "T̂ source, with latency floors)")
    if n - work:
        roofline.append(f"{n - work:,} without FLOPs or bytes by their class ({unit} → compute ratio, vector → "
                        "memory ratio)")
    return {"seed": text + "; ".join(seed), "roofline": text + "; ".join(roofline)}
