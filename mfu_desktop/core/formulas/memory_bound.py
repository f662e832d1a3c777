"""A memory-bound operator in the calculator: shapes + dtypes + time → bytes, GB/s, bandwidth utilisation.

The bytes are :func:`mfu_desktop.core.formulas.bytes.min_bytes` (mfu.md §6): every input read once, every
output written once. Bandwidth utilisation is achieved GB/s over the chip's HBM bandwidth; it
judges a memory-bound kernel as MFU judges a compute-bound one.
"""

from __future__ import annotations

from dataclasses import dataclass

from mfu_desktop.core.formulas.bytes import min_bytes
from mfu_desktop.core.formulas.derivation import Derivation, MissingInput
from mfu_desktop.core.formulas.mfu import MfuBand, mfu_band
from mfu_desktop.core.numbers import Exact, grouped, operands, pct, short, sig

#: What a bandwidth utilisation means, on the same bands as MFU (one band definition: :func:`mfu_band`).
BANDWIDTH_TEXT = {
    MfuBand.FAR: "< 20 % of HBM bandwidth: far from the memory roof — small tensors (launch overhead), strided or "
                 "scattered access, or a kernel bound by its vector/scalar pipeline rather than by memory.",
    MfuBand.LOW: "20–30 % of HBM bandwidth: low.",
    MfuBand.MEDIUM: "30–60 % of HBM bandwidth: medium; fusing it with its neighbours saves a round trip to HBM.",
    MfuBand.GOOD: "60–70 % of HBM bandwidth: good.",
    MfuBand.NEAR_LIMIT: "> 70 % of HBM bandwidth: close to the memory roof — only moving fewer bytes (fusion, "
                        "lower precision) makes it faster.",
    MfuBand.IMPOSSIBLE: "> 100 % of HBM bandwidth: faster than HBM — on-chip cache hits (a tensor re-read from L2), "
                        "or a wrong shape, dtype or bandwidth.",
}


def interpret_bandwidth(util: float) -> str:
    """One sentence interpreting a bandwidth utilisation."""
    return BANDWIDTH_TEXT[mfu_band(util)]


WHERE = {
    "shapes": "Input Shapes / Output Shapes of the kernel in kernel_details.csv (Level1+)",
    "dtypes": "Input Data Types / Output Data Types of the kernel in kernel_details.csv",
    "time": "Duration(us) of the kernel in kernel_details.csv (µs per call), or your own timer",
    "bandwidth": "--chip NAME (its HBM bandwidth in `mfu chips`) or --bandwidth-gbs",
}


@dataclass
class MemoryResult:
    """Bytes and bandwidth of one memory-bound operator (per call), with its derivation.

    Attributes:
        bytes: Minimum bytes moved per call (``None`` when the shapes or dtypes are not usable).
        time_s: Seconds per call.
        bw_gbs: The HBM bandwidth used (GB/s).
        achieved_gbs: bytes / time.
        bw_util: achieved / bandwidth (fraction).
        attainable_s: bytes / bandwidth: the roofline's time for this operator.
        derivation: The explanation.
    """

    bytes: int | None
    time_s: float | None
    bw_gbs: float | None
    achieved_gbs: float | None
    bw_util: float | None
    attainable_s: float | None
    derivation: Derivation

    def to_json(self) -> dict[str, object]:
        """The CLI's JSON: bytes, achieved_gbs, bandwidth_gbs, bw_util, attainable_us, derivation."""
        out: dict[str, object] = {
            "bytes": self.bytes, "achieved_gbs": self.achieved_gbs, "bandwidth_gbs": self.bw_gbs,
            "bw_util": self.bw_util,
            "attainable_us": None if self.attainable_s is None else self.attainable_s * 1e6,
            "derivation": self.derivation.lines(),
        }
        if self.derivation.missing:
            out["missing"] = [{"name": m.name, "where": m.where} for m in self.derivation.missing]
        return out


def calc_memory_bound(input_shapes: str, input_dtypes: str, output_shapes: str | None, output_dtypes: str | None,
                      time_s: float | None, bw_gbs: float | None, bw_source: str = "",
                      op_type: str | None = None) -> MemoryResult:
    """Bytes, achieved GB/s and bandwidth utilisation of one memory-bound operator.

    Args:
        input_shapes: ``"4096,4096;4096"`` (tensors separated by ``;``, as the profiler writes them).
        input_dtypes: ``"bf16;bf16"`` — one per input tensor.
        output_shapes: The output tensors; empty/``None``: taken as large as the largest input.
        output_dtypes: One per output tensor (defaults to the first input's dtype).
        time_s: Seconds per call.
        bw_gbs: The chip's HBM bandwidth (GB/s).
        bw_source: Where the bandwidth came from.
        op_type: The operator type, for the write-only and gather conventions.
    """
    d = Derivation("Memory-bound operator: bandwidth utilisation")
    outputs = output_shapes.strip() if output_shapes else ""
    out_types = output_dtypes or ";".join([(input_dtypes or "").split(";")[0]] * max(len(outputs.split(";")), 1))
    d.inputs = [("input shapes", input_shapes), ("input dtypes", input_dtypes),
                ("output shapes", outputs or "not given (taken as large as the largest input)"),
                ("output dtypes", out_types if outputs else "–"),
                ("time", f"{short(time_s * 1e6, 9)} µs" if time_s else "missing"),
                ("HBM bandwidth", f"{short(bw_gbs, 6)} GB/s ({bw_source})" if bw_gbs else "missing")]
    if op_type:
        d.inputs.insert(0, ("type", op_type))
    count = min_bytes(input_shapes, outputs or None, _canonical(input_dtypes), _canonical(out_types) if outputs
                      else None, op_type)
    if count.bytes is None:
        d.missing.append(MissingInput("shapes and dtypes", f"{count.reason} — {WHERE['shapes']}"))
        return MemoryResult(None, time_s, bw_gbs, None, None, None, d)
    d.steps.append(f"bytes = Σ inputs + Σ outputs = {count.detail}")
    if count.assumption:
        d.conventions.append(count.assumption)
    d.conventions.append("minimum bytes: every input read once, every output written once (mfu.md §6); cache "
                         "re-reads and padding of non-stored layouts are not counted")
    d.results.append(("bytes per call", f"{grouped(count.bytes)} ({sig(count.bytes / 1e6)} MB)"))
    achieved = util = attainable = None
    if time_s:
        achieved = count.bytes / time_s / 1e9
        b_text, t_text = operands(lambda b, t: b / t / 1e9, sig, Exact(count.bytes, grouped(count.bytes)), time_s)
        d.steps.append(f"achieved = bytes / t = {b_text} / {t_text} s = {sig(achieved)} GB/s")
        d.results.append(("achieved bandwidth", f"{sig(achieved)} GB/s"))
    else:
        d.missing.append(MissingInput("time", WHERE["time"]))
    if bw_gbs:
        attainable = count.bytes / (bw_gbs * 1e9)
        b_text, bw_text = operands(lambda b, w: b / w / 1e3, sig, Exact(count.bytes, grouped(count.bytes)), bw_gbs)
        d.steps.append(f"t* = bytes / BW = {b_text} / {bw_text} GB/s = {sig(attainable * 1e6)} µs")
        d.results.append(("roofline-attainable time", f"{sig(attainable * 1e6)} µs"))
    else:
        d.missing.append(MissingInput("bandwidth", WHERE["bandwidth"]))
    if achieved is not None and bw_gbs:
        util = achieved / bw_gbs
        a_text, bw_text = operands(lambda a, w: a / w, pct, achieved, bw_gbs)
        d.steps.append(f"bandwidth utilisation = achieved / BW = {a_text} / {bw_text} = {pct(util)}")
        d.results.append(("bandwidth utilisation", pct(util)))
        d.results.append(("lost time", f"{sig(max(time_s - attainable, 0.0) * 1e6)} µs = t − t*"))
        d.interpretation = interpret_bandwidth(util)
    return MemoryResult(count.bytes, time_s, bw_gbs, achieved, util, attainable, d)


def _canonical(dtypes: str | None) -> str | None:
    """Short spellings users type (``bf16;fp32``) → the profiler's (``DT_BF16;FLOAT``)."""
    if not dtypes:
        return dtypes
    aliases = {"BF16": "DT_BF16", "FP16": "FLOAT16", "FP32": "FLOAT", "F32": "FLOAT", "FP8": "FP8", "INT8": "INT8"}
    return ";".join(aliases.get(p.strip().upper(), p.strip()) for p in dtypes.split(";"))
