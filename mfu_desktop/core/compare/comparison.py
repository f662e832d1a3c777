"""Compare two profiles: what changed, where, and by how much (before/after, or chip vs chip).

Both sides are reduced to the same per-step, per-rank figures the rest of the app shows
(:mod:`mfu_desktop.core.analysis.steps`): each operator group — (type, input shapes, dtype) — as its mean
per rank of calls, time, FLOPs and MFU per step, and the step split into computing,
communication not overlapped (real transfer vs waiting) and free time.

Matching, in order:

1. **same shape**: a group found on both sides with the same type, shapes and dtype;
2. **same family**: what is left on each side, summed by operator family
   (:mod:`mfu_desktop.core.analysis.families`: Ascend ``MatMulV2`` and ``aten::mm`` are both
   *matmul*) — the shapes or the operator changed;
3. **only BASE / only NEW**: a family found on one side only.

Rows are sorted by the absolute change of time per step, so the biggest winners and losers
come first; each says why it changed where the data says so (more calls, same shape but a
different MFU, a different shape, an AI CPU fallback). When the two sides ran on different
chips, every row also carries what the prediction (:mod:`mfu_desktop.core.predict.predictor`) would have
said for BASE on NEW's chip — the prediction's accuracy on the user's own workload.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.chip_resolution import NAME_THE_CHIP
from mfu_desktop.core.analysis.families import DEFAULT_FAMILIES, OTHER, Family, family_of_kernel
from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.core.chips.catalog import Chip, ChipCatalog
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.cluster.memory import cluster_memory
from mfu_desktop.core.numbers import finite_number as number
from mfu_desktop.core.predict.basis import Basis, default_basis
from mfu_desktop.core.readers import columns as C

#: A group is keyed by these.
KEY = ("type", "input_shapes", "dtype")
#: Per-step columns of a side's groups (means per rank): ``count`` is op calls, ``kernels`` the kernels they launched.
SUMS = ("count", "kernels", "time_us", "flops", "mfu_time_us", "mfu_ideal_us")
#: Relative change of calls or MFU below which a row is "unchanged" in that respect.
CHANGE = 0.05
#: Step columns compared.
STEP_FIELDS = ("step_time_us", "computing", "comm_not_overlapped", "comm_transfer_us", "comm_wait_us", "free", "bubble")
#: Families whose kernels are computation (the waterfall splits the change of computing time among them).
NON_COMPUTE_FAMILIES = ("communication",)


# --- one side -----------------------------------------------------------------------------------


def _rank_groups(r) -> pd.DataFrame:
    """One rank's groups per step: from its fine table, or (a summarised rank) its document's by-shape rows."""
    if r.lite:
        return _summary_groups(pd.DataFrame(r.document.get("by_shape") or []))
    fine = r.fine
    if fine is None or fine.empty:
        return pd.DataFrame(columns=[*KEY, "klass", "kernel", *SUMS])
    steps = max(int(fine.attrs.get("steps", 1)), 1)
    out = pd.DataFrame({
        "type": fine["display_type"].astype(str),
        "input_shapes": (fine[C.INPUT_SHAPES].astype(str) if C.INPUT_SHAPES in fine else ""),
        "dtype": fine["dtype"].astype(str) if "dtype" in fine else "",
        "klass": fine["klass"].astype(str),
        "kernel": fine["kernel"].astype(str) if "kernel" in fine else "",
    })
    sources = {"count": "calls" if "calls" in fine else "count", "kernels": "count"}
    for column in SUMS:
        source = sources.get(column, column)
        out[column] = fine[source].to_numpy(dtype=np.float64) / steps if source in fine else 0.0
    return out


def _summary_groups(rows: pd.DataFrame) -> pd.DataFrame:
    """A summarised rank's by-shape rows as groups (op calls where the summary has them, else kernels)."""
    if rows.empty:
        return pd.DataFrame(columns=[*KEY, "klass", "kernel", *SUMS])
    time_us = pd.to_numeric(rows.get("time_us"), errors="coerce").fillna(0.0)
    mfu = pd.to_numeric(rows.get("mfu"), errors="coerce")
    kernels = pd.to_numeric(rows.get("count"), errors="coerce").fillna(0.0)
    calls = pd.to_numeric(rows["calls"], errors="coerce").fillna(kernels) if "calls" in rows else kernels
    return pd.DataFrame({
        "type": rows["type"].astype(str), "input_shapes": rows.get("input_shapes", "").fillna("").astype(str),
        "dtype": rows.get("dtype", "").fillna("").astype(str), "klass": "", "kernel": "",
        "count": calls, "kernels": kernels, "time_us": time_us,
        "flops": pd.to_numeric(rows.get("flops"), errors="coerce").fillna(0.0),
        "mfu_time_us": np.where(mfu.notna(), time_us, 0.0), "mfu_ideal_us": (mfu * time_us).fillna(0.0),
    })


def side_groups(result: FolderAnalysis, families: tuple[Family, ...] | list[Family] = DEFAULT_FAMILIES
                ) -> pd.DataFrame:
    """A side's groups: mean per rank of each (type, shapes, dtype) per step, with family and MFU.

    A group's family comes from its operator type (a GPU kernel's launching op) and, when the
    type is not recognised, from the name of its longest-running kernel.
    """
    frames = [_rank_groups(r) for r in result.ranks]
    n = max(len(frames), 1)
    if not frames or all(f.empty for f in frames):
        return pd.DataFrame(columns=[*KEY, "family", "klass", "kernel", *SUMS, "mfu"])
    f = pd.concat(frames, ignore_index=True)
    # the class and kernel of a group: those with most time (a type can run on cube and AI CPU)
    f = f.sort_values("time_us", ascending=False, kind="stable")
    out = f.groupby(list(KEY), sort=False).agg(klass=("klass", "first"), kernel=("kernel", "first"),
                                                 **{c: (c, "sum") for c in SUMS}).reset_index()
    for column in SUMS:
        out[column] = out[column] / n
    with np.errstate(divide="ignore", invalid="ignore"):
        out["mfu"] = np.where(out["mfu_time_us"] > 0, out["mfu_ideal_us"] / out["mfu_time_us"], np.nan)
    pairs = list(zip(out["type"].tolist(), out["kernel"].tolist()))
    kinds = {pair: family_of_kernel(pair[0], pair[1], families) for pair in set(pairs)}
    out["family"] = [kinds[pair] for pair in pairs]
    return out


@dataclass
class SideStep:
    """A side's step, mean per rank of each rank's mean per step (µs), and its MFU figures."""

    label: str
    ranks: int
    chip: str | None
    values: dict[str, float | None]
    mfu_ops: float | None
    mfu_step: float | None
    slowest_rank: int | None
    slowest_step_us: float | None
    #: Peak memory of the side (the highest rank's): peak_allocated_mb, peak_reserved_mb, process_reserved_mb.
    memory: dict[str, float | None] = field(default_factory=dict)
    #: Why the side's chip is not confirmed (its MFU is then a range or unknown); ``None`` when it is.
    unconfirmed: str | None = None
    #: The operator MFU's range over the candidate chips when the chip is not confirmed.
    mfu_ops_range: tuple[float, float] | None = None


def _mean(values: list[Any]) -> float | None:
    finite = [v for v in (number(x) for x in values) if v is not None]
    return math.fsum(finite) / len(finite) if finite else None


def side_step(result: FolderAnalysis, label: str) -> SideStep:
    """Step figures of one side from its rank documents (the same numbers ``mfu analyze`` prints)."""
    docs = result.documents
    values = {"step_time_us": _mean([d.get("step_time_us") for d in docs])}
    for column in ("computing", "comm_not_overlapped", "free", "bubble"):
        values[column] = _mean([(d.get("step_breakdown") or {}).get(column) for d in docs])
    for column in ("comm_transfer_us", "comm_wait_us"):
        values[column] = _mean([d.get(column) for d in docs])
    chips = sorted({d.get("chip") for d in docs if d.get("chip")})
    steps = [number(d.get("mfu_step")) for d in docs]
    st = result.cluster.step_time
    rate = result.cluster.rate
    return SideStep(label, len(docs), ", ".join(chips) or None, values, rate.mfu, _mean(steps), st.slowest_rank,
                    st.slowest_value, side_memory(docs), _unconfirmed(docs), rate.mfu_range)


def _unconfirmed(docs: list[dict[str, Any]]) -> str | None:
    """Why a side's chip is not confirmed (the first unconfirmed rank's peak source), ``None`` when every rank's is."""
    for d in docs:
        if not d.get("confirmed"):
            source = str(d.get("peak_source") or "the chip was not identified")
            return source.replace(f": no catalog row — {NAME_THE_CHIP}", ": no catalog row")
    return None


#: Memory peaks compared (MB; each side's highest rank, :mod:`mfu_desktop.core.cluster.memory`).
MEMORY_FIELDS = ("peak_allocated_mb", "peak_reserved_mb", "process_reserved_mb")


def side_memory(docs: list[dict[str, Any]]) -> dict[str, float | None]:
    """A side's memory peaks: the highest rank's of each (``None`` without memory data)."""
    c = cluster_memory(docs)
    return {key: number(c.get(key)) for key in MEMORY_FIELDS}


def memory_json(comparison: Comparison) -> dict[str, Any]:
    """Peak allocated / reserved BASE → NEW, their change and ratio."""
    delta = comparison.memory_delta()
    out: dict[str, Any] = {}
    for key in MEMORY_FIELDS:
        a, b = comparison.base.memory.get(key), comparison.new.memory.get(key)
        out[key] = {"base": a, "new": b, "delta": delta[key], "ratio": number(b / a) if a and b is not None else None}
    return out


# --- matching -----------------------------------------------------------------------------------


#: Columns summed when groups are merged: the sums, and BASE's predicted time on NEW's chip when there is one.
def _summed(frame: pd.DataFrame) -> list[str]:
    return [*SUMS, *(["predicted_us"] if "predicted_us" in frame.columns else [])]


def _prefixed(frame: pd.DataFrame, side: str) -> pd.DataFrame:
    return frame.rename(columns={c: f"{side}_{c}" for c in (*_summed(frame), "mfu", "klass", "kernel")})


def match_groups(base: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Matched rows (see the module docstring): same shape, then same family, then one side only."""
    both = pd.merge(_prefixed(base, "base"), _prefixed(new, "new").drop(columns=["family"]), on=list(KEY),
                    how="outer", indicator=True)
    same = both[both["_merge"] == "both"].drop(columns="_merge").assign(level="same shape")
    same["family"] = same["family"].fillna(OTHER)
    left = base.merge(new[list(KEY)], on=list(KEY), how="left", indicator=True)
    left = left[left["_merge"] == "left_only"].drop(columns="_merge")
    right = new.merge(base[list(KEY)], on=list(KEY), how="left", indicator=True)
    right = right[right["_merge"] == "left_only"].drop(columns="_merge")
    by_family = pd.merge(_family_sums(left, "base"), _family_sums(right, "new"), on="family", how="outer")
    has_base = by_family["base_time_us"].notna()
    has_new = by_family["new_time_us"].notna()
    by_family["level"] = np.where(has_base & has_new, "same family", np.where(has_base, "only BASE", "only NEW"))
    by_family["type"] = by_family["family"]
    by_family["input_shapes"] = ""
    by_family["dtype"] = ""
    rows = pd.concat([same, by_family], ignore_index=True)
    for side in ("base", "new"):
        for column in (*SUMS, "mfu"):
            name = f"{side}_{column}"
            if name not in rows:
                rows[name] = np.nan
            if column in SUMS:
                rows[name] = pd.to_numeric(rows[name], errors="coerce").fillna(0.0)
    rows["delta_us"] = rows["new_time_us"] - rows["base_time_us"]
    with np.errstate(divide="ignore", invalid="ignore"):
        rows["ratio"] = np.where(rows["base_time_us"] > 0, rows["new_time_us"] / rows["base_time_us"], np.nan)
    rows["why"] = [why_changed(r) for r in rows.to_dict("records")]
    order = rows["delta_us"].abs().sort_values(ascending=False, kind="stable").index
    return rows.loc[order].reset_index(drop=True)


def _family_sums(frame: pd.DataFrame, side: str) -> pd.DataFrame:
    """Unmatched groups of one side summed by family (with how many groups and their types)."""
    summed = _summed(frame)
    if frame.empty:
        return pd.DataFrame(columns=["family", *(f"{side}_{c}" for c in (*summed, "mfu", "klass", "members"))])
    g = frame.groupby("family", sort=False)
    out = g[summed].sum().reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["mfu"] = np.where(out["mfu_time_us"] > 0, out["mfu_ideal_us"] / out["mfu_time_us"], np.nan)
    out["klass"] = g["klass"].first().to_numpy()
    out["members"] = g["type"].apply(_members).to_numpy()
    return out.rename(columns={c: f"{side}_{c}" for c in (*summed, "mfu", "klass", "members")})


def _members(types: pd.Series) -> str:
    """The display names of a family row's operator types (at most 6, then how many more)."""
    names = sorted({short_name(str(t)) for t in types})
    more = f" (+{len(names) - 6} more)" if len(names) > 6 else ""
    return ", ".join(names[:6]) + more


#: Rows present on one side only: the side's name and the field naming its members.
_ONE_SIDE = {"only BASE": ("BASE", "base_members"), "only NEW": ("NEW", "new_members")}


def why_changed(row: dict[str, Any]) -> str:
    """Why a row's time changed, where the data says so (empty when it did not change)."""
    level = row.get("level")
    if level in _ONE_SIDE:
        side, members = _ONE_SIDE[level]
        return f"only in {side} ({row.get(members) or short_name(str(row.get('type')))})"
    base_calls, new_calls = number(row.get("base_count")) or 0.0, number(row.get("new_count")) or 0.0
    reasons = [r for r in (_calls_reason(row, base_calls, new_calls), _kernels_per_call_reason(row)) if r]
    calls_changed = base_calls > 0 and abs(new_calls / base_calls - 1.0) > CHANGE
    if level == "same family":
        reasons.append("different shapes or operators (the parallel configuration, sequence length or kernel "
                       f"choice changed): BASE {row.get('base_members', '')}; NEW {row.get('new_members', '')}")
    if level == "same shape":
        reason = _same_shape_reason(row, base_calls, new_calls, calls_changed=calls_changed)
        if reason:
            reasons.append(reason)
    if row.get("new_klass") == "aicpu" and row.get("base_klass") not in ("aicpu", "", None):
        reasons.append("fell back to AI CPU")
    return "; ".join(reasons)


def _calls_reason(row: dict[str, Any], base_calls: float, new_calls: float) -> str | None:
    """A change of op calls, and what it means given the FLOPs: a changed model, or the same work split differently.

    Args:
        row: The comparison row.
        base_calls: BASE's op calls per step.
        new_calls: NEW's op calls per step.
    """
    if not (base_calls > 0 and abs(new_calls / base_calls - 1.0) > CHANGE):
        return None
    ratio = new_calls / base_calls
    base_flops, new_flops = number(row.get("base_flops")) or 0.0, number(row.get("new_flops")) or 0.0
    if base_flops > 0 and new_flops > 0 and abs(new_flops / base_flops - 1.0) <= CHANGE:
        return (f"calls ×{ratio:.3g} for the same FLOPs (the same work in more or fewer calls: fusion, "
                "splitting or the schedule — not the model)")
    return f"calls ×{ratio:.3g} (the model or the schedule changed)"


def _kernels_per_call_reason(row: dict[str, Any]) -> str | None:
    """A change of kernels per op call: a library's launch pattern (cuBLAS GEMM + memset vs one hipBLASLt kernel)."""
    per = []
    for side in ("base", "new"):
        calls, kernels = number(row.get(f"{side}_count")) or 0.0, number(row.get(f"{side}_kernels")) or 0.0
        per.append(kernels / calls if calls > 0 and kernels > 0 else None)
    if per[0] is None or per[1] is None or abs(per[1] / per[0] - 1.0) <= CHANGE:
        return None
    return f"{per[0]:.3g} → {per[1]:.3g} kernels per call (the library launches them differently, not the model)"


def _same_shape_reason(row: dict[str, Any], base_calls: float, new_calls: float, calls_changed: bool) -> str | None:
    """Why a group of the same shape on both sides changed: its MFU, else (same calls) its time per call.

    Args:
        row: The comparison row.
        base_calls: BASE's calls (0 when unknown).
        new_calls: NEW's calls (0 when unknown).
        calls_changed: Whether the change is already explained by the call count.
    """
    base_mfu, new_mfu = number(row.get("base_mfu")), number(row.get("new_mfu"))
    if base_mfu and new_mfu and abs(new_mfu / base_mfu - 1.0) > CHANGE:
        return f"same shape, MFU {base_mfu * 100:.3g} % → {new_mfu * 100:.3g} % (efficiency)"
    if calls_changed or not (base_calls > 0 and new_calls > 0):
        return None
    per_base = (number(row.get("base_time_us")) or 0.0) / base_calls
    per_new = (number(row.get("new_time_us")) or 0.0) / new_calls
    if per_base > 0 and abs(per_new / per_base - 1.0) > CHANGE:
        return f"same shape, {per_new / per_base:.3g}× the time per call"
    return None


# --- chip vs chip -------------------------------------------------------------------------------


def predicted_by_type(base: FolderAnalysis, source: Chip, target: Chip, basis: Basis | None = None
                      ) -> tuple[dict[str, float], float | None, str]:
    """BASE's compute kernels predicted on ``target``: predicted/measured time per operator type, and the step.

    The model and basis are ``mfu predict``'s (its defaults when ``basis`` is ``None``).

    Returns:
        Ratio per type (predicted ÷ measured time of its predictable kernels), the predicted
        step per step, mean per rank (``None`` when the step cannot be predicted), and why not.
    """
    from mfu_desktop.core.predict.inputs import rank_inputs
    from mfu_desktop.core.predict.kernel_model import predicted_groups
    from mfu_desktop.core.predict.predictor import predict

    basis = basis or default_basis()
    inputs = rank_inputs(base)
    prediction = predict(inputs, source, [target], basis=basis)
    measured: dict[str, float] = {}
    predicted: dict[str, float] = {}
    for inp in prediction.inputs.values():
        g = inp.groups
        if g.empty:
            continue
        new, ok, _ = predicted_groups(inp, source, target, prediction.rules, basis)
        new = np.where(ok, new, np.nan)
        for op_type, dur, value in zip(g["type"].tolist(), g["duration_us"].tolist(), new.tolist()):
            if math.isfinite(value):
                measured[str(op_type)] = measured.get(str(op_type), 0.0) + dur
                predicted[str(op_type)] = predicted.get(str(op_type), 0.0) + value
    ratios = {t: predicted[t] / measured[t] for t in measured if measured[t] > 0}
    result = prediction.targets[0]
    return ratios, result.predicted_step_us, result.step_not_predicted


# --- the comparison ------------------------------------------------------------------------------


@dataclass
class Comparison:
    """Two sides compared: step figures, matched rows, and (chip vs chip) what the prediction said."""

    base: SideStep
    new: SideStep
    rows: pd.DataFrame
    chips: tuple[str | None, str | None] = (None, None)
    predicted_step_us: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def chip_vs_chip(self) -> bool:
        """True when the sides ran on different chips (the prediction is shown beside the measurement)."""
        return self.chips[0] is not None and self.chips[1] is not None and self.chips[0] != self.chips[1]

    def step_delta(self) -> dict[str, float | None]:
        """NEW − BASE of every step field (µs per step, mean per rank)."""
        out = {}
        for key in STEP_FIELDS:
            a, b = self.base.values.get(key), self.new.values.get(key)
            out[key] = b - a if a is not None and b is not None else None
        return out

    def memory_delta(self) -> dict[str, float | None]:
        """NEW − BASE of each peak (MB, the highest rank of each side)."""
        out = {}
        for key in MEMORY_FIELDS:
            a, b = self.base.memory.get(key), self.new.memory.get(key)
            out[key] = b - a if a is not None and b is not None else None
        return out

    def waterfall(self) -> list[tuple[str, float]]:
        """Where the step's change comes from: computing split among families, communication, free.

        The change of computing time (a union of kernel intervals) is shared among the compute
        families in proportion to their change of kernel time; communication not overlapped
        and free time are their own bars. The bars add up to the change of the step.
        """
        delta = self.step_delta()
        computing = delta.get("computing") or 0.0
        rows = self.rows[~self.rows["family"].isin(NON_COMPUTE_FAMILIES)]
        by_family = rows.groupby("family", sort=False)["delta_us"].sum()
        total = float(by_family.sum())
        bars = []
        if total and computing:
            for family, value in by_family.sort_values(key=abs, ascending=False).items():
                share = computing * float(value) / total
                if abs(share) > 1e-9:
                    bars.append((f"computing: {family}", share))
        elif computing:
            bars.append(("computing", computing))
        for key, label in (("comm_not_overlapped", "communication not overlapped"), ("free", "free"),
                           ("bubble", "bubble")):
            value = delta.get(key)
            if value:
                bars.append((label, value))
        return bars


def compare(base: FolderAnalysis, new: FolderAnalysis, catalog: ChipCatalog | None = None,
            families: tuple[Family, ...] | list[Family] = DEFAULT_FAMILIES, base_label: str = "BASE",
            new_label: str = "NEW", chip_base: str | None = None, chip_new: str | None = None,
            basis: Basis | None = None) -> Comparison:
    """Compare two analysed profiles (see the module docstring).

    Args:
        base: The reference profile ("before", or the chip compared against).
        new: The other one.
        catalog: Chip catalog (for chip vs chip).
        families: Operator-family mapping.
        base_label: Name of BASE in notes.
        new_label: Name of NEW in notes.
        chip_base: The chip BASE ran on, when detection did not say (or to override it).
        chip_new: The chip NEW ran on, likewise.
        basis: Model and basis of the chip-vs-chip prediction (``None``: ``mfu predict``'s defaults).
    """
    ids = (chip_base or _only_chip(base), chip_new or _only_chip(new))
    basis = basis or default_basis()
    base_groups = side_groups(base, families)
    predicted_step = None
    notes = []
    if ids[0] and ids[1] and ids[0] != ids[1] and catalog is not None:
        source, target = catalog.find(ids[0]), catalog.find(ids[1])
        ratios, predicted_step, why_not = predicted_by_type(base, source, target, basis)
        base_groups["predicted_us"] = [t * ratios[k] if k in ratios else np.nan
                                       for k, t in zip(base_groups["type"], base_groups["time_us"])]
        notes.append(f"chip vs chip: {source.display_name} → {target.display_name}; predicted_new_us is what "
                     f"mfu predict ({basis.label}) says BASE's compute kernels take on NEW's chip (kernels it "
                     "cannot predict are left out of a row's prediction)")
        if predicted_step is None and why_not:
            notes.append(f"the step is not predicted for {target.display_name}: {why_not}")
    rows = match_groups(base_groups, side_groups(new, families))
    if "base_predicted_us" in rows:
        rows["predicted_new_us"] = rows.pop("base_predicted_us").where(lambda v: v > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            rows["prediction_error"] = np.where(rows["new_time_us"] > 0,
                                                rows["predicted_new_us"] / rows["new_time_us"] - 1.0, np.nan)
    comparison = Comparison(side_step(base, base_label), side_step(new, new_label), rows, ids, predicted_step,
                            notes)
    _explain_step(comparison)
    return comparison


def _only_chip(result: FolderAnalysis) -> str | None:
    ids = {d.get("chip_id") for d in result.documents if d.get("confirmed") and d.get("chip_id")}
    return ids.pop() if len(ids) == 1 else None


def _explain_step(comparison: Comparison) -> None:
    delta = comparison.step_delta()
    wait, transfer = delta.get("comm_wait_us"), delta.get("comm_transfer_us")
    if wait is not None and wait > 0 and (transfer is None or transfer <= wait * 0.5):
        comparison.notes.append(f"communication turned into waiting: +{wait:,.1f} µs of waiting per step "
                                f"(real transfer {transfer:+,.1f} µs)" if transfer is not None else
                                f"communication waiting +{wait:,.1f} µs per step")
    for side in (comparison.base, comparison.new):
        if side.ranks > 1 and side.slowest_rank is not None:
            comparison.notes.append(f"{side.label}: slowest rank {side.slowest_rank} "
                                    f"({side.slowest_step_us:,.1f} µs per step)")


# --- outputs ------------------------------------------------------------------------------------

#: Columns of the matched table, in the order every output uses.
ROW_COLUMNS = ("level", "family", "display_name", "type", "input_shapes", "dtype", "base_count", "base_kernels",
               "base_time_us", "base_flops", "base_mfu", "new_count", "new_kernels", "new_time_us", "new_flops",
               "new_mfu", "delta_us", "ratio", "why", "predicted_new_us", "prediction_error")


def table(comparison: Comparison) -> pd.DataFrame:
    """The matched rows with the output columns (per step, mean per rank).

    ``count`` columns are op calls and ``kernels`` the kernels they launched; ``type`` is the
    full name and ``display_name`` its short form (:func:`~mfu_desktop.core.analysis.kernel_names.short_name`).
    """
    rows = comparison.rows
    out = pd.DataFrame({c: rows.get(c, np.nan) for c in ROW_COLUMNS})
    out["display_name"] = [short_name(str(t)) for t in rows["type"]] if "type" in rows else []
    return out


def _side_json(side: SideStep) -> dict[str, Any]:
    return {"label": side.label, "ranks": side.ranks, "chip": side.chip, **{k: number(v) for k, v in
                                                                          side.values.items()},
            "mfu_ops": number(side.mfu_ops), "mfu_step": number(side.mfu_step),
            "slowest_rank": None if side.slowest_rank is None else {"rank": side.slowest_rank,
                                                                    "step_time_us": number(side.slowest_step_us)}}


def _json_value(value: Any) -> Any:
    if isinstance(value, (int, float, np.floating, np.integer)) and not isinstance(value, bool):
        return number(value)
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def comparison_json(comparison: Comparison, top: int | None = None) -> dict[str, Any]:
    """The ``mfu compare --json`` object (contract in the user guide)."""
    rows = table(comparison)
    shown = rows if top is None else rows.head(top)
    records = [{k: _json_value(v) for k, v in r.items()} for r in shown.to_dict("records")]
    delta = comparison.step_delta()
    return {
        "base": _side_json(comparison.base),
        "new": _side_json(comparison.new),
        "step_delta": {k: number(v) for k, v in delta.items()},
        "step_ratio": number((comparison.new.values.get("step_time_us") or 0) /
                             comparison.base.values["step_time_us"]) if comparison.base.values.get("step_time_us")
        else None,
        "chip_vs_chip": comparison.chip_vs_chip,
        "predicted_step_us": number(comparison.predicted_step_us),
        "waterfall": [{"part": label, "delta_us": number(value)} for label, value in comparison.waterfall()],
        "rows": records,
        "rows_total": len(rows),
        "notes": comparison.notes,
        "memory": memory_json(comparison),
    }
