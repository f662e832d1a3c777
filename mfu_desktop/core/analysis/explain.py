"""Explain one profiled kernel: its derivation, and the calculator inputs that reproduce it.

The GUI shows this when a kernel is selected and uses the prefill for "Open in calculator";
nothing here is on a hot path (one kernel at a time).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.chips.vendor_terms import VendorTerms, vendor_terms
from mfu_desktop.core.formulas.bytes import ByteCount, min_bytes
from mfu_desktop.core.formulas.derivation import Derivation
from mfu_desktop.core.formulas.flop_rules import estimate
from mfu_desktop.core.formulas.memory_bound import interpret_bandwidth
from mfu_desktop.core.formulas.mfu import dtype_hints, interpret, matmul_hints
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.formulas.registry import FlopEstimate
from mfu_desktop.core.numbers import Exact, grouped, operands, pct, short, sig
from mfu_desktop.core.readers import columns as C


@dataclass
class CalculatorPrefill:
    """Inputs for the calculator that reproduce a kernel's figures.

    Attributes:
        kind: ``gemm``, ``fa`` or ``memory`` (a kernel without a FLOP rule); ``None`` when there is nothing to fill.
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
                   options: FlopOptions | None = None, bw_gbs: float | None = None,
                   vendor: str | None = None) -> tuple[Derivation, CalculatorPrefill]:
    """Derivation and calculator prefill of one annotated kernel row.

    Args:
        row: One row of the annotated kernel frame (as a mapping).
        chip_name: The rank's chip, when confirmed.
        peak_source: Where the rank's peak came from.
        options: The FLOP conventions used by the analysis.
        bw_gbs: The chip's HBM bandwidth (GB/s), for the bytes and roofline part.
        vendor: The rank's vendor (``Huawei``, ``NVIDIA``, ``AMD``): hints in its words.
    """
    op_type = str(_get(row, C.OP_TYPE) or "N/A")
    terms = vendor_terms(vendor)
    d = _restated(row, op_type, terms)
    dur = _get(row, C.DURATION_US)
    estimate_ = estimate(op_type, _get(row, C.INPUT_SHAPES), _get(row, C.OUTPUT_SHAPES), _get(row, C.INPUT_DTYPES),
                         _get(row, C.OUTPUT_DTYPES), options or FlopOptions())
    prefill = CalculatorPrefill(None, {}, float(dur) if dur is not None else None,
                                str(_get(row, "dtype") or "") or None, chip_name)
    if estimate_ is None:
        d.interpretation = ("No FLOP rule for this operator type: it is not matmul-unit work, so it has no "
                            "FLOPs-based MFU; it is judged by the bandwidth it reaches (below).")
        _memory_prefill(row, op_type, prefill)
    else:
        _flop_part(d, row, estimate_, prefill, peak_source, op_type, terms)
    _roofline_part(d, row, bw_gbs)
    lost = _get(row, "lost_us")
    if lost is not None:
        how = "t − t* (roofline)" if _get(row, "attainable_us") is not None else "duration × (1 − MFU)"
        d.results.append(("lost time", f"{sig(float(lost))} µs = {how}"))
    cu = _get(row, "cube_utilization_pct")
    if cu is not None:
        d.results.append(("cube utilization (hardware counter, not MFU)", f"{sig(float(cu))} %"))
    return d, prefill


def _compute_dtype(row: Mapping[str, object], terms: VendorTerms) -> str:
    """The compute dtype, and why when FP32 inputs were judged against the HF32/TF32 peak."""
    dtype = str(_get(row, "dtype") or "unknown")
    if dtype != ComputeDtype.HF32.value:
        return dtype
    eligible = str(_get(row, C.HF32_ELIGIBLE) or "").upper()
    if eligible == C.HF32_RAN:
        return (f"{dtype} — {terms.reduced_fp32}: FP32 inputs on a {terms.matrix_unit} GEMM kernel (its name says "
                f"so), judged against the {terms.reduced_fp32} peak")
    return f"{dtype} — FP32 inputs with {terms.reduced_fp32} on (the HF32/TF32 switch), judged against its peak"


def _restated(row: Mapping[str, object], op_type: str, terms: VendorTerms) -> Derivation:
    """The derivation's title and restated inputs."""
    name = str(_get(row, C.NAME) or "")
    dur = _get(row, C.DURATION_US)
    d = Derivation(f"{op_type} kernel {name}".strip())
    d.inputs = [("type", op_type), ("accelerator core", str(_get(row, C.CORE_TYPE) or "N/A")),
                ("duration", f"{short(dur, 9)} µs" if dur is not None else "missing"),
                ("input shapes", str(_get(row, C.INPUT_SHAPES) or "N/A")),
                ("output shapes", str(_get(row, C.OUTPUT_SHAPES) or "N/A")),
                ("input dtypes", str(_get(row, C.INPUT_DTYPES) or "N/A")),
                ("compute dtype", _compute_dtype(row, terms))]
    step = _get(row, C.STEP_ID)
    if step is not None:
        d.inputs.append(("step", str(step)))
    return d


def _memory_prefill(row: Mapping[str, object], op_type: str, prefill: CalculatorPrefill) -> None:
    """A kernel without a FLOP rule opens as a memory-bound operator in the calculator."""
    inputs = _get(row, C.INPUT_SHAPES)
    if inputs is None:
        return
    prefill.kind = "memory"
    prefill.values = {"inputs": str(inputs).strip('"'), "input_dtypes": _get(row, C.INPUT_DTYPES),
                      "outputs": str(_get(row, C.OUTPUT_SHAPES) or "").strip('"') or None,
                      "output_dtypes": _get(row, C.OUTPUT_DTYPES), "type": op_type}


def _flop_part(d: Derivation, row: Mapping[str, object], estimate_: FlopEstimate, prefill: CalculatorPrefill,
               peak_source: str, op_type: str, terms: VendorTerms) -> None:
    """FLOPs, achieved TFLOP/s, MFU, status and hints of a kernel with a FLOP rule."""
    if estimate_.detail:
        d.steps.append(f"FLOPs = {estimate_.detail}")
    if estimate_.assumption:
        d.conventions.append(estimate_.assumption)
    if estimate_.flops is not None:
        d.conventions.append(f"confidence: {estimate_.confidence}")
    dims = dict(estimate_.dims)
    _flop_prefill(prefill, dims, op_type)
    _achieved_and_mfu(d, row, peak_source)
    status, reason = str(_get(row, "status") or ""), str(_get(row, "reason") or "")
    if status and status != "counted":
        d.results.append(("status", f"{status}: {reason}" if reason else status))
    d.hints = _flop_hints(row, prefill, dims, terms)


def _flop_prefill(prefill: CalculatorPrefill, dims: dict[str, object], op_type: str) -> None:
    """Fill the calculator as a GEMM (the rule found M, N, K) or a FlashAttention (it found a layout)."""
    if "M" in dims:
        prefill.kind = "gemm"
        prefill.values = {"m": dims["M"], "n": dims["N"], "k": dims["K"], "batch": dims.get("batch", 1)}
    elif "layout" in dims:
        prefill.kind = "fa"
        prefill.values = {"layout": dims["layout"], "q_shape": dims.get("Q"), "k_shape": dims.get("K"),
                          "v_shape": dims.get("V"), "heads": dims.get("N_q"), "sparse_mode": dims.get("sparse_mode", 0),
                          "backward": op_type.endswith("Grad")}


def _achieved_and_mfu(d: Derivation, row: Mapping[str, object], peak_source: str) -> None:
    """The FLOPs, achieved TFLOP/s, executed FLOPs (HFU view) and MFU (or its range) of a kernel row.

    Args:
        d: The derivation, extended in place.
        row: One annotated kernel row.
        peak_source: Where the rank's peak came from.
    """
    flops, dur = _get(row, "flops"), _get(row, C.DURATION_US)
    achieved, peak, mfu = _get(row, "achieved_tflops"), _get(row, "peak_tflops"), _get(row, "mfu")
    if flops is not None and dur:
        f_text, t_text = operands(lambda f, t: f / t / 1e12, sig, Exact(float(flops), grouped(float(flops))),
                                  float(dur) * 1e-6)
        d.steps.append(f"achieved = FLOPs / t / 1e12 = {f_text} / {t_text} s / 1e12 = "
                       f"{sig(float(flops) / float(dur) / 1e6)} TFLOP/s")
        d.results.append(("FLOPs", f"{grouped(float(flops))} ({sig(float(flops) / 1e12)} TFLOP)"))
        d.results.append(("achieved", f"{sig(float(flops) / float(dur) / 1e6)} TFLOP/s"))
    executed = _get(row, "executed_flops")
    if executed is not None and flops is not None and executed != flops:
        d.results.append(("executed FLOPs (HFU view)", grouped(float(executed))))
    if peak is not None and achieved is not None:
        value = float(flops) / float(dur) / 1e6 / float(peak)
        a_text, p_text = operands(lambda a, p: a / p, pct, float(flops) / float(dur) / 1e6, float(peak))
        d.steps.append(f"MFU = achieved / peak = {a_text} / {p_text} = {pct(value)}")
        d.results.append(("peak", f"{short(float(peak), 6)} TFLOP/s ({peak_source})" if peak_source
                          else f"{short(float(peak), 6)} TFLOP/s"))
        d.results.append(("MFU", pct(value)))
        d.interpretation = interpret(value)
    elif mfu is None and _get(row, "mfu_lo") is not None:
        d.results.append(("MFU", f"{pct(float(row['mfu_lo']))} – {pct(float(row['mfu_hi']))} (chip not confirmed)"))


def _flop_hints(row: Mapping[str, object], prefill: CalculatorPrefill, dims: dict[str, object],
                terms: VendorTerms) -> list[str]:
    """Hints for a kernel with a FLOP rule: a GEMM's from its shape and MFU, any other's from its dtype."""
    try:
        dtype = ComputeDtype(str(_get(row, "dtype"))) if _get(row, "dtype") else None
    except ValueError:
        dtype = None
    if prefill.kind == "gemm":
        flops, mfu = _get(row, "flops"), _get(row, "mfu")
        return matmul_hints({k: int(v) for k, v in dims.items() if k in ("M", "N", "K")}, dtype,
                            int(flops) if flops is not None else None, float(mfu) if mfu is not None else None,
                            terms)
    return dtype_hints(dtype, terms)


def _roofline_part(d: Derivation, row: Mapping[str, object], bw_gbs: float | None) -> None:
    """Minimum bytes, achieved bandwidth, intensity, the roofline's attainable time and the bound (mfu.md §6)."""
    nbytes, dur = _get(row, "bytes"), _get(row, C.DURATION_US)
    count = _byte_count(row)
    if nbytes is None or not dur:
        if count.reason:
            d.conventions.append(f"no bytes: {count.reason}")
        return
    nbytes, dur = float(nbytes), float(dur)
    share = _get(row, C.FLOPS_SHARE)
    scaled = f" × this kernel's share {short(float(share), 4)}" if share is not None and float(share) != 1.0 else ""
    d.steps.append(f"bytes = Σ inputs + Σ outputs = {count.detail}{scaled}")
    if count.assumption:
        d.conventions.append(count.assumption)
    achieved = nbytes / dur / 1e3
    b_text, t_text = operands(lambda b, t: b / t / 1e9, sig, Exact(nbytes, grouped(nbytes)), dur * 1e-6)
    d.steps.append(f"achieved bandwidth = bytes / t = {b_text} / {t_text} s = {sig(achieved)} GB/s")
    d.results.append(("bytes", f"{grouped(nbytes)} ({sig(nbytes / 1e6)} MB)"))
    d.results.append(("achieved bandwidth", f"{sig(achieved)} GB/s"))
    flops, peak = _get(row, "flops"), _get(row, "peak_tflops")
    if flops is not None and float(flops) > 0:
        d.steps.append(f"intensity = FLOPs / bytes = {grouped(float(flops))} / {grouped(nbytes)} = "
                       f"{sig(float(flops) / nbytes)} FLOP/byte")
        d.results.append(("arithmetic intensity", f"{sig(float(flops) / nbytes)} FLOP/byte"))
    if not bw_gbs:
        return
    util = achieved / bw_gbs
    memory_us = nbytes / bw_gbs / 1e3
    a_text, bw_text = operands(lambda a, w: a / w, pct, achieved, bw_gbs)
    d.steps.append(f"bandwidth utilisation = {a_text} / {bw_text} GB/s = {pct(util)}")
    d.results.append(("bandwidth utilisation", pct(util)))
    b_text, bw_text = operands(lambda b, w: b / w / 1e3, sig, Exact(nbytes, grouped(nbytes)), bw_gbs)
    terms = f"bytes / BW = {b_text} / {bw_text} GB/s"
    attainable, bound = memory_us, "memory"
    if flops is not None and float(flops) > 0 and peak is not None:
        compute_us = float(flops) / float(peak) / 1e6
        c_text, m_text = operands(max, sig, compute_us, memory_us)
        terms = f"max(FLOPs / P, bytes / BW) = max({c_text}, {m_text}) µs"
        attainable, bound = max(compute_us, memory_us), "compute" if compute_us > memory_us else "memory"
    d.steps.append(f"t* = {terms} = {sig(attainable)} µs → {bound}-bound")
    d.results.append(("roofline-attainable time", f"{sig(attainable)} µs ({bound}-bound)"))
    if bound == "memory":
        has_flops = flops is not None and float(flops) > 0
        d.interpretation = (f"{d.interpretation} Memory-bound at its intensity, so its bandwidth judges it: "
                            f"{interpret_bandwidth(util)}" if has_flops else interpret_bandwidth(util))


def _byte_count(row: Mapping[str, object]) -> ByteCount:
    """The byte count of one kernel row from its shapes, dtypes and type (cached: cheap per selection)."""
    def cell(column: str) -> str | None:
        value = _get(row, column)
        return None if value is None else str(value)

    return min_bytes(cell(C.INPUT_SHAPES), cell(C.OUTPUT_SHAPES), cell(C.INPUT_DTYPES), cell(C.OUTPUT_DTYPES),
                     cell(C.OP_TYPE))
