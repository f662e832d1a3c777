"""Whole-model MFU and HFU (PaLM, arXiv 2204.02311 app. B; mfu.md §5).

``flops_per_token = 6·N + 12·L·H·Q·T`` (drop the second term for "without attention"),
``MFU = observed tokens/s · flops_per_token / (P_chip · n_chips)`` and
``HFU = observed tokens/s · (flops_per_token + remat_flops_per_token) / (P_chip · n_chips)``.

The modern-architecture option builds the matmul parameter count from the architecture
(GQA projections, SwiGLU's three FFN matmuls, MoE active experts, vocabulary logits) and
exposes each disputed convention as a named switch, stamped into the derivation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mfu_desktop.core.formulas.derivation import Derivation
from mfu_desktop.core.formulas.flops import FlopError
from mfu_desktop.core.formulas.mfu import interpret
from mfu_desktop.core.numbers import Exact, grouped, operands, pct, short, sig


@dataclass(frozen=True)
class Conventions:
    """Named switches for the attention term (conventions disagree in the wild).

    Attributes:
        causal_halved: Halve the attention-core FLOPs for causal masks (Megatron, MaxText,
            FlashAttention bench) — PaLM, nanoGPT and torchtitan do not. Default: PaLM (off).
    """

    causal_halved: bool = False

    def describe(self) -> list[str]:
        """The conventions as text for derivations and exports."""
        return [
            "attention term 12·L·H·Q·T per token (PaLM app. B): H·Q = heads × head dim, not d_model",
            "causal attention halved (Megatron/MaxText/FlashAttention-bench convention)"
            if self.causal_halved
            else "causal attention not halved (PaLM/nanoGPT/torchtitan convention)",
        ]


@dataclass(frozen=True)
class ModernArchitecture:
    """A decoder-only transformer described by its architecture (the modern option).

    Attributes:
        layers: L.
        d_model: Hidden size.
        heads: Query heads H.
        head_dim: Head dim Q.
        kv_heads: Key/value heads (GQA/MQA; = heads for MHA).
        ffn_hidden: FFN intermediate size of a dense layer.
        swiglu: SwiGLU/GeGLU FFN with three matmuls (gate, up, down) instead of two.
        vocab: Vocabulary size (logits matmul d_model × vocab), 0 to leave it out.
        include_logits: Count the output logits matmul (named switch; PaLM's 6N includes
            only what N includes).
        moe_experts: Routed experts per MoE layer (0 = dense model).
        moe_top_k: Experts each token is routed to.
        moe_shared_experts: Always-active shared experts.
        moe_ffn_hidden: FFN size of one expert (defaults to ``ffn_hidden``).
        moe_layers: How many layers are MoE (default: all, when ``moe_experts`` > 0).
    """

    layers: int
    d_model: int
    heads: int
    head_dim: int
    kv_heads: int | None = None
    ffn_hidden: int = 0
    swiglu: bool = True
    vocab: int = 0
    include_logits: bool = True
    moe_experts: int = 0
    moe_top_k: int = 0
    moe_shared_experts: int = 0
    moe_ffn_hidden: int | None = None
    moe_layers: int | None = None

    def active_matmul_params(self) -> tuple[int, list[str]]:
        """Matmul parameters a token passes through (active params, never MoE total) and the breakdown."""
        for name in ("layers", "d_model", "heads", "head_dim"):
            if getattr(self, name) <= 0:
                raise FlopError(f"{name} must be positive")
        kv = self.kv_heads or self.heads
        if self.heads % kv != 0:
            raise FlopError(f"heads {self.heads} are not a multiple of kv_heads {kv}")
        d, q = self.d_model, self.head_dim
        attn = d * self.heads * q + 2 * d * kv * q + self.heads * q * d
        mats = 3 if self.swiglu else 2
        dense_ffn = mats * d * self.ffn_hidden
        lines = [
            f"attention projections per layer: d·H·Q + 2·d·KV·Q + H·Q·d = {d}·{self.heads}·{q} + 2·{d}·{kv}·{q} + "
            f"{self.heads}·{q}·{d} = {grouped(attn)}",
        ]
        moe_layers = 0
        if self.moe_experts > 0:
            if self.moe_top_k <= 0 or self.moe_top_k > self.moe_experts:
                raise FlopError("moe_top_k must be between 1 and moe_experts")
            moe_layers = self.layers if self.moe_layers is None else self.moe_layers
            expert = mats * d * (self.moe_ffn_hidden or self.ffn_hidden)
            moe_ffn = (self.moe_top_k + self.moe_shared_experts) * expert + d * self.moe_experts
            lines.append(
                f"MoE FFN per layer (active): (top_k + shared)·{mats}·d·F_e + router d·E = "
                f"({self.moe_top_k} + {self.moe_shared_experts})·{grouped(expert)} + {d}·{self.moe_experts} = "
                f"{grouped(moe_ffn)} over {moe_layers} layers (total experts are never counted)"
            )
        else:
            moe_ffn = 0
        dense_layers = self.layers - moe_layers
        if dense_layers > 0:
            lines.append(f"dense FFN per layer: {mats}·d·F = {mats}·{d}·{self.ffn_hidden} = {grouped(dense_ffn)} "
                         f"({'SwiGLU, 3 matmuls' if self.swiglu else '2 matmuls'}) over {dense_layers} layers")
        total = self.layers * attn + dense_layers * dense_ffn + moe_layers * moe_ffn
        if self.include_logits and self.vocab > 0:
            total += d * self.vocab
            lines.append(f"vocabulary logits: d·V = {d}·{self.vocab} = {grouped(d * self.vocab)}")
        lines.append(f"N_active (matmul params per token) = {grouped(total)}")
        return total, lines


@dataclass
class ModelMfuResult:
    """Model-level MFU/HFU and its derivation.

    Attributes mirror the CLI JSON contract of ``mfu model``.
    """

    flops_per_token: float
    attention_flops_per_token: float
    mfu_without_attention: float
    mfu_with_attention: float
    hfu: float | None
    tokens_per_s: float
    peak_total_flops: float
    derivation: Derivation
    conventions: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        """The JSON contract of ``mfu model``."""
        return {
            "flops_per_token": self.flops_per_token,
            "attention_flops_per_token": self.attention_flops_per_token,
            "mfu_without_attention": self.mfu_without_attention,
            "mfu_with_attention": self.mfu_with_attention,
            "hfu": self.hfu,
            "tokens_per_s": self.tokens_per_s,
            "derivation": self.derivation.lines(),
            "conventions": self.conventions,
        }


def attention_flops_per_token(layers: int, heads: int, head_dim: int, seq: int, conventions: Conventions) -> float:
    """PaLM's attention term ``12·L·H·Q·T`` (halved when the causal switch is on)."""
    value = 12 * layers * heads * head_dim * seq
    return value / 2 if conventions.causal_halved else float(value)


def flops_per_token(params: float, layers: int, heads: int, head_dim: int, seq: int,
                    conventions: Conventions | None = None, with_attention: bool = True) -> float:
    """``6·N + 12·L·H·Q·T`` (the attention term dropped when ``with_attention`` is false)."""
    attention = attention_flops_per_token(layers, heads, head_dim, seq, conventions or Conventions())
    return 6.0 * params + (attention if with_attention else 0.0)


def tokens_per_second(
    tokens_per_s: float | None = None,
    global_batch: float | None = None,
    seq: int | None = None,
    step_time_s: float | None = None,
) -> float:
    """Observed tokens/s, given directly or as ``global_batch_sequences · T / step_time_s``.

    Raises:
        FlopError: When neither form is complete or a value is not positive.
    """
    if tokens_per_s is not None:
        if tokens_per_s <= 0:
            raise FlopError("tokens/s must be positive")
        return float(tokens_per_s)
    if global_batch is None or step_time_s is None or seq is None:
        raise FlopError("give either tokens/s, or global batch (sequences), sequence length and step time")
    if global_batch <= 0 or step_time_s <= 0 or seq <= 0:
        raise FlopError("global batch, sequence length and step time must be positive")
    return global_batch * seq / step_time_s


def model_mfu(
    params: float,
    layers: int,
    heads: int,
    head_dim: int,
    seq: int,
    tokens_per_s: float,
    peak_tflops_per_chip: float,
    n_chips: int,
    remat_flops_per_token: float | None = None,
    conventions: Conventions | None = None,
    param_lines: list[str] | None = None,
    peak_source: str = "user-entered",
) -> ModelMfuResult:
    """PaLM MFU with and without attention, and HFU when rematerialisation FLOPs are given.

    Args:
        params: N, the (active, matmul) parameter count in 6N.
        layers: L.
        heads: H (query heads).
        head_dim: Q.
        seq: T (training sequence length).
        tokens_per_s: Observed training throughput (tokens/s, whole job).
        peak_tflops_per_chip: Dense matmul peak of one accelerator.
        n_chips: Number of accelerators.
        remat_flops_per_token: Extra FLOPs per token spent on recomputation (HFU); ``None``
            leaves HFU unknown.
        conventions: Named switches for the attention term.
        param_lines: Lines explaining where N came from (modern option).
        peak_source: Where the peak came from.

    Raises:
        FlopError: For non-positive inputs.
    """
    conventions = conventions or Conventions()
    for name, value in (("params", params), ("layers", layers), ("heads", heads), ("head_dim", head_dim),
                        ("seq", seq), ("peak", peak_tflops_per_chip), ("chips", n_chips),
                        ("tokens/s", tokens_per_s)):
        if value is None or value <= 0:
            raise FlopError(f"{name} must be positive")
    f = _PalmFigures.compute(params, layers, heads, head_dim, seq, tokens_per_s, peak_tflops_per_chip, n_chips,
                             remat_flops_per_token, conventions)
    d = Derivation("Model FLOPs utilization (PaLM app. B)")
    d.inputs = _palm_inputs(f, peak_source)
    d.steps.extend(param_lines or [])
    d.steps += _palm_steps(f)
    d.results = _palm_results(f)
    d.interpretation = interpret(f.mfu_w)
    d.conventions = conventions.describe()
    return ModelMfuResult(f.total, f.attention, f.mfu_wo, f.mfu_w, f.hfu, tokens_per_s, f.peak_total, d,
                          d.conventions)


@dataclass(frozen=True)
class _PalmFigures:
    """The inputs of a model MFU (validated) and the figures PaLM's formulas give for them.

    Attributes:
        params: N. layers: L. heads: H. head_dim: Q. seq: T.
        tokens_per_s: Observed throughput.
        peak_tflops_per_chip: Peak of one chip. n_chips: Chip count.
        remat_flops_per_token: Recomputation FLOPs per token, or ``None``.
        conventions: The attention-term switches.
        dense: 6·N. attention: The attention term. total: FLOPs per token.
        peak_total: Peak FLOP/s of all chips.
        mfu_wo: MFU without attention. mfu_w: MFU with attention. hfu: HFU, or ``None``.
    """

    params: float
    layers: int
    heads: int
    head_dim: int
    seq: int
    tokens_per_s: float
    peak_tflops_per_chip: float
    n_chips: int
    remat_flops_per_token: float | None
    conventions: Conventions
    dense: float
    attention: float
    total: float
    peak_total: float
    mfu_wo: float
    mfu_w: float
    hfu: float | None

    @classmethod
    def compute(
        cls,
        params: float,
        layers: int,
        heads: int,
        head_dim: int,
        seq: int,
        tokens_per_s: float,
        peak_tflops_per_chip: float,
        n_chips: int,
        remat_flops_per_token: float | None,
        conventions: Conventions,
    ) -> _PalmFigures:
        """FLOPs per token, the total peak, MFU with and without attention, and HFU.

        Raises:
            FlopError: When the rematerialisation FLOPs are negative.
        """
        dense = 6.0 * params
        attention = attention_flops_per_token(layers, heads, head_dim, seq, conventions)
        total = dense + attention
        peak_total = peak_tflops_per_chip * 1e12 * n_chips
        hfu = None
        if remat_flops_per_token is not None:
            if remat_flops_per_token < 0:
                raise FlopError("rematerialisation FLOPs per token cannot be negative")
            hfu = tokens_per_s * (total + remat_flops_per_token) / peak_total
        return cls(params, layers, heads, head_dim, seq, tokens_per_s, peak_tflops_per_chip, n_chips,
                   remat_flops_per_token, conventions, dense, attention, total, peak_total,
                   tokens_per_s * dense / peak_total, tokens_per_s * total / peak_total, hfu)


def _palm_inputs(f: _PalmFigures, peak_source: str) -> list[tuple[str, str]]:
    """The model MFU's inputs restated for the derivation."""
    inputs = [
        ("N (params in 6N)", f"{sig(f.params, 4)}"),
        ("L, H, Q, T", f"{f.layers}, {f.heads}, {f.head_dim}, {f.seq}"),
        ("observed throughput", f"{short(f.tokens_per_s)} tokens/s"),
        ("peak per chip", f"{short(f.peak_tflops_per_chip)} TFLOP/s ({peak_source})"),
        ("chips", str(f.n_chips)),
    ]
    if f.remat_flops_per_token is not None:
        inputs.append(("rematerialisation FLOPs per token", sig(f.remat_flops_per_token, 4)))
    return inputs


def _palm_steps(f: _PalmFigures) -> list[str]:
    """The formula steps with the numbers substituted: 6N, attention, FLOPs per token, peak, MFU, HFU."""
    halved = " / 2 (causal halved)" if f.conventions.causal_halved else ""
    peak_total = sig(f.peak_total, 4)

    def sig4(value: float) -> str:
        return sig(value, 4)

    (n_text,) = operands(lambda n: 6.0 * n, sig4, f.params, figures=4)
    steps = [
        f"6·N = 6 × {n_text} = {sig4(f.dense)} FLOPs per token",
        f"attention = 12·L·H·Q·T{halved} = 12 × {f.layers} × {f.heads} × {f.head_dim} × {f.seq}{halved} = "
        f"{sig4(f.attention)}",
        f"flops_per_token = 6N + attention = {sig4(f.total)} ({sig(f.total / 1e12)} TFLOP per token)",
        f"peak = P_chip · n = {short(f.peak_tflops_per_chip)}e12 × {f.n_chips} = {peak_total} FLOP/s",
        f"R = peak / flops_per_token = {sig4(f.peak_total / f.total)} tokens/s at 100 % MFU",
    ]
    for label, flops, mfu in (("MFU without attention", f.dense, f.mfu_wo), ("MFU with attention", f.total, f.mfu_w)):
        t, x, p = operands(lambda t, x, p: t * x / p, pct, f.tokens_per_s, flops, f.peak_total, figures=4)
        steps.append(f"{label} = {t} × {x} / {p} = {pct(mfu)}")
    if f.hfu is not None:
        t, x, r, p = operands(lambda t, x, r, p: t * (x + r) / p, pct, f.tokens_per_s, f.total,
                              f.remat_flops_per_token, f.peak_total, figures=4)
        steps.append(f"HFU = {t} × ({x} + {r}) / {p} = {pct(f.hfu)} "
                     f"({sig((f.total + f.remat_flops_per_token) / 1e12)} TFLOP per token incl. recomputation)")
    return steps


def _palm_results(f: _PalmFigures) -> list[tuple[str, str]]:
    """The results: FLOPs per token, MFU without and with attention, and HFU (or why it is unknown)."""
    return [
        ("flops per token", f"{sig(f.total / 1e12)} TFLOP (attention {sig(f.attention / 1e12)} TFLOP)"),
        ("MFU without attention", pct(f.mfu_wo)),
        ("MFU with attention", pct(f.mfu_w)),
        ("HFU", pct(f.hfu) if f.hfu is not None else "n/a (give rematerialisation FLOPs per token)"),
    ]


def palm_remat_flops_per_token(
    params: float,
    layers: int,
    heads: int,
    head_dim: int,
    seq: int,
    nonattention_fraction: float,
    attention_forward: bool,
    conventions: Conventions | None = None,
) -> float:
    """Rematerialisation FLOPs per token.

    A fraction of the non-attention forward (2N) plus, optionally, the whole attention
    forward (one third of the attention term).

    PaLM 540B recomputes 75 % of the non-attention forward and all attention forward FLOPs,
    which brings 3.28 TFLOP per token to 4.10 (HFU 57.8 %).
    """
    if not 0.0 <= nonattention_fraction <= 1.0:
        raise FlopError("the recomputed fraction must be between 0 and 1")
    conventions = conventions or Conventions()
    extra = nonattention_fraction * 2.0 * params
    if attention_forward:
        extra += attention_flops_per_token(layers, heads, head_dim, seq, conventions) / 3.0
    return extra


def solve_tokens_per_s(target_mfu: float, flops_per_token: float, peak_tflops_per_chip: float, n_chips: int) -> float:
    """Throughput (tokens/s) that a target MFU implies (inverse of :func:`model_mfu`)."""
    if not target_mfu > 0:
        raise FlopError("target MFU must be positive")
    if flops_per_token <= 0 or peak_tflops_per_chip <= 0 or n_chips <= 0:
        raise FlopError("flops per token, peak and chips must be positive")
    return target_mfu * peak_tflops_per_chip * 1e12 * n_chips / flops_per_token


def solve_step_time(
    target_mfu: float, flops_per_token: float, peak_tflops_per_chip: float, n_chips: int, global_batch: float, seq: int
) -> float:
    """Step time (s) that a target MFU implies for a global batch of sequences of length T."""
    tokens = solve_tokens_per_s(target_mfu, flops_per_token, peak_tflops_per_chip, n_chips)
    return global_batch * seq / tokens


def inverse_derivation(
    target_mfu: float,
    flops_per_token: float,
    peak_tflops_per_chip: float,
    n_chips: int,
    global_batch: float | None = None,
    seq: int | None = None,
    conventions: Conventions | None = None,
    with_attention: bool = True,
) -> tuple[float, float | None, Derivation]:
    """Solve target MFU → tokens/s (and step time when the batch is known), with a derivation."""
    tokens = solve_tokens_per_s(target_mfu, flops_per_token, peak_tflops_per_chip, n_chips)
    step = None
    d = Derivation("Target MFU → throughput (inverse solve)")
    d.inputs = [("target MFU", pct(target_mfu)), ("flops per token", sig(flops_per_token, 4)),
                ("peak per chip", f"{short(peak_tflops_per_chip)} TFLOP/s"), ("chips", str(n_chips))]
    m, p, n, fpt = operands(lambda m, p, n, f: m * p * 1e12 * n / f, lambda x: sig(x, 4), target_mfu,
                            peak_tflops_per_chip, Exact(n_chips, str(n_chips)), flops_per_token, figures=4)
    d.steps.append(f"tokens/s = MFU × P_chip × n / flops_per_token = {m} × {p}e12 × {n} / {fpt} = {sig(tokens, 4)}")
    d.results.append(("tokens/s", sig(tokens, 4)))
    if global_batch is not None and seq is not None:
        step = solve_step_time(target_mfu, flops_per_token, peak_tflops_per_chip, n_chips, global_batch, seq)
        g, t, k = operands(lambda g, t, k: g * t / k, lambda x: sig(x, 4), global_batch, Exact(seq, str(seq)), tokens,
                           figures=4)
        d.steps.append(f"step time = global_batch × T / tokens/s = {g} × {t} / {k} = {sig(step, 4)} s")
        d.results.append(("step time", f"{sig(step, 4)} s"))
    d.conventions = [
        *(conventions or Conventions()).describe(),
        "flops per token " + ("with" if with_attention else "without") + " the attention term",
    ]
    return tokens, step, d
