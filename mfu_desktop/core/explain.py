"""Explain one profiled kernel: its derivation, and the calculator inputs that reproduce it.

The GUI shows this when a kernel is selected and uses the prefill for "Open in calculator";
nothing here is on a hot path (one kernel at a time).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from mfu_desktop.core.derivation import Derivation
from mfu_desktop.core.dtypes import ComputeDtype
from mfu_desktop.core.flops_registry import FlopOptions, estimate
from mfu_desktop.core.mfu import dtype_hints, interpret, matmul_hints
from mfu_desktop.core.numbers import grouped, pct, short, sig
from mfu_desktop.core.profiler import columns as C


@dataclass
class CalculatorPrefill:
    """Inputs for the calculator that reproduce a kernel's figures.

    Attributes:
        kind: ``gemm`` or ``fa`` (``None`` when the kernel has no FLOP rule).
        values: Field name → value (``m``, ``n``, ``k``, ``batch``, ``layout``, ``q_shape`` …).
        time_us: Duration per call.
        dtype: Compute dtype.
        chip: Chip name, when confirmed.
    """

    kind: str | None
    values: dict[str, object] = field(default_factory=dict)
    time_us: float | None = None
    dtype: str | None = None
    chip: str | None = None


def _get(row: Mapping[str, object], key: str) -> object:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def explain_kernel(row: Mapping[str, object], chip_name: str | None = None, peak_source: str = "",
                   options: FlopOptions | None = None) -> tuple[Derivation, CalculatorPrefill]:
    """Derivation and calculator prefill of one annotated kernel row.

    Args:
        row: One row of the annotated kernel frame (as a mapping).
        chip_name: The rank's chip, when confirmed.
        peak_source: Where the rank's peak came from.
        options: The FLOP conventions used by the analysis.
    """
    op_type = str(_get(row, C.OP_TYPE) or "N/A")
    name = str(_get(row, C.NAME) or "")
    dur = _get(row, C.DURATION_US)
    d = Derivation(f"{op_type} kernel {name}".strip())
    d.inputs = [("type", op_type), ("accelerator core", str(_get(row, C.CORE_TYPE) or "N/A")),
                ("duration", f"{short(dur, 9)} µs" if dur is not None else "missing"),
                ("input shapes", str(_get(row, C.INPUT_SHAPES) or "N/A")),
                ("output shapes", str(_get(row, C.OUTPUT_SHAPES) or "N/A")),
                ("input dtypes", str(_get(row, C.INPUT_DTYPES) or "N/A")),
                ("compute dtype", str(_get(row, "dtype") or "unknown"))]
    step = _get(row, C.STEP_ID)
    if step is not None:
        d.inputs.append(("step", str(step)))
    status = str(_get(row, "status") or "")
    reason = str(_get(row, "reason") or "")
    estimate_ = estimate(op_type, _get(row, C.INPUT_SHAPES), _get(row, C.OUTPUT_SHAPES), _get(row, C.INPUT_DTYPES),
                         _get(row, C.OUTPUT_DTYPES), options or FlopOptions())
    prefill = CalculatorPrefill(None, {}, float(dur) if dur is not None else None,
                                str(_get(row, "dtype") or "") or None, chip_name)
    flops = _get(row, "flops")
    if estimate_ is None:
        d.interpretation = ("No FLOP rule for this operator type: it is not matmul-unit work, so it has no "
                            "FLOPs-based MFU (its time still counts in the step).")
        return d, prefill
    if estimate_.detail:
        d.steps.append(f"FLOPs = {estimate_.detail}")
    if estimate_.assumption:
        d.conventions.append(estimate_.assumption)
    if estimate_.flops is not None:
        d.conventions.append(f"confidence: {estimate_.confidence}")
    dims = dict(estimate_.dims)
    if "M" in dims:
        prefill.kind = "gemm"
        prefill.values = {"m": dims["M"], "n": dims["N"], "k": dims["K"], "batch": dims.get("batch", 1)}
    elif "layout" in dims:
        prefill.kind = "fa"
        prefill.values = {"layout": dims["layout"], "q_shape": dims.get("Q"), "k_shape": dims.get("K"),
                          "v_shape": dims.get("V"), "heads": dims.get("N_q"), "sparse_mode": dims.get("sparse_mode", 0),
                          "backward": op_type.endswith("Grad")}
    achieved = _get(row, "achieved_tflops")
    peak = _get(row, "peak_tflops")
    mfu = _get(row, "mfu")
    if flops is not None and dur:
        d.steps.append(f"achieved = FLOPs / t / 1e12 = {grouped(float(flops))} / {short(float(dur) * 1e-6, 6)} s / "
                       f"1e12 = {sig(float(flops) / float(dur) / 1e6)} TFLOP/s")
        d.results.append(("FLOPs", f"{grouped(float(flops))} ({sig(float(flops) / 1e12)} TFLOP)"))
        d.results.append(("achieved", f"{sig(float(flops) / float(dur) / 1e6)} TFLOP/s"))
    executed = _get(row, "executed_flops")
    if executed is not None and flops is not None and executed != flops:
        d.results.append(("executed FLOPs (HFU view)", grouped(float(executed))))
    if peak is not None and achieved is not None:
        value = float(flops) / float(dur) / 1e6 / float(peak)
        d.steps.append(f"MFU = achieved / peak = {sig(float(flops) / float(dur) / 1e6)} / {short(float(peak), 6)} = "
                       f"{pct(value)}")
        d.results.append(("peak", f"{short(float(peak), 6)} TFLOP/s ({peak_source})" if peak_source
                          else f"{short(float(peak), 6)} TFLOP/s"))
        d.results.append(("MFU", pct(value)))
        d.interpretation = interpret(value)
    elif mfu is None and _get(row, "mfu_lo") is not None:
        d.results.append(("MFU", f"{pct(float(row['mfu_lo']))} – {pct(float(row['mfu_hi']))} (chip not confirmed)"))
    if status and status != "counted":
        d.results.append(("status", f"{status}: {reason}" if reason else status))
    dtype = None
    try:
        dtype = ComputeDtype(str(_get(row, "dtype"))) if _get(row, "dtype") else None
    except ValueError:
        dtype = None
    if prefill.kind == "gemm":
        d.hints = matmul_hints({k: int(v) for k, v in dims.items() if k in ("M", "N", "K")}, dtype,
                               int(flops) if flops is not None else None, float(mfu) if mfu is not None else None)
    else:
        d.hints = dtype_hints(dtype)
    lost = _get(row, "lost_us")
    if lost is not None:
        d.results.append(("lost time", f"{sig(float(lost))} µs = duration × (1 − MFU)"))
    cu = _get(row, "cube_utilization_pct")
    if cu is not None:
        d.results.append(("cube utilization (hardware counter, not MFU)", f"{sig(float(cu))} %"))
    return d, prefill
