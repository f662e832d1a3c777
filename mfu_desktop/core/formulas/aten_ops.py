"""FLOP rules of PyTorch ATen operators, as the PyTorch profiler (Kineto) records them on GPUs.

A framework op records its inputs (``Input Dims``, ``Input type``) and its scalar arguments
(``Concrete Inputs``), not its outputs; the engine's formulas (:mod:`mfu_desktop.core.formulas.flops`)
give the FLOPs with the same conventions as on Ascend (mfu.md §2–§3):

* matmuls — ``aten::mm``, ``addmm``, ``bmm``, ``baddbmm``, ``matmul`` (broadcast), ``linear``,
  ``_scaled_mm`` (FP8): ``2·numel(out)·K``; bias adds are not counted;
* ``aten::convolution`` (+ ``convolution_backward``): ``2·N·C_out·Π(out)·C_in/groups·Π(kernel)``,
  transposed convolutions by their input; backward = one forward per gradient asked for;
* scaled dot-product attention — ``aten::_scaled_dot_product_{flash,efficient,cudnn}_attention``
  (+ ``_backward``) — and ``flash_attn``'s forward/backward: the FlashAttention engine, BNSD
  (BSND for ``flash_attn``), causal by exact geometry; backward = 2 × forward (model FLOPs,
  the executed 2.5 × kept beside it).

The profiler counts FLOPs once per kernel at the innermost op that has a rule (the reader
walks up from the launching op): never at both ``aten::linear`` and its ``aten::addmm``.
"""

from __future__ import annotations

import math

from mfu_desktop.core.formulas.flops import (
    FlopError,
    Layout,
    broadcast_matmul_flops,
    flash_attention_backward,
    flash_attention_forward,
    sequence_lengths,
)
from mfu_desktop.core.formulas.registry import Confidence, FlopEstimate, ShapeContext, register
from mfu_desktop.core.formulas.shapes import Shape, format_shape, numel
from mfu_desktop.core.numbers import grouped

# --- arguments ------------------------------------------------------------------------------


def _tensor(ctx: ShapeContext, index: int) -> Shape:
    inputs = ctx.inputs or ()
    return inputs[index] if index < len(inputs) else ()


def _attr(ctx: ShapeContext, index: int) -> str:
    return ctx.attributes[index].strip() if index < len(ctx.attributes) else ""


def _flag(ctx: ShapeContext, index: int) -> bool | None:
    text = _attr(ctx, index).lower()
    return True if text in ("true", "1") else (False if text in ("false", "0") else None)


def _int_list(text: str) -> tuple[int, ...] | None:
    cleaned = text.strip().strip("[]() ")
    if not cleaned:
        return None
    try:
        return tuple(int(float(p)) for p in cleaned.split(",") if p.strip())
    except ValueError:
        return None


def _matmul_estimate(flops: int, m: int, n: int, k: int, batch: int, formula: str) -> FlopEstimate:
    return FlopEstimate(flops, "", "", Confidence.EXACT, f"{formula} = {grouped(flops)}", None,
                        (("M", m), ("N", n), ("K", k), ("batch", batch)))


def _gemm(a: Shape, b: Shape, batched: bool) -> FlopEstimate:
    rank = 3 if batched else 2
    if len(a) != rank or len(b) != rank:
        return FlopEstimate(None, f"expected rank-{rank} operands, got A=[{format_shape(a)}], B=[{format_shape(b)}]")
    if a[-1] != b[-2] or (batched and a[0] != b[0]):
        return FlopEstimate(None, f"inconsistent shapes: A=[{format_shape(a)}] · B=[{format_shape(b)}]")
    batch = a[0] if batched else 1
    m, k, n = a[-2], a[-1], b[-1]
    flops = 2 * batch * m * n * k
    formula = f"2·B·M·N·K = 2 × {batch} × {m} × {n} × {k}" if batched else f"2·M·N·K = 2 × {m} × {n} × {k}"
    return _matmul_estimate(flops, m, n, k, batch, formula)


# --- matmuls --------------------------------------------------------------------------------


@register("aten::mm", exact=True, inputs_only=True)
def _mm(ctx: ShapeContext) -> FlopEstimate:
    return _gemm(_tensor(ctx, 0), _tensor(ctx, 1), batched=False)


@register("aten::addmm", exact=True, inputs_only=True)
def _addmm(ctx: ShapeContext) -> FlopEstimate:
    return _gemm(_tensor(ctx, 1), _tensor(ctx, 2), batched=False)


@register("aten::bmm", exact=True, inputs_only=True)
def _bmm(ctx: ShapeContext) -> FlopEstimate:
    return _gemm(_tensor(ctx, 0), _tensor(ctx, 1), batched=True)


@register("aten::baddbmm", exact=True, inputs_only=True)
def _baddbmm(ctx: ShapeContext) -> FlopEstimate:
    return _gemm(_tensor(ctx, 1), _tensor(ctx, 2), batched=True)


@register("aten::_scaled_mm", exact=True, inputs_only=True)
def _scaled_mm(ctx: ShapeContext) -> FlopEstimate:
    est = _gemm(_tensor(ctx, 0), _tensor(ctx, 1), batched=False)
    if est.flops is not None:
        return FlopEstimate(est.flops, "", "FP8 matmul with scales: the scaling is not counted", est.confidence,
                            est.detail, None, est.dims)
    return est


def _broadcast(a: Shape, b: Shape) -> tuple[Shape, int] | None:
    """The output shape and K of ``torch.matmul(a, b)`` (1-D operands promoted, batch dims broadcast)."""
    if not a or not b:
        return None
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        return None
    batch_a, batch_b = a2[:-2], b2[:-2]
    width = max(len(batch_a), len(batch_b))
    batch_a = (1,) * (width - len(batch_a)) + batch_a
    batch_b = (1,) * (width - len(batch_b)) + batch_b
    batch = []
    for x, y in zip(batch_a, batch_b):
        if x != y and 1 not in (x, y):
            return None
        batch.append(max(x, y))
    out = (*batch, a2[-2], b2[-1])
    return out, a2[-1]


@register("aten::matmul", exact=True, inputs_only=True)
def _matmul(ctx: ShapeContext) -> FlopEstimate:
    a, b = _tensor(ctx, 0), _tensor(ctx, 1)
    resolved = _broadcast(a, b)
    if resolved is None:
        return FlopEstimate(None, f"inconsistent shapes: A=[{format_shape(a)}] · B=[{format_shape(b)}]")
    out, k = resolved
    count = broadcast_matmul_flops(out, k)
    n = out[-1]
    m = out[-2]
    return _matmul_estimate(count.flops, m, n, k, numel(out) // (m * n), f"2·numel(out)·K = {count.substituted}")


@register("aten::linear", exact=True, inputs_only=True)
def _linear(ctx: ShapeContext) -> FlopEstimate:
    x, w = _tensor(ctx, 0), _tensor(ctx, 1)
    if len(x) < 1 or len(w) != 2 or x[-1] != w[1]:
        return FlopEstimate(None, f"linear needs input [..., K] and weight [N, K]: got [{format_shape(x)}], "
                                  f"[{format_shape(w)}]")
    k, n = w[1], w[0]
    rows = numel(x) // k
    flops = 2 * rows * n * k
    return _matmul_estimate(flops, rows, n, k, 1, f"2·M·N·K = 2 × {rows} × {n} × {k} (M = rows of the input)")


# --- convolution ----------------------------------------------------------------------------


def _conv_forward_flops(x: Shape, w: Shape, stride: tuple[int, ...], padding: tuple[int, ...],
                        dilation: tuple[int, ...], transposed: bool, groups: int) -> tuple[int, str]:
    """FLOPs of one convolution forward and the formula with numbers."""
    spatial = len(x) - 2
    if spatial < 1 or len(w) != len(x):
        raise FlopError(f"convolution needs input [N, C, *spatial] and weight of the same rank: got "
                        f"[{format_shape(x)}], [{format_shape(w)}]")

    def expand(values: tuple[int, ...], default: int) -> tuple[int, ...]:
        if not values:
            return (default,) * spatial
        return values if len(values) == spatial else (values[0],) * spatial

    stride, padding, dilation = expand(stride, 1), expand(padding, 0), expand(dilation, 1)
    kernel = w[2:]
    if transposed:  # weight [C_in, C_out/groups, *k]: every input element scatters a kernel of C_out/g channels
        n, c_in = x[0], x[1]
        c_out_per_group = w[1]
        flops = 2 * n * c_in * math.prod(x[2:]) * c_out_per_group * math.prod(kernel)
        return flops, (f"2·N·C_in·Π(in)·(C_out/g)·Π(k) = 2 × {n} × {c_in} × {math.prod(x[2:])} × "
                       f"{c_out_per_group} × {math.prod(kernel)}")
    out = []
    for size, k, s, p, d in zip(x[2:], kernel, stride, padding, dilation):
        value = (size + 2 * p - d * (k - 1) - 1) // s + 1
        if value <= 0:
            raise FlopError(f"convolution output is empty for input [{format_shape(x)}], kernel "
                            f"[{format_shape(kernel)}]")
        out.append(value)
    n, c_out, c_in_per_group = x[0], w[0], w[1]
    if x[1] != c_in_per_group * groups:
        raise FlopError(f"input has {x[1]} channels, weight expects {c_in_per_group} × {groups} groups")
    flops = 2 * n * c_out * math.prod(out) * c_in_per_group * math.prod(kernel)
    return flops, (f"2·N·C_out·Π(out)·(C_in/g)·Π(k) = 2 × {n} × {c_out} × {math.prod(out)} × {c_in_per_group} × "
                   f"{math.prod(kernel)}")


@register("aten::convolution", exact=True, inputs_only=True)
def _convolution(ctx: ShapeContext) -> FlopEstimate:
    x, w = _tensor(ctx, 0), _tensor(ctx, 1)
    stride = _int_list(_attr(ctx, 3)) or ()
    padding = _int_list(_attr(ctx, 4)) or ()
    dilation = _int_list(_attr(ctx, 5)) or ()
    transposed = bool(_flag(ctx, 6))
    groups = int(_attr(ctx, 8) or 1) if _attr(ctx, 8).lstrip("-").isdigit() else 1
    flops, formula = _conv_forward_flops(x, w, stride, padding, dilation, transposed, groups)
    note = "" if stride or not ctx.attributes else "stride/padding not recorded: 1 and 0 assumed"
    return FlopEstimate(flops, "", note, Confidence.EXACT if not note else Confidence.MEDIUM,
                        f"{formula} = {grouped(flops)}", None)


@register("aten::convolution_backward", exact=True, inputs_only=True)
def _convolution_backward(ctx: ShapeContext) -> FlopEstimate:
    x, w = _tensor(ctx, 1), _tensor(ctx, 2)
    stride = _int_list(_attr(ctx, 4)) or ()
    padding = _int_list(_attr(ctx, 5)) or ()
    dilation = _int_list(_attr(ctx, 6)) or ()
    transposed = bool(_flag(ctx, 7))
    groups = int(_attr(ctx, 9)) if _attr(ctx, 9).lstrip("-").isdigit() else 1
    mask = [p.strip().lower() == "true" for p in _attr(ctx, 10).strip("[]").split(",")] if _attr(ctx, 10) else []
    grads = sum(mask[:2]) if mask else 2  # grad_input and grad_weight each cost one forward; the bias grad is a sum
    flops, formula = _conv_forward_flops(x, w, stride, padding, dilation, transposed, groups)
    return FlopEstimate(flops * grads, "", f"{grads} gradient(s) × one forward each", Confidence.EXACT,
                        f"{grads} × ({formula}) = {grouped(flops * grads)}", None)


# --- attention ------------------------------------------------------------------------------


#: Where a causal mask's diagonal sits when S_q ≠ S_kv (mfu.md §3.2): PyTorch's SDPA ``is_causal`` is
#: top-left aligned (sparse_mode 2); flash_attn ≥ 2.1 aligns bottom-right (sparse_mode 3). Equal lengths agree.
SDPA_CAUSAL_MODE = 2
FLASH_ATTN_CAUSAL_MODE = 3


def _attention(ctx: ShapeContext, q_index: int, causal_index: int, layout: Layout, backward: bool,
               causal_mode: int = SDPA_CAUSAL_MODE) -> FlopEstimate:
    q, k, v = _tensor(ctx, q_index), _tensor(ctx, q_index + 1), _tensor(ctx, q_index + 2)
    causal = _flag(ctx, causal_index)
    sparse_mode = causal_mode if causal else 0
    fwd = flash_attention_forward(layout, q, k, v, sparse_mode=sparse_mode, convention=ctx.options.mask_convention)
    note = ("causal (is_causal), exact geometry" if causal else "no mask (is_causal false)") if causal is not None \
        else "is_causal not recorded: full attention assumed"
    confidence = Confidence.EXACT if causal is not None else Confidence.MEDIUM
    if not backward:
        return FlopEstimate(fwd.count.flops, "", note, confidence, f"{fwd.count.formula} = {fwd.count.substituted}",
                            None, tuple(fwd.count.dims.items()))
    bwd = flash_attention_backward(fwd, ctx.options.fa_backward)
    return FlopEstimate(bwd.count.flops, "", note + "; backward", confidence,
                        f"{bwd.count.formula} = {bwd.count.substituted}", bwd.count.executed_flops,
                        tuple(bwd.count.dims.items()))


@register("aten::_scaled_dot_product_flash_attention_backward", exact=True, inputs_only=True)
def _sdpa_flash_backward(ctx: ShapeContext) -> FlopEstimate:
    return _attention(ctx, 1, 11, Layout.BNSD, backward=True)


@register("aten::_scaled_dot_product_efficient_attention_backward", exact=True, inputs_only=True)
def _sdpa_efficient_backward(ctx: ShapeContext) -> FlopEstimate:
    return _attention(ctx, 1, 11, Layout.BNSD, backward=True)


@register("aten::_scaled_dot_product_cudnn_attention_backward", exact=True, inputs_only=True)
def _sdpa_cudnn_backward(ctx: ShapeContext) -> FlopEstimate:
    return _attention(ctx, 1, 14, Layout.BNSD, backward=True)


@register("aten::_scaled_dot_product_flash_attention", exact=True, inputs_only=True)
def _sdpa_flash(ctx: ShapeContext) -> FlopEstimate:
    return _attention(ctx, 0, 4, Layout.BNSD, backward=False)


@register("aten::_scaled_dot_product_efficient_attention", exact=True, inputs_only=True)
def _sdpa_efficient(ctx: ShapeContext) -> FlopEstimate:
    return _attention(ctx, 0, 6, Layout.BNSD, backward=False)


@register("aten::_scaled_dot_product_cudnn_attention", exact=True, inputs_only=True)
def _sdpa_cudnn(ctx: ShapeContext) -> FlopEstimate:
    return _attention(ctx, 0, 6, Layout.BNSD, backward=False)


@register("flash_attn::_flash_attn_forward", exact=True, inputs_only=True)
def _flash_attn_forward(ctx: ShapeContext) -> FlopEstimate:
    return _attention(ctx, 0, 5, Layout.BSND, backward=False, causal_mode=FLASH_ATTN_CAUSAL_MODE)


@register("flash_attn::_flash_attn_backward", exact=True, inputs_only=True)
def _flash_attn_backward(ctx: ShapeContext) -> FlopEstimate:
    return _attention(ctx, 1, 11, Layout.BSND, backward=True, causal_mode=FLASH_ATTN_CAUSAL_MODE)


def _varlen(ctx: ShapeContext, q_index: int, cu_index: int, causal_index: int, backward: bool) -> FlopEstimate:
    q, k, v = _tensor(ctx, q_index), _tensor(ctx, q_index + 1), _tensor(ctx, q_index + 2)
    cu_q, cu_k = _int_list(_attr(ctx, cu_index)), _int_list(_attr(ctx, cu_index + 1))
    if not cu_q or not cu_k:
        return FlopEstimate(None, "varlen flash_attn without cu_seqlens values: the trace records only their "
                                  "shapes; give the cumulative lengths in the calculator")
    causal = bool(_flag(ctx, causal_index))
    fwd = flash_attention_forward(Layout.TND, q, k, v, sparse_mode=FLASH_ATTN_CAUSAL_MODE if causal else 0,
                                  actual_seq_qlen=sequence_lengths_cumulative(cu_q),
                                  actual_seq_kvlen=sequence_lengths_cumulative(cu_k),
                                  convention=ctx.options.mask_convention)
    if not backward:
        return FlopEstimate(fwd.count.flops, "", "varlen (cu_seqlens)", Confidence.EXACT,
                            f"{fwd.count.formula} = {fwd.count.substituted}")
    bwd = flash_attention_backward(fwd, ctx.options.fa_backward)
    return FlopEstimate(bwd.count.flops, "", "varlen (cu_seqlens); backward", Confidence.EXACT,
                        f"{bwd.count.formula} = {bwd.count.substituted}", bwd.count.executed_flops)


def sequence_lengths_cumulative(cu: tuple[int, ...]) -> list[int]:
    """flash_attn's ``cu_seqlens`` start with 0; the engine's ``actual_seq_*len`` do not."""
    cumulative = list(cu[1:]) if cu and cu[0] == 0 else list(cu)
    sequence_lengths(cumulative)  # validates (raises FlopError on decreasing values)
    return cumulative


@register("flash_attn::_flash_attn_varlen_forward", exact=True, inputs_only=True)
def _flash_attn_varlen_forward(ctx: ShapeContext) -> FlopEstimate:
    return _varlen(ctx, 0, 3, 9, backward=False)


@register("flash_attn::_flash_attn_varlen_backward", exact=True, inputs_only=True)
def _flash_attn_varlen_backward(ctx: ShapeContext) -> FlopEstimate:
    return _varlen(ctx, 1, 9, 15, backward=True)


#: ATen / custom ops the GPU reader keeps the shapes of (every op with a rule above).
RULED_OPS = frozenset({
    "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_scaled_mm", "aten::matmul", "aten::linear",
    "aten::convolution", "aten::convolution_backward",
    "aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
    "aten::_scaled_dot_product_cudnn_attention", "aten::_scaled_dot_product_flash_attention_backward",
    "aten::_scaled_dot_product_efficient_attention_backward", "aten::_scaled_dot_product_cudnn_attention_backward",
    "flash_attn::_flash_attn_forward", "flash_attn::_flash_attn_backward", "flash_attn::_flash_attn_varlen_forward",
    "flash_attn::_flash_attn_varlen_backward",
})
