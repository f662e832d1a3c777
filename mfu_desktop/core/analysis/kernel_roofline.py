"""Bytes and roofline columns of the annotated kernel frame (mfu.md §6), vectorised.

:func:`roofline_columns` adds, per kernel: minimum bytes (:mod:`mfu_desktop.core.formulas.bytes`, once per
distinct shapes/dtypes), arithmetic intensity, achieved GB/s, bandwidth utilisation, the bound,
the roofline-attainable time and the lost time. :func:`counter_bytes` reads what the hardware
says it moved (``--aic-metrics Memory`` / ``MemoryAccess``), shown beside the minimum.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.chip_resolution import ChipResolution
from mfu_desktop.core.analysis.classify import CLASSES, KernelClass
from mfu_desktop.core.analysis.grouping import codes_of, group_ids, lookup
from mfu_desktop.core.analysis.roofline import BOUNDS, roofline
from mfu_desktop.core.analysis.roofline_figures import ROOFLINE_SUMMARY_FIELDS, roofline_rates
from mfu_desktop.core.formulas.bytes import min_bytes
from mfu_desktop.core.readers import columns as C

#: Kernel classes the roofline does not judge: their time is neither the HBM's nor the matrix unit's.
NOT_ON_THE_ROOFLINE = (KernelClass.COMM.value, KernelClass.AICPU.value)

#: The columns this module adds (the JSON contract and the exports document them).
ROOFLINE_COLUMNS = ("bytes", "intensity", "achieved_gbs", "bw_util", "attainable_us", "roof_util",
                    "bound", "lost_us")


def kernel_bytes(frame: pd.DataFrame) -> np.ndarray:
    """Minimum bytes of every kernel (NaN when unknown; the derivation of one kernel says how).

    Computed once per distinct (shapes, dtypes, type) cells; a GPU kernel carries its op's bytes
    times its share of the op's kernel time (as for FLOPs).
    """
    n = len(frame)
    if C.INPUT_SHAPES not in frame.columns or n == 0:
        return np.full(n, np.nan)
    names = (C.INPUT_SHAPES, C.OUTPUT_SHAPES, C.INPUT_DTYPES, C.OUTPUT_DTYPES, C.OP_TYPE)
    cols = [c for c in names if c in frame.columns]
    coded = {c: codes_of(frame[c]) for c in cols}
    ids, first = group_ids([coded[c][0] for c in cols])

    def cells(col: str) -> list[str | None]:
        if col not in coded:
            return [None] * len(first)
        codes, cats = coded[col]
        table = np.array([str(c) for c in cats] + [None], dtype=object)
        return lookup(table, codes[first]).tolist()

    counts = [min_bytes(*args) for args in zip(*(cells(c) for c in names))]
    values = np.array([np.nan if b.bytes is None else float(b.bytes) for b in counts])
    share = frame[C.FLOPS_SHARE].to_numpy(dtype=np.float64) if C.FLOPS_SHARE in frame.columns else 1.0
    return values[ids] * share


def counter_bytes(frame: pd.DataFrame) -> np.ndarray | None:
    """Main-memory bytes the hardware counted per kernel, ``None`` when the capture has no memory counters.

    ``MemoryAccess`` data volumes (KB, × 1024) are used when present; otherwise the ``Memory``
    bandwidths (GB/s) times the unit's busy time — ``aicore_time`` for the cube unit,
    ``aiv_time`` for the vector unit (GB/s × µs = 1000 bytes). A kernel with no counter is NaN.
    """
    kb = [c for c in C.MEMORY_COUNTERS if c.endswith("_kb") and c in frame.columns]
    gbps = [c for c in C.MEMORY_COUNTERS if c.endswith("_gbps") and c in frame.columns]
    if not kb and not gbps:
        return None
    total = np.zeros(len(frame))
    seen = np.zeros(len(frame), dtype=bool)
    if kb:
        for column in kb:
            value = frame[column].to_numpy(dtype=np.float64)
            ok = np.isfinite(value)
            total[ok] += value[ok] * 1024.0
            seen |= ok
    else:
        for column in gbps:
            time_column = "aicore_time_us" if column.startswith("aic_") else "aiv_time_us"
            if time_column not in frame.columns:
                continue
            value = frame[column].to_numpy(dtype=np.float64) * frame[time_column].to_numpy(dtype=np.float64)
            ok = np.isfinite(value)
            total[ok] += value[ok] * 1e3
            seen |= ok
    return np.where(seen & (total > 0), total, np.nan)


def chip_bandwidth(chip: ChipResolution) -> float | None:
    """The HBM bandwidth (GB/s) of the rank's chip: the confirmed chip's, or the candidates' when they agree."""
    if chip.chip is not None and chip.confirmed:
        return chip.chip.value("hbm_bandwidth_gbs")
    values = {c.value("hbm_bandwidth_gbs") for c in chip.candidates}
    return values.pop() if len(values) == 1 else None


def roofline_columns(frame: pd.DataFrame, klass: pd.Categorical, counted: np.ndarray, no_rule: np.ndarray,
                     flops: np.ndarray, dur: np.ndarray, peak: np.ndarray, mfu_ref: np.ndarray,
                     bw_gbs: float | None) -> dict[str, object]:
    """Bytes, intensity, bandwidth, bound, attainable time and the lost time of every kernel.

    The roofline judges counted kernels (their FLOPs are known) and kernels without a FLOP rule
    (element-wise, norms, data movement …); communication and AI CPU kernels are not judged.
    Lost time is ``t − t*`` (clipped at 0) for a judged kernel with bytes; a counted kernel
    without bytes keeps ``t · (1 − MFU)``.

    Args:
        frame: The kernel frame (shapes, dtypes, share).
        klass: Kernel class per row.
        counted: Rows that count in FLOPs-based aggregates.
        no_rule: Rows whose type has no FLOP rule.
        flops: Model FLOPs (NaN: none).
        dur: Durations (µs).
        peak: Peak TFLOP/s for each kernel's dtype (the lowest candidate's for a range).
        mfu_ref: MFU used for the fallback lost time (the highest for a range).
        bw_gbs: The chip's HBM bandwidth, ``None`` when unknown.
    """
    nbytes = kernel_bytes(frame)
    roof = roofline(flops, nbytes, dur, peak, bw_gbs)
    off = np.isin(klass.codes, [CLASSES.index(k) for k in NOT_ON_THE_ROOFLINE])
    not_judged = ~(counted | no_rule) | off
    lost = roof["roof_lost_us"]
    np.maximum(lost, np.float32(0.0), out=lost)  # NaN stays NaN
    np.copyto(lost, np.float32(np.nan), where=not_judged)
    fallback = np.isnan(lost) & counted  # a counted kernel without bytes (or off the roofline): t · (1 − MFU)
    if fallback.any():
        lost[fallback] = dur[fallback] * np.clip(1.0 - mfu_ref[fallback], 0.0, 1.0)
    for column in ("attainable_us", "roof_util"):
        np.copyto(roof[column], np.float32(np.nan), where=not_judged)
    bound = roof["bound"]
    np.copyto(bound, np.int8(-1), where=not_judged)
    return {
        "bytes": nbytes,
        "intensity": roof["intensity"],
        "achieved_gbs": roof["achieved_gbs"],
        "bw_util": roof["bw_util"],
        "attainable_us": roof["attainable_us"],
        "roof_util": roof["roof_util"],
        "bound": pd.Categorical.from_codes(bound, categories=list(BOUNDS)),
        "lost_us": lost,
    }


def judged_values(table: pd.DataFrame) -> np.ndarray:
    """The figure judging each row (kernels or groups): bandwidth utilisation where memory-bound, MFU otherwise.

    The vectorised form of :func:`mfu_desktop.core.analysis.roofline_figures.judged_figure` (NaN: none).
    """
    n = len(table)
    mfu = table["mfu"].to_numpy(dtype=np.float64) if "mfu" in table else np.full(n, np.nan)
    if "bound" not in table or "bw_util" not in table:
        return mfu
    bound = table["bound"]
    if isinstance(bound.dtype, pd.CategoricalDtype):
        categories = list(bound.cat.categories)
        memory = bound.cat.codes.to_numpy() == (categories.index("memory") if "memory" in categories else -2)
    else:
        memory = bound.astype(str).to_numpy() == "memory"
    bw = table["bw_util"].to_numpy(dtype=np.float64)
    return np.where(memory & np.isfinite(bw), bw, mfu)


def roofline_summary(annotated: pd.DataFrame, bw_gbs: float | None, steps: int) -> dict[str, float | None]:
    """A rank's roofline figures: the step's point and where its judged time goes (means per step).

    Sums run over the kernels the roofline judges that have bytes. The step's point is
    ``(Σ FLOPs / Σ bytes, Σ FLOPs / Σ time)`` — each kernel weighted by its time, as the step
    spends it. ``bw_util_memory_bound`` is the bandwidth the memory-bound kernels reach together.

    Returns:
        ``bytes``, ``flops``, ``time_us``, ``attainable_us``, ``lost_us``, ``memory_bound_us``,
        ``memory_bound_bytes`` (per step); ``intensity``, ``achieved_tflops``, ``achieved_gbs``,
        ``bw_util``, ``bw_util_memory_bound``, ``roof_util``, ``hw_bytes_ratio`` and ``bw_gbs``.
    """
    n = max(int(steps), 1)
    empty = dict.fromkeys(ROOFLINE_SUMMARY_FIELDS)
    if annotated.empty or "attainable_us" not in annotated.columns:
        return {**empty, "bw_gbs": bw_gbs}
    dur = annotated[C.DURATION_US].to_numpy(dtype=np.float64)
    nbytes = annotated["bytes"].to_numpy(dtype=np.float64)
    attainable = annotated["attainable_us"].to_numpy(dtype=np.float64)
    on = np.isfinite(attainable) & np.isfinite(nbytes) & (dur > 0)
    flops = np.where(np.isfinite(annotated["flops"].to_numpy(dtype=np.float64)), annotated["flops"], 0.0)
    memory = on & (annotated["bound"].cat.codes.to_numpy() == BOUNDS.index("memory"))
    sums = {
        "bytes": float(nbytes[on].sum()), "flops": float(flops[on].sum()), "time_us": float(dur[on].sum()),
        "attainable_us": float(attainable[on].sum()),
        "memory_bound_us": float(dur[memory].sum()), "memory_bound_bytes": float(nbytes[memory].sum()),
    }
    sums["lost_us"] = float(np.clip(dur[on] - attainable[on], 0.0, None).sum())
    out: dict[str, float | None] = {k: v / n for k, v in sums.items()}
    out.update(roofline_rates(sums, bw_gbs))
    if "hw_bytes" in annotated.columns:
        hw = annotated["hw_bytes"].to_numpy(dtype=np.float64)
        pair = np.isfinite(hw) & np.isfinite(nbytes) & (nbytes > 0)
        out["hw_bytes_ratio"] = float(hw[pair].sum() / nbytes[pair].sum()) if pair.any() else None
    else:
        out["hw_bytes_ratio"] = None
    return out


#: Hardware-counted bytes below this fraction of the minimum bytes are flagged (cache hits or a shape error).
HW_BYTES_LOW = 0.9


def roofline_warnings(annotated: pd.DataFrame) -> list[str]:
    """Impossible roofline figures, said once per rank: faster than HBM, or fewer bytes counted than the minimum."""
    out = []
    if "bw_util" in annotated.columns:
        over = annotated["bw_util"].to_numpy(dtype=np.float64) > 1.0
        if over.any():
            worst = float(np.nanmax(annotated["bw_util"].to_numpy(dtype=np.float64)))
            out.append(f"{int(over.sum())} kernels move their minimum bytes faster than the chip's HBM bandwidth "
                       f"(up to {worst * 100:.0f} %): on-chip cache hits (a tensor re-read from L2), or a wrong shape, "
                       "dtype or bandwidth — their lost time counts as 0")
    if "hw_bytes" in annotated.columns:
        hw = annotated["hw_bytes"].to_numpy(dtype=np.float64)
        nbytes = annotated["bytes"].to_numpy(dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            low = np.isfinite(hw) & (nbytes > 0) & (hw / nbytes < HW_BYTES_LOW)
        if low.any():
            out.append(f"{int(low.sum())} kernels moved fewer main-memory bytes (hardware counters) than their "
                       f"minimum from shapes (< {HW_BYTES_LOW:.0%}): cache hits, or a shape or dtype read wrong")
    return out
