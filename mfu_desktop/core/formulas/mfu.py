"""MFU arithmetic: per-operator MFU with derivations, aggregates and interpretation (mfu.md §1, §4).

``achieved TFLOP/s = FLOPs / seconds / 1e12`` and ``MFU = achieved / peak``. With mixed
dtypes the aggregate is the ideal time at peak over the actual time,
``Σ_i (FLOPs_i / peak_i) / Σ_i t_i`` (mfu.md §4.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from mfu_desktop.core.chips.catalog import Peak
from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.chips.vendor_terms import VendorTerms
from mfu_desktop.core.formulas.derivation import Derivation, MissingInput
from mfu_desktop.core.formulas.flops import (
    AttentionFlops,
    AttentionShape,
    BackwardCount,
    FlopCount,
    FlopError,
    Layout,
    MaskConvention,
    attention_scores_flops,
    flash_attention_backward,
    flash_attention_forward,
    gemm_flops,
    linear_flops,
)
from mfu_desktop.core.formulas.shapes import Shape, format_shape
from mfu_desktop.core.numbers import Exact, grouped, operands, pct, short, sig

if TYPE_CHECKING:  # numpy is imported where arrays are handled: the calculator's command line stays light
    import numpy as np

# --- interpretation (mfu.md §4.5) ---------------------------------------------------------

#: Band limits as fractions of peak.
FAR_FROM_PEAK = 0.20
LOW = 0.30
TYPICAL_HIGH = 0.60
NEAR_LIMIT = 0.70
IMPOSSIBLE = 1.0

#: A dimension below this leaves the cube's pipelines short (the seed's "K 维过小").
SMALL_DIM = 256
#: Ascend cube fractal edge: dims that are not multiples pad the 16×16×16 tiles.
CUBE_ALIGN = 16
#: Large dims tile best at multiples of this (L1/L0 block sizes of Ascend matmul kernels).
TILE_ALIGN = 256
#: Dims at least this large get the TILE_ALIGN hint (small ones are dominated by other effects).
TILE_HINT_MIN_DIM = 1024
#: Below this many FLOPs per call, launch and scheduling overhead dominate.
TINY_OP_FLOPS = 1e9


class MfuBand(StrEnum):
    """Interpretation band of an MFU value."""

    FAR = "far"  # < 20 %
    LOW = "low"  # 20–30 %
    MEDIUM = "medium"  # 30–60 %
    GOOD = "good"  # 60–70 %
    NEAR_LIMIT = "near_limit"  # 70–100 %
    IMPOSSIBLE = "impossible"  # > 100 %


_BAND_TEXT = {
    MfuBand.FAR: "< 20 %: far from peak — typically memory bandwidth, launch overhead, or small/irregular shapes.",
    MfuBand.LOW: "20–30 %: low.",
    MfuBand.MEDIUM: "30–60 %: medium to good; many general workloads sit here.",
    MfuBand.GOOD: "60–70 %: good, above typical general workloads.",
    MfuBand.NEAR_LIMIT: "> 70 %: shape, parallelism and implementation are close to the device limit.",
    MfuBand.IMPOSSIBLE: (
        "> 100 % is physically impossible: check the shapes (transposes), the peak (chip, dtype) and the time unit."
    ),
}


def mfu_band(mfu: float) -> MfuBand:
    """The interpretation band of an MFU fraction."""
    if mfu > IMPOSSIBLE:
        return MfuBand.IMPOSSIBLE
    if mfu >= NEAR_LIMIT:
        return MfuBand.NEAR_LIMIT
    if mfu >= TYPICAL_HIGH:
        return MfuBand.GOOD
    if mfu >= LOW:
        return MfuBand.MEDIUM
    if mfu >= FAR_FROM_PEAK:
        return MfuBand.LOW
    return MfuBand.FAR


#: Bands in ascending order: :func:`mfu_band_codes` indexes into this.
BAND_ORDER = (MfuBand.FAR, MfuBand.LOW, MfuBand.MEDIUM, MfuBand.GOOD, MfuBand.NEAR_LIMIT, MfuBand.IMPOSSIBLE)
_BAND_EDGES = (FAR_FROM_PEAK, LOW, TYPICAL_HIGH, NEAR_LIMIT)


def mfu_band_codes(values: np.ndarray) -> np.ndarray:
    """:func:`mfu_band` for many values at once: index into :data:`BAND_ORDER`, −1 for NaN."""
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    codes = np.searchsorted(np.array(_BAND_EDGES), values, side="right")  # < 0.2 → 0 … ≥ 0.7 → 4
    codes = np.where(values > IMPOSSIBLE, BAND_ORDER.index(MfuBand.IMPOSSIBLE), codes)
    return np.where(np.isnan(values), -1, codes)


def interpret(mfu: float) -> str:
    """One sentence interpreting an MFU fraction."""
    return _BAND_TEXT[mfu_band(mfu)]


def unaligned_dims(dims: dict[str, int]) -> tuple[list[str], list[str]]:
    """A matmul's dims that miss the cube tile: the one definition of "aligned" (hints and the advisor).

    Args:
        dims: Named dims; ``M``, ``N`` and ``K`` are judged.

    Returns:
        ``(fractal, tile)``: ``name=value`` of the dims that are not multiples of :data:`CUBE_ALIGN`
        (the 16×16×16 fractal is padded), and of those ≥ :data:`TILE_HINT_MIN_DIM` that are
        multiples of it but not of :data:`TILE_ALIGN` (large matmuls tile best at its multiples).
        A matmul is aligned when both lists are empty.
    """
    judged = [(name, int(dims[name])) for name in ("M", "N", "K") if dims.get(name) is not None]
    fractal = [f"{name}={value}" for name, value in judged if value % CUBE_ALIGN != 0]
    tile = [f"{name}={value}" for name, value in judged
            if value >= TILE_HINT_MIN_DIM and value % TILE_ALIGN != 0 and value % CUBE_ALIGN == 0]
    return fractal, tile


def matmul_hints(
    dims: dict[str, int], dtype: ComputeDtype | None, flops: int | None = None, mfu: float | None = None,
    terms: VendorTerms | None = None,
) -> list[str]:
    """Concrete hints from a matmul's dimensions and dtype.

    Args:
        dims: Named dims (``M``, ``N``, ``K`` and optionally ``B``/``batch``).
        dtype: Compute dtype, when known.
        flops: FLOPs per call, for the tiny-op hint.
        mfu: The MFU, for the > 100 % hint.
        terms: The vendor's words (the Ascend Cube's when ``None``).
    """
    hints: list[str] = []
    k = dims.get("K")
    m = dims.get("M")
    gpu = terms is not None and terms.gpu
    unit = terms.matrix_unit if gpu else "cube"
    if k is not None and k < SMALL_DIM:
        hints.append(f"K = {k} is small (< {SMALL_DIM}): each output tile does little {unit} work per data "
                     "move; fuse matmuls or enlarge the contracted dimension.")
    if m is not None and m < SMALL_DIM:
        idle = f"{unit}s" if gpu else "cube cores"
        hints.append(f"M = {m} is small (< {SMALL_DIM}): tiny batch·sequence leaves {idle} idle; "
                     "increase the micro-batch or fuse.")
    unaligned, loose = unaligned_dims(dims)
    if unaligned:
        tiles = f"{unit} tiles" if gpu else "16×16×16 cube fractals"
        hints.append(f"{', '.join(unaligned)} not a multiple of {CUBE_ALIGN}: the {tiles} are "
                     "padded; pad the model dims (hidden, vocab, heads·head_dim) to multiples of 16.")
    if loose:
        hints.append(f"{', '.join(loose)} not a multiple of {TILE_ALIGN}: large matmuls tile best at multiples "
                     f"of {TILE_ALIGN}.")
    hints.extend(dtype_hints(dtype, terms))
    if flops is not None and flops < TINY_OP_FLOPS:
        hints.append(f"Only {sig(flops / 1e6)} MFLOP per call: launch and scheduling overhead dominate; fuse small "
                     "ops or batch them.")
    if mfu is not None and mfu > IMPOSSIBLE:
        hints.append("MFU > 100 %: re-check M/N/K (a transposed operand read as [N,K] inflates N), the peak's "
                     "dtype and chip, and that the time is per call in µs.")
    return hints


def dtype_hints(dtype: ComputeDtype | None, terms: VendorTerms | None = None) -> list[str]:
    """Hints that depend only on the compute dtype (in the vendor's words when ``terms`` names it)."""
    if dtype is not ComputeDtype.FP32:
        return []
    if terms is not None and terms.gpu:
        return [f"FP32 matmuls without {terms.reduced_fp32} run on the CUDA/SIMD cores, far below the "
                f"{terms.matrix_unit} peak: BF16/FP16 (autocast), or {terms.reduced_fp32} "
                "(torch.backends.cuda.matmul.allow_tf32 = True, Ampere / MI300 or later), is several times faster."]
    return ["FP32 on the cube runs at ¼ of the FP16 rate on Ascend A2/A3 (CUDA-core rate on NVIDIA): "
            "BF16/FP16, or HF32/TF32 (torch.npu.matmul.allow_hf32 / allow_tf32), is up to 4× faster."]


# --- per-operator results ---------------------------------------------------------------


@dataclass
class OperatorResult:
    """MFU of one operator (per call), with its derivation.

    Attributes:
        flops: Model FLOPs per call, ``None`` when inputs were missing.
        calls: Calls per iteration (totals multiply by it; MFU does not change).
        time_s: Seconds per call.
        peak: The peak used.
        achieved_tflops: FLOPs / time / 1e12.
        mfu: achieved / peak (fraction).
        executed_flops: Executed FLOPs when they differ from model FLOPs (FA backward).
        derivation: The explanation.
    """

    title: str
    flops: int | None
    calls: int
    time_s: float | None
    peak: Peak | None
    achieved_tflops: float | None
    mfu: float | None
    derivation: Derivation
    executed_flops: int | None = None
    count: FlopCount | None = None
    extras: dict[str, object] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when every figure could be computed."""
        return self.mfu is not None

    def to_json(self) -> dict[str, object]:
        """The CLI's JSON contract: flops, achieved_tflops, peak_tflops, mfu, derivation."""
        out: dict[str, object] = {
            "flops": self.flops,
            "achieved_tflops": self.achieved_tflops,
            "peak_tflops": self.peak.tflops if self.peak else None,
            "mfu": self.mfu,
            "derivation": self.derivation.lines(),
        }
        if self.executed_flops is not None:
            out["executed_flops"] = self.executed_flops
        if self.calls != 1:
            out["calls"] = self.calls
        if self.derivation.missing:
            out["missing"] = [{"name": m.name, "where": m.where} for m in self.derivation.missing]
        return out


WHERE = {
    "M": "Output Shapes [M, N] of the kernel in kernel_details.csv (Level1+)",
    "N": "Output Shapes [M, N] of the kernel in kernel_details.csv (Level1+)",
    "K": "the dim of Input Shapes' first tensor that is not M (kernel_details.csv)",
    "time": "Duration(us) of the kernel in kernel_details.csv (µs per call), or your own timer",
    "peak": "--chip NAME (see `mfu chips`) with --dtype, or --peak-tflops; the chip is NPU_INFO in the "
            "profiler .db or PROF_*/device_*/info.json",
    "layout": "input_layout argument of npu_fusion_attention; not recorded in kernel_details.csv, but inferable "
              "from softmax_max's shape [B, N, S, 8]",
    "sparse_mode": "sparse_mode argument of npu_fusion_attention; not recorded in profiles (a 2048×2048 atten_mask "
                   "means a causal mode)",
    "actual_seq_qlen": "actual_seq_qlen / actual_seq_kvlen arguments of npu_fusion_attention (cumulative lengths); "
                       "their values are not recorded in profiles — log them or add an mstx mark",
    "heads": "head_num argument of npu_fusion_attention, or the model config (num_attention_heads)",
    "shapes": "Input Shapes of the kernel in kernel_details.csv (query, key, value are the first three tensors)",
}


def finish_operator(
    title: str,
    inputs: list[tuple[str, str]],
    count: FlopCount | None,
    time_s: float | None,
    peak: Peak | None,
    calls: int = 1,
    dtype: ComputeDtype | None = None,
    missing: list[MissingInput] | None = None,
    extra_steps: list[str] | None = None,
    hint_dims: dict[str, int] | None = None,
    extra_hints: list[str] | None = None,
    conventions: list[str] | None = None,
) -> OperatorResult:
    """Turn a FLOP count, a time and a peak into an MFU result with its derivation.

    Missing pieces are listed (with where to find them) and the figures that need them stay
    ``None``: nothing is guessed.
    """
    missing = list(missing or [])
    derivation = Derivation(title, inputs=list(inputs), missing=missing, conventions=list(conventions or []))
    derivation.steps.extend(extra_steps or [])
    if calls < 1:
        raise FlopError(f"calls must be at least 1, got {calls}")
    flops = count.flops if count else None
    if count is not None:
        derivation.steps.append(f"FLOPs = {count.formula} = {count.substituted}")
        derivation.conventions.extend(n for n in count.notes if n not in derivation.conventions)
    achieved, mfu = _achieved_and_mfu(derivation, count, time_s, peak)
    _add_results(derivation, count, flops, calls, peak, achieved, mfu)
    derivation.hints = _operator_hints(hint_dims, dtype, flops, mfu, extra_hints)
    return OperatorResult(
        title=title,
        flops=flops,
        calls=calls,
        time_s=time_s,
        peak=peak,
        achieved_tflops=achieved,
        mfu=mfu,
        derivation=derivation,
        executed_flops=count.executed_flops if count else None,
        count=count,
    )


def _achieved_and_mfu(
    derivation: Derivation, count: FlopCount | None, time_s: float | None, peak: Peak | None
) -> tuple[float | None, float | None]:
    """Achieved TFLOP/s and MFU as far as the inputs allow, each written down as a step.

    Args:
        derivation: Receives the ``achieved = …`` and ``MFU = …`` steps.
        count: The FLOP count, or ``None`` when it could not be made.
        time_s: Seconds per call, or ``None``.
        peak: The peak, or ``None``.

    Returns:
        ``(achieved, mfu)``; each is ``None`` when an input it needs is missing.

    Raises:
        FlopError: When the time is not positive.
    """
    achieved = mfu = None
    if count is not None and time_s is not None:
        if time_s <= 0:
            raise FlopError(f"time must be positive, got {time_s} s")
        achieved = count.flops / time_s / 1e12
        flops_text, t_text = operands(lambda f, t: f / t / 1e12, sig, Exact(count.flops, grouped(count.flops)), time_s)
        derivation.steps.append(f"achieved = FLOPs / t / 1e12 = {flops_text} / {t_text} s / 1e12 = "
                                f"{sig(achieved)} TFLOP/s")
    if achieved is not None and peak is not None:
        mfu = achieved / peak.tflops
        a, p = operands(lambda a, p: a / p, pct, achieved, peak.tflops)
        derivation.steps.append(f"MFU = achieved / peak = {a} / {p} = {pct(mfu)}")
    return achieved, mfu


def _add_results(
    derivation: Derivation,
    count: FlopCount | None,
    flops: int | None,
    calls: int,
    peak: Peak | None,
    achieved: float | None,
    mfu: float | None,
) -> None:
    """Write the known figures into the derivation's results (and the interpretation of the MFU).

    Args:
        derivation: Receives the results.
        count: The FLOP count, or ``None``.
        flops: FLOPs per call, or ``None``.
        calls: Calls per iteration (a total is added when it is not 1).
        peak: The peak, or ``None``.
        achieved: Achieved TFLOP/s, or ``None``.
        mfu: The MFU fraction, or ``None``.
    """
    if flops is not None:
        derivation.results.append(("FLOPs per call", f"{grouped(flops)} ({sig(flops / 1e12)} TFLOP)"))
        if calls != 1:
            derivation.results.append((f"FLOPs for {calls} calls", grouped(flops * calls)))
    if count is not None and count.executed_flops is not None and count.executed_flops != count.flops:
        derivation.results.append(("executed FLOPs (HFU view)", grouped(count.executed_flops)))
    if achieved is not None:
        derivation.results.append(("achieved", f"{sig(achieved)} TFLOP/s"))
    if peak is not None:
        derivation.results.append(("peak", f"{short(peak.tflops)} TFLOP/s ({peak.dtype.value}; {peak.source})"))
    if mfu is not None:
        derivation.results.append(("MFU", pct(mfu)))
        derivation.interpretation = interpret(mfu)


def _operator_hints(
    hint_dims: dict[str, int] | None,
    dtype: ComputeDtype | None,
    flops: int | None,
    mfu: float | None,
    extra_hints: list[str] | None,
) -> list[str]:
    """The hints of one operator: matmul hints when its dims are known, else the dtype's, then the extras.

    Args:
        hint_dims: Named matmul dims, or ``None`` for an operator that is not a plain matmul.
        dtype: Compute dtype, when known.
        flops: FLOPs per call, when known.
        mfu: The MFU, when known.
        extra_hints: Operator-specific hints appended last.
    """
    hints = []
    if hint_dims is not None:
        hints.extend(matmul_hints(hint_dims, dtype, flops, mfu))
    else:
        hints.extend(dtype_hints(dtype))
        if mfu is not None and mfu > IMPOSSIBLE:
            hints.append("MFU > 100 %: check the shapes, the peak's dtype and chip, and the time unit.")
    hints.extend(extra_hints or [])
    return hints


def _time_input(time_s: float | None) -> tuple[str, str]:
    return ("time per call", "missing" if time_s is None else f"{short(time_s * 1e6, 9)} µs")


def _peak_input(peak: Peak | None) -> tuple[str, str]:
    if peak is None:
        return ("peak", "missing")
    return ("peak", f"{short(peak.tflops)} TFLOP/s, {peak.dtype.value} ({peak.source})")


def _missing_common(time_s: float | None, peak: Peak | None) -> list[MissingInput]:
    out = []
    if time_s is None:
        out.append(MissingInput("time", WHERE["time"]))
    if peak is None:
        out.append(MissingInput("peak", WHERE["peak"]))
    return out


def calc_gemm(
    m: int | None,
    n: int | None,
    k: int | None,
    time_s: float | None,
    peak: Peak | None,
    batch: int = 1,
    calls: int = 1,
) -> OperatorResult:
    """MFU of a GEMM or batched matmul, (B,)M×K · K×N."""
    missing = [MissingInput(name, WHERE[name]) for name, v in (("M", m), ("N", n), ("K", k)) if v is None]
    missing += _missing_common(time_s, peak)
    count = gemm_flops(m, n, k, batch) if not any(v is None for v in (m, n, k)) else None
    title = "Batched matmul MFU" if batch != 1 else "GEMM MFU"
    inputs = [("operator", "batched matmul (B,M,K)·(B,K,N)" if batch != 1 else "GEMM (M,K)·(K,N)")]
    if batch != 1:
        inputs.append(("B", str(batch)))
    inputs += [("M", str(m) if m else "missing"), ("N", str(n) if n else "missing"),
               ("K", str(k) if k else "missing"), _time_input(time_s), _peak_input(peak)]
    if calls != 1:
        inputs.append(("calls", str(calls)))
    dims = {"M": m, "N": n, "K": k} if count else None
    return finish_operator(title, inputs, count, time_s, peak, calls, peak.dtype if peak else None, missing,
                           hint_dims=dims)


def calc_linear(
    batch: int, seq: int, d_in: int, d_out: int, time_s: float | None, peak: Peak | None, calls: int = 1
) -> OperatorResult:
    """MFU of a linear layer, input (B, L, D_in) · weight (D_in, D_out)."""
    count = linear_flops(batch, seq, d_in, d_out)
    inputs = [("operator", "linear layer"), ("input", f"({batch}, {seq}, {d_in})"), ("weight", f"({d_in}, {d_out})"),
              _time_input(time_s), _peak_input(peak)]
    return finish_operator("Linear layer MFU", inputs, count, time_s, peak, calls, peak.dtype if peak else None,
                           _missing_common(time_s, peak), hint_dims={"M": batch * seq, "N": d_out, "K": d_in})


def calc_attention_scores(
    batch: int, heads: int, len_q: int, len_k: int, head_dim: int, time_s: float | None, peak: Peak | None,
    calls: int = 1,
) -> OperatorResult:
    """MFU of attention's QKᵀ matmul, Q=(B,H,Lq,Dh), K=(B,H,Lk,Dh)."""
    count = attention_scores_flops(batch, heads, len_q, len_k, head_dim)
    inputs = [("operator", "attention QKᵀ"), ("Q", f"({batch}, {heads}, {len_q}, {head_dim})"),
              ("K", f"({batch}, {heads}, {len_k}, {head_dim})"), _time_input(time_s), _peak_input(peak)]
    return finish_operator("Attention QKᵀ MFU", inputs, count, time_s, peak, calls, peak.dtype if peak else None,
                           _missing_common(time_s, peak), hint_dims={"M": len_q, "N": len_k, "K": head_dim})


@dataclass(frozen=True)
class _FlashAttentionCall:
    """The arguments of one FlashAttention call, as the calculator was given them (``None`` = missing)."""

    layout: Layout | str | None
    q: Shape | None
    k: Shape | None
    v: Shape | None
    heads: int | None
    sparse_mode: int | None
    pre_tokens: int | None
    next_tokens: int | None
    actual_seq_qlen: Sequence[int] | None
    actual_seq_kvlen: Sequence[int] | None
    convention: MaskConvention | str

    @property
    def is_tnd(self) -> bool:
        """True for the varlen layout, which needs the cumulative sequence lengths."""
        return self.layout is not None and str(self.layout).upper() == "TND"

    @property
    def lengths_missing(self) -> bool:
        """True when the layout is TND and either cumulative length array is missing."""
        return self.is_tnd and (not self.actual_seq_qlen or not self.actual_seq_kvlen)

    @property
    def countable(self) -> bool:
        """True when everything the FLOP count needs was given."""
        return (self.layout is not None and self.q is not None and self.k is not None
                and self.sparse_mode is not None and not self.lengths_missing)


def calc_flash_attention(
    layout: Layout | str | None,
    q: Shape | None,
    k: Shape | None,
    v: Shape | None,
    time_s: float | None,
    peak: Peak | None,
    heads: int | None = None,
    sparse_mode: int | None = 0,
    pre_tokens: int | None = None,
    next_tokens: int | None = None,
    actual_seq_qlen: Sequence[int] | None = None,
    actual_seq_kvlen: Sequence[int] | None = None,
    backward: bool = False,
    backward_count: BackwardCount | str = BackwardCount.MODEL,
    convention: MaskConvention | str = MaskConvention.EXACT,
    calls: int = 1,
) -> OperatorResult:
    """MFU of a FlashAttention forward or backward call (mfu.md §3).

    Raises:
        FlopError: When the given shapes contradict each other or the layout.
    """
    call = _FlashAttentionCall(layout, q, k, v, heads, sparse_mode, pre_tokens, next_tokens,
                               actual_seq_qlen, actual_seq_kvlen, convention)
    title = "FlashAttention backward MFU" if backward else "FlashAttention forward MFU"
    missing = _fa_missing(call, time_s, peak)
    inputs = _fa_inputs(call, backward, time_s, peak)
    conventions: list[str] = [f"mask convention: {MaskConvention(convention).value}"]
    fa, count, steps = _fa_count(call, backward, backward_count, conventions)
    result = finish_operator(title, inputs, count, time_s, peak, calls, peak.dtype if peak else None, missing,
                             extra_steps=steps, extra_hints=_fa_hints(fa, sparse_mode), conventions=conventions)
    if fa is not None:
        result.extras["attention"] = fa
    return result


def _fa_missing(call: _FlashAttentionCall, time_s: float | None, peak: Peak | None) -> list[MissingInput]:
    """The inputs a FlashAttention MFU needs and was not given, with where to find each.

    Args:
        call: The call's arguments.
        time_s: Seconds per call, or ``None``.
        peak: The peak, or ``None``.
    """
    missing: list[MissingInput] = []
    if call.layout is None:
        missing.append(MissingInput("layout", WHERE["layout"]))
    if call.q is None or call.k is None:
        missing.append(MissingInput("Q/K shapes", WHERE["shapes"]))
    if call.sparse_mode is None:
        missing.append(MissingInput("sparse_mode", WHERE["sparse_mode"]))
    if call.lengths_missing:
        missing.append(MissingInput("actual_seq_qlen / actual_seq_kvlen", WHERE["actual_seq_qlen"]))
    return missing + _missing_common(time_s, peak)


def _fa_inputs(
    call: _FlashAttentionCall, backward: bool, time_s: float | None, peak: Peak | None
) -> list[tuple[str, str]]:
    """The inputs of a FlashAttention MFU restated for the derivation (``missing`` where not given).

    Args:
        call: The call's arguments.
        backward: True for the backward kernel.
        time_s: Seconds per call, or ``None``.
        peak: The peak, or ``None``.
    """
    inputs = [
        ("operator", "FlashAttentionScoreGrad (backward)" if backward else "FlashAttentionScore (forward)"),
        ("input_layout", str(call.layout) if call.layout else "missing"),
        ("Q", format_shape(call.q) if call.q else "missing"),
        ("K", format_shape(call.k) if call.k else "missing"),
        ("V", format_shape(call.v) if call.v else "same as K"),
    ]
    if call.heads:
        inputs.append(("heads (N_q)", str(call.heads)))
    inputs.append(("sparse_mode", "missing" if call.sparse_mode is None else str(call.sparse_mode)))
    if call.pre_tokens is not None or call.next_tokens is not None:
        inputs.append(("pre/next tokens", f"{call.pre_tokens} / {call.next_tokens}"))
    if call.is_tnd:
        inputs.append(("actual_seq_qlen", str(list(call.actual_seq_qlen)) if call.actual_seq_qlen else "missing"))
        inputs.append(("actual_seq_kvlen", str(list(call.actual_seq_kvlen)) if call.actual_seq_kvlen else "missing"))
    inputs += [("mask convention", str(MaskConvention(call.convention).value)), _time_input(time_s), _peak_input(peak)]
    return inputs


def _fa_count(
    call: _FlashAttentionCall,
    backward: bool,
    backward_count: BackwardCount | str,
    conventions: list[str],
) -> tuple[AttentionFlops | None, FlopCount | None, list[str]]:
    """Count the call's FLOPs when every input is there, explaining the steps.

    Args:
        call: The call's arguments.
        backward: True to count the backward kernel (from the forward count).
        backward_count: Model or executed FLOPs for the backward.
        conventions: Receives the backward counting convention.

    Returns:
        ``(forward attention FLOPs, the count MFU uses, derivation steps)``; ``(None, None, [])``
        when an input is missing.

    Raises:
        FlopError: When the shapes contradict each other or the layout.
    """
    if not call.countable:
        return None, None, []
    fa = flash_attention_forward(
        call.layout, call.q, call.k, call.v, call.heads, call.sparse_mode, call.pre_tokens, call.next_tokens,
        list(call.actual_seq_qlen) if call.actual_seq_qlen else None,
        list(call.actual_seq_kvlen) if call.actual_seq_kvlen else None, call.convention,
    )
    steps = [_normalised_step(fa.shape), f"count = {fa.mask_explanation}"]
    if not backward:
        return fa, fa.count, steps
    bwd = flash_attention_backward(fa, backward_count)
    steps.append(f"forward FLOPs = {fa.count.formula} = {fa.count.substituted}")
    conventions.append(
        "backward counted as model FLOPs (2 × forward: dV, dP, dQ, dK)"
        if BackwardCount(backward_count) is BackwardCount.MODEL
        else "backward counted as executed FLOPs (2 × forward + recomputed QKᵀ): an HFU view, labelled"
    )
    return fa, bwd.count, steps


def _normalised_step(sh: AttentionShape) -> str:
    """The derivation step restating the normalised attention dims: (B, N, S, D), or hidden sizes for BSH/SBH."""
    if sh.heads_q is not None:
        return (f"normalised to (B, N, S, D): B={sh.batch}, N_q={sh.heads_q}, N_kv={sh.heads_kv}, "
                f"S_q={sh.seq_q}, S_kv={sh.seq_kv}, D_qk={sh.d_qk}, D_v={sh.d_v}")
    return (f"normalised: B={sh.batch}, S_q={sh.seq_q}, S_kv={sh.seq_kv}, H_q={sh.h_q}, "
            f"H_k={sh.h_k}, H_v={sh.h_v} (H = N·D)")


def _fa_hints(fa: AttentionFlops | None, sparse_mode: int | None) -> list[str]:
    """FlashAttention-specific hints: an unaligned or small head dim, an unmodelled sparse mode.

    Args:
        fa: The forward FLOPs (with the normalised shape), or ``None`` when not counted.
        sparse_mode: The call's sparse mode, or ``None``.
    """
    hints = []
    d_qk = fa.shape.d_qk if fa is not None else None
    if d_qk is not None and d_qk % CUBE_ALIGN != 0:
        hints.append(f"head dim {d_qk} is not a multiple of {CUBE_ALIGN}: cube tiles are padded.")
    if d_qk is not None and d_qk < 64:
        hints.append(f"head dim {d_qk} is small: the softmax/vector work per score is relatively large.")
    if sparse_mode is not None and sparse_mode >= 5:
        hints.append(f"sparse_mode {sparse_mode} is not modelled: FLOPs are an upper bound (full mask).")
    return hints


# --- aggregates (vectorised; used by the profiler analysis) -------------------------------


@dataclass(frozen=True)
class AggregateMfu:
    """Aggregate of many operators: Σ FLOPs, Σ time, achieved and MFU (mfu.md §4.1)."""

    flops: float
    time_s: float
    ideal_time_s: float
    achieved_tflops: float | None
    mfu: float | None


def aggregate(flops: np.ndarray, time_s: np.ndarray, peak_tflops: np.ndarray) -> AggregateMfu:
    """Operator achievement rate over countable operators.

    ``achieved = Σ FLOPs / Σ t / 1e12``; ``MFU = Σ (FLOPs_i / peak_i) / Σ t_i`` — equal to
    achieved / peak when every operator has the same peak.

    Args:
        flops: FLOPs per operator.
        time_s: Duration per operator (s).
        peak_tflops: Peak per operator for its dtype (NaN where unknown: those operators
            count in achieved but make MFU unknown).
    """
    import numpy as np

    flops = np.asarray(flops, dtype=np.float64)
    time_s = np.asarray(time_s, dtype=np.float64)
    peak_tflops = np.asarray(peak_tflops, dtype=np.float64)
    total_flops = float(flops.sum())
    total_time = float(time_s.sum())
    if total_time <= 0 or len(flops) == 0:
        return AggregateMfu(total_flops, total_time, float("nan"), None, None)
    achieved = total_flops / total_time / 1e12
    if np.isnan(peak_tflops).any() or (peak_tflops <= 0).any():
        return AggregateMfu(total_flops, total_time, float("nan"), achieved, None)
    ideal = float((flops / (peak_tflops * 1e12)).sum())
    return AggregateMfu(total_flops, total_time, ideal, achieved, ideal / total_time)


def step_mfu(flops: np.ndarray, peak_tflops: np.ndarray, step_time_s: float) -> float | None:
    """End-to-end step MFU: ``Σ (FLOPs_i / peak_i) / step_time`` (mfu.md §4.2)."""
    if step_time_s is None or step_time_s <= 0:
        return None
    import numpy as np

    flops = np.asarray(flops, dtype=np.float64)
    peak_tflops = np.asarray(peak_tflops, dtype=np.float64)
    if len(flops) == 0:
        return 0.0
    if np.isnan(peak_tflops).any():
        return None
    return float((flops / (peak_tflops * 1e12)).sum()) / step_time_s
