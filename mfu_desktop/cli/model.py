"""``mfu model``: whole-model MFU/HFU (PaLM's 6N + 12LHQT) and the inverse solve."""

from __future__ import annotations

import argparse

from mfu_desktop.cli.common import (
    EXIT_OK,
    UsageError,
    add_peak_args,
    emit,
    nonneg_float,
    nonneg_int,
    positive_float,
    positive_int,
    resolve_peak,
)
from mfu_desktop.core.formulas.model import (
    Conventions,
    ModernArchitecture,
    inverse_derivation,
    model_mfu,
    palm_remat_flops_per_token,
    tokens_per_second,
)
from mfu_desktop.core.numbers import short


def cmd_model(args: argparse.Namespace) -> int:
    """``mfu model``: PaLM MFU/HFU, the modern option, and the inverse solve."""
    conventions = Conventions(causal_halved=args.causal_halved)
    params, param_lines = _model_params(args, conventions)
    peak = resolve_peak(args)
    if peak is None:
        raise UsageError("argument --chip: required (or --peak-tflops)")
    if args.target_mfu is not None:
        return _inverse_solve(args, params, param_lines, peak.tflops, conventions)
    tokens = tokens_per_second(args.tokens_per_s, args.global_batch, args.seq, args.step_time_s)
    remat = _remat_flops_per_token(args, params, param_lines, conventions)
    result = model_mfu(params, args.layers, args.heads, args.head_dim, args.seq, tokens, peak.tflops, args.chips,
                       remat, conventions, param_lines, peak.source)
    emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def _model_params(args: argparse.Namespace, conventions: Conventions) -> tuple[float, list[str]]:
    """N of 6N: ``--params`` as given, or counted from the modern architecture's options.

    Args:
        args: The parsed ``mfu model`` arguments.
        conventions: The FLOP conventions (named in the switches line).

    Returns:
        The parameter count and the derivation lines that count it (none for ``--params``).

    Raises:
        UsageError: When neither or both of ``--params`` and ``--d-model`` are given.
    """
    if args.params is None and args.d_model is None:
        raise UsageError("argument --params: required (or describe the architecture with --d-model ...)")
    if args.params is not None and args.d_model is not None:
        raise UsageError("argument --d-model: not allowed with --params (give one)")
    if args.params is not None:
        return args.params, []
    arch = ModernArchitecture(
        layers=args.layers, d_model=args.d_model, heads=args.heads, head_dim=args.head_dim,
        kv_heads=args.kv_heads, ffn_hidden=args.ffn_hidden or 0, swiglu=not args.no_swiglu,
        vocab=args.vocab or 0, include_logits=not args.no_logits, moe_experts=args.moe_experts,
        moe_top_k=args.moe_top_k, moe_shared_experts=args.moe_shared, moe_ffn_hidden=args.moe_ffn_hidden,
        moe_layers=args.moe_layers,
    )
    params, param_lines = arch.active_matmul_params()
    param_lines.append(
        "switches: " + ", ".join([
            f"GQA kv_heads={arch.kv_heads or arch.heads}", f"SwiGLU={'on' if arch.swiglu else 'off'}",
            f"MoE={'on' if arch.moe_experts else 'off'}",
            f"vocab logits={'on' if arch.include_logits and arch.vocab else 'off'}",
            f"causal halved={'on' if conventions.causal_halved else 'off'}",
        ])
    )
    return params, param_lines


def _inverse_solve(args: argparse.Namespace, params: float, param_lines: list[str], peak_tflops: float,
                   conventions: Conventions) -> int:
    """``--target-mfu``: the tokens/s and step time that MFU means, printed with their derivation."""
    from mfu_desktop.core.formulas.model import flops_per_token

    fpt = flops_per_token(params, args.layers, args.heads, args.head_dim, args.seq, conventions)
    tokens, step, derivation = inverse_derivation(
        args.target_mfu, fpt, peak_tflops, args.chips, args.global_batch, args.seq, conventions
    )
    derivation.steps[0:0] = param_lines
    payload = {"target_mfu": args.target_mfu, "flops_per_token": fpt, "tokens_per_s": tokens,
               "step_time_s": step, "derivation": derivation.lines(), "conventions": derivation.conventions}
    emit(args, payload, derivation.text())
    return EXIT_OK


def _remat_flops_per_token(args: argparse.Namespace, params: float, param_lines: list[str],
                           conventions: Conventions) -> float | None:
    """Recomputation FLOPs per token (HFU): as given, or PaLM's from the recomputed fraction and attention.

    A computed value adds its derivation line to ``param_lines``.
    """
    remat = args.remat_flops_per_token
    if remat is None and (args.remat_fraction is not None or args.remat_attention):
        remat = palm_remat_flops_per_token(params, args.layers, args.heads, args.head_dim, args.seq,
                                           args.remat_fraction or 0.0, args.remat_attention, conventions)
        param_lines.append(
            f"rematerialisation per token = {args.remat_fraction or 0:g} × 2N"
            + (" + attention forward (1/3 of the attention term)" if args.remat_attention else "")
            + f" = {short(remat, 4)}"
        )
    return remat


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``model`` on the ``mfu`` parser."""
    model = sub.add_parser("model", help="whole-model MFU/HFU (PaLM 6N + 12LHQT) and the inverse solve")
    model.add_argument("--params", type=positive_float, help="N, parameters in 6N (active params for MoE)")
    model.add_argument("--layers", type=positive_int, required=True, help="L")
    model.add_argument("--heads", type=positive_int, required=True, help="H (query heads)")
    model.add_argument("--head-dim", type=positive_int, required=True, help="Q")
    model.add_argument("--seq", type=positive_int, required=True, help="T, training sequence length")
    model.add_argument("--tokens-per-s", type=positive_float, help="observed tokens/s (whole job)")
    model.add_argument("--global-batch", type=positive_float, help="sequences per optimizer step")
    model.add_argument("--step-time-s", type=positive_float, help="seconds per optimizer step")
    model.add_argument("--chips", type=positive_int, required=True, help="number of accelerators")
    model.add_argument("--remat-flops-per-token", type=nonneg_float, help="recomputation FLOPs per token (HFU)")
    model.add_argument("--remat-fraction", type=nonneg_float,
                       help="fraction of the non-attention forward recomputed (PaLM 540B: 0.75)")
    model.add_argument("--remat-attention", action="store_true", help="attention forward recomputed (HFU)")
    model.add_argument("--causal-halved", action="store_true",
                       help="halve the attention term for causal masks (Megatron convention; PaLM: off)")
    model.add_argument("--target-mfu", type=positive_float, help="inverse solve: MFU (fraction) → tokens/s, step time")
    modern = model.add_argument_group("modern architecture (instead of --params)")
    modern.add_argument("--d-model", type=positive_int)
    modern.add_argument("--kv-heads", type=positive_int, help="GQA/MQA key/value heads")
    modern.add_argument("--ffn-hidden", type=positive_int)
    modern.add_argument("--no-swiglu", action="store_true", help="two FFN matmuls instead of SwiGLU's three")
    modern.add_argument("--vocab", type=positive_int, help="vocabulary size (logits matmul)")
    modern.add_argument("--no-logits", action="store_true", help="leave the logits matmul out")
    modern.add_argument("--moe-experts", type=int, default=0)
    modern.add_argument("--moe-top-k", type=int, default=0)
    modern.add_argument("--moe-shared", type=int, default=0)
    modern.add_argument("--moe-ffn-hidden", type=positive_int)
    modern.add_argument("--moe-layers", type=nonneg_int)
    add_peak_args(model)
    model.add_argument("--json", action="store_true", help="print one JSON object")
    model.set_defaults(func=cmd_model)
