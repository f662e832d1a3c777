"""The ``mfu`` command line: the same engine calls as the desktop app, headless.

Subcommands: ``calc`` (gemm, linear, qk, fa), ``model``, ``chips``, ``analyze``, ``predict``.
Human-readable output by default (the derivation, in the seed's answer structure);
``--json`` prints one JSON object. Bad arguments exit 2 with one line naming the argument;
missing inputs are listed with where to find them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from mfu_desktop import __version__
from mfu_desktop.core.chips.catalog import CatalogError, ChipCatalog, Peak, UnknownChipError
from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.formulas.flops import BackwardCount, FlopError, Layout, MaskConvention
from mfu_desktop.core.formulas.mfu import WHERE, calc_attention_scores, calc_flash_attention, calc_gemm, calc_linear
from mfu_desktop.core.formulas.model import (
    Conventions,
    ModernArchitecture,
    inverse_derivation,
    model_mfu,
    palm_remat_flops_per_token,
    tokens_per_second,
)
from mfu_desktop.core.formulas.shapes import ShapeError, parse_dims
from mfu_desktop.core.numbers import short
from mfu_desktop.core.report.json_contract import stamped

EXIT_OK = 0
EXIT_NOTHING = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A bad or missing argument; printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``mfu calc gemm: error: argument --m: ...``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive integer")
    return value


def _nonneg_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def _positive_float(text: str) -> float:
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def _nonneg_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be zero or positive")
    return value


def _shape(text: str) -> tuple[int, ...]:
    try:
        return parse_dims(text)
    except ShapeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _int_list(text: str) -> list[int]:
    try:
        values = [int(p) for p in text.replace(" ", "").split(",") if p]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r} must list non-negative integers")
    return values


DTYPE_CHOICES = [d.value for d in ComputeDtype]


def _add_peak_args(p: argparse.ArgumentParser, dtype_default: str | None = "bf16") -> None:
    group = p.add_argument_group("peak (one of --chip or --peak-tflops)")
    group.add_argument("--chip", help="chip name from the catalog (910B2, 'Ascend 910B2', H100 SXM; NAME@ALTERNATIVE)")
    group.add_argument("--dtype", choices=DTYPE_CHOICES, default=dtype_default,
                       help="compute dtype selecting the peak column (default: %(default)s)")
    group.add_argument("--peak-tflops", type=_positive_float, help="peak TFLOP/s entered directly")
    group.add_argument("--catalog", type=Path, action="append", default=[],
                       help="extra chip catalog CSV (devices_info.csv layouts); may repeat")


def _catalog(args: argparse.Namespace) -> ChipCatalog:
    catalog = ChipCatalog.load(extra_files=list(getattr(args, "catalog", []) or []))
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return catalog


def _resolve_peak(args: argparse.Namespace, required: bool = True) -> Peak | None:
    if args.chip and args.peak_tflops:
        raise UsageError("argument --peak-tflops: not allowed with --chip (give one)")
    dtype = ComputeDtype(args.dtype or "bf16")
    if args.peak_tflops:
        return Peak(args.peak_tflops, dtype, source="entered with --peak-tflops")
    if args.chip:
        catalog = _catalog(args)
        try:
            return catalog.peak(args.chip, dtype)
        except UnknownChipError as exc:
            raise UsageError(f"argument --chip: {exc}") from None
        except CatalogError as exc:
            raise UsageError(f"argument --dtype: {exc}") from None
    if required:
        return None
    return None


def _emit(args: argparse.Namespace, payload: dict[str, object], text: str) -> None:
    if args.json:
        print(json.dumps(stamped(payload), ensure_ascii=False, indent=None, default=_json_default))
    else:
        print(text)


def _json_default(value: object) -> object:
    if hasattr(value, "item"):
        return value.item()  # numpy scalars
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


#: The option that supplies each input the engine may ask for.
INPUT_OPTIONS = {"M": "--m", "N": "--n", "K": "--k", "time": "--time-us", "peak": "--chip or --peak-tflops",
                 "layout": "--layout", "Q/K shapes": "--q-shape and --k-shape", "sparse_mode": "--sparse-mode",
                 "actual_seq_qlen / actual_seq_kvlen": "--actual-seq-qlen and --actual-seq-kvlen"}


def _missing_exit(result_missing: list, command: str) -> int:
    """One ``error:`` line per missing input: its option and where to find the value."""
    for m in result_missing:
        option = INPUT_OPTIONS.get(m.name)
        named = f"{m.name} ({option})" if option else m.name
        print(f"mfu {command}: error: missing {named}: {m.where}", file=sys.stderr)
    return EXIT_USAGE


def _time_s(args: argparse.Namespace) -> float | None:
    return None if args.time_us is None else args.time_us * 1e-6


# --- calc ---------------------------------------------------------------------------------


def cmd_calc_gemm(args: argparse.Namespace) -> int:
    """``mfu calc gemm``."""
    peak = _resolve_peak(args)
    result = calc_gemm(args.m, args.n, args.k, _time_s(args), peak, batch=args.batch, calls=args.calls)
    if result.derivation.missing:
        return _missing_exit(result.derivation.missing, "calc gemm")
    _emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def cmd_calc_linear(args: argparse.Namespace) -> int:
    """``mfu calc linear``."""
    peak = _resolve_peak(args)
    result = calc_linear(args.batch, args.seq, args.d_in, args.d_out, _time_s(args), peak, calls=args.calls)
    if result.derivation.missing:
        return _missing_exit(result.derivation.missing, "calc linear")
    _emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def cmd_calc_qk(args: argparse.Namespace) -> int:
    """``mfu calc qk`` (attention QKᵀ)."""
    peak = _resolve_peak(args)
    result = calc_attention_scores(args.batch, args.heads, args.len_q, args.len_k, args.head_dim, _time_s(args), peak,
                                   calls=args.calls)
    if result.derivation.missing:
        return _missing_exit(result.derivation.missing, "calc qk")
    _emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def cmd_calc_fa(args: argparse.Namespace) -> int:
    """``mfu calc fa`` (FlashAttention forward/backward)."""
    peak = _resolve_peak(args)
    if args.layout == "TND" and bool(args.actual_seq_qlen) != bool(args.actual_seq_kvlen):
        raise UsageError("argument --actual-seq-kvlen: give both --actual-seq-qlen and --actual-seq-kvlen")
    result = calc_flash_attention(
        args.layout, args.q_shape, args.k_shape, args.v_shape, _time_s(args), peak,
        heads=args.heads, sparse_mode=args.sparse_mode, pre_tokens=args.pre_tokens, next_tokens=args.next_tokens,
        actual_seq_qlen=args.actual_seq_qlen, actual_seq_kvlen=args.actual_seq_kvlen,
        backward=args.backward, backward_count=args.backward_count, convention=args.convention, calls=args.calls,
    )
    if result.derivation.missing:
        return _missing_exit(result.derivation.missing, "calc fa")
    _emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def cmd_calc_memory(args: argparse.Namespace) -> int:
    """``mfu calc memory`` (a memory-bound operator: bytes, GB/s, bandwidth utilisation)."""
    from mfu_desktop.core.formulas.memory_bound import calc_memory_bound

    bw, source = args.bandwidth_gbs, "entered with --bandwidth-gbs"
    if args.chip and bw:
        raise UsageError("argument --bandwidth-gbs: not allowed with --chip (give one)")
    if args.chip:
        try:
            chip = _catalog(args).find(args.chip)
        except UnknownChipError as exc:
            raise UsageError(f"argument --chip: {exc}") from None
        bw, source = chip.value("hbm_bandwidth_gbs"), f"{chip.identifier} HBM bandwidth (chip catalog)"
    result = calc_memory_bound(args.inputs, args.input_dtypes, args.outputs, args.output_dtypes, _time_s(args), bw,
                               source, args.type)
    if result.derivation.missing:
        return _missing_exit(result.derivation.missing, "calc memory")
    _emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


# --- model --------------------------------------------------------------------------------


def cmd_model(args: argparse.Namespace) -> int:
    """``mfu model``: PaLM MFU/HFU, the modern option, and the inverse solve."""
    conventions = Conventions(causal_halved=args.causal_halved)
    param_lines: list[str] = []
    if args.params is None and args.d_model is None:
        raise UsageError("argument --params: required (or describe the architecture with --d-model ...)")
    if args.params is not None and args.d_model is not None:
        raise UsageError("argument --d-model: not allowed with --params (give one)")
    if args.params is not None:
        params = args.params
    else:
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
    peak = _resolve_peak(args)
    if peak is None:
        raise UsageError("argument --chip: required (or --peak-tflops)")
    if args.target_mfu is not None:
        from mfu_desktop.core.formulas.model import flops_per_token

        fpt = flops_per_token(params, args.layers, args.heads, args.head_dim, args.seq, conventions)
        tokens, step, derivation = inverse_derivation(
            args.target_mfu, fpt, peak.tflops, args.chips, args.global_batch, args.seq, conventions
        )
        derivation.steps[0:0] = param_lines
        payload = {"target_mfu": args.target_mfu, "flops_per_token": fpt, "tokens_per_s": tokens,
                   "step_time_s": step, "derivation": derivation.lines(), "conventions": derivation.conventions}
        _emit(args, payload, derivation.text())
        return EXIT_OK
    tokens = tokens_per_second(args.tokens_per_s, args.global_batch, args.seq, args.step_time_s)
    remat = args.remat_flops_per_token
    if remat is None and (args.remat_fraction is not None or args.remat_attention):
        remat = palm_remat_flops_per_token(params, args.layers, args.heads, args.head_dim, args.seq,
                                           args.remat_fraction or 0.0, args.remat_attention, conventions)
        param_lines.append(
            f"rematerialisation per token = {args.remat_fraction or 0:g} × 2N"
            + (" + attention forward (1/3 of the attention term)" if args.remat_attention else "")
            + f" = {short(remat, 4)}"
        )
    result = model_mfu(params, args.layers, args.heads, args.head_dim, args.seq, tokens, peak.tflops, args.chips,
                       remat, conventions, param_lines, peak.source)
    _emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


# --- chips --------------------------------------------------------------------------------


def cmd_chips(args: argparse.Namespace) -> int:
    """``mfu chips``: the catalog with source per value."""
    catalog = _catalog(args)
    chips = catalog.chips
    if args.name:
        try:
            chips = [catalog.find(args.name)]
        except UnknownChipError as exc:
            raise UsageError(f"argument NAME: {exc}") from None
    from mfu_desktop.core.chips.catalog import ACHIEVABLE_COLUMNS, COLUMN_LABELS, NUMERIC_COLUMNS

    if args.json:
        out = []
        for chip in chips:
            out.append({
                "identifier": chip.identifier,
                "vendor": chip.vendor,
                "model": chip.model,
                "architecture": chip.architecture,
                "values": {
                    col: {"value": chip.value(col), "source": chip.value_source(col),
                          "confidence": None if col in ACHIEVABLE_COLUMNS else chip.confidence}
                    for col in NUMERIC_COLUMNS
                },
                "aliases": list(chip.aliases),
                "alternatives": chip.alternatives,
                "notes": chip.notes,
                "origin": chip.origin,
            })
        print(json.dumps(stamped({"chips": out, "problems": catalog.problems}), ensure_ascii=False))
        return EXIT_OK
    if args.name:
        chip = chips[0]
        print(f"{chip.identifier}  ({chip.architecture}, {chip.origin})")
        for col in NUMERIC_COLUMNS:
            print(f"  {COLUMN_LABELS.get(col, col):<32} {chip.describe_value(col)}")
        if chip.aliases:
            print(f"  aliases: {', '.join(chip.aliases)}")
        for name, values in chip.alternatives.items():
            print(f"  alternative '{name}': " + ", ".join(f"{k}={v:g}" for k, v in values.items()))
        print(f"  notes: {chip.notes}")
        _print_legend([chip])
        return EXIT_OK
    header = (f"{'chip':<48} {'FP16':>8} {'BF16':>8} {'FP32':>7} {'HBM':>7} {'link':>6}  sources · confidence\n"
              f"{'':<48} {'TFLOP/s':>8} {'TFLOP/s':>8} {'TFLOP/s':>7} {'GB/s':>7} {'GB/s':>6}")
    print(header)
    print("-" * 112)
    for chip in chips:
        def fmt(col: str, width: int, c=chip) -> str:
            v = c.value(col)
            return f"{'–' if v is None else f'{v:g}':>{width}}"
        print(f"{chip.identifier[:48]:<48} {fmt('cube_fp16_tflops', 8)} {fmt('cube_bf16_tflops', 8)} "
              f"{fmt('cube_fp32_tflops', 7)} {fmt('hbm_bandwidth_gbs', 7)} {fmt('interconnect_bandwidth', 6)}  "
              f"{chip.source} · {chip.confidence}")
    _print_legend(chips)
    print(f"\n{len(chips)} chips; '–' = not published. Details: mfu chips NAME. Add a chip: README, section "
          f"'{README_CHIP_SECTION}'.")
    return EXIT_OK


#: The README section on the catalog (the footer of ``mfu chips`` names it; a test keeps them in step).
README_CHIP_SECTION = "The chip catalog and how to add a chip"


def _print_legend(chips: list) -> None:
    """What the source codes and confidence letters of ``chips`` stand for."""
    import re

    from mfu_desktop.core.chips.catalog import CONFIDENCE_LEGEND, SOURCE_LEGEND

    codes = sorted({c for chip in chips for c in re.split(r"[;,\s]+", chip.source) if c})
    print("\nsources:")
    for code in codes:
        print(f"  {code:<6} {SOURCE_LEGEND.get(code, 'see shared/spec/chips.md, section g')}")
    letters = sorted({chip.confidence for chip in chips if chip.confidence})
    print("confidence:")
    for letter in letters:
        print(f"  {letter:<6} {CONFIDENCE_LEGEND.get(letter, '')}")


# --- parser -------------------------------------------------------------------------------

#: Parsers of commands that have sub-commands (their help is printed when the sub-command is missing).
_SUBPARSERS: dict[str, argparse.ArgumentParser] = {}


def build_parser() -> argparse.ArgumentParser:
    """Build the ``mfu`` argument parser."""
    parser = _Parser(prog="mfu", description="MFU Desktop command line: MFU calculator, profiler analysis, "
                     "cross-chip prediction.")
    parser.add_argument("--version", action="version", version=f"mfu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                title="commands (mfu COMMAND --help for each)")

    calc = sub.add_parser("calc", help="MFU of one operator")
    _SUBPARSERS["calc"] = calc
    calc_sub = calc.add_subparsers(dest="kind", metavar="KIND", parser_class=_Parser, title="operator kinds")

    gemm = calc_sub.add_parser("gemm", help="GEMM / batched matmul: 2·B·M·N·K")
    gemm.add_argument("--m", type=_positive_int, help="M (rows of A and of the output)")
    gemm.add_argument("--n", type=_positive_int, help="N (columns of B and of the output)")
    gemm.add_argument("--k", type=_positive_int, help="K (contracted dimension)")
    gemm.add_argument("--batch", type=_positive_int, default=1, help="batch count B (default 1)")
    _add_common_calc(gemm)
    gemm.set_defaults(func=cmd_calc_gemm)

    linear = calc_sub.add_parser("linear", help="linear layer (B,L,D_in)·(D_in,D_out)")
    linear.add_argument("--batch", type=_positive_int, required=True)
    linear.add_argument("--seq", type=_positive_int, required=True)
    linear.add_argument("--d-in", type=_positive_int, required=True)
    linear.add_argument("--d-out", type=_positive_int, required=True)
    _add_common_calc(linear)
    linear.set_defaults(func=cmd_calc_linear)

    qk = calc_sub.add_parser("qk", help="attention QKᵀ, Q=(B,H,Lq,Dh), K=(B,H,Lk,Dh)")
    qk.add_argument("--batch", type=_positive_int, required=True)
    qk.add_argument("--heads", type=_positive_int, required=True)
    qk.add_argument("--len-q", type=_positive_int, required=True)
    qk.add_argument("--len-k", type=_positive_int, required=True)
    qk.add_argument("--head-dim", type=_positive_int, required=True)
    _add_common_calc(qk)
    qk.set_defaults(func=cmd_calc_qk)

    fa = calc_sub.add_parser("fa", help="FlashAttention forward/backward (all layouts, masks, varlen)")
    fa.add_argument("--layout", type=str.upper, choices=[x.value for x in Layout], help="input_layout")
    fa.add_argument("--q-shape", type=_shape, help="query shape, e.g. 2,4096,32,128")
    fa.add_argument("--k-shape", type=_shape, help="key shape")
    fa.add_argument("--v-shape", type=_shape, help="value shape (default: as key)")
    fa.add_argument("--heads", type=_positive_int, help="query heads (splits BSH/SBH hidden sizes)")
    fa.add_argument("--sparse-mode", type=int, choices=range(0, 9), default=0, metavar="0..8",
                    help="sparse_mode (0 full, 2 leftUpCausal, 3 rightDownCausal, 4 band)")
    fa.add_argument("--pre-tokens", type=_nonneg_int)
    fa.add_argument("--next-tokens", type=_nonneg_int)
    fa.add_argument("--actual-seq-qlen", type=_int_list, help="cumulative query lengths (TND)")
    fa.add_argument("--actual-seq-kvlen", type=_int_list, help="cumulative key/value lengths (TND)")
    fa.add_argument("--backward", action="store_true", help="FlashAttentionScoreGrad")
    fa.add_argument("--backward-count", choices=[b.value for b in BackwardCount], default="model",
                    help="backward FLOPs: model (2× forward, default) or executed (2.5×, HFU view)")
    fa.add_argument("--convention", choices=[c.value for c in MaskConvention], default="exact",
                    help="mask geometry: exact (default) or the seed's continuous approximation")
    _add_common_calc(fa)
    fa.set_defaults(func=cmd_calc_fa)

    memory = calc_sub.add_parser("memory", help="memory-bound operator: minimum bytes, GB/s, bandwidth utilisation")
    memory.add_argument("--inputs", required=True, help='input shapes as the profiler writes them: "4096,4096;4096"')
    memory.add_argument("--input-dtypes", required=True, help='one per input: "bf16;bf16" (or DT_BF16, FLOAT …)')
    memory.add_argument("--outputs", help="output shapes (default: as large as the largest input)")
    memory.add_argument("--output-dtypes", help="one per output (default: the first input's)")
    memory.add_argument("--type", help="operator type (ZerosLike, GatherV2 … change what is read)")
    memory.add_argument("--time-us", type=_positive_float, help="time per call in µs")
    memory.add_argument("--chip", help="chip whose HBM bandwidth to use (see `mfu chips`)")
    memory.add_argument("--bandwidth-gbs", type=_positive_float, help="HBM bandwidth in GB/s (instead of --chip)")
    memory.add_argument("--catalog", type=Path, action="append", default=[], help="extra catalog CSV")
    memory.add_argument("--json", action="store_true", help="print one JSON object")
    memory.set_defaults(func=cmd_calc_memory)

    model = sub.add_parser("model", help="whole-model MFU/HFU (PaLM 6N + 12LHQT) and the inverse solve")
    model.add_argument("--params", type=_positive_float, help="N, parameters in 6N (active params for MoE)")
    model.add_argument("--layers", type=_positive_int, required=True, help="L")
    model.add_argument("--heads", type=_positive_int, required=True, help="H (query heads)")
    model.add_argument("--head-dim", type=_positive_int, required=True, help="Q")
    model.add_argument("--seq", type=_positive_int, required=True, help="T, training sequence length")
    model.add_argument("--tokens-per-s", type=_positive_float, help="observed tokens/s (whole job)")
    model.add_argument("--global-batch", type=_positive_float, help="sequences per optimizer step")
    model.add_argument("--step-time-s", type=_positive_float, help="seconds per optimizer step")
    model.add_argument("--chips", type=_positive_int, required=True, help="number of accelerators")
    model.add_argument("--remat-flops-per-token", type=_nonneg_float, help="recomputation FLOPs per token (HFU)")
    model.add_argument("--remat-fraction", type=_nonneg_float,
                       help="fraction of the non-attention forward recomputed (PaLM 540B: 0.75)")
    model.add_argument("--remat-attention", action="store_true", help="attention forward recomputed (HFU)")
    model.add_argument("--causal-halved", action="store_true",
                       help="halve the attention term for causal masks (Megatron convention; PaLM: off)")
    model.add_argument("--target-mfu", type=_positive_float, help="inverse solve: MFU (fraction) → tokens/s, step time")
    modern = model.add_argument_group("modern architecture (instead of --params)")
    modern.add_argument("--d-model", type=_positive_int)
    modern.add_argument("--kv-heads", type=_positive_int, help="GQA/MQA key/value heads")
    modern.add_argument("--ffn-hidden", type=_positive_int)
    modern.add_argument("--no-swiglu", action="store_true", help="two FFN matmuls instead of SwiGLU's three")
    modern.add_argument("--vocab", type=_positive_int, help="vocabulary size (logits matmul)")
    modern.add_argument("--no-logits", action="store_true", help="leave the logits matmul out")
    modern.add_argument("--moe-experts", type=int, default=0)
    modern.add_argument("--moe-top-k", type=int, default=0)
    modern.add_argument("--moe-shared", type=int, default=0)
    modern.add_argument("--moe-ffn-hidden", type=_positive_int)
    modern.add_argument("--moe-layers", type=_nonneg_int)
    _add_peak_args(model)
    model.add_argument("--json", action="store_true", help="print one JSON object")
    model.set_defaults(func=cmd_model)

    chips = sub.add_parser("chips", help="the chip catalog with sources")
    chips.add_argument("name", nargs="?", help="show one chip in detail")
    chips.add_argument("--catalog", type=Path, action="append", default=[], help="extra catalog CSV")
    chips.add_argument("--json", action="store_true", help="print one JSON object")
    chips.set_defaults(func=cmd_chips)

    _add_profile_commands(sub)
    return parser


def _add_common_calc(p: argparse.ArgumentParser) -> None:
    p.add_argument("--time-us", type=_positive_float, help="time per call in µs")
    p.add_argument("--calls", type=_positive_int, default=1, help="calls per iteration (default 1)")
    _add_peak_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _add_profile_commands(sub: argparse._SubParsersAction) -> None:
    """``analyze`` and ``predict`` (profiler folders)."""
    from mfu_desktop.cli_profile import add_profile_commands

    add_profile_commands(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``mfu`` command; return the exit code.

    ``mfu`` or ``mfu calc`` alone prints the usage with the list of commands (exit 0).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        helper = parser if getattr(args, "command", None) is None else _SUBPARSERS[args.command]
        helper.print_help()
        return EXIT_OK
    try:
        return int(args.func(args))
    except UsageError as exc:
        prog = "mfu " + " ".join(x for x in (getattr(args, "command", ""), getattr(args, "kind", "")) if x)
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (FlopError, ShapeError) as exc:
        prog = "mfu " + " ".join(x for x in (getattr(args, "command", ""), getattr(args, "kind", "")) if x)
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - `mfu ... | head`
        return EXIT_OK


def run() -> NoReturn:
    """The ``mfu`` console script: :func:`main`, then exit without the interpreter's teardown.

    Tearing down pandas/pyarrow after a million-row analysis costs 0.1–0.15 s and does nothing
    useful: output is flushed, files are closed, nothing runs at exit. Tests call :func:`main`.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # pragma: no cover - `mfu ... | head`
        pass
    os._exit(code)


__all__ = ["WHERE", "build_parser", "main", "run"]
