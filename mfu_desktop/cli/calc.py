"""``mfu calc``: MFU of one operator (gemm, linear, qk, fa) or bandwidth of a memory-bound one."""

from __future__ import annotations

import argparse
from pathlib import Path

from mfu_desktop.cli.common import (
    EXIT_OK,
    SUBPARSERS,
    Parser,
    UsageError,
    add_peak_args,
    catalog_from_args,
    emit,
    int_list,
    missing_exit,
    nonneg_int,
    positive_float,
    positive_int,
    resolve_peak,
    shape_arg,
    time_s,
)
from mfu_desktop.core.chips.catalog import UnknownChipError
from mfu_desktop.core.formulas.flops import BackwardCount, Layout, MaskConvention
from mfu_desktop.core.formulas.mfu import calc_attention_scores, calc_flash_attention, calc_gemm, calc_linear


def cmd_calc_gemm(args: argparse.Namespace) -> int:
    """``mfu calc gemm``."""
    peak = resolve_peak(args)
    result = calc_gemm(args.m, args.n, args.k, time_s(args), peak, batch=args.batch, calls=args.calls)
    if result.derivation.missing:
        return missing_exit(result.derivation.missing, "calc gemm")
    emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def cmd_calc_linear(args: argparse.Namespace) -> int:
    """``mfu calc linear``."""
    peak = resolve_peak(args)
    result = calc_linear(args.batch, args.seq, args.d_in, args.d_out, time_s(args), peak, calls=args.calls)
    if result.derivation.missing:
        return missing_exit(result.derivation.missing, "calc linear")
    emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def cmd_calc_qk(args: argparse.Namespace) -> int:
    """``mfu calc qk`` (attention QKᵀ)."""
    peak = resolve_peak(args)
    result = calc_attention_scores(args.batch, args.heads, args.len_q, args.len_k, args.head_dim, time_s(args), peak,
                                   calls=args.calls)
    if result.derivation.missing:
        return missing_exit(result.derivation.missing, "calc qk")
    emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def cmd_calc_fa(args: argparse.Namespace) -> int:
    """``mfu calc fa`` (FlashAttention forward/backward)."""
    peak = resolve_peak(args)
    if args.layout == "TND" and bool(args.actual_seq_qlen) != bool(args.actual_seq_kvlen):
        raise UsageError("argument --actual-seq-kvlen: give both --actual-seq-qlen and --actual-seq-kvlen")
    result = calc_flash_attention(
        args.layout, args.q_shape, args.k_shape, args.v_shape, time_s(args), peak,
        heads=args.heads, sparse_mode=args.sparse_mode, pre_tokens=args.pre_tokens, next_tokens=args.next_tokens,
        actual_seq_qlen=args.actual_seq_qlen, actual_seq_kvlen=args.actual_seq_kvlen,
        backward=args.backward, backward_count=args.backward_count, convention=args.convention, calls=args.calls,
    )
    if result.derivation.missing:
        return missing_exit(result.derivation.missing, "calc fa")
    emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def cmd_calc_memory(args: argparse.Namespace) -> int:
    """``mfu calc memory`` (a memory-bound operator: bytes, GB/s, bandwidth utilisation)."""
    from mfu_desktop.core.formulas.memory_bound import calc_memory_bound

    bw, source = args.bandwidth_gbs, "entered with --bandwidth-gbs"
    if args.chip and bw:
        raise UsageError("argument --bandwidth-gbs: not allowed with --chip (give one)")
    if args.chip:
        try:
            chip = catalog_from_args(args).find(args.chip)
        except UnknownChipError as exc:
            raise UsageError(f"argument --chip: {exc}") from None
        bw, source = chip.value("hbm_bandwidth_gbs"), f"{chip.identifier} HBM bandwidth (chip catalog)"
    result = calc_memory_bound(args.inputs, args.input_dtypes, args.outputs, args.output_dtypes, time_s(args), bw,
                               source, args.type)
    if result.derivation.missing:
        return missing_exit(result.derivation.missing, "calc memory")
    emit(args, result.to_json(), result.derivation.text())
    return EXIT_OK


def add_common_calc_args(p: argparse.ArgumentParser) -> None:
    """Time, calls, peak and ``--json``: what every ``calc`` kind takes."""
    p.add_argument("--time-us", type=positive_float, help="time per call in µs")
    p.add_argument("--calls", type=positive_int, default=1, help="calls per iteration (default 1)")
    add_peak_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``calc`` and its operator kinds on the ``mfu`` parser."""
    calc = sub.add_parser("calc", help="MFU of one operator")
    SUBPARSERS["calc"] = calc
    calc_sub = calc.add_subparsers(dest="kind", metavar="KIND", parser_class=Parser, title="operator kinds")
    _add_gemm(calc_sub)
    _add_linear(calc_sub)
    _add_qk(calc_sub)
    _add_fa(calc_sub)
    _add_memory(calc_sub)


def _add_gemm(calc_sub: argparse._SubParsersAction) -> None:
    """``mfu calc gemm``: M, N, K and the batch count."""
    gemm = calc_sub.add_parser("gemm", help="GEMM / batched matmul: 2·B·M·N·K")
    gemm.add_argument("--m", type=positive_int, help="M (rows of A and of the output)")
    gemm.add_argument("--n", type=positive_int, help="N (columns of B and of the output)")
    gemm.add_argument("--k", type=positive_int, help="K (contracted dimension)")
    gemm.add_argument("--batch", type=positive_int, default=1, help="batch count B (default 1)")
    add_common_calc_args(gemm)
    gemm.set_defaults(func=cmd_calc_gemm)


def _add_linear(calc_sub: argparse._SubParsersAction) -> None:
    """``mfu calc linear``: batch, sequence length and the layer's input and output widths."""
    linear = calc_sub.add_parser("linear", help="linear layer (B,L,D_in)·(D_in,D_out)")
    linear.add_argument("--batch", type=positive_int, required=True)
    linear.add_argument("--seq", type=positive_int, required=True)
    linear.add_argument("--d-in", type=positive_int, required=True)
    linear.add_argument("--d-out", type=positive_int, required=True)
    add_common_calc_args(linear)
    linear.set_defaults(func=cmd_calc_linear)


def _add_qk(calc_sub: argparse._SubParsersAction) -> None:
    """``mfu calc qk``: batch, heads, query and key lengths and the head dimension."""
    qk = calc_sub.add_parser("qk", help="attention QKᵀ, Q=(B,H,Lq,Dh), K=(B,H,Lk,Dh)")
    qk.add_argument("--batch", type=positive_int, required=True)
    qk.add_argument("--heads", type=positive_int, required=True)
    qk.add_argument("--len-q", type=positive_int, required=True)
    qk.add_argument("--len-k", type=positive_int, required=True)
    qk.add_argument("--head-dim", type=positive_int, required=True)
    add_common_calc_args(qk)
    qk.set_defaults(func=cmd_calc_qk)


def _add_fa(calc_sub: argparse._SubParsersAction) -> None:
    """``mfu calc fa``: layout, shapes, mask, varlen lengths and the backward conventions."""
    fa = calc_sub.add_parser("fa", help="FlashAttention forward/backward (all layouts, masks, varlen)")
    fa.add_argument("--layout", type=str.upper, choices=[x.value for x in Layout], help="input_layout")
    fa.add_argument("--q-shape", type=shape_arg, help="query shape, e.g. 2,4096,32,128")
    fa.add_argument("--k-shape", type=shape_arg, help="key shape")
    fa.add_argument("--v-shape", type=shape_arg, help="value shape (default: as key)")
    fa.add_argument("--heads", type=positive_int, help="query heads (splits BSH/SBH hidden sizes)")
    fa.add_argument("--sparse-mode", type=int, choices=range(0, 9), default=0, metavar="0..8",
                    help="sparse_mode (0 full, 2 leftUpCausal, 3 rightDownCausal, 4 band)")
    fa.add_argument("--pre-tokens", type=nonneg_int)
    fa.add_argument("--next-tokens", type=nonneg_int)
    fa.add_argument("--actual-seq-qlen", type=int_list, help="cumulative query lengths (TND)")
    fa.add_argument("--actual-seq-kvlen", type=int_list, help="cumulative key/value lengths (TND)")
    fa.add_argument("--backward", action="store_true", help="FlashAttentionScoreGrad")
    fa.add_argument("--backward-count", choices=[b.value for b in BackwardCount], default="model",
                    help="backward FLOPs: model (2× forward, default) or executed (2.5×, HFU view)")
    fa.add_argument("--convention", choices=[c.value for c in MaskConvention], default="exact",
                    help="mask geometry: exact (default) or the seed's continuous approximation")
    add_common_calc_args(fa)
    fa.set_defaults(func=cmd_calc_fa)


def _add_memory(calc_sub: argparse._SubParsersAction) -> None:
    """``mfu calc memory``: shapes, dtypes, operator type, time and the bandwidth (a chip or GB/s)."""
    memory = calc_sub.add_parser("memory", help="memory-bound operator: minimum bytes, GB/s, bandwidth utilisation")
    memory.add_argument("--inputs", required=True, help='input shapes as the profiler writes them: "4096,4096;4096"')
    memory.add_argument("--input-dtypes", required=True, help='one per input: "bf16;bf16" (or DT_BF16, FLOAT …)')
    memory.add_argument("--outputs", help="output shapes (default: as large as the largest input)")
    memory.add_argument("--output-dtypes", help="one per output (default: the first input's)")
    memory.add_argument("--type", help="operator type (ZerosLike, GatherV2 … change what is read)")
    memory.add_argument("--time-us", type=positive_float, help="time per call in µs")
    memory.add_argument("--chip", help="chip whose HBM bandwidth to use (see `mfu chips`)")
    memory.add_argument("--bandwidth-gbs", type=positive_float, help="HBM bandwidth in GB/s (instead of --chip)")
    memory.add_argument("--catalog", type=Path, action="append", default=[], help="extra catalog CSV")
    memory.add_argument("--json", action="store_true", help="print one JSON object")
    memory.set_defaults(func=cmd_calc_memory)
