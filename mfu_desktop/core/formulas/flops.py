"""FLOP formulas of the matmul family and FlashAttention (mfu.md §2–3).

All counts are Python ``int`` (arbitrary precision): B·N·S·S·D overflows int64 for long
contexts. One fused multiply-add is 2 FLOPs. Every function returns a small result object
that carries the formula and the numbers substituted, so a derivation can be shown for any
figure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from numbers import Integral

from mfu_desktop.core.formulas.shapes import Shape, format_shape, numel
from mfu_desktop.core.numbers import grouped


class FlopError(ValueError):
    """Inputs that cannot give a FLOP count; the message says what is wrong."""


@dataclass(frozen=True)
class FlopCount:
    """A FLOP count with the formula that produced it.

    Attributes:
        flops: Model FLOPs (what MFU counts).
        formula: The formula in symbols.
        substituted: The formula with the numbers put in, ending in ``= flops``.
        dims: The named dimensions used (``{"M": 4096, ...}``).
        notes: Conventions and assumptions used (shown in the derivation).
        executed_flops: FLOPs the hardware executes, when the op has a separate executed
            count (FlashAttention backward recomputes QKᵀ); ``None`` otherwise.
    """

    flops: int
    formula: str
    substituted: str
    dims: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    executed_flops: int | None = None


def _positive(**values: int) -> None:
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise FlopError(f"{name} must be an integer, got {value!r}")
        if value <= 0:
            raise FlopError(f"{name} must be positive, got {value}")


# ---------------------------------------------------------------------------------------
# Matmul family (mfu.md §2.1)
# ---------------------------------------------------------------------------------------


def gemm_flops(m: int, n: int, k: int, batch: int = 1) -> FlopCount:
    """FLOPs of a (batched) GEMM: ``2·B·M·N·K``.

    Args:
        m: Rows of A and of the output.
        n: Columns of B and of the output.
        k: The contracted dimension.
        batch: Number of independent matmuls (1 for a plain GEMM).

    Returns:
        The count with its formula.

    Raises:
        FlopError: When a dimension is not a positive integer.
    """
    _positive(M=m, N=n, K=k, B=batch)
    m, n, k, batch = int(m), int(n), int(k), int(batch)
    flops = 2 * batch * m * n * k
    if batch == 1:
        return FlopCount(flops, "2·M·N·K", f"2 × {m} × {n} × {k} = {grouped(flops)}", {"M": m, "N": n, "K": k})
    return FlopCount(
        flops,
        "2·B·M·N·K",
        f"2 × {batch} × {m} × {n} × {k} = {grouped(flops)}",
        {"B": batch, "M": m, "N": n, "K": k},
    )


def linear_flops(batch: int, seq: int, d_in: int, d_out: int) -> FlopCount:
    """FLOPs of a linear layer, input (B, L, D_in) times weight (D_in, D_out).

    Maps to a GEMM with ``M = B·L``, ``K = D_in``, ``N = D_out``; the bias add is not counted.
    """
    _positive(B=batch, L=seq, D_in=d_in, D_out=d_out)
    inner = gemm_flops(int(batch) * int(seq), int(d_out), int(d_in))
    return FlopCount(
        inner.flops,
        "2·(B·L)·D_out·D_in",
        f"M = B·L = {batch} × {seq} = {int(batch) * int(seq)}; K = D_in = {d_in}; N = D_out = {d_out}; "
        + inner.substituted,
        {"B": int(batch), "L": int(seq), "M": int(batch) * int(seq), "K": int(d_in), "N": int(d_out)},
        ("bias adds are not matmul-unit work and are not counted",),
    )


def attention_scores_flops(batch: int, heads: int, len_q: int, len_k: int, head_dim: int) -> FlopCount:
    """FLOPs of attention's QKᵀ: Q=(B,H,Lq,Dh), K=(B,H,Lk,Dh) → batched GEMM B'=B·H, M=Lq, N=Lk, K=Dh."""
    _positive(B=batch, H=heads, Lq=len_q, Lk=len_k, Dh=head_dim)
    inner = gemm_flops(int(len_q), int(len_k), int(head_dim), batch=int(batch) * int(heads))
    return FlopCount(
        inner.flops,
        "2·(B·H)·Lq·Lk·Dh",
        f"B' = B·H = {batch} × {heads} = {int(batch) * int(heads)}; " + inner.substituted,
        {"B'": int(batch) * int(heads), "M": int(len_q), "N": int(len_k), "K": int(head_dim)},
    )


def broadcast_matmul_flops(out_shape: Shape, k: int) -> FlopCount:
    """FLOPs of a broadcasting batched matmul: ``2·numel(output)·K``."""
    _positive(K=k)
    if not out_shape or any(d <= 0 for d in out_shape):
        raise FlopError(f"output shape {out_shape} must have positive dims")
    elements = numel(out_shape)
    flops = 2 * elements * int(k)
    return FlopCount(
        flops,
        "2·numel(out)·K",
        f"2 × {grouped(elements)} × {k} = {grouped(flops)}",
        {"numel(out)": elements, "K": int(k)},
    )


def grouped_matmul_flops(tokens: int, k: int, n: int) -> FlopCount:
    """FLOPs of a MoE GroupedMatmul: x (T,K), weights (E,K,N), out (T,N) → ``2·T·K·N``.

    Each token goes through its own expert only, so the expert count E does not multiply.
    """
    _positive(T=tokens, K=k, N=n)
    flops = 2 * int(tokens) * int(k) * int(n)
    return FlopCount(
        flops,
        "2·numel(out)·K = 2·T·K·N",
        f"2 × {tokens} × {k} × {n} = {grouped(flops)}",
        {"T": int(tokens), "K": int(k), "N": int(n)},
        ("each token is multiplied by its routed expert only; E does not multiply",),
    )


# ---------------------------------------------------------------------------------------
# Transpose-safe M/N/K from profiler shapes (mfu.md §2.2)
# ---------------------------------------------------------------------------------------


class ResolveStatus(StrEnum):
    """Outcome of resolving M/N/K from profiler shapes."""

    OK = "ok"
    INCONSISTENT = "inconsistent"
    UNRESOLVED = "unresolved"


@dataclass(frozen=True)
class MatmulResolution:
    """M, N, K of a profiler matmul row and whether they can be trusted.

    Attributes:
        status: ``ok``, ``inconsistent`` (shapes contradict each other: never counted) or
            ``unresolved`` (not enough information).
        reason: Why the status is not ``ok``; empty otherwise.
        m: Output rows. n: Output columns. k: Contracted dimension.
        batch: ``numel(out) / (M·N)``.
        count: The FLOP count when ``status`` is ``ok``.
    """

    status: ResolveStatus
    reason: str = ""
    m: int | None = None
    n: int | None = None
    k: int | None = None
    batch: int | None = None
    count: FlopCount | None = None


def resolve_matmul(a: Shape, b: Shape, out: Shape) -> MatmulResolution:
    """Find M, N, K from the shapes of A, B and the output, whatever the transposes.

    M and N are anchored on the output ``[..., M, N]``; K is the dim of A that is not M,
    cross-checked against the dim of B that is not N (NN/NT/TN/TT layouts all resolve).
    Volume checks catch storage shapes that do not match the view.

    Args:
        a: Shape of the first input.
        b: Shape of the second input.
        out: Shape of the output.

    Returns:
        The resolution; FLOPs only when every check passes.
    """
    unusable = _unusable_operands(a, b, out)
    if unusable is not None:
        return unusable
    m, n = out[-2], out[-1]
    k_a = _other_dim(a[-2], a[-1], m)
    k_b = _other_dim(b[-1], b[-2], n)
    if k_a is not None and k_b is not None and k_a != k_b:
        return MatmulResolution(
            ResolveStatus.INCONSISTENT,
            f"K from A ({k_a}) ≠ K from B ({k_b}) for {_shapes_text(a, b, out)}",
            m, n, None,
        )
    k = k_a if k_a is not None else k_b
    if k is None:
        return MatmulResolution(
            ResolveStatus.INCONSISTENT,
            f"neither A nor B has the output's M={m} / N={n} for {_shapes_text(a, b, out)}",
            m, n, None,
        )
    out_elems = numel(out)
    batch = out_elems // (m * n)
    mismatch = _volume_mismatch(a, b, out, m, n, k, batch)
    if mismatch is not None:
        return mismatch
    count = _matmul_count(out, out_elems, m, n, k, batch, k_a, k_b)
    return MatmulResolution(ResolveStatus.OK, "", m, n, k, batch, count)


def _unusable_operands(a: Shape, b: Shape, out: Shape) -> MatmulResolution | None:
    """An ``unresolved`` resolution when an operand or the output is below rank 2 or empty, else ``None``."""
    if len(out) < 2 or len(a) < 2 or len(b) < 2:
        return MatmulResolution(
            ResolveStatus.UNRESOLVED,
            f"matmul needs rank ≥ 2 operands and output (A={format_shape(a) or 'scalar'}, "
            f"B={format_shape(b) or 'scalar'}, out={format_shape(out) or 'scalar'})",
        )
    if any(d <= 0 for d in (*a, *b, *out)):
        return MatmulResolution(ResolveStatus.UNRESOLVED, "a dimension is 0 (empty tensor)")
    return None


def _other_dim(first: int, second: int, anchor: int) -> int | None:
    """The dim of a pair that is not the anchor: ``second`` when ``first`` matches, else ``first`` when ``second`` does.

    Args:
        first: The dim checked first against the anchor.
        second: The other dim.
        anchor: The output dim the operand shares (M for A, N for B).

    Returns:
        The contracted dim, or ``None`` when neither dim matches the anchor.
    """
    if first == anchor:
        return second
    return first if second == anchor else None


def _shapes_text(a: Shape, b: Shape, out: Shape) -> str:
    """``A=…, B=…, out=…`` for error messages (built only on the error paths: most kernels resolve)."""
    return f"A={format_shape(a)}, B={format_shape(b)}, out={format_shape(out)}"


def _volume_mismatch(a: Shape, b: Shape, out: Shape, m: int, n: int, k: int, batch: int) -> MatmulResolution | None:
    """An ``inconsistent`` resolution when A or B does not hold one or all batches of [M,K] / [K,N], else ``None``.

    Args:
        a: Shape of the first input.
        b: Shape of the second input.
        out: Shape of the output.
        m: Output rows.
        n: Output columns.
        k: The contracted dim.
        batch: ``numel(out) / (M·N)``.
    """
    for name, operand, per_batch in (("A", a, m * k), ("B", b, k * n)):
        elems = numel(operand)
        if elems % per_batch != 0 or (batch * per_batch) % elems != 0:
            return MatmulResolution(
                ResolveStatus.INCONSISTENT,
                f"{name} has {elems:,} elements, not a batch multiple of {per_batch:,} "
                f"(M={m}, N={n}, K={k}) for {_shapes_text(a, b, out)}",
                m, n, k, batch,
            )
    return None


def _matmul_count(
    out: Shape, out_elems: int, m: int, n: int, k: int, batch: int, k_a: int | None, k_b: int | None
) -> FlopCount:
    """The resolved matmul's ``2·numel(out)·K``, noting which operand(s) K came from.

    Args:
        out: Shape of the output.
        out_elems: ``numel(out)``.
        m: Output rows.
        n: Output columns.
        k: The contracted dim.
        batch: ``numel(out) / (M·N)``.
        k_a: K as read from A, or ``None``.
        k_b: K as read from B, or ``None``.
    """
    flops = 2 * out_elems * k
    source = "A and B (agree)" if k_a is not None and k_b is not None else ("A" if k_a is not None else "B")
    return FlopCount(
        flops,
        "2·numel(out)·K",
        f"2 × {grouped(out_elems)} × {k} = {grouped(flops)}",
        {"M": m, "N": n, "K": k, "batch": batch},
        (f"transpose-safe: M, N from the output [{format_shape(out)}]; K = {k} from " + source,),
    )


# ---------------------------------------------------------------------------------------
# FlashAttention (mfu.md §3)
# ---------------------------------------------------------------------------------------


class Layout(StrEnum):
    """FlashAttention ``input_layout``."""

    BNSD = "BNSD"
    BSND = "BSND"
    BSH = "BSH"
    SBH = "SBH"
    TND = "TND"


class MaskConvention(StrEnum):
    """How masked score counts are computed (mfu.md §3.2)."""

    EXACT = "exact"  # integer geometry: Σ_i over rows, S(S+1)/2 for a square causal mask
    SEED = "seed"  # the seed's continuous approximation: S²/2


#: Default pre/next tokens of the CANN operator (no band limit).
UNLIMITED_TOKENS = 2147483647

#: Sparse modes whose geometry is exact; 5–8 are counted as full and flagged.
SUPPORTED_SPARSE_MODES = (0, 1, 2, 3, 4)

_BAND_CHUNK = 1 << 20  # rows per numpy chunk when summing a band mask


def _band_rows(sq: int, skv: int, pre: int, nxt: int, offset: int) -> int:
    """Σ over rows of the columns j with d_i − pre ≤ j ≤ d_i + next, 0 ≤ j < skv; d_i = i + offset."""
    import numpy as np  # only banded masks need it: the module stays importable without numpy

    total = 0
    for start in range(0, sq, _BAND_CHUNK):
        rows = np.arange(start, min(sq, start + _BAND_CHUNK), dtype=np.int64)
        diag = rows + offset
        lo = np.maximum(diag - pre, 0)
        hi = np.minimum(diag + nxt, skv - 1)
        total += int(np.clip(hi - lo + 1, 0, None).sum())
    return total


def mask_count(
    sq: int,
    skv: int,
    sparse_mode: int = 0,
    pre_tokens: int | None = None,
    next_tokens: int | None = None,
    convention: MaskConvention | str = MaskConvention.EXACT,
) -> tuple[int | Fraction, str]:
    """Number of computed (unmasked) score elements per (batch, head).

    Args:
        sq: Query sequence length S_q.
        skv: Key/value sequence length S_kv.
        sparse_mode: CANN ``sparse_mode``: 0/1 full, 2 left-up causal, 3 right-down causal,
            4 band (right-down aligned, CANN docs). Modes 5–8 are counted as full (an upper bound).
        pre_tokens: Band width before the diagonal (mode 4; ignored otherwise).
        next_tokens: Band width after the diagonal (mode 4; ignored otherwise).
        convention: ``exact`` integer geometry or the seed's continuous ``seed`` approximation
            (modes 2 and 3 only; they differ by 1/S).

    Returns:
        ``(count, explanation)``; the count is an ``int`` (exact) or a ``Fraction`` (seed).

    Raises:
        FlopError: For non-positive lengths or an unknown sparse mode.
    """
    _positive(S_q=sq, S_kv=skv)
    convention = MaskConvention(convention)
    sq, skv = int(sq), int(skv)
    pre = UNLIMITED_TOKENS if pre_tokens is None else int(pre_tokens)
    nxt = UNLIMITED_TOKENS if next_tokens is None else int(next_tokens)
    mask = _Mask(sq, skv, sparse_mode, pre, nxt, convention)
    for applies, count in _MASK_RULES:
        if applies(sparse_mode):
            return count(mask)
    raise FlopError(f"sparse_mode must be 0–8, got {sparse_mode}")


@dataclass(frozen=True)
class _Mask:
    """One (S_q, S_kv) score matrix under a sparse mode, as :func:`mask_count` validated it.

    Attributes:
        sq: Query sequence length S_q.
        skv: Key/value sequence length S_kv.
        sparse_mode: The CANN sparse mode, as given.
        pre: Band width before the diagonal (``UNLIMITED_TOKENS`` when not given).
        nxt: Band width after the diagonal (``UNLIMITED_TOKENS`` when not given).
        convention: Exact integer geometry or the seed's continuous approximation.
    """

    sq: int
    skv: int
    sparse_mode: int
    pre: int
    nxt: int
    convention: MaskConvention

    @property
    def full(self) -> int:
        """Every score: S_q·S_kv."""
        return self.sq * self.skv


def _full_mask(mask: _Mask) -> tuple[int, str]:
    """Modes 0 (defaultMask) and 1 (allMask): every score is computed."""
    label = "defaultMask" if mask.sparse_mode == 0 else "allMask"
    return mask.full, (
        f"sparse_mode {mask.sparse_mode} ({label}): every score computed, S_q·S_kv = {mask.sq} × {mask.skv} = "
        f"{grouped(mask.full)}"
    )


def _left_up_causal(mask: _Mask) -> tuple[int | Fraction, str]:
    """Mode 2 (leftUpCausal, j ≤ i), in the exact or the seed's continuous convention."""
    sq, skv = mask.sq, mask.skv
    if mask.convention is MaskConvention.SEED:
        if sq <= skv:
            value = Fraction(sq * sq, 2)
            return value, f"sparse_mode 2, seed continuous: S_q²/2 = {sq}²/2 = {grouped(float(value))}"
        value = Fraction(sq * skv) - Fraction(skv * skv, 2)
        return value, (
            f"sparse_mode 2, seed continuous (corrected denominator): S_q·S_kv − S_kv²/2 = "
            f"{sq}×{skv} − {skv}²/2 = {grouped(float(value))}"
        )
    if sq <= skv:
        count = sq * (sq + 1) // 2
        return count, (
            f"sparse_mode 2 (leftUpCausal, j ≤ i), S_q ≤ S_kv: S_q(S_q+1)/2 = {sq}×{sq + 1}/2 = {grouped(count)}"
        )
    count = skv * (skv + 1) // 2 + (sq - skv) * skv
    return count, (
        f"sparse_mode 2 (leftUpCausal, j ≤ i), S_q > S_kv: S_kv(S_kv+1)/2 + (S_q−S_kv)·S_kv = "
        f"{skv}×{skv + 1}/2 + {sq - skv}×{skv} = {grouped(count)}"
    )


def _right_down_causal(mask: _Mask) -> tuple[int | Fraction, str]:
    """Mode 3 (rightDownCausal, j ≤ i + S_kv − S_q), in the exact or the seed's continuous convention."""
    sq, skv = mask.sq, mask.skv
    if mask.convention is MaskConvention.SEED:
        if sq >= skv:
            value = Fraction(skv * skv, 2)
            return value, f"sparse_mode 3, seed continuous: S_kv²/2 = {skv}²/2 = {grouped(float(value))}"
        value = Fraction(sq * skv) - Fraction(sq * sq, 2)
        return value, (
            f"sparse_mode 3, seed continuous: S_q·S_kv − S_q²/2 = {sq}×{skv} − {sq}²/2 = {grouped(float(value))}"
        )
    if sq <= skv:
        count = sq * (skv - sq) + sq * (sq + 1) // 2
        return count, (
            f"sparse_mode 3 (rightDownCausal, j ≤ i + S_kv − S_q), S_q ≤ S_kv: S_q·(S_kv−S_q) + S_q(S_q+1)/2 = "
            f"{sq}×{skv - sq} + {sq}×{sq + 1}/2 = {grouped(count)}"
        )
    count = skv * (skv + 1) // 2
    return count, (
        f"sparse_mode 3 (rightDownCausal), S_q > S_kv: S_kv(S_kv+1)/2 = {skv}×{skv + 1}/2 = {grouped(count)}"
    )


def _band_mask(mask: _Mask) -> tuple[int, str]:
    """Mode 4: a band of pre/next tokens around the diagonal, aligned at the lower-right corner (CANN docs)."""
    sq, skv = mask.sq, mask.skv
    pre_c, nxt_c = min(mask.pre, sq + skv), min(mask.nxt, sq + skv)
    count = _band_rows(sq, skv, pre_c, nxt_c, skv - sq)
    return count, (
        f"sparse_mode 4 (band, aligned at the lower-right corner per the CANN docs), pre_tokens={mask.pre}, "
        f"next_tokens={mask.nxt}: Σ_i |[d_i−pre, d_i+next] ∩ [0, S_kv)|, d_i = i + S_kv − S_q = {grouped(count)}"
    )


def _unmodelled_mask(mask: _Mask) -> tuple[int, str]:
    """Modes 5–8 (prefix/varlen band variants): counted as full, an upper bound."""
    return mask.full, (
        f"sparse_mode {mask.sparse_mode} (prefix/varlen band variants) is not modelled: counted as full "
        f"S_q·S_kv = {grouped(mask.full)} — an upper bound"
    )


#: Sparse mode → how its computed scores are counted, tried in order (the first that applies counts).
_MASK_RULES: tuple[tuple[Callable[[int], bool], Callable[[_Mask], tuple[int | Fraction, str]]], ...] = (
    (lambda mode: mode in (0, 1), _full_mask),
    (lambda mode: mode == 2, _left_up_causal),
    (lambda mode: mode == 3, _right_down_causal),
    (lambda mode: mode == 4, _band_mask),
    (lambda mode: 5 <= mode <= 8, _unmodelled_mask),
)


@dataclass(frozen=True)
class AttentionShape:
    """FlashAttention dimensions normalised to (B, N, S, D).

    For BSH/SBH the head split may be unknown: ``h_q``/``h_k``/``h_v`` are the hidden sizes
    and ``heads_q`` is ``None`` unless the caller gave it.
    """

    layout: Layout
    batch: int
    seq_q: int
    seq_kv: int
    heads_q: int | None
    heads_kv: int | None
    d_qk: int | None
    d_v: int | None
    h_q: int
    h_k: int
    h_v: int


def _need_rank(name: str, shape: Shape, rank: int, layout: Layout) -> None:
    if len(shape) != rank:
        raise FlopError(f"{layout.value} expects a rank-{rank} {name}, got [{format_shape(shape)}]")
    if any(d <= 0 for d in shape):
        raise FlopError(f"{name} [{format_shape(shape)}] has a zero dimension")


def normalize_attention(
    layout: Layout | str,
    q: Shape,
    k: Shape,
    v: Shape | None = None,
    heads: int | None = None,
) -> AttentionShape:
    """Normalise Q/K/V shapes of any layout to (B, N, S, D).

    Args:
        layout: ``BNSD``, ``BSND``, ``BSH``, ``SBH`` or ``TND``.
        q: Query shape.
        k: Key shape.
        v: Value shape (defaults to K's: D_v = D_qk).
        heads: Query head count (needed only to split BSH/SBH hidden sizes into N·D).

    Returns:
        The normalised dimensions.

    Raises:
        FlopError: When ranks or dims contradict the layout, or GQA head counts do not divide.
    """
    layout = Layout(str(layout).upper())
    v = k if v is None else v
    return _NORMALIZERS[layout](layout, q, k, v, heads)


def _need_ranks(layout: Layout, rank: int, q: Shape, k: Shape, v: Shape) -> None:
    """Check that Q, K and V all have the layout's rank and no zero dimension."""
    for name, shape in (("Q", q), ("K", k), ("V", v)):
        _need_rank(name, shape, rank, layout)


def _check_batch(b: int, bk: int, bv: int) -> None:
    """Check that Q, K and V agree on the batch."""
    if b != bk or b != bv:
        raise FlopError(f"batch differs between Q ({b}), K ({bk}) and V ({bv})")


def _check_head_dim(dq: int, dk: int) -> None:
    """Check that Q and K share the head dim (their dot product needs it)."""
    if dq != dk:
        raise FlopError(f"Q head dim {dq} ≠ K head dim {dk}")


def _check_key_value(k: Shape, v: Shape, lengths: tuple[int, int], heads: tuple[int, int], axis: str) -> None:
    """Check that K and V agree on the sequence axis (``S`` or ``T``) and the head count."""
    if lengths[0] != lengths[1] or heads[0] != heads[1]:
        raise FlopError(f"K [{format_shape(k)}] and V [{format_shape(v)}] disagree on {axis} or N")


def _check_gqa(nq: int, nk: int) -> None:
    """Check that the query heads are a whole multiple of the KV heads (GQA/MQA)."""
    if nq % nk != 0:
        raise FlopError(f"query heads {nq} are not a multiple of KV heads {nk} (GQA)")


def _normalize_4d(layout: Layout, q: Shape, k: Shape, v: Shape, heads: int | None) -> AttentionShape:
    """BNSD and BSND: batch, heads, sequence and head dim are all in the shapes (``heads`` is not needed)."""
    _need_ranks(layout, 4, q, k, v)
    if layout is Layout.BNSD:
        (b, nq, sq, dq), (bk, nk, sk, dk), (bv, nv, sv, dv) = q, k, v
    else:
        (b, sq, nq, dq), (bk, sk, nk, dk), (bv, sv, nv, dv) = q, k, v
    _check_batch(b, bk, bv)
    _check_head_dim(dq, dk)
    _check_key_value(k, v, (sk, sv), (nk, nv), "S")
    _check_gqa(nq, nk)
    return AttentionShape(layout, b, sq, sk, nq, nk, dq, dv, nq * dq, nk * dk, nv * dv)


def _normalize_hidden(layout: Layout, q: Shape, k: Shape, v: Shape, heads: int | None) -> AttentionShape:
    """BSH and SBH: hidden sizes H = N·D, split into heads only when the query head count is given."""
    _need_ranks(layout, 3, q, k, v)
    if layout is Layout.BSH:
        (b, sq, hq), (bk, sk, hk), (bv, sv, hv) = q, k, v
    else:
        (sq, b, hq), (sk, bk, hk), (sv, bv, hv) = q, k, v
    _check_batch(b, bk, bv)
    if sk != sv:
        raise FlopError(f"K and V sequence lengths differ ({sk} vs {sv})")
    if hk > hq or hq % hk != 0:
        raise FlopError(f"Q hidden {hq} is not a multiple of K hidden {hk} (GQA needs H_q = g·H_k)")
    nq = nk = dq = dv = None
    if heads is not None:
        nq, nk, dq, dv = _split_hidden(hq, hk, hv, heads)
    return AttentionShape(layout, b, sq, sk, nq, nk, dq, dv, hq, hk, hv)


def _split_hidden(hq: int, hk: int, hv: int, heads: int) -> tuple[int, int, int, int]:
    """Split BSH/SBH hidden sizes into heads: ``(N_q, N_kv, D_qk, D_v)``.

    Args:
        hq: Query hidden size.
        hk: Key hidden size.
        hv: Value hidden size.
        heads: Query head count.

    Raises:
        FlopError: When a hidden size does not divide into the heads.
    """
    _positive(heads=heads)
    if hq % heads != 0:
        raise FlopError(f"Q hidden {hq} is not divisible by {heads} heads")
    nq = int(heads)
    dq = hq // nq
    if hk % dq != 0:
        raise FlopError(f"K hidden {hk} is not a multiple of head dim {dq}")
    nk = hk // dq
    if hv % nk != 0:
        raise FlopError(f"V hidden {hv} is not divisible by {nk} KV heads")
    return nq, nk, dq, hv // nk


def _normalize_varlen(layout: Layout, q: Shape, k: Shape, v: Shape, heads: int | None) -> AttentionShape:
    """TND: packed tokens T (batch 1), heads and head dim in the shapes (``heads`` is not needed)."""
    _need_ranks(layout, 3, q, k, v)
    (tq, nq, dq), (tk, nk, dk), (tv, nv, dv) = q, k, v
    _check_head_dim(dq, dk)
    _check_key_value(k, v, (tk, tv), (nk, nv), "T")
    _check_gqa(nq, nk)
    return AttentionShape(layout, 1, tq, tk, nq, nk, dq, dv, nq * dq, nk * dk, nv * dv)


#: Layout → how its Q/K/V shapes are read.
_NORMALIZERS: dict[Layout, Callable[[Layout, Shape, Shape, Shape, int | None], AttentionShape]] = {
    Layout.BNSD: _normalize_4d,
    Layout.BSND: _normalize_4d,
    Layout.BSH: _normalize_hidden,
    Layout.SBH: _normalize_hidden,
    Layout.TND: _normalize_varlen,
}


def sequence_lengths(cumulative: list[int] | tuple[int, ...], name: str = "actual_seq_qlen") -> list[int]:
    """Per-sequence lengths from a cumulative ``actual_seq_*len`` array.

    The first element, then successive differences; trailing padding (repeats of the last
    value, i.e. zero-length entries, or zeros) is dropped.

    Raises:
        FlopError: When the array is empty or decreases.
    """
    values = [int(x) for x in cumulative]
    while values and values[-1] == 0:
        values.pop()
    if not values:
        raise FlopError(f"{name} is empty")
    lengths = []
    previous = 0
    for value in values:
        if value < previous:
            raise FlopError(f"{name} must be cumulative (non-decreasing), got {values}")
        lengths.append(value - previous)
        previous = value
    while lengths and lengths[-1] == 0:
        lengths.pop()
    if not lengths:
        raise FlopError(f"{name} has no non-empty sequence")
    return lengths


@dataclass(frozen=True)
class AttentionFlops:
    """FlashAttention forward (or backward) FLOPs with everything needed to explain them."""

    count: FlopCount
    shape: AttentionShape
    score_count: int | Fraction
    mask_explanation: str
    per_sequence: tuple[tuple[int, int, int | Fraction], ...] = ()


def _width_factor(shape: AttentionShape) -> tuple[Fraction, str, str]:
    """Per-score FLOPs / 2 and its explanation: N_q·(D_qk + D_v), or H_q + H_v·H_q/H_k for BSH/SBH."""
    if shape.heads_q is not None and shape.d_qk is not None and shape.d_v is not None:
        value = Fraction(shape.heads_q * (shape.d_qk + shape.d_v))
        return value, "N_q·(D_qk + D_v)", f"{shape.heads_q} × ({shape.d_qk} + {shape.d_v})"
    value = Fraction(shape.h_q) + Fraction(shape.h_v * shape.h_q, shape.h_k)
    if shape.h_q == shape.h_k:
        return value, "(H_q + H_v)", f"({shape.h_q} + {shape.h_v})"
    return value, "(H_q + H_v·H_q/H_k)", f"({shape.h_q} + {shape.h_v}×{shape.h_q}/{shape.h_k})"


def flash_attention_forward(
    layout: Layout | str,
    q: Shape,
    k: Shape,
    v: Shape | None = None,
    heads: int | None = None,
    sparse_mode: int = 0,
    pre_tokens: int | None = None,
    next_tokens: int | None = None,
    actual_seq_qlen: list[int] | tuple[int, ...] | None = None,
    actual_seq_kvlen: list[int] | tuple[int, ...] | None = None,
    convention: MaskConvention | str = MaskConvention.EXACT,
) -> AttentionFlops:
    """FlashAttention forward FLOPs: ``2·B·N_q·count·(D_qk + D_v)`` (QKᵀ + PV per query head).

    GQA/MQA scale with query heads; D_v comes from V's shape when given (MLA heads have
    D_v ≠ D_qk, where the seed's ``(q_d + k_d)`` over-counts). TND (varlen) needs the
    cumulative ``actual_seq_qlen`` / ``actual_seq_kvlen`` and applies the mask per sequence.

    Raises:
        FlopError: For contradictory shapes, a varlen call without lengths, or lengths that
            do not add up to T.
    """
    shape = normalize_attention(layout, q, k, v, heads)
    notes = _shape_notes(shape, v)
    width, width_formula, width_numbers = _width_factor(shape)
    per_sequence: list[tuple[int, int, int | Fraction]] = []
    if shape.layout is Layout.TND:
        score, mask_text, per_sequence = _varlen_scores(
            shape, actual_seq_qlen, actual_seq_kvlen, sparse_mode, pre_tokens, next_tokens, convention
        )
        batch = 1
    else:
        score, mask_text = mask_count(shape.seq_q, shape.seq_kv, sparse_mode, pre_tokens, next_tokens, convention)
        batch = shape.batch
    exact = Fraction(2) * batch * Fraction(score) * width
    flops = round(exact)
    formula, substituted = _forward_formula(shape.layout, batch, score, width_formula, width_numbers, flops)
    if shape.layout in (Layout.BSH, Layout.SBH) and shape.heads_q is None:
        notes.append("BSH/SBH: hidden sizes used directly (H = N·D), no head count needed")
    return AttentionFlops(
        FlopCount(flops, formula, substituted, _attention_dims(shape, batch), tuple(notes)),
        shape,
        score,
        mask_text,
        tuple(per_sequence),
    )


def _shape_notes(shape: AttentionShape, v: Shape | None) -> list[str]:
    """Notes on what the shapes imply: an assumed D_v, D_v ≠ D_qk (MLA), shared KV heads (GQA/MQA)."""
    notes: list[str] = []
    if v is None:
        notes.append("V shape not given: D_v = D_qk assumed")
    elif shape.d_v is not None and shape.d_qk is not None and shape.d_v != shape.d_qk:
        notes.append(
            f"D_v = {shape.d_v} ≠ D_qk = {shape.d_qk} (from V's shape; the seed's (q_d + k_d) would over-count)"
        )
    if shape.heads_q is not None and shape.heads_kv is not None and shape.heads_q != shape.heads_kv:
        notes.append(
            f"GQA/MQA: {shape.heads_q} query heads share {shape.heads_kv} KV heads; FLOPs scale with query heads"
        )
    return notes


def _varlen_scores(
    shape: AttentionShape,
    actual_seq_qlen: list[int] | tuple[int, ...] | None,
    actual_seq_kvlen: list[int] | tuple[int, ...] | None,
    sparse_mode: int,
    pre_tokens: int | None,
    next_tokens: int | None,
    convention: MaskConvention | str,
) -> tuple[int | Fraction, str, list[tuple[int, int, int | Fraction]]]:
    """Computed scores of a TND (varlen) pack: the mask applied to each sequence, summed.

    Args:
        shape: The normalised TND shape (T_q, T_kv in ``seq_q``/``seq_kv``).
        actual_seq_qlen: Cumulative query lengths.
        actual_seq_kvlen: Cumulative key/value lengths.
        sparse_mode: CANN sparse mode, applied per sequence.
        pre_tokens: Band width before the diagonal (mode 4).
        next_tokens: Band width after the diagonal (mode 4).
        convention: Mask counting convention.

    Returns:
        ``(Σ count_i, explanation, per-sequence (q_len, kv_len, count))``.

    Raises:
        FlopError: When the lengths are missing, do not pair up, or add up to more than T.
    """
    if actual_seq_qlen is None or actual_seq_kvlen is None:
        raise FlopError(
            "TND (varlen) needs actual_seq_qlen and actual_seq_kvlen (cumulative lengths); "
            "(T/B)²·B would under-count uneven packs"
        )
    q_lens = sequence_lengths(actual_seq_qlen, "actual_seq_qlen")
    kv_lens = sequence_lengths(actual_seq_kvlen, "actual_seq_kvlen")
    if len(q_lens) != len(kv_lens):
        raise FlopError(f"{len(q_lens)} query sequences but {len(kv_lens)} KV sequences")
    if sum(q_lens) > shape.seq_q or sum(kv_lens) > shape.seq_kv:
        raise FlopError(
            f"sequence lengths sum to {sum(q_lens)}/{sum(kv_lens)}, more than T_q={shape.seq_q}/T_kv={shape.seq_kv}"
        )
    per_sequence: list[tuple[int, int, int | Fraction]] = []
    total: int | Fraction = 0
    for ql, kl in zip(q_lens, kv_lens):
        if ql == 0 or kl == 0:
            per_sequence.append((ql, kl, 0))
            continue
        c, _ = mask_count(ql, kl, sparse_mode, pre_tokens, next_tokens, convention)
        per_sequence.append((ql, kl, c))
        total += c
    mask_text = (
        f"varlen: {len(q_lens)} sequences, q_lens={q_lens}, kv_lens={kv_lens}; sparse_mode {sparse_mode} "
        f"applied per sequence: Σ count_i = {grouped(float(total))}"
    )
    return total, mask_text, per_sequence


def _forward_formula(
    layout: Layout, batch: int, score: int | Fraction, width_formula: str, width_numbers: str, flops: int
) -> tuple[str, str]:
    """The forward formula in symbols and with the numbers substituted (``Σ count_i`` for varlen).

    Args:
        layout: The normalised layout.
        batch: B (1 for varlen).
        score: Computed scores per (batch, head), or their sum over sequences.
        width_formula: The per-score width in symbols.
        width_numbers: The per-score width with numbers.
        flops: The FLOPs the formula comes to.
    """
    if layout is Layout.TND:
        return (f"2·Σ count_i·{width_formula}",
                f"2 × {grouped(float(score))} × {width_numbers} = {grouped(flops)}")
    return (f"2·B·count·{width_formula}",
            f"2 × {batch} × {grouped(float(score))} × {width_numbers} = {grouped(flops)}")


def _attention_dims(shape: AttentionShape, batch: int) -> dict[str, int]:
    """The named dims of the count: heads and head dims when known, hidden sizes otherwise."""
    dims = {"B": batch, "S_q": shape.seq_q, "S_kv": shape.seq_kv}
    if shape.heads_q is not None:
        dims.update({"N_q": shape.heads_q, "N_kv": shape.heads_kv or 0, "D_qk": shape.d_qk or 0, "D_v": shape.d_v or 0})
    else:
        dims.update({"H_q": shape.h_q, "H_k": shape.h_k, "H_v": shape.h_v})
    return dims


class BackwardCount(StrEnum):
    """Which FLOPs a FlashAttention backward reports (mfu.md §3.4)."""

    MODEL = "model"  # dV, dP, dQ, dK: 2 × forward (what MFU counts)
    EXECUTED = "executed"  # + the recomputed S = QKᵀ: 2.5 × forward when D_qk = D_v (HFU view)


def flash_attention_backward(
    forward: AttentionFlops, count: BackwardCount | str = BackwardCount.MODEL
) -> AttentionFlops:
    """FlashAttention backward FLOPs from the forward count.

    Model FLOPs: four matmuls (dV, dP, dQ, dK) = ``2·B·N_q·count·(2·D_qk + 2·D_v)`` = 2 × forward.
    Executed FLOPs add the recomputation of S = QKᵀ: ``+ 2·B·N_q·count·D_qk`` (2.5 × forward
    when D_qk = D_v). ``count`` selects which one is reported as ``flops``; the other is kept
    in ``executed_flops`` so both can be shown, labelled.
    """
    count = BackwardCount(count)
    shape = forward.shape
    model = 2 * forward.count.flops
    if shape.heads_q is not None and shape.d_qk is not None:
        qk_part = Fraction(shape.heads_q * shape.d_qk)
    else:
        qk_part = Fraction(shape.h_q)
    width, _, _ = _width_factor(shape)
    recompute_exact = Fraction(forward.count.flops) * qk_part / width
    executed = model + round(recompute_exact)
    if count is BackwardCount.MODEL:
        flops = model
        formula = "2 × forward (dV, dP, dQ, dK)"
        substituted = f"2 × {grouped(forward.count.flops)} = {grouped(model)}"
        notes = (*forward.count.notes, f"executed FLOPs incl. the recomputed QKᵀ (HFU view): {grouped(executed)}")
    else:
        flops = executed
        formula = "2 × forward + recomputed QKᵀ (executed, HFU view)"
        substituted = f"2 × {grouped(forward.count.flops)} + {grouped(executed - model)} = {grouped(executed)}"
        notes = (*forward.count.notes, f"executed FLOPs (labelled HFU view); model FLOPs = {grouped(model)}")
    return AttentionFlops(
        FlopCount(flops, formula, substituted, forward.count.dims, notes, executed_flops=executed),
        shape,
        forward.score_count,
        forward.mask_explanation,
        forward.per_sequence,
    )
