"""FLOP rules of Ascend operator types (MatMul family, FlashAttention, convolution; mfu.md §2.3, §3.5)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mfu_desktop.core.formulas.flops import (
    FlopError,
    Layout,
    ResolveStatus,
    flash_attention_backward,
    flash_attention_forward,
    resolve_matmul,
)
from mfu_desktop.core.formulas.registry import Confidence, FlopEstimate, ShapeContext, register
from mfu_desktop.core.formulas.shapes import Shape, format_shape
from mfu_desktop.core.numbers import grouped

#: The compressed causal mask of sparse_mode 2/3/4 (CANN docs): 2048 × 2048.
COMPRESSED_MASK = (2048, 2048)


#: Where a FlashAttention call's sparse mode came from (the ``sparse_mode_from`` dim).
SPARSE_MODE_SOURCES = ("override", "recorded", "atten_mask", "default")

#: softmax_max / softmax_sum keep 8 floats per row.
SOFTMAX_LANES = 8


_FLOAT_DTYPES = {"FLOAT", "DT_FLOAT", "FLOAT32", "DT_FLOAT32"}


_MASK_DTYPES = {"BOOL", "DT_BOOL", "UINT8", "DT_UINT8", "DT_BF16", "FLOAT16", "DT_FLOAT16", "INT8"}


_FUSED_COMM = ("AllGatherMatmul", "MatmulReduceScatter", "MatmulAllReduce", "MatmulAllToAll", "AlltoAllMatmul",
               "AllToAllAllGatherBatchMatMul", "BatchMatMulReduceScatterAlltoAll")


@register(*_FUSED_COMM, needs_shapes=False)
def _fused_compute_comm(ctx: ShapeContext) -> FlopEstimate:
    return FlopEstimate(
        None,
        "fused compute+communication: its duration includes communication waits, so a matmul MFU would be "
        "meaningless",
    )


def _nonempty(shapes: tuple[Shape, ...]) -> list[Shape]:
    return [s for s in shapes if s]


@register("MatMul", "BatchMatMul", "QuantBatchMatmul", "WeightQuantBatchMatmul", "Matmul")
def _matmul(ctx: ShapeContext) -> FlopEstimate:
    inputs = _nonempty(ctx.inputs or ())
    outputs = _nonempty(ctx.outputs or ())
    if len(inputs) < 2 or not outputs:
        return FlopEstimate(None, "matmul needs two input shapes and an output shape")
    a, b, out = inputs[0], inputs[1], outputs[0]
    r = resolve_matmul(a, b, out)
    if r.status is not ResolveStatus.OK:
        prefix = "inconsistent shapes" if r.status is ResolveStatus.INCONSISTENT else "shapes not resolvable"
        return FlopEstimate(None, f"{prefix}: {r.reason}")
    dims = (("M", r.m), ("N", r.n), ("K", r.k), ("batch", r.batch))
    return FlopEstimate(r.count.flops, "", r.count.notes[0] if r.count.notes else "", Confidence.EXACT,
                        f"2·numel(out)·K = {r.count.substituted}", None, dims)


@register("GroupedMatmul")
def _grouped_matmul(ctx: ShapeContext) -> FlopEstimate:
    inputs = _nonempty(ctx.inputs or ())
    outputs = _nonempty(ctx.outputs or ())
    if len(inputs) < 2 or not outputs:
        return FlopEstimate(None, "GroupedMatmul needs x, weight and an output shape")
    x, w, y = inputs[0], inputs[1], outputs[0]
    if len(x) != 2 or len(y) != 2 or x[0] != y[0] or len(w) not in (2, 3):
        return FlopEstimate(None, f"GroupedMatmul shapes x=[{format_shape(x)}], w=[{format_shape(w)}], "
                                  f"y=[{format_shape(y)}] are not (T,K)·(E,K,N)→(T,N)")
    t, k = x
    n = y[1]
    if {w[-2], w[-1]} != {k, n} and not (w[-2] == k and w[-1] == n):
        return FlopEstimate(None, f"inconsistent shapes: weight [{format_shape(w)}] has no K={k} × N={n}")
    flops = 2 * t * k * n
    return FlopEstimate(flops, "", "only routed tokens are counted: E does not multiply", Confidence.EXACT,
                        f"2·T·K·N = 2 × {t} × {k} × {n} = {grouped(flops)}", None,
                        (("T", t), ("K", k), ("N", n), ("E", w[0] if len(w) == 3 else 1)))


@dataclass(frozen=True)
class _FaInference:
    layout: Layout
    heads: int | None
    sparse_mode: int
    notes: tuple[str, ...]
    confidence: str
    #: atten_mask's shape ("" when the call has none) and where the sparse mode came from
    #: (:data:`SPARSE_MODE_SOURCES`): the advisor's full-mask rule reads both from the estimate's dims.
    mask: str = ""
    mode_source: str = "default"


def _softmax(ctx: ShapeContext, backward: bool) -> Shape | None:
    """softmax_max: first FLOAT output (forward) or a FLOAT input ending in 8 (backward)."""
    if backward:
        tensors, dtypes = ctx.inputs or (), ctx.input_dtypes
        start = 3
    else:
        tensors, dtypes = ctx.outputs or (), ctx.output_dtypes
        start = 0
    for i, shape in enumerate(tensors):
        if i < start or not shape:
            continue
        dtype = dtypes[i].upper() if i < len(dtypes) else ""
        if dtype and dtype not in _FLOAT_DTYPES:
            continue
        if len(shape) >= 3 and shape[-1] == SOFTMAX_LANES:
            return shape
        if len(shape) == 1 and not backward:
            return shape  # 2023: outputs flattened to 1-D
    return None


def _mask(ctx: ShapeContext, q: Shape, skip: int) -> Shape | None:
    """atten_mask: a rank-2 or rank-4 tensor after Q/K/V(/dy) whose last dims are square-ish."""
    inputs = ctx.inputs or ()
    for i, shape in enumerate(inputs):
        if i < skip or not shape or shape == q:
            continue
        dtype = ctx.input_dtypes[i].upper() if i < len(ctx.input_dtypes) else ""
        if dtype in _FLOAT_DTYPES:
            continue
        if len(shape) in (2, 4) and shape[-1] > 1 and shape[-2] > 1 and (not dtype or dtype in _MASK_DTYPES):
            if len(shape) == 4 and shape[-1] == SOFTMAX_LANES:
                continue
            return shape
    return None


def _infer_fa(ctx: ShapeContext, q: Shape, k: Shape, backward: bool) -> _FaInference:
    """Infer a FlashAttention call's layout, head count and sparse mode from what the profile shows.

    A user override wins, then a recorded argument, then the shapes of softmax_max and
    atten_mask; every inference is noted, and a guess lowers the confidence.

    Args:
        ctx: The kernel's shapes, dtypes, options and recorded arguments.
        q: Query shape.
        k: Key shape.
        backward: True for the backward kernel (its tensors sit at other positions).

    Raises:
        FlopError: When Q is neither rank 3 nor rank 4 and no layout is given.
    """
    sm = _softmax(ctx, backward)
    mask = _mask(ctx, q, 4 if backward else 3)
    layout, heads, notes, confidence = _fa_layout(ctx, q, sm, mask)
    mode, mode_note, source = _fa_sparse_mode(ctx, mask)
    notes.append(mode_note)
    if source == "atten_mask":
        confidence = min(confidence, Confidence.MEDIUM, key=_rank_confidence)
    return _FaInference(layout, heads, mode, tuple(notes), confidence, format_shape(mask) if mask else "", source)


#: A layout inference: ``(layout, query heads or None, notes, confidence)``.
_LayoutInference = tuple[Layout, int | None, list[str], str]


def _fa_layout(ctx: ShapeContext, q: Shape, sm: Shape | None, mask: Shape | None) -> _LayoutInference:
    """The call's layout: given (override or recorded), else read from Q against softmax_max and atten_mask.

    Args:
        ctx: The kernel's options and recorded arguments.
        q: Query shape.
        sm: softmax_max's shape, when found.
        mask: atten_mask's shape, when found.

    Raises:
        FlopError: When no layout is given and Q is neither rank 3 nor rank 4.
    """
    given = _given_layout(ctx)
    if given is not None:
        layout, note = given
        return layout, None, [note], Confidence.HIGH
    if len(q) == 4:
        return _layout_rank4(q, sm, mask)
    if len(q) == 3:
        return _layout_rank3(q, sm, mask)
    raise FlopError(f"Q has rank {len(q)}; FlashAttention Q is rank 3 or 4")


def _given_layout(ctx: ShapeContext) -> tuple[Layout, str] | None:
    """The layout the user forced, else the recorded ``input_layout``, with its note; ``None`` when neither."""
    forced = ctx.options.fa_layout
    recorded_layout = ctx.named("input_layout")
    if forced and forced != "auto":
        layout = Layout(str(forced).upper())
        return layout, f"layout {layout.value} (user override)"
    if recorded_layout and recorded_layout.upper() in Layout.__members__:
        layout = Layout(recorded_layout.upper())
        return layout, f"layout {layout.value} (recorded input_layout)"
    return None


def _layout_rank4(q: Shape, sm: Shape | None, mask: Shape | None) -> _LayoutInference:
    """BNSD or BSND: Q's first three dims against softmax_max [B, N, S, 8], else against the mask's side.

    Args:
        q: Query shape (rank 4).
        sm: softmax_max's shape, when found.
        mask: atten_mask's shape, when found.
    """
    if sm is not None and len(sm) == 4:
        b, n, s = sm[0], sm[1], sm[2]
        layout = None
        if (q[0], q[1], q[2]) == (b, n, s):
            layout = Layout.BNSD
        elif (q[0], q[1], q[2]) == (b, s, n):
            layout = Layout.BSND
        if layout is not None:
            note = f"layout {layout.value}: Q [{format_shape(q)}] against softmax_max [{format_shape(sm)}]"
            return layout, None, [note], Confidence.HIGH
    if mask is not None and mask[-2] == q[1] and mask[-2] != q[2]:
        layout, confidence = Layout.BSND, Confidence.MEDIUM
    elif mask is not None and mask[-2] == q[2] and mask[-2] != q[1]:
        layout, confidence = Layout.BNSD, Confidence.MEDIUM
    else:
        layout = Layout.BNSD if q[1] <= q[2] else Layout.BSND
        confidence = Confidence.LOW
    note = f"layout {layout.value} guessed from Q [{format_shape(q)}] (no usable softmax_max shape)"
    return layout, None, [note], confidence


def _layout_rank3(q: Shape, sm: Shape | None, mask: Shape | None) -> _LayoutInference:
    """TND, BSH or SBH: from softmax_max's rank and dims, else from the mask's side or Q's longer dim.

    Args:
        q: Query shape (rank 3).
        sm: softmax_max's shape, when found.
        mask: atten_mask's shape, when found.
    """
    if sm is not None and len(sm) == 3:
        return Layout.TND, None, [f"layout TND: softmax_max [{format_shape(sm)}] is rank 3 (varlen)"], Confidence.HIGH
    if sm is not None and len(sm) == 4:
        b, n, s = sm[0], sm[1], sm[2]
        layout = None
        if (q[0], q[1]) == (b, s):
            layout = Layout.BSH
        elif (q[0], q[1]) == (s, b):
            layout = Layout.SBH
        if layout is not None:
            note = f"layout {layout.value}, N = {n}: Q [{format_shape(q)}] against softmax_max [{format_shape(sm)}]"
            return layout, n, [note], Confidence.HIGH
    # Flattened softmax (2023) or none: S is the mask's side when there is one.
    layout, note, confidence = _hidden_layout_from_mask(q, mask)
    notes = [note]
    heads = None
    if sm is not None and len(sm) == 1:
        heads = _heads_from_flat_softmax(q, sm, layout)
        if heads is not None:
            notes.append(f"N = {heads} from the flattened softmax_max ({sm[0]} = B·N·S·8)")
    return layout, heads, notes, confidence


def _hidden_layout_from_mask(q: Shape, mask: Shape | None) -> tuple[Layout, str, str]:
    """BSH or SBH from which of Q's first two dims is the mask's side, else the longer one taken as S.

    Returns:
        ``(layout, note, confidence)``.
    """
    if mask is not None and mask[-1] == q[0] and mask[-1] != q[1]:
        return Layout.SBH, f"layout SBH: atten_mask [{format_shape(mask)}] matches Q's first dim", Confidence.HIGH
    if mask is not None and mask[-1] == q[1] and mask[-1] != q[0]:
        return Layout.BSH, f"layout BSH: atten_mask [{format_shape(mask)}] matches Q's second dim", Confidence.HIGH
    layout = Layout.SBH if q[0] >= q[1] else Layout.BSH
    return layout, f"layout {layout.value} guessed (the longer of Q's first two dims taken as S)", Confidence.LOW


def _heads_from_flat_softmax(q: Shape, sm: Shape, layout: Layout) -> int | None:
    """N from a flattened softmax_max of B·N·S·8 floats (2023 profiles), or ``None`` when it does not divide."""
    b, s = (q[1], q[0]) if layout is Layout.SBH else (q[0], q[1])
    if sm[0] % (b * s * SOFTMAX_LANES) == 0:
        return sm[0] // (b * s * SOFTMAX_LANES)
    return None


def _fa_sparse_mode(ctx: ShapeContext, mask: Shape | None) -> tuple[int, str, str]:
    """The call's sparse mode: the user's override, the recorded argument, else read from atten_mask.

    Args:
        ctx: The kernel's options and recorded arguments.
        mask: atten_mask's shape, when found.

    Returns:
        ``(sparse_mode, note, source)``; ``source`` is one of :data:`SPARSE_MODE_SOURCES`
        (``atten_mask``: inferred from a mask, which caps the confidence at medium).
    """
    forced_mode = ctx.options.fa_sparse_mode
    recorded_mode = ctx.named("sparse_mode")
    if forced_mode not in (None, "auto"):
        mode = int(forced_mode)
        return mode, f"sparse_mode {mode} (user override)", "override"
    if recorded_mode is not None and recorded_mode.isdigit():
        mode = int(recorded_mode)
        return mode, f"sparse_mode {mode} (recorded)", "recorded"
    if mask is not None and tuple(mask[-2:]) == COMPRESSED_MASK:
        return 2, ("atten_mask 2048×2048 is the compressed causal mask (sparse_mode 2/3/4): counted as causal, "
                   "sparse_mode 2"), "atten_mask"
    if mask is not None:
        return 0, (f"explicit atten_mask [{format_shape(mask)}]: counted as full (sparse_mode 0); if the mask is "
                   "causal these FLOPs are ~2× too high — override with the sparse mode"), "atten_mask"
    return 0, "no atten_mask: full attention (sparse_mode 0)", "default"


def _recorded_lengths(ctx: ShapeContext, name: str) -> tuple[int, ...] | None:
    """A recorded cumulative ``actual_seq_*len`` attribute (``128,256,512``), or ``None``."""
    text = ctx.named(name)
    if not text:
        return None
    try:
        values = tuple(int(x) for x in text.replace(" ", "").strip("[]").split(",") if x)
    except ValueError:
        return None
    return values or None


def _rank_confidence(level: str) -> int:
    return {Confidence.LOW: 0, Confidence.MEDIUM: 1, Confidence.HIGH: 2, Confidence.EXACT: 3}[level]


def _flash_attention(ctx: ShapeContext, backward: bool) -> FlopEstimate:
    inputs = ctx.inputs or ()
    if len(inputs) < 3 or not inputs[0] or not inputs[1] or not inputs[2]:
        return FlopEstimate(None, "FlashAttention needs query, key and value shapes")
    q, k, v = inputs[0], inputs[1], inputs[2]
    inference = _infer_fa(ctx, q, k, backward)
    seq_q, seq_kv = _recorded_lengths(ctx, "actual_seq_qlen"), _recorded_lengths(ctx, "actual_seq_kvlen")
    if inference.layout is Layout.TND and (seq_q is None or seq_kv is None):
        return FlopEstimate(
            None,
            "varlen (TND) without actual_seq_qlen values: the profile records only their shapes; give the "
            "cumulative lengths in the calculator, or record them with a flash_attn_args mark",
            "; ".join(inference.notes), Confidence.LOW,
        )
    varlen = inference.layout is Layout.TND
    fa = flash_attention_forward(inference.layout, q, k, v, inference.heads, inference.sparse_mode,
                                 actual_seq_qlen=seq_q if varlen else None,
                                 actual_seq_kvlen=seq_kv if varlen else None,
                                 convention=ctx.options.mask_convention)
    if varlen:
        inference = replace(inference, notes=(*inference.notes, f"recorded actual_seq_qlen {list(seq_q)}, "
                                              f"actual_seq_kvlen {list(seq_kv)}"))
    count = fa.count
    executed = None
    if backward:
        bwd = flash_attention_backward(fa, ctx.options.fa_backward)
        count = bwd.count
        executed = bwd.count.executed_flops
    sh = fa.shape
    dims: list[tuple[str, object]] = [("layout", inference.layout.value), ("B", sh.batch), ("S_q", sh.seq_q),
                                      ("S_kv", sh.seq_kv), ("sparse_mode", inference.sparse_mode)]
    if sh.heads_q is not None:
        dims += [("N_q", sh.heads_q), ("N_kv", sh.heads_kv), ("D_qk", sh.d_qk), ("D_v", sh.d_v)]
    dims += [("Q", format_shape(q)), ("K", format_shape(k)), ("V", format_shape(v)),
             ("atten_mask", inference.mask), ("sparse_mode_from", inference.mode_source)]
    detail = f"{count.formula} = {count.substituted}"
    if backward:
        detail = f"forward {fa.count.formula} = {fa.count.substituted}; backward {detail}"
    return FlopEstimate(count.flops, "", "; ".join(inference.notes) + " (FLOPs estimated from shapes)",
                        inference.confidence, detail, executed, tuple(dims))


@register("FlashAttentionScoreGrad", "FlashAttentionUnpaddingScoreGrad", exact=True)
def _fa_backward(ctx: ShapeContext) -> FlopEstimate:
    return _flash_attention(ctx, backward=True)


@register("FlashAttentionScore", "FlashAttentionUnpaddingScore", exact=True)
def _fa_forward(ctx: ShapeContext) -> FlopEstimate:
    return _flash_attention(ctx, backward=False)


@register("FusedInferAttentionScore", "PromptFlashAttention", "IncreFlashAttention")
def _fa_inference(ctx: ShapeContext) -> FlopEstimate:
    inputs = _nonempty(ctx.inputs or ())
    if len(inputs) < 3:
        return FlopEstimate(None, "attention needs query, key and value shapes")
    q, k, v = inputs[0], inputs[1], inputs[2]
    if len(q) != len(k):
        return FlopEstimate(None, "paged KV cache (key rank differs from query): FLOPs need the sequence lengths")
    layout = Layout.BNSD if len(q) == 4 and q[1] <= q[2] else (Layout.BSND if len(q) == 4 else Layout.BSH)
    forced = ctx.options.fa_layout
    if forced and forced != "auto":
        layout = Layout(str(forced).upper())
    fa = flash_attention_forward(layout, q, k, v, None, 0, convention=ctx.options.mask_convention)
    return FlopEstimate(fa.count.flops, "", f"layout {layout.value} guessed, no mask assumed (inference attention; "
                        "FLOPs estimated from shapes)", Confidence.LOW,
                        f"{fa.count.formula} = {fa.count.substituted}")


@register("Conv2D", exact=True)
def _conv2d(ctx: ShapeContext) -> FlopEstimate:
    inputs = _nonempty(ctx.inputs or ())
    outputs = _nonempty(ctx.outputs or ())
    if len(inputs) < 2 or not outputs:
        return FlopEstimate(None, "Conv2D needs input, weight and output shapes")
    x, w, y = inputs[0], inputs[1], outputs[0]
    if len(x) != 4 or len(w) != 4 or len(y) != 4:
        return FlopEstimate(None, f"Conv2D in a {len(x)}-D storage format (NC1HWC0/FRACTAL_Z): the logical NCHW "
                                  "shape is not recorded")
    n, c_in = x[0], x[1]
    c_out, c_per_group, kh, kw = w
    if c_per_group <= 0 or c_in % c_per_group != 0 or y[1] != c_out:
        return FlopEstimate(None, "Conv2D shapes are not NCHW-consistent (format unknown)")
    flops = 2 * n * c_out * y[2] * y[3] * c_per_group * kh * kw
    return FlopEstimate(flops, "", "NCHW assumed", Confidence.MEDIUM,
                        f"2·N·C_out·H_out·W_out·(C_in/groups)·kh·kw = 2 × {n} × {c_out} × {y[2]} × {y[3]} × "
                        f"{c_per_group} × {kh} × {kw} = {grouped(flops)}")
