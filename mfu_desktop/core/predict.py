"""Cross-chip prediction: how fast would this profile run on another accelerator (prediction.md).

Per kernel (vectorised over the kernel frame)::

    compute_ratio = source_peak / target_peak        # cube or vector peak, by class and precision
    memory_ratio  = source_hbm_bw / target_hbm_bw
    new_time      = compute · compute_ratio + memory · memory_ratio
    scale         = new_time / (compute + memory)
    predicted     = Duration · scale

Architecture rules (950 MatMul ×1.2 / FlashAttention ×2.0 effective peak, 950PR bandwidth
equivalence) are data in a :class:`Rule` table, and each predicted kernel records which rules
touched it. The step composite adds real communication (longest link per operator from the
communication matrix) scaled by interconnect bandwidth, unchanged waiting, and free time over
the host CPU coefficient, composed by time (the README's arithmetic-mean formula is shown
beside it, labelled).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.chips import Chip, ChipCatalog
from mfu_desktop.core.classify import CLASSES as KERNEL_CLASSES
from mfu_desktop.core.classify import COMPUTE_CLASSES, KernelClass, class_codes, excluded_label
from mfu_desktop.core.dtypes import ComputeDtype, compute_dtype, first_input_dtype
from mfu_desktop.core.grouping import categorical, codes_of, counts, group_ids, lookup, sums
from mfu_desktop.core.profiler import columns as C
from mfu_desktop.core.profiler.communication import CommMatrix
from mfu_desktop.core.profiler.step_trace import StepTrace

#: The seed predictor's default baseline.
DEFAULT_SOURCE = "Huawei Ascend 910B"
#: Targets compared by default (the seed README's list plus the common NVIDIA parts).
DEFAULT_TARGETS = ("Huawei Ascend 910C", "Huawei Ascend 950DT", "Huawei Ascend 950PR", "NVIDIA H200", "NVIDIA H20",
                   "NVIDIA H100 SXM")

CLASSES = ("cube", "vector", "mix")
#: Precision of a kernel whose first input is not a matmul precision (INT32, INT64, BOOL …) / has no dtype.
OTHER_PRECISION = "other"
UNKNOWN_PRECISION = "unknown"

MATMUL_TYPES = ("MatMul", "BatchMatMul", "GroupedMatmul", "QuantBatchMatmul", "WeightQuantBatchMatmul")
FA_TYPES = ("FlashAttentionScore", "FlashAttentionScoreGrad", "FusedInferAttentionScore", "PromptFlashAttention",
            "IncreFlashAttention")


@dataclass(frozen=True)
class Rule:
    """One architecture rule (prediction.md §3), editable as a table row.

    Attributes:
        name: Shown in every detail row the rule touches.
        kind: ``efficiency`` (effective cube peak × factor for matching kernels on matching chips)
            or ``bandwidth`` (a chip's HBM bandwidth replaced by ``value`` when both chips are of
            ``peer_vendor``).
        chips: Case-insensitive substring of the chip identifier the rule applies to.
        op_types: Operator type prefixes (``efficiency`` rules).
        factor: Efficiency multiplier (``efficiency`` rules).
        value: Replacement bandwidth in GB/s (``bandwidth`` rules).
        peer_vendor: ``bandwidth`` rules apply only when both chips have this vendor.
        enabled: Off rules are listed but not applied.
        note: Why (source, assumption).
    """

    name: str
    kind: str
    chips: str
    op_types: tuple[str, ...] = ()
    factor: float = 1.0
    value: float | None = None
    peer_vendor: str = ""
    enabled: bool = True
    note: str = ""

    def matches_chip(self, chip: Chip) -> bool:
        """True when the rule's chip pattern is in the chip's identifier."""
        return self.chips.lower() in chip.identifier.lower()


DEFAULT_RULES: tuple[Rule, ...] = (
    Rule("950 MatMul ×1.2", "efficiency", "Ascend 950", MATMUL_TYPES, 1.2,
         note="seed §5: at equal FLOPS, Cube MatMul kernels run 1.2× as efficiently on 950 as on 910B/910C "
              "(no public source; an assumption)"),
    Rule("950 FlashAttention ×2.0", "efficiency", "Ascend 950", FA_TYPES, 2.0,
         note="seed §5: Cube FlashAttention kernels 2.0× as efficient on 950 (no public source; an assumption)"),
    Rule("950PR bandwidth = 1600 GB/s among Ascend chips", "bandwidth", "Ascend 950PR", value=1600.0,
         peer_vendor="Huawei",
         note="seed §6: between Ascend chips 950PR's 1.4 TB/s counts as 910B's 1.6 TB/s (an assumption)"),
)

RULE_COLUMNS = ("enabled", "name", "kind", "chips", "op_types", "factor", "value", "peer_vendor", "note")


def rules_to_csv(rules: tuple[Rule, ...] | list[Rule]) -> str:
    """The rules table as CSV (``op_types`` joined by ``;``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RULE_COLUMNS)
    for r in rules:
        writer.writerow([str(r.enabled).lower(), r.name, r.kind, r.chips, ";".join(r.op_types), r.factor,
                         "" if r.value is None else r.value, r.peer_vendor, r.note])
    return out.getvalue()


def rules_from_csv(text: str) -> tuple[list[Rule], list[str]]:
    """Parse an edited rules table; malformed rows are reported with their line and skipped."""
    rules: list[Rule] = []
    problems: list[str] = []
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    for line, row in enumerate(reader, start=2):
        try:
            kind = (row.get("kind") or "").strip()
            if kind not in ("efficiency", "bandwidth"):
                raise ValueError(f"kind {kind!r} is not efficiency or bandwidth")
            value = (row.get("value") or "").strip()
            rules.append(Rule(
                name=(row.get("name") or "").strip() or f"rule {line}",
                kind=kind,
                chips=(row.get("chips") or "").strip(),
                op_types=tuple(t.strip() for t in (row.get("op_types") or "").split(";") if t.strip()),
                factor=float(row.get("factor") or 1.0),
                value=float(value) if value else None,
                peer_vendor=(row.get("peer_vendor") or "").strip(),
                enabled=(row.get("enabled") or "true").strip().lower() not in ("false", "0", "no", "off"),
                note=(row.get("note") or "").strip(),
            ))
        except (ValueError, TypeError) as exc:
            problems.append(f"rules line {line}: {exc}; row skipped")
    return rules, problems


# --- per-kernel model -----------------------------------------------------------------------


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
    n = len(kernels)
    flags: list[str] = []
    if n == 0 or C.CORE_TYPE not in kernels.columns:
        reason = "no Accelerator Core column (Level0 capture?)" if n else "no kernels"
        total = float(kernels[C.DURATION_US].sum()) if n else 0.0
        return KernelInputs(pd.DataFrame(), pd.DataFrame(),
                            pd.DataFrame({"class": [reason], "count": [n], "time_us": [total]}), [reason] if n else [])
    all_classes = class_codes(kernels)
    # prediction classes: 0 cube, 1 vector, 2 mix, 3 not predicted (AI CPU, DSA, communication …)
    to_pred = np.full(len(KERNEL_CLASSES), 3, dtype=np.int8)
    for i, k in enumerate(COMPUTE_CLASSES):
        to_pred[KERNEL_CLASSES.index(k.value)] = i
    klass = to_pred[all_classes]
    compute_rows = klass != 3
    if (~compute_rows).any():
        core_codes, core_cats = codes_of(kernels[C.CORE_TYPE])
        comm_code = KERNEL_CLASSES.index(KernelClass.COMM.value)
        excl_name = np.array([excluded_label(str(c)) for c in core_cats] + ["unknown (N/A)"], dtype=object)
        names = lookup(excl_name, core_codes)[~compute_rows]
        names = np.where(all_classes[~compute_rows] == comm_code, "communication", names)
        dur_excl = kernels[C.DURATION_US].to_numpy(dtype=np.float64)[~compute_rows]
        excluded = pd.DataFrame({"class": names, "time_us": dur_excl}).groupby("class", sort=False) \
            .agg(count=("time_us", "size"), time_us=("time_us", "sum")).reset_index()
    else:
        excluded = pd.DataFrame(columns=["class", "count", "time_us"])
    rows = np.flatnonzero(compute_rows)
    sub_klass = klass[rows]

    def col(name: str) -> np.ndarray:
        if name in kernels.columns:
            return kernels[name].to_numpy(dtype=np.float64)[rows]
        return np.full(len(rows), np.nan)

    mac, vec = col("aic_mac_time_us"), col("aiv_vec_time_us")
    is_cube, is_vec = sub_klass == 0, sub_klass == 1
    with np.errstate(invalid="ignore"):
        cube_mem = np.fmax(col("aic_mte1_time_us"), col("aic_mte2_time_us"))
        vec_mem = np.fmax(col("aiv_mte2_time_us"), col("aiv_mte3_time_us"))
        compute = np.nan_to_num(np.select([is_cube, is_vec], [mac, vec], np.fmax(mac, vec)))
        memory = np.nan_to_num(np.select([is_cube, is_vec], [cube_mem, vec_mem], np.fmax(cube_mem, vec_mem)))
    # Mix kernels use the cube peak when the cube's share dominates (stated in the detail file).
    unit = np.where(is_vec, 1, np.where(is_cube, 0, np.where(np.nan_to_num(mac) >= np.nan_to_num(vec), 0, 1)))
    precision_names = [d.value for d in ComputeDtype] + [OTHER_PRECISION, UNKNOWN_PRECISION]
    other_code, unknown_code = len(precision_names) - 2, len(precision_names) - 1
    if C.INPUT_DTYPES in kernels.columns:
        d_codes, d_cats = codes_of(kernels[C.INPUT_DTYPES])
        table = []
        for cat in d_cats:
            first = first_input_dtype(str(cat))
            dtype = compute_dtype(first)
            table.append(precision_names.index(dtype.value) if dtype is not None
                         else (unknown_code if first is None else other_code))
        table.append(unknown_code)
        precision = lookup(np.array(table, dtype=np.int8), d_codes)[rows]
    else:
        precision = np.full(len(rows), unknown_code, dtype=np.int8)

    def take(column: str) -> pd.Categorical:
        if column in kernels.columns:
            values = kernels[column].array
            if isinstance(values, pd.Categorical):
                return values.take(rows)
            return pd.Categorical(np.asarray(values, dtype=object)[rows])
        return pd.Categorical.from_codes(np.zeros(len(rows), dtype=np.int8), categories=["N/A"])

    types = take(C.OP_TYPE)
    if types.isna().any():
        types = types.add_categories(["N/A"]).fillna("N/A") if "N/A" not in types.categories else types.fillna("N/A")
    frame = pd.DataFrame({
        "name": take(C.NAME),
        "type": types,
        "core": take(C.CORE_TYPE),
        "class": pd.Categorical.from_codes(sub_klass, categories=list(CLASSES)),
        "unit": pd.Categorical.from_codes(unit.astype(np.int8), categories=["cube", "vector"]),
        "precision": pd.Categorical.from_codes(precision, categories=precision_names),
        "duration_us": kernels[C.DURATION_US].to_numpy(dtype=np.float64)[rows],
        "compute_us": compute,
        "memory_us": memory,
    }, copy=False)
    if C.STEP_ID in kernels.columns:
        frame["step"] = kernels[C.STEP_ID].array.take(rows)
    keys = [frame[c].cat.codes.to_numpy() for c in ("unit", "precision", "type")]
    ids, first = group_ids(keys)
    frame["group"] = ids.astype(np.int32)
    dur = frame["duration_us"].to_numpy()
    pipe = compute + memory
    fallback = pipe <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        c_share = np.where(fallback, 0.0, compute / pipe)
        m_share = np.where(fallback, 0.0, memory / pipe)
    g = len(first)
    groups = pd.DataFrame({
        "unit": np.asarray(frame["unit"].array.take(first), dtype=object),
        "precision": np.asarray(frame["precision"].array.take(first), dtype=object),
        "type": np.asarray(frame["type"].array.take(first), dtype=object),
        "count": counts(ids, g), "duration_us": sums(ids, g, dur),
        "compute_weighted_us": sums(ids, g, dur * c_share), "memory_weighted_us": sums(ids, g, dur * m_share),
        "fallback_compute_us": sums(ids[fallback & ~is_vec], g, dur[fallback & ~is_vec]),
        "fallback_memory_us": sums(ids[fallback & is_vec], g, dur[fallback & is_vec]),
    })
    if fallback.any():
        flags.append(f"{int(fallback.sum()):,} compute kernels have no pipe times (Level0, or aic_metrics other "
                     "than PipeUtilization): predicted by the fallback (cube/mix → compute ratio, vector → "
                     "memory ratio)")
    unknown = precision == unknown_code
    if unknown.any():
        flags.append(f"{int(unknown.sum()):,} compute kernels have no input dtype: the FP16 peaks are used")
    other = precision == other_code
    if other.any():
        flags.append(f"{int(other.sum()):,} compute kernels have a non-floating-point input dtype (INT32, INT64, "
                     "BOOL …): the FP16 peaks are used")
    return KernelInputs(frame, groups, excluded, flags)


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


def _bandwidth(chip: Chip, other: Chip, rules: list[Rule]) -> tuple[float | None, list[str]]:
    bw = chip.value("hbm_bandwidth_gbs")
    applied = []
    for rule in rules:
        if rule.enabled and rule.kind == "bandwidth" and rule.matches_chip(chip) and rule.value:
            if rule.peer_vendor and not (chip.vendor.lower() == other.vendor.lower() == rule.peer_vendor.lower()):
                continue
            bw = rule.value
            applied.append(rule.name)
    return bw, applied


def _efficiency(chip: Chip, op_type: str, rules: list[Rule]) -> tuple[float, list[str]]:
    """Effective-peak multiplier of ``chip`` for one operator type, and the rules that gave it."""
    factor, names = 1.0, []
    for rule in rules:
        if rule.enabled and rule.kind == "efficiency" and rule.matches_chip(chip) and (
                not rule.op_types or op_type.startswith(rule.op_types)):
            factor *= rule.factor
            names.append(rule.name)
    return factor, names


@dataclass
class GroupRatios:
    """Compute ratio per group, memory ratio, rules and reasons for one (source, target) pair."""

    compute_ratio: np.ndarray
    memory_ratio: float
    reasons: list[str]
    rules: list[str]
    flags: list[str]


def group_ratios(groups: pd.DataFrame, source: Chip, target: Chip, rules: list[Rule]) -> GroupRatios:
    """Per (unit, precision, type): compute_ratio = effective source peak / effective target peak."""
    flags: set[str] = set()
    s_bw, s_bw_rules = _bandwidth(source, target, rules)
    t_bw, t_bw_rules = _bandwidth(target, source, rules)
    bw_rules = [f"{r} (source)" for r in s_bw_rules] + [f"{r} (target)" for r in t_bw_rules]
    memory_ratio = s_bw / t_bw if s_bw and t_bw else float("nan")
    memory_reason = "" if s_bw and t_bw else \
        f"HBM bandwidth not published for {source.display_name if not s_bw else target.display_name}"
    ratios, reasons, labels = [], [], []
    for unit, precision, op_type in zip(groups["unit"], groups["precision"], groups["type"]):
        s_col, s_flag = _peak_column(unit, precision, source)
        t_col, t_flag = _peak_column(unit, precision, target)
        flags.update(f for f in (s_flag, t_flag) if f)
        s_val, t_val = source.value(s_col), target.value(t_col)
        names = []
        s_fac = t_fac = 1.0
        if unit == "cube":  # architecture efficiency rules act on the cube peak
            s_fac, s_names = _efficiency(source, str(op_type), rules)
            t_fac, t_names = _efficiency(target, str(op_type), rules)
            names = [f"{n} (source)" for n in s_names] + [f"{n} (target)" for n in t_names]
        labels.append("; ".join(names + bw_rules))
        if s_val is None or t_val is None:
            ratios.append(float("nan"))
            who = source if s_val is None else target
            reasons.append(f"{s_col if s_val is None else t_col} not published for {who.display_name}")
        else:
            ratios.append((s_val * s_fac) / (t_val * t_fac))
            reasons.append(memory_reason)
    return GroupRatios(np.array(ratios, dtype=np.float64), memory_ratio, reasons, labels, sorted(flags))


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


def target_totals(inputs: KernelInputs, source: Chip, target: Chip, rules: list[Rule]) -> TargetKernels:
    """Totals for one target from the group sums: O(groups), whatever the kernel count."""
    g = inputs.groups
    if g.empty:
        return TargetKernels(target.display_name, 0.0, 0.0, 0.0, 0.0, [], [])
    r = group_ratios(g, source, target, rules)
    cr = r.compute_ratio
    mr = r.memory_ratio
    predicted_g = (cr * g["compute_weighted_us"].to_numpy() + mr * g["memory_weighted_us"].to_numpy()
                   + cr * g["fallback_compute_us"].to_numpy() + mr * g["fallback_memory_us"].to_numpy())
    # A group is predictable when every ratio its kernels use is known.
    needs_cr = (g["compute_weighted_us"].to_numpy() + g["fallback_compute_us"].to_numpy()) > 0
    needs_mr = (g["memory_weighted_us"].to_numpy() + g["fallback_memory_us"].to_numpy()) > 0
    ok = (~needs_cr | np.isfinite(cr)) & (~needs_mr | np.isfinite(mr))
    dur = g["duration_us"].to_numpy()
    by_reason: dict[str, float] = {}
    for i in np.flatnonzero(~ok):
        reason = r.reasons[i] or (f"HBM bandwidth not published for {target.display_name}")
        by_reason[reason] = by_reason.get(reason, 0.0) + float(dur[i])
    used = sorted({name for i in np.flatnonzero(ok & (dur > 0)) for name in r.rules[i].split("; ") if name})
    return TargetKernels(
        device=target.display_name,
        predicted_us=float(np.where(ok, predicted_g, 0.0).sum()),
        baseline_us=float(dur[ok].sum()),
        unpredictable_us=float(dur[~ok].sum()),
        fallback_us=float((g["fallback_compute_us"].to_numpy() + g["fallback_memory_us"].to_numpy())[ok].sum()),
        rules=used,
        flags=r.flags,
        unpredictable_by_reason=by_reason,
    )


def predict_kernels(inputs: KernelInputs, source: Chip, target: Chip, rules: list[Rule]) -> TargetKernels:
    """Per-kernel prediction for one target (the detail table): ratios, scale, predicted duration, rules."""
    totals = target_totals(inputs, source, target, rules)
    f = inputs.frame
    if f.empty:
        return totals
    r = group_ratios(inputs.groups, source, target, rules)
    group = f["group"].to_numpy()
    compute_ratio = r.compute_ratio[group]
    memory_ratio = np.full(len(f), r.memory_ratio)
    compute = f["compute_us"].to_numpy()
    memory = f["memory_us"].to_numpy()
    pipe = compute + memory
    fallback = pipe <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(fallback, np.where(f["class"].to_numpy() == "vector", memory_ratio, compute_ratio),
                         (compute * compute_ratio + memory * memory_ratio) / pipe)
    predictable = np.isfinite(scale)
    totals.frame = pd.DataFrame({
        "compute_ratio": compute_ratio, "memory_ratio": memory_ratio, "scale": scale,
        "predicted_us": np.where(predictable, f["duration_us"].to_numpy() * scale, np.nan),
        "fallback": fallback,
        "rules": categorical(r.rules, group),
        "reason": categorical([x or "ratio unknown" for x in r.reasons], np.where(predictable, -1, group)),
    }, copy=False)
    return totals


# --- step composite -------------------------------------------------------------------------


@dataclass
class StepComposite:
    """Predicted step of one rank on one target (prediction.md §4)."""

    measured_step_us: float | None = None
    predicted_step_us: float | None = None
    relative: float | None = None
    readme_relative: float | None = None
    computing_us: float | None = None
    comm_not_overlapped_us: float | None = None
    free_us: float | None = None
    comm_real_us: float | None = None
    comm_wait_us: float | None = None
    predicted_computing_us: float | None = None
    predicted_comm_us: float | None = None
    predicted_free_us: float | None = None
    step: str | None = None
    notes: list[str] = field(default_factory=list)

    def comm_line(self, lang: str = "en") -> str:
        """The seed's "未掩盖通信: … (真实通信: …, 等待: …)" line, in English or Chinese."""
        if self.comm_not_overlapped_us is None or self.comm_real_us is None:
            return ""
        if lang.startswith("zh"):
            return (f"未掩盖通信: {self.comm_not_overlapped_us:.2f} us（真实通信: {self.comm_real_us:.2f} us, "
                    f"等待: {self.comm_wait_us:.2f} us）")
        return (f"Comm (not overlapped): {self.comm_not_overlapped_us:.2f} us (transfer: {self.comm_real_us:.2f} us, "
                f"wait: {self.comm_wait_us:.2f} us)")


def step_composite(trace: StepTrace | None, comm: CommMatrix | None, compute_speedup: float | None,
                   source: Chip, target: Chip, default_cpu: float | None = None) -> StepComposite:
    """Compose the predicted step from the step trace, the communication matrix and the compute speed-up.

    ``compute_speedup`` = measured compute-class time / predicted (over the same kernels).
    """
    out = StepComposite()
    if trace is None or trace.empty:
        out.notes.append("no step trace: step-level prediction unavailable")
        return out
    valid = trace.frame[trace.frame["step_time_us"].notna()]
    if valid.empty:
        out.notes.append("step trace has no complete row")
        return out
    row = valid.iloc[-1]  # the last step (prediction.md §4.1)
    out.step = str(row["step"])
    out.computing_us = float(row["computing"])
    out.comm_not_overlapped_us = float(row["comm_not_overlapped"])
    out.free_us = float(row["free"])
    out.measured_step_us = out.computing_us + out.comm_not_overlapped_us + out.free_us
    if comm is not None and comm.ops:
        real, _, n_ops = comm.real_communication(out.step if out.step else None)
        out.notes.append(f"real communication: Σ longest link over {n_ops} collective operator(s) "
                         f"({comm.layout}) of step {out.step or 'last'}")
    else:
        real = 0.0
        out.notes.append("no communication matrix: all not-overlapped communication counted as waiting")
    wait = out.comm_not_overlapped_us - real
    if wait < 0:
        out.notes.append(f"real transfer ({real:.1f} µs) exceeds not-overlapped communication "
                         f"({out.comm_not_overlapped_us:.1f} µs): wait clamped to 0 and transfer to the not-overlapped "
                         "time")
        real = out.comm_not_overlapped_us
        wait = 0.0
    out.comm_real_us = real
    out.comm_wait_us = wait
    if compute_speedup is None or not math.isfinite(compute_speedup) or compute_speedup <= 0:
        out.notes.append("compute speed-up unknown: step not predicted")
        return out
    src_ic, tgt_ic = source.value("interconnect_bandwidth"), target.value("interconnect_bandwidth")
    cpu_src, cpu_tgt = source.value("cpu"), target.value("cpu")
    if cpu_src is None and default_cpu:
        cpu_src = default_cpu
        out.notes.append(f"cpu coefficient of {source.display_name} assumed {default_cpu:g}")
    if cpu_tgt is None and default_cpu:
        cpu_tgt = default_cpu
        out.notes.append(f"cpu coefficient of {target.display_name} assumed {default_cpu:g}")
    missing = []
    if real > 0 and (not src_ic or not tgt_ic):
        missing.append("interconnect bandwidth")
    if out.free_us > 0 and (not cpu_src or not cpu_tgt):
        missing.append("cpu coefficient")
    if missing:
        who = target.display_name if (target.value("cpu") is None or target.value("interconnect_bandwidth") is None) \
            else source.display_name
        out.notes.append(f"{' and '.join(missing)} not set for {who} (an assumption of the seed model; set it in the "
                         "catalog): step not predicted")
        return out
    ic_ratio = src_ic / tgt_ic if src_ic and tgt_ic else 1.0
    cpu_ratio = cpu_src / cpu_tgt if cpu_src and cpu_tgt else 1.0
    out.predicted_computing_us = out.computing_us / compute_speedup
    out.predicted_comm_us = real * ic_ratio + wait
    out.predicted_free_us = out.free_us * cpu_ratio
    out.predicted_step_us = out.predicted_computing_us + out.predicted_comm_us + out.predicted_free_us
    if out.predicted_step_us > 0:
        out.relative = out.measured_step_us / out.predicted_step_us
    total = out.measured_step_us
    if total > 0:
        share_c = out.computing_us / total
        share_comm = out.comm_not_overlapped_us / total
        share_free = out.free_us / total
        out.readme_relative = compute_speedup * share_c + (1.0 / ic_ratio) * share_comm + share_free
    return out


# --- several ranks, several targets ---------------------------------------------------------


@dataclass
class TargetResult:
    """One target chip over every rank."""

    device: str
    chip: Chip
    predicted_compute_us: float
    baseline_compute_us: float
    relative_performance: float | None
    predicted_step_us: float | None
    step_relative_performance: float | None
    readme_formula_relative_performance: float | None
    comm_real_us: float | None
    comm_wait_us: float | None
    fallback_time_share: float
    unpredictable_time_share: float
    rules: list[str]
    slowest_rank: int | None
    per_rank: pd.DataFrame
    notes: list[str] = field(default_factory=list)


@dataclass
class RankInput:
    """What the predictor needs from one rank."""

    rank: int
    kernels: pd.DataFrame
    trace: StepTrace | None = None
    comm: CommMatrix | None = None


@dataclass
class Prediction:
    """The prediction of a profile on several targets."""

    source: Chip
    ranks: list[int]
    baseline_compute_us: float
    targets: list[TargetResult]
    excluded: pd.DataFrame
    warnings: list[str]
    rules: list[Rule]
    details: dict[tuple[int, str], pd.DataFrame] = field(default_factory=dict)
    inputs: dict[int, KernelInputs] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """The ``mfu predict --json`` object."""
        def num(v: float | None) -> float | None:
            return None if v is None or not math.isfinite(v) else float(v)

        return {
            "source": self.source.display_name,
            "ranks": self.ranks,
            "baseline_compute_us": self.baseline_compute_us,
            "targets": [{
                "device": t.device,
                "predicted_compute_us": t.predicted_compute_us,
                "relative_performance": num(t.relative_performance),
                "predicted_step_us": num(t.predicted_step_us),
                "step_relative_performance": num(t.step_relative_performance),
                "readme_formula_relative_performance": num(t.readme_formula_relative_performance),
                "comm_real_us": num(t.comm_real_us),
                "comm_wait_us": num(t.comm_wait_us),
                "fallback_time_share": t.fallback_time_share,
                "rules": t.rules,
                "unpredictable_time_share": t.unpredictable_time_share,
                "slowest_rank": t.slowest_rank,
                "notes": t.notes,
            } for t in self.targets],
            "excluded": [{"class": r["class"], "count": int(r["count"]), "time_us": float(r["time_us"])}
                         for _, r in self.excluded.iterrows()],
            "warnings": self.warnings,
        }


def predict(ranks: list[RankInput], source: Chip, targets: list[Chip], rules: list[Rule] | None = None,
            default_cpu: float | None = None, keep_details: bool = False) -> Prediction:
    """Predict every rank on every target (prediction.md §2–§5).

    Args:
        ranks: Kernels, step trace and communication matrix of each rank.
        source: The chip that ran the profile.
        targets: Chips to predict.
        rules: Architecture rules (default: :data:`DEFAULT_RULES`).
        default_cpu: CPU coefficient assumed for chips without one (``None``: step not predicted).
        keep_details: Keep the per-kernel frames (for the detail CSV and the GUI table).
    """
    rules = list(DEFAULT_RULES if rules is None else rules)
    warnings: list[str] = []
    inputs = {r.rank: kernel_inputs(r.kernels) for r in ranks}
    for rank, inp in inputs.items():
        warnings.extend(f"rank {rank}: {flag}" for flag in inp.flags)
    excluded = pd.concat([inp.excluded for inp in inputs.values()], ignore_index=True) if inputs else pd.DataFrame()
    if not excluded.empty:
        excluded = excluded.groupby("class", sort=False).agg(count=("count", "sum"), time_us=("time_us", "sum")) \
            .reset_index()
    baseline = float(sum(inp.frame["duration_us"].sum() for inp in inputs.values() if not inp.frame.empty))
    if "910C" in source.identifier and "die" not in source.identifier.lower():
        warnings.append(f"source {source.display_name} is a package row (two dies); a rank is one die: use "
                        "'Ascend 910C die …' for per-rank comparisons")
    results: list[TargetResult] = []
    details: dict[tuple[int, str], pd.DataFrame] = {}
    for target in targets:
        rows = []
        notes: list[str] = []
        unpredictable_reasons: dict[str, float] = {}
        rule_names: set[str] = set()
        pred_total = base_total = unpred = fallback = 0.0
        for r in ranks:
            tk = (predict_kernels if keep_details else target_totals)(inputs[r.rank], source, target, rules)
            rule_names.update(tk.rules)
            notes.extend(tk.flags)
            for reason, us in tk.unpredictable_by_reason.items():
                unpredictable_reasons[reason] = unpredictable_reasons.get(reason, 0.0) + us
            pred_total += tk.predicted_us
            base_total += tk.baseline_us
            unpred += tk.unpredictable_us
            fallback += tk.fallback_us
            speedup = tk.baseline_us / tk.predicted_us if tk.predicted_us > 0 else None
            comp = step_composite(r.trace, r.comm, speedup, source, target, default_cpu)
            notes.extend(n for n in comp.notes if "step not predicted" in n or "clamped" in n)
            rows.append({"rank": r.rank, "baseline_compute_us": tk.baseline_us, "predicted_compute_us": tk.predicted_us,
                         "relative_performance": speedup, "measured_step_us": comp.measured_step_us,
                         "predicted_step_us": comp.predicted_step_us, "step_relative_performance": comp.relative,
                         "readme_formula_relative_performance": comp.readme_relative, "computing_us": comp.computing_us,
                         "comm_not_overlapped_us": comp.comm_not_overlapped_us, "free_us": comp.free_us,
                         "comm_real_us": comp.comm_real_us, "comm_wait_us": comp.comm_wait_us,
                         "predicted_computing_us": comp.predicted_computing_us,
                         "predicted_comm_us": comp.predicted_comm_us, "predicted_free_us": comp.predicted_free_us,
                         "comm_line": comp.comm_line()})
            if keep_details and tk.frame is not None and not tk.frame.empty:
                details[(r.rank, target.display_name)] = tk.frame
        per_rank = pd.DataFrame(rows)
        step_pred = per_rank["predicted_step_us"].dropna() if not per_rank.empty else pd.Series(dtype=float)
        slowest = None
        step_us = step_rel = readme = real = wait = None
        if not step_pred.empty:
            slow_idx = per_rank["predicted_step_us"].idxmax()
            slowest = int(per_rank.loc[slow_idx, "rank"])
            step_us = float(step_pred.mean())
            measured = per_rank.loc[step_pred.index, "measured_step_us"]
            step_rel = float(measured.mean() / step_us) if step_us > 0 else None
            readme = float(per_rank.loc[step_pred.index, "readme_formula_relative_performance"].mean())
        if not per_rank.empty and per_rank["comm_real_us"].notna().any():
            real = float(per_rank["comm_real_us"].mean())
            wait = float(per_rank["comm_wait_us"].mean())
        for reason, us in unpredictable_reasons.items():
            notes.append(f"{us:,.1f} µs of compute time over {len(ranks)} rank(s) cannot be predicted: {reason} "
                         "(a blank catalog value stays unknown)")
        all_compute = base_total + unpred
        results.append(TargetResult(
            device=target.display_name, chip=target, predicted_compute_us=pred_total, baseline_compute_us=base_total,
            relative_performance=base_total / pred_total if pred_total > 0 else None,
            predicted_step_us=step_us, step_relative_performance=step_rel,
            readme_formula_relative_performance=readme, comm_real_us=real, comm_wait_us=wait,
            fallback_time_share=fallback / all_compute if all_compute > 0 else 0.0,
            unpredictable_time_share=unpred / all_compute if all_compute > 0 else 0.0,
            rules=sorted(rule_names), slowest_rank=slowest, per_rank=per_rank, notes=sorted(set(notes)),
        ))
    return Prediction(source, [r.rank for r in ranks], baseline, results, excluded, warnings, rules, details, inputs)


# --- outputs --------------------------------------------------------------------------------

SUMMARY_COLUMNS = ("device", "architecture", "CubeFP16", "CubeFP32", "VecFP16", "VecFP32", "bandwidth_gbs",
                   "predicted_compute_us", "relative_performance")


def summary_frame(prediction: Prediction) -> pd.DataFrame:
    """``performance_prediction.csv``: one row per target (seed columns first, then the step level)."""
    rows = []
    for t in prediction.targets:
        c = t.chip
        rows.append({
            "device": t.device, "architecture": c.architecture, "CubeFP16": c.value("cube_fp16_tflops"),
            "CubeFP32": c.value("cube_fp32_tflops"), "VecFP16": c.value("vector_fp16_tflops"),
            "VecFP32": c.value("vector_fp32_tflops"), "bandwidth_gbs": c.value("hbm_bandwidth_gbs"),
            "predicted_compute_us": t.predicted_compute_us, "relative_performance": t.relative_performance,
            "predicted_step_us": t.predicted_step_us, "step_relative_performance": t.step_relative_performance,
            "readme_formula_relative_performance": t.readme_formula_relative_performance,
            "comm_real_us": t.comm_real_us, "comm_wait_us": t.comm_wait_us,
            "fallback_time_share": t.fallback_time_share, "unpredictable_time_share": t.unpredictable_time_share,
            "slowest_rank": t.slowest_rank, "rules": "; ".join(t.rules),
            "source": prediction.source.display_name, "source_row": prediction.source.origin,
        })
    return pd.DataFrame(rows)


def step_breakdown_frame(prediction: Prediction) -> pd.DataFrame:
    """Mean step breakdown over ranks: the measured source first, then each target's prediction."""
    rows = []
    first = next((t for t in prediction.targets if not t.per_rank.empty), None)
    if first is not None and first.per_rank["computing_us"].notna().any():
        pr = first.per_rank
        rows.append({"device": f"{prediction.source.display_name} (measured)",
                     "computing_us": pr["computing_us"].mean(),
                     "comm_us": pr["comm_not_overlapped_us"].mean(), "free_us": pr["free_us"].mean()})
    for t in prediction.targets:
        pr = t.per_rank
        if pr.empty or not pr["predicted_step_us"].notna().any():
            continue
        rows.append({"device": t.device, "computing_us": pr["predicted_computing_us"].mean(),
                     "comm_us": pr["predicted_comm_us"].mean(), "free_us": pr["predicted_free_us"].mean()})
    return pd.DataFrame(rows, columns=["device", "computing_us", "comm_us", "free_us"])


DETAIL_COLUMNS = ("rank", "device", "name", "type", "accelerator_core", "class", "precision", "peak_unit",
                  "duration_us", "compute_us", "memory_us", "compute_ratio", "memory_ratio", "scale", "predicted_us",
                  "fallback", "rules", "reason")


def detail_frame(prediction: Prediction) -> pd.DataFrame:
    """``kernel_prediction_detail.csv``: one row per (kernel, target) with the §1 columns."""
    parts = []
    for (rank, device), frame in prediction.details.items():
        base = prediction.inputs[rank].frame
        part = pd.DataFrame({
            "rank": rank, "device": device, "name": base["name"], "type": base["type"],
            "accelerator_core": base["core"], "class": base["class"], "precision": base["precision"],
            "peak_unit": base["unit"], "duration_us": base["duration_us"], "compute_us": base["compute_us"],
            "memory_us": base["memory_us"],
        })
        for col in ("compute_ratio", "memory_ratio", "scale", "predicted_us", "fallback", "rules", "reason"):
            part[col] = frame[col].to_numpy()
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=list(DETAIL_COLUMNS))
    return pd.concat(parts, ignore_index=True)


def console_table(prediction: Prediction, lang: str = "en") -> str:
    """The seed's console table, sorted by relative performance, baseline line at the bottom."""
    zh = lang.startswith("zh")
    title = ("预测结果: 各芯片相对性能对比 (基线=1.0)" if zh
             else "Prediction: relative performance per chip (baseline = 1.0)")
    head = (f"{'设备' if zh else 'Device':<34} {'架构' if zh else 'Arch':<5} {'CubeFP16':>9} {'CubeFP32':>9} "
            f"{'VecFP16':>8} {'VecFP32':>8} {'带宽GB/s' if zh else 'BW GB/s':>9} "
            f"{'预估耗时(us)' if zh else 'Predicted (us)':>16} {'相对性能' if zh else 'Relative':>9}")
    lines = ["=" * 80, title, "=" * 80, head, "-" * 120]

    def fmt(v: float | None, width: int, digits: int = 1) -> str:
        return f"{'–' if v is None else f'{v:.{digits}f}':>{width}}"

    for t in sorted(prediction.targets, key=lambda t: -(t.relative_performance or 0)):
        c = t.chip
        rel = f"{t.relative_performance:.2f}x" if t.relative_performance else "–"
        lines.append(f"{t.device[:34]:<34} {c.architecture[:5]:<5} {fmt(c.value('cube_fp16_tflops'), 9)} "
                     f"{fmt(c.value('cube_fp32_tflops'), 9)} {fmt(c.value('vector_fp16_tflops'), 8, 2)} "
                     f"{fmt(c.value('vector_fp32_tflops'), 8, 2)} {fmt(c.value('hbm_bandwidth_gbs'), 9, 0)} "
                     f"{t.predicted_compute_us:16.2f} {rel:>9}")
    label = "基线" if zh else "Baseline"
    compute = "计算类耗时" if zh else "compute-class time"
    lines.append(f"{label} ({prediction.source.display_name}) = 1.00x "
                 f"({compute} {prediction.baseline_compute_us:.2f} us)")
    return "\n".join(lines)


def resolve_targets(catalog: ChipCatalog, names: list[str] | None) -> list[Chip]:
    """Target chips by name (default list when ``names`` is empty); raises on unknown names."""
    chosen = names or list(DEFAULT_TARGETS)
    return [catalog.find(n) for n in chosen]


def with_rules_disabled(rules: list[Rule]) -> list[Rule]:
    """The same rules, all switched off (for comparisons with the seed script)."""
    return [replace(r, enabled=False) for r in rules]


def write_outputs(prediction: Prediction, folder: Path) -> list[Path]:
    """Write ``performance_prediction.csv``, ``kernel_prediction_detail.csv`` and ``architecture_rules.csv``.

    The rules file records the rules the prediction used; edited, it is the ``--rules`` input.
    """
    from mfu_desktop.core.report import write_csv, write_text

    return [write_csv(summary_frame(prediction), folder / "performance_prediction.csv"),
            write_csv(detail_frame(prediction), folder / "kernel_prediction_detail.csv"),
            write_text(rules_to_csv(prediction.rules), folder / "architecture_rules.csv")]
