"""Write a realistic synthetic Ascend profile: ``python -m mfu_desktop.demo OUT [--ranks 8] [--kernels N]``.

An 8-rank Llama-style training step (GQA attention, SwiGLU MLP, one MoE layer) captured
at Level1 with aic_metrics PipeUtilization on a 910B2-class chip (24 AI cores at 1800 MHz):
MatMulV2/V3 in every transpose layout, BatchMatMul, GroupedMatmul, FlashAttentionScore/Grad
(BSND causal and TND varlen), MIX and vector kernels, AI_CPU, DSA, HCCL collectives, a fused
MatmulAllReduce, one FP32 matmul and one row with inconsistent shapes (as in real data).
Hardware counters satisfy the identities of profiler-formats.md §3.7, so the chip is
detected from them. Rank 5 runs 8 % slower. A step trace, a communication matrix (current
aggregated layout) and ``info.json`` are written too.

The same template scales to millions of rows for benchmarks (``--kernels 1000000 --ranks 1``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

from mfu_desktop.demo_memory import write_memory

#: The simulated chip: Ascend 910B2 (24 AI cores × 1800 MHz → 353.9 TFLOP/s BF16).
AI_CORES = 24
CLOCK_MHZ = 1800
PEAK_TFLOPS = AI_CORES * CLOCK_MHZ * 8192 / 1e6
FP32_PEAK_TFLOPS = PEAK_TFLOPS / 4
#: Its HBM bandwidth (GB/s, the catalog's): a vector kernel's time is its bytes at a fraction of it.
HBM_GBS = 1600.0
#: Wall-clock origin of the capture (µs since epoch).
T0_US = 1_767_225_600_000_000
SLOW_RANK = 5
SLOW_FACTOR = 1.08

HEADER = (
    "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
    "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,"
    "Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,"
    "aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,"
    "aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),"
    "aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),"
    "aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)"
).split(",")


@dataclass
class Kernel:
    """One template kernel."""

    name: str
    type: str
    core: str
    duration_us: float
    block: int = AI_CORES
    mix_block: int = 0
    inputs: str = "N/A"
    in_types: str = "N/A"
    outputs: str = "N/A"
    out_types: str = "N/A"
    mac_ratio: float = 0.0
    m: int = 0  # matmul dimensions (0 for other kernels): what the shape-variety mode rewrites
    n: int = 0
    k: int = 0


def _mm(name: str, kind: str, a: str, b: str, out: str, m: int, n: int, k: int, mfu: float,
        dtype: str = "DT_BF16", batch: int = 1) -> Kernel:
    peak = FP32_PEAK_TFLOPS if dtype == "FLOAT" else PEAK_TFLOPS
    flops = 2 * batch * m * n * k
    dur = flops / (mfu * peak * 1e6)
    return Kernel(name, kind, "AI_CORE", round(dur, 3), AI_CORES, 0, f"{a};{b}", f"{dtype};{dtype}", out, dtype,
                  mac_ratio=min(0.95, mfu * 1.12), m=m if batch == 1 else 0, n=n, k=k)


def _vec(name: str, kind: str, shape: str, bw_util: float, core: str = "AI_VECTOR_CORE", block: int = 48,
         inputs: str | None = None, in_types: str | None = None, outputs: str | None = None,
         out_types: str | None = None) -> Kernel:
    """A memory-bound kernel whose time is its minimum bytes moved at ``bw_util`` of the HBM bandwidth.

    By default an element-wise kernel: two ``shape`` inputs, one ``shape`` output, BF16.
    """
    from mfu_desktop.core.formulas.bytes import min_bytes

    inputs = inputs or f"{shape};{shape}"
    in_types = in_types or ";".join(["DT_BF16"] * len(inputs.split(";")))
    outputs = outputs or shape
    out_types = out_types or ";".join(["DT_BF16"] * len(outputs.split(";")))
    nbytes = min_bytes(f'"{inputs}"', f'"{outputs}"', in_types, out_types).bytes or 0
    dur = round(nbytes / (bw_util * HBM_GBS * 1e3), 3)
    return Kernel(name, kind, core, dur, block, 0, inputs, in_types, outputs, out_types)


def template(layers: int = 4, tokens: int = 4096, hidden: int = 4096, heads: int = 32, kv_heads: int = 8,
             head_dim: int = 128, ffn: int = 11008) -> list[Kernel]:
    """One training step (forward + backward + optimizer) as a kernel list."""
    t, h, f = tokens, hidden, ffn
    qkv = (heads + 2 * kv_heads) * head_dim
    fa_in = (f"1,{t},{heads},{head_dim};1,{t},{kv_heads},{head_dim};1,{t},{kv_heads},{head_dim};;;;2048,2048;;;;;")
    fa_types = "DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL;INT64;INT64;INT64;INT64;INT64"
    fa_out = f"1,{heads},{t},8;1,{heads},{t},8;;1,{t},{heads},{head_dim}"
    causal_flops = 2 * heads * (t * (t + 1) // 2) * 2 * head_dim
    fa_fwd_us = round(causal_flops / (0.52 * PEAK_TFLOPS * 1e6), 3)
    fa_bwd_us = round(2 * causal_flops / (0.41 * PEAK_TFLOPS * 1e6), 3)
    grad_in = (f"1,{t},{heads},{head_dim};1,{t},{kv_heads},{head_dim};1,{t},{kv_heads},{head_dim};"
               f"1,{t},{heads},{head_dim};2048,2048;1,{heads},{t},8;1,{heads},{t},8;;1,{t},{heads},{head_dim};")
    grad_types = "DT_BF16;DT_BF16;DT_BF16;DT_BF16;BOOL;FLOAT;FLOAT;DT_BF16;DT_BF16;INT64"
    grad_out = f"1,{t},{heads},{head_dim};1,{t},{kv_heads},{head_dim};1,{t},{kv_heads},{head_dim};"
    out: list[Kernel] = [
        _vec("aclnnEmbedding_GatherV2", "GatherV2", "", 0.35, inputs=f"{t},{h};{t}", in_types="DT_BF16;INT64",
             outputs=f"{t},{h}"),  # the rows read, not the whole table
    ]
    for layer in range(layers):
        varlen = layer == layers - 1  # the last layer packs sequences (TND)
        out += [
            _vec(f"aclnnRmsNorm_RmsNorm_{layer}", "RmsNorm", "", 0.62, inputs=f"{t},{h};{h}",
                 outputs=f"{t},{h};{t},1", out_types="DT_BF16;FLOAT"),
            _mm(f"aclnnMatmul_MatMulCommon_MatMulV2_{layer}_qkv", "MatMulV2", f"{t},{h}", f"{qkv},{h}",
                f"{t},{qkv}", t, qkv, h, 0.71),
            _vec(f"aclnnRotaryPosEmb_{layer}", "RotaryPositionEmbedding", f"1,{t},{heads},{head_dim}", 0.55,
                 inputs=f"1,{t},{heads},{head_dim};1,{t},1,{head_dim};1,{t},1,{head_dim}"),
        ]
        if varlen:
            out.append(Kernel(f"aclnnFlashAttentionScore_varlen_{layer}", "FlashAttentionScore", "MIX_AIC",
                              fa_fwd_us * 0.8, AI_CORES, 2 * AI_CORES,
                              f"{t},{heads},{head_dim};{t},{kv_heads},{head_dim};{t},{kv_heads},{head_dim};;;;2048,2048;;"
                              f"8;8;;", fa_types, f"{t},{heads},8;{t},{heads},8;;{t},{heads},{head_dim}",
                              "FLOAT;FLOAT;DT_BF16;DT_BF16", 0.55))
        else:
            out.append(Kernel(f"aclnnFlashAttentionScore_FlashAttentionScore_{layer}", "FlashAttentionScore",
                              "MIX_AIC", fa_fwd_us, AI_CORES, 2 * AI_CORES, fa_in, fa_types, fa_out,
                              "FLOAT;FLOAT;DT_BF16;DT_BF16", 0.6))
        out += [
            _mm(f"aclnnMatmul_MatMulV3Common_MatMulV3_{layer}_o", "MatMulV3", f"{t},{heads * head_dim}", f"{h},{h}",
                f"{t},{h}", t, h, heads * head_dim, 0.66),
            _vec(f"aclnnAdd_AddAiCore_Add_{layer}", "Add", f"{t},{h}", 0.82),
            _vec(f"aclnnRmsNorm_RmsNorm_{layer}_2", "RmsNorm", "", 0.63, inputs=f"{t},{h};{h}",
                 outputs=f"{t},{h};{t},1", out_types="DT_BF16;FLOAT"),
        ]
        if layer == 1:  # one MoE layer: 8 experts, top-2
            out += [
                _mm(f"aclnnMatmul_router_{layer}", "MatMulV2", f"{t},{h}", f"8,{h}", f"{t},8", t, 8, h, 0.02,
                    dtype="FLOAT"),
                Kernel(f"aclnnMoeInitRouting_{layer}", "MoeInitRouting", "AI_CPU", 95.0, 1, 0, f"{t},{h};{t},2",
                       "DT_BF16;INT32", f"{2 * t},{h}", "DT_BF16"),
                Kernel(f"aclnnGroupedMatmul_GroupedMatmul_{layer}", "GroupedMatmul", "AI_CORE",
                       round(2 * 2 * t * h * 2 * 1408 / (0.44 * PEAK_TFLOPS * 1e6), 3), AI_CORES, 0,
                       f"{2 * t},{h};8,{h},{2 * 1408};8", "DT_BF16;DT_BF16;INT64", f"{2 * t},{2 * 1408}", "DT_BF16",
                       0.5),
                _vec(f"aclnnSwiGlu_{layer}", "SwiGlu", "", 0.58, inputs=f"{2 * t},{2 * 1408}",
                     outputs=f"{2 * t},1408"),
                Kernel(f"aclnnGroupedMatmul_GroupedMatmul_{layer}_down", "GroupedMatmul", "AI_CORE",
                       round(2 * 2 * t * 1408 * h / (0.42 * PEAK_TFLOPS * 1e6), 3), AI_CORES, 0,
                       f"{2 * t},1408;8,1408,{h};8", "DT_BF16;DT_BF16;INT64", f"{2 * t},{h}", "DT_BF16", 0.5),
            ]
        else:
            out += [
                _mm(f"aclnnMatmul_MatMulCommon_MatMulV2_{layer}_gateup", "MatMulV2", f"{t},{h}", f"{2 * f},{h}",
                    f"{t},{2 * f}", t, 2 * f, h, 0.74),
                _vec(f"aclnnSwiGlu_{layer}", "SwiGlu", "", 0.71, inputs=f"{t},{2 * f}", outputs=f"{t},{f}"),
                _mm(f"aclnnMatmul_MatMulV3Common_MatMulV3_{layer}_down", "MatMulV3", f"{t},{f}", f"{h},{f}",
                    f"{t},{h}", t, h, f, 0.69),
            ]
        out.append(_vec(f"aclnnReduceSum_ReduceSumOpAiCore_{layer}", "ReduceSum", "", 0.5, "MIX_AIV", 24,
                        inputs=f"{t},{h}", outputs=f"{h}"))
    out += [
        _mm("aclnnMatmul_lm_head", "MatMulV3", f"{t},{h}", f"32000,{h}", f"{t},32000", t, 32000, h, 0.72),
        _vec("aclnnCrossEntropyLoss", "CrossEntropyLoss", "", 0.45, inputs=f"{t},32000;{t}",
             in_types="DT_BF16;INT64", outputs=f"{t};{t},32000", out_types="FLOAT;DT_BF16"),
        Kernel("aclnnNonZero_NonZero", "NonZero", "AI_CPU", 35.0, 1, 0, f"{t}", "INT64", f"{t},1", "INT64"),
        Kernel("aclnnDropoutGenMaskV2_DSAGenBitMask", "DSAGenBitMask", "DSA_SQE", 7.5, 1, 0),
    ]
    for layer in reversed(range(layers)):
        out += [
            _mm(f"aclnnMatmul_MatMulV3Common_MatMulV3_{layer}_down_dx", "MatMulV3", f"{t},{h}", f"{h},{f}",
                f"{t},{f}", t, f, h, 0.68),  # NN
            _mm(f"aclnnMatmul_MatMulCommon_MatMulV2_{layer}_down_dw", "MatMulV2", f"{t},{h}", f"{f},{t}",
                f"{h},{f}", h, f, t, 0.63),  # TT: A [K,M], B [N,K]
            _vec(f"aclnnSwiGluGrad_{layer}", "SwiGluGrad", "", 0.66, inputs=f"{t},{f};{t},{2 * f}",
                 outputs=f"{t},{2 * f}"),
            _mm(f"aclnnMatmul_MatMulV3Common_MatMulV3_{layer}_o_dw", "MatMulV3", f"{t},{h}", f"{t},{h}",
                f"{h},{h}", h, h, t, 0.61),  # TN: A [K,M], B [K,N]
        ]
        if layer == layers - 1:
            out.append(Kernel(f"aclnnFlashAttentionScoreGrad_varlen_{layer}", "FlashAttentionScoreGrad", "MIX_AIC",
                              fa_bwd_us * 0.8, AI_CORES, 2 * AI_CORES,
                              f"{t},{heads},{head_dim};{t},{kv_heads},{head_dim};{t},{kv_heads},{head_dim};"
                              f"{t},{heads},{head_dim};2048,2048;{t},{heads},8;{t},{heads},8;;{t},{heads},{head_dim};",
                              grad_types, f"{t},{heads},{head_dim};{t},{kv_heads},{head_dim};"
                              f"{t},{kv_heads},{head_dim};", "DT_BF16;DT_BF16;DT_BF16", 0.5))
        else:
            out.append(Kernel(f"aclnnFlashAttentionScoreGrad_FlashAttentionScoreGrad_{layer}",
                              "FlashAttentionScoreGrad", "MIX_AIC", fa_bwd_us, AI_CORES, 2 * AI_CORES, grad_in,
                              grad_types, grad_out, "DT_BF16;DT_BF16;DT_BF16", 0.5))
        out += [
            _mm(f"aclnnMatmul_MatMulCommon_MatMulV2_{layer}_qkv_dx", "MatMulV2", f"{t},{qkv}", f"{qkv},{h}",
                f"{t},{h}", t, h, qkv, 0.67),
            _mm(f"aclnnMatmul_MatMulCommon_MatMulV2_{layer}_qkv_dw", "MatMulV2", f"{t},{qkv}", f"{t},{h}",
                f"{qkv},{h}", qkv, h, t, 0.6),
            _vec(f"aclnnRmsNormGrad_{layer}", "RmsNormGrad", "", 0.6, inputs=f"{t},{h};{t},{h};{t},1;{h}",
                 in_types="DT_BF16;DT_BF16;FLOAT;DT_BF16", outputs=f"{t},{h};{h}", out_types="DT_BF16;FLOAT"),
        ]
    out += [
        Kernel("aclnnBatchMatMul_BatchMatMulV2", "BatchMatMulV2", "AI_CORE",
               round(2 * 32 * 1024 * 1024 * 128 / (0.5 * PEAK_TFLOPS * 1e6), 3), AI_CORES, 0,
               "32,1024,128;32,128,1024", "DT_BF16;DT_BF16", "32,1024,1024", "DT_BF16", 0.55),
        Kernel("aclnnMatmulAllReduce_MatmulAllReduce", "MatmulAllReduce", "MIX_AIC", 410.0, AI_CORES, 2 * AI_CORES,
               f"{t},{h};{h},{h}", "DT_BF16;DT_BF16", f"{t},{h}", "DT_BF16", 0.3),
        Kernel("aclnnMatmul_MatMulCommon_MatMulV2_storage", "MatMulV2", "AI_CORE", 185.5, 16, 0,
               "81920,4096;8192,512", "DT_BF16;DT_BF16", "4096,512", "DT_BF16", 0.8),
        _vec("aclnnForeachAddListV2", "ForeachAddList", f"{h},{h}", 0.3),
        _vec("aclnnApplyAdamW", "ApplyAdamW", "", 0.24, inputs=f"{h * h};{h * h};{h * h};{h * h}",
             in_types="FLOAT;FLOAT;FLOAT;DT_BF16", outputs=f"{h * h};{h * h};{h * h}",
             out_types="FLOAT;FLOAT;FLOAT"),  # param, m, v (FP32) and the BF16 gradient; in place
    ]
    return out


def _template_frame(kernels: list[Kernel]) -> pd.DataFrame:
    return pd.DataFrame([k.__dict__ for k in kernels])


def vary_matmul_shapes(frame: pd.DataFrame, distinct: int, offset: int = 0) -> tuple[pd.DataFrame, int]:
    """Give every 2-D matmul row its own token count, as MoE and dynamic-shape runs do.

    Row ``i`` (counting from ``offset``) gets ``M = 64 + 8·((i + offset) mod distinct)`` in an NT
    layout ``[M,K]·[N,K] → [M,N]``; its duration scales with M so its MFU stays the template's.

    Returns:
        The rewritten frame and the exact Σ FLOPs (Python ``int``) of the rewritten rows.
    """
    out = frame.copy()
    rows = np.flatnonzero(out["m"].to_numpy() > 0)
    if distinct < 1 or len(rows) == 0:
        return out, 0
    m_new = 64 + 8 * ((np.arange(len(rows), dtype=np.int64) + offset) % distinct)
    n = out["n"].to_numpy(dtype=np.int64)[rows]
    k = out["k"].to_numpy(dtype=np.int64)[rows]
    m_old = out["m"].to_numpy(dtype=np.int64)[rows]
    ms, ns, ks = m_new.astype(str).astype(object), n.astype(str).astype(object), k.astype(str).astype(object)
    out.loc[out.index[rows], "inputs"] = ms + "," + ks + ";" + ns + "," + ks
    out.loc[out.index[rows], "outputs"] = ms + "," + ns
    dur = out["duration_us"].to_numpy(dtype=np.float64, copy=True)
    dur[rows] = np.maximum(np.round(dur[rows] * m_new / m_old, 3), 0.001)
    out["duration_us"] = dur
    out.loc[out.index[rows], "m"] = m_new
    exact = sum(2 * int(a) * int(b) * int(c) for a, b, c in zip(m_new, n, k))
    return out, exact


def _pmu(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """PipeUtilization counters consistent with the §3.7 identities (f = 1800 MHz, 24 AI cores)."""
    n = len(frame)
    core = frame["core"].to_numpy()
    dur = frame["duration_us"].to_numpy(dtype=np.float64)
    block = frame["block"].to_numpy(dtype=np.float64)
    mix = frame["mix_block"].to_numpy(dtype=np.float64)
    mac_ratio = frame["mac_ratio"].to_numpy(dtype=np.float64)
    aic = np.isin(core, ["AI_CORE", "MIX_AIC"])
    aiv = np.isin(core, ["AI_VECTOR_CORE", "MIX_AIV", "MIX_AIC"])
    cols: dict[str, np.ndarray] = {}
    busy = np.clip(0.72 + 0.3 * mac_ratio, 0.6, 0.98)  # cube time share of the kernel, higher when MFU is higher
    aic_time = np.where(aic, np.round(dur * busy, 3), 0.0)
    cycles = np.where(aic, np.round(aic_time * CLOCK_MHZ * block), 0.0)
    cols["aicore_time(us)"] = aic_time
    cols["aic_total_cycles"] = cycles
    for metric, ratio in (("mac", mac_ratio), ("scalar", 0.18), ("mte1", 0.42), ("mte2", 0.57), ("fixpipe", 0.06)):
        r = np.where(aic, np.broadcast_to(ratio, n), 0.0)
        cols[f"aic_{metric}_time(us)"] = np.round(aic_time * r, 3)
        cols[f"aic_{metric}_ratio"] = np.round(r, 3)
    cols["aic_icache_miss_rate"] = np.where(aic, 0.012, 0.0)
    vec_blocks = np.where(core == "MIX_AIC", mix, block)
    aiv_time = np.where(aiv, np.round(dur * 0.95, 3), 0.0)
    cols["aiv_time(us)"] = aiv_time
    cols["aiv_total_cycles"] = np.where(aiv, np.round(aiv_time * CLOCK_MHZ * vec_blocks), 0.0)
    for metric, ratio in (("vec", 0.46), ("scalar", 0.21), ("mte2", 0.63), ("mte3", 0.38)):
        r = np.where(aiv, ratio, 0.0)
        cols[f"aiv_{metric}_time(us)"] = np.round(aiv_time * r, 3)
        cols[f"aiv_{metric}_ratio"] = np.round(r, 3)
    cols["aiv_icache_miss_rate"] = np.where(aiv, 0.008, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cols["cube_utilization(%)"] = np.where(aic & (dur > 0), np.round(100 * cycles / (CLOCK_MHZ * AI_CORES * dur),
                                                                          3), 0.0)
    return cols


@dataclass
class RankTimeline:
    """What the step trace and the communication matrix of one rank are derived from."""

    computing_us: float
    comm_us: float
    overlapped_us: float
    free_us: float
    allreduce_us: float
    varied_matmul_flops: int = 0


def write_rank(root: Path, rank: int, ranks: int, steps: int, target_rows: int | None,
               rng: np.random.Generator, distinct_shapes: int | None = None,
               memory: bool = False) -> list[RankTimeline]:
    """Write one rank folder; returns its per-step timeline figures.

    With ``distinct_shapes``, every matmul row gets its own token count (see
    :func:`vary_matmul_shapes`); each timeline then carries the exact FLOPs of those rows. With
    ``memory``, the capture has ``profile_memory=True`` and its memory files
    (:mod:`mfu_desktop.demo_memory`).
    """
    folder = root / f"node{rank // 8}_{31337 + rank}_20260101000000000_ascend_pt"
    out = folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True, exist_ok=True)
    tmpl = _template_frame(template())
    comm_per_step = 4
    # Bigger profiles repeat the step's kernels as micro-batches (gradient accumulation), the way
    # real million-row captures look: few steps, many kernels per step.
    reps = 1 if target_rows is None else max(1, -(-target_rows // (steps * len(tmpl))))
    factor = SLOW_FACTOR if rank == SLOW_RANK else 1.0
    frames = []
    clock = float(T0_US + rank * 3.0)
    timelines: list[RankTimeline] = []
    windows: list[tuple[float, float]] = []
    for step in range(1, steps + 1):
        f = tmpl.iloc[np.tile(np.arange(len(tmpl)), reps)].reset_index(drop=True)
        if target_rows is not None:
            f = f.iloc[: max(1, target_rows // steps - comm_per_step)]
        exact = 0
        if distinct_shapes:
            f, exact = vary_matmul_shapes(f, distinct_shapes, offset=(step - 1) * len(f))
        jitter = rng.normal(1.0, 0.015, len(f)).clip(0.95, 1.06)
        f["duration_us"] = np.round(f["duration_us"].to_numpy() * factor * jitter, 3)
        waits = np.round(rng.gamma(2.0, 4.0, len(f)), 3)
        durations = f["duration_us"].to_numpy()
        starts = clock + np.cumsum(waits) + np.concatenate([[0.0], np.cumsum(durations[:-1])])
        f["start"] = starts
        f["wait"] = waits
        f["step"] = step
        step_end = float(starts[-1] + durations[-1])
        # Gradient all-reduces overlap the backward pass, the last one does not.
        comm_durs = np.array([2300.0, 2400.0, 1800.0, 9800.0]) * reps * rng.normal(1.0, 0.02, comm_per_step) * \
            (1.0 + 0.1 * (rank % 3))
        half = len(f) // 2
        comm_starts = np.array([starts[half], starts[min(half + 40, len(f) - 1)], starts[max(len(f) - 20, 0)],
                                step_end + 5.0])
        comm = pd.DataFrame({
            "name": [f"hcom_allReduce__{700 + step}_{i}_1" for i in range(comm_per_step)],
            "type": "hcom_allReduce_", "core": "HCCL", "duration_us": np.round(comm_durs, 3), "block": 0,
            "mix_block": 0, "inputs": "N/A", "in_types": "N/A", "outputs": "N/A", "out_types": "N/A",
            "mac_ratio": 0.0, "start": comm_starts, "wait": 0.0, "step": step,
        })
        frames += [f, comm]
        comm_total = float(comm_durs.sum())
        timelines.append(RankTimeline(float(durations.sum()), comm_total, float(comm_durs[:3].sum() * 0.85),
                                      float(waits.sum()) + 900.0, comm_total, exact))
        clock = float(comm_starts[-1] + comm_durs[-1] + 900.0)
        windows.append((float(starts[0]), float(comm_starts[-1] + comm_durs[-1])))
    frame = pd.concat(frames, ignore_index=True)
    _write_kernel_details(frame, out / "kernel_details.csv")
    _write_step_trace(out / "step_trace_time.csv", timelines)
    _write_comm_matrix(out / "communication_matrix.json", rank, ranks, timelines)
    if memory:
        write_memory(out, rank, windows)
    (out / "analyse.done").write_text("")
    info = {
        "config": {
            "common_config": {"activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"],
                              "schedule": {"wait": 1, "warmup": 1, "active": steps, "repeat": 1, "skip_first": 10},
                              "record_shapes": True, "profile_memory": memory, "with_stack": False,
                              "with_flops": False, "with_modules": False},
            "experimental_config": {"_profiler_level": "Level1", "_aic_metrics": "ACL_AICORE_PIPE_UTILIZATION",
                                    "_l2_cache": False, "_msprof_tx": False, "_data_simplification": True,
                                    "record_op_args": False, "_export_type": "text", "_op_attr": False},
        },
        "end_info": {"collectionTimeEnd": int(clock * 1000)},
        "rank_id": rank,
        "torch_npu_version": "2.6.0 (synthetic demo)",
    }
    (folder / f"profiler_info_{rank}.json").write_text(json.dumps(info, indent=2))
    meta = {"ENV_VARIABLES": {}, "distributed_args": {
        "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1, "data_parallel_size": ranks,
        "context_parallel_size": 1, "expert_model_parallel_size": 1, "rank": rank, "world_size": ranks}}
    (folder / "profiler_metadata.json").write_text(json.dumps(meta, indent=2))
    device = folder / "PROF_000001_20260101000000000_DEMO" / f"device_{rank % 8}"
    device.mkdir(parents=True, exist_ok=True)
    (device / f"info.json.{rank % 8}").write_text(json.dumps({"DeviceInfo": [{
        "id": rank % 8, "ai_core_num": AI_CORES, "aiv_num": 2 * AI_CORES, "aic_frequency": str(CLOCK_MHZ),
        "aiv_frequency": str(CLOCK_MHZ), "hwts_frequency": "50"}], "rank_id": rank}))
    return timelines


def _write_kernel_details(frame: pd.DataFrame, path: Path) -> None:
    """Write kernel_details.csv the way torch_npu does.

    Bare header, shapes as ``\"\"\"4096,12288\"\"\"``, a TAB after the start time, ``N/A`` for
    counters a core does not have.
    """
    n = len(frame)
    core = frame["core"].to_numpy()
    compute = core != "HCCL"
    no_pmu = np.isin(core, ["AI_CPU", "DSA_SQE", "HCCL"])
    pmu = _pmu(frame)

    def shapes(values: pd.Series) -> np.ndarray:
        v = values.to_numpy(dtype=object)
        return np.where(v == "N/A", "N/A", '"' + v.astype(str) + '"')

    def numbers(values: np.ndarray, decimals: int) -> np.ndarray:
        text = np.char.mod(f"%.{decimals}f", np.asarray(values, dtype=np.float64)) if decimals else \
            np.asarray(values, dtype=np.int64).astype(str)
        return np.where(no_pmu, "N/A", text)

    columns: dict[str, np.ndarray] = {
        "Step Id": frame["step"].to_numpy().astype(str),
        "Model ID": np.full(n, "4294967295"),
        "Task ID": np.where(compute, (np.arange(n) % 65535).astype(str), "N/A"),
        "Stream ID": np.where(compute, "2", "N/A"),
        "Name": frame["name"].to_numpy(dtype=object),
        "Type": frame["type"].to_numpy(dtype=object),
        "OP State": np.where(compute, "dynamic", "N/A"),
        "Accelerator Core": core,
        "Start Time(us)": np.char.add(np.char.mod("%.3f", frame["start"].to_numpy(dtype=np.float64)), "\t"),
        "Duration(us)": np.char.mod("%.3f", frame["duration_us"].to_numpy(dtype=np.float64)),
        "Wait Time(us)": np.char.mod("%.3f", frame["wait"].to_numpy(dtype=np.float64)),
        "Block Dim": frame["block"].to_numpy().astype(str),
        "Mix Block Dim": np.where(compute, frame["mix_block"].to_numpy().astype(str), "N/A"),
        "HF32 Eligible": np.where(compute, np.where(frame["in_types"].str.startswith("FLOAT"), "YES", "NO"), "N/A"),
        "Input Shapes": shapes(frame["inputs"]),
        "Input Data Types": frame["in_types"].to_numpy(dtype=object),
        "Input Formats": np.where(frame["inputs"].to_numpy() == "N/A", "N/A", "ND"),
        "Output Shapes": shapes(frame["outputs"]),
        "Output Data Types": frame["out_types"].to_numpy(dtype=object),
        "Output Formats": np.where(frame["outputs"].to_numpy() == "N/A", "N/A", "ND"),
        "Context ID": np.where(core == "MIX_AIC", "0", "N/A"),
    }
    for name in HEADER[21:]:
        integer = name.endswith("total_cycles")
        columns[name] = numbers(pmu[name], 0 if integer else 3)
    pd.DataFrame(columns)[HEADER].to_csv(path, index=False, lineterminator="\n")


def _write_step_trace(path: Path, timelines: list[RankTimeline]) -> None:
    lines = ["Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
             "Communication(Not Overlapped and Exclude Receive),Preparing"]
    for step, t in enumerate(timelines, start=1):
        not_overlapped = t.comm_us - t.overlapped_us
        stage = t.computing_us + not_overlapped + t.free_us
        lines.append(f"{step},{t.computing_us:.3f},{not_overlapped:.3f},{t.overlapped_us:.3f},{t.comm_us:.3f},"
                     f"{t.free_us:.3f},{stage:.3f},0,{not_overlapped:.3f},1532.2")
    path.write_text("\n".join(lines) + "\n")


def _write_comm_matrix(path: Path, rank: int, ranks: int, timelines: list[RankTimeline]) -> None:
    """Current aggregated layout: allreduce-top1/middle/bottom1..3/total@group, links rank→every rank."""
    group = "5862276097510448909"
    data: dict[str, object] = {}
    for step, t in enumerate(timelines, start=1):
        # 62 % of the not-overlapped communication is transfer; the rest is waiting.
        real_total_ms = (t.comm_us - t.overlapped_us) * 0.62 / 1000.0
        collective: dict[str, object] = {}
        for label, share in (("top1", 0.55), ("middle", 0.25), ("bottom1", 0.1), ("bottom2", 0.06),
                             ("bottom3", 0.04), ("total", 1.0)):
            links = {}
            for dst in range(ranks):
                longest = 1.0 if dst == (rank + 1) % ranks else 0.96  # one link is the longest
                time_ms = real_total_ms * share * longest * (0.05 if dst == rank else 1.0)
                size = 61.2 * share
                links[f"{rank}-{dst}"] = {"Transport Type": "LOCAL" if dst == rank else "HCCS",
                                          "Transit Size(MB)": round(size, 6), "Transit Time(ms)": round(time_ms, 9),
                                          "Bandwidth(GB/s)": round(size / max(time_ms, 1e-9), 4)}
                if label != "total":
                    links[f"{rank}-{dst}"]["Op Name"] = f"hcom_allReduce__{700 + step}_0_1"
            collective[f"allreduce-{label}@{group}"] = links
        data[f"step{step}"] = {"p2p": {}, "collective": collective}
    path.write_text(json.dumps(data, indent=1))


def generate(root: Path, ranks: int = 8, steps: int = 2, kernels: int | None = None, seed: int = 7,
             distinct_shapes: int | None = None, memory: bool = False) -> Path:
    """Write the demo profile under ``root`` and return it.

    Args:
        root: Output folder (created).
        ranks: Rank folders to write.
        steps: Steps per rank.
        kernels: Rows per rank; each step repeats its kernels (micro-batches) to reach it.
        seed: Random seed (deterministic output).
        distinct_shapes: Give matmul rows up to this many distinct token counts (MoE-like).
        memory: Capture with ``profile_memory=True`` and write each rank's memory files (the bundled demo does).
    """
    rng = np.random.default_rng(seed)
    if kernels is not None and kernels < steps * 10:
        steps = 1
    root.mkdir(parents=True, exist_ok=True)
    for rank in range(ranks):
        write_rank(root, rank, ranks, steps, kernels, rng, distinct_shapes, memory)
    (root / "README.txt").write_text(
        "Synthetic MFU Desktop demo profile (not real hardware data): an 8-rank Llama-style step on a "
        "910B2-class chip. Regenerate: python -m mfu_desktop.demo OUT\n"
    )
    return root


def main(argv: list[str] | None = None) -> int:
    """Command line of the generator."""
    parser = argparse.ArgumentParser(prog="python -m mfu_desktop.demo", description=__doc__.splitlines()[0],
                                     allow_abbrev=False)
    parser.add_argument("out", type=Path, help="output folder")
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--kernels", type=int, help="rows per rank (repeats the step template)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--distinct-shapes", type=int, metavar="N",
                        help="give matmul rows up to N distinct token counts (MoE / dynamic shapes)")
    parser.add_argument("--no-memory", action="store_true",
                        help="capture without profile_memory (no memory files; the bundled demo has them)")
    args = parser.parse_args(argv)
    if args.ranks < 1:
        parser.error("--ranks must be at least 1")
    path = generate(args.out, args.ranks, args.steps, args.kernels, args.seed, args.distinct_shapes,
                    memory=not args.no_memory)
    print(f"wrote {args.ranks} rank(s) to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# --- PyTorch profiler (Kineto) traces ---------------------------------------------------------

#: The H100 SXM as a trace's deviceProperties describe it.
H100_PROPERTIES = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9,
                   "computeMinor": 0, "numSms": 132, "warpSize": 32}
#: An A100 SXM4 40GB under its board name (NVIDIA's driver lists PCI id 20B0 for both names).
A100_PG509_PROPERTIES = {"id": 0, "name": "NVIDIA A100-PG509-200", "totalGlobalMem": 42505273344, "computeMajor": 8,
                         "computeMinor": 0, "numSms": 108, "warpSize": 32}
#: A V100 (Volta: tensor cores for FP16 only, no TF32).
V100_PROPERTIES = {"id": 0, "name": "Tesla V100-SXM2-32GB", "totalGlobalMem": 34089730048, "computeMajor": 7,
                   "computeMinor": 0, "numSms": 80, "warpSize": 32}

#: A trace's GPU ProfilerStep# ranges: as in the plain trace (first compute kernel → 30 µs past the last
#: kernel), exactly the span of the step's kernels (how Kineto builds them), 17 µs long (a broken ROCm
#: capture), or none.
GPU_RANGES = ("full", "kernels", "short", "none")


@dataclass(frozen=True)
class TraceVariant:
    """What a generated trace exercises beyond the plain transformer layers (the default: nothing).

    Attributes:
        gpu_ranges: One of :data:`GPU_RANGES`.
        prefetch: The CPU runs ahead of the GPU (its ops take half the time and it does not wait at the
            step's end) and every step from the second on starts with ``aten::copy_``, an HtoD memcpy
            on side stream 21 that runs while the GPU still works on the previous step.
        fp32: FP32 matmuls (``float`` inputs) on CUTLASS TF32 tensor-core kernels (``tensorop_s1688gemm``),
            or CUDA-core ``sgemm`` kernels on a GPU older than Ampere.
        decomposed_linear: ``aten::linear`` → ``aten::t`` + ``aten::matmul`` → ``aten::mm`` (the GEMM) +
            ``aten::add_`` (the bias, a vector kernel), instead of ``aten::addmm`` (GEMM + memset).
        device: The ``deviceProperties`` entry.
        seed: Random kernel durations, gaps, overlaps and a second compute stream (property tests).
    """

    gpu_ranges: str = "full"
    prefetch: bool = False
    fp32: bool = False
    decomposed_linear: bool = False
    device: dict = field(default_factory=lambda: dict(H100_PROPERTIES))
    seed: int | None = None


@dataclass
class KinetoTruth:
    """What :func:`write_kineto_trace` wrote: the exact figures a reader must find (means per step)."""

    flops_per_step: int
    kernel_us_per_step: float
    steps: int
    kernels: int
    matrix_kernel_us_per_step: float


class _KinetoWriter:
    """Writes the events of :func:`write_kineto_trace` one by one, keeping a CPU and a GPU clock."""

    def __init__(self, fh: TextIO, variant: TraceVariant, tokens: int, hidden: int, heads: int) -> None:
        self.fh, self.v = fh, variant
        self.tokens, self.hidden, self.heads = tokens, hidden, heads
        self.rng = np.random.default_rng(variant.seed) if variant.seed is not None else None
        self.cpu_scale = 0.5 if variant.prefetch else 1.0
        self.dt = "float" if variant.fp32 else "c10::BFloat16"
        self.ext = iter(range(1, 10**9))
        self.corr = iter(range(5000, 10**9))
        self.first = True
        self.gpu = 0.0  # the compute stream's clock
        self.spans: list[tuple[float, float]] = []  # the kernels of the current step
        self.flops = self.kernels = 0
        self.kernel_us = self.matrix_us = 0.0

    def emit(self, event: dict) -> None:
        self.fh.write(("" if self.first else ",\n") + "    " + json.dumps(event))
        self.first = False

    def op(self, name: str, ts: float, dur: float, dims: list, types: list, concrete: list | None = None) -> int:
        e = next(self.ext)
        args = {"External id": e, "Input Dims": dims, "Input type": types}
        if concrete is not None:
            args["Concrete Inputs"] = concrete
        self.emit({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur * self.cpu_scale,
                   "args": args})
        return e

    def draw(self, value: float, low: float = 0.3, high: float = 2.0) -> float:
        """A duration or gap: as given, or scaled at random (seeded traces)."""
        return value if self.rng is None else round(value * float(self.rng.uniform(low, high)), 3)

    def kernel(self, name: str, ts: float, dur: float, ext_id: int | None, cat: str = "kernel",
               launch_ts: float | None = None, stream: int = 7, matrix: bool = False) -> None:
        c = next(self.corr)
        args = {"device": 0, "stream": stream, "correlation": c}
        if ext_id is not None:
            args["External id"] = ext_id
        self.emit({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur, "args": args})
        self.emit({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": launch_ts if launch_ts is not None else ts - 5.0, "dur": 2.0, "args": {"correlation": c}})
        self.kernels += 1
        self.kernel_us += dur
        self.matrix_us += dur if matrix else 0.0
        self.spans.append((ts, ts + dur))

    def run(self, name: str, dur: float, ext_id: int | None, gap: float, **kw: object) -> None:
        """A kernel on the compute stream at its clock (or, seeded, sometimes beside it on stream 8)."""
        dur = self.draw(dur)
        if self.rng is not None and self.rng.random() < 0.3:
            self.kernel(name, self.gpu, dur, ext_id, stream=8, **kw)  # concurrent on a second stream
            return
        self.kernel(name, self.gpu, dur, ext_id, **kw)
        self.gpu += dur + self.draw(gap, 0.0, 3.0)

    def gemm_names(self) -> tuple[str, str]:
        """The two GEMM kernel names for the trace's dtype and device (the linear's, the mm's)."""
        if not self.v.fp32:
            return ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas",
                    "cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128")
        if int(self.v.device.get("computeMajor", 9)) < 8:
            return "volta_sgemm_128x64_nn", "volta_sgemm_128x128_tn"
        return ("cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4",
                "cutlass_80_tensorop_s1688gemm_256x128_16x3_tn_align4")

    def linear(self, t: float) -> None:
        """``aten::linear``: addmm (GEMM + memset), or decomposed (matmul → mm GEMM + the bias add_)."""
        T, H, dt, s = self.tokens, self.hidden, self.dt, self.cpu_scale
        gemm = self.gemm_names()[0]
        self.flops += 2 * T * H * H
        self.op("aten::linear", t, 40.0, [[T, H], [H, H], [H]], [dt] * 3, ["", "", ""])
        if self.v.decomposed_linear:
            self.op("aten::t", t + 2.0 * s, 1.0, [[H, H]], [dt])
            self.op("aten::matmul", t + 5.0 * s, 25.0, [[T, H], [H, H]], [dt] * 2)
            mm = self.op("aten::mm", t + 6.0 * s, 20.0, [[T, H], [H, H]], [dt] * 2)
            self.run(gemm, 30.0, mm, 1.0, matrix=True)
            bias = self.op("aten::add_", t + 32.0 * s, 5.0, [[T, H], [H], []], [dt, dt, "Scalar"], ["", "", "1"])
            self.run("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>",
                     2.0, bias, 1.0)
            return
        addmm = self.op("aten::addmm", t + 5.0 * s, 30.0, [[H], [T, H], [H, H], [], []],
                        [dt, dt, dt, "Scalar", "Scalar"], ["", "", "", "1", "1"])
        self.run(gemm, 30.0, addmm, 1.0, matrix=True)
        self.run("Memset (Device)", 2.0, addmm, 1.0, cat="gpu_memset")

    def layer(self, t: float, filler: int) -> None:
        """One transformer layer: linear, causal SDPA, an mm linked by correlation only, an add."""
        T, H, heads, s = self.tokens, self.hidden, self.heads, self.cpu_scale
        bf16, d = "c10::BFloat16", H // heads
        self.linear(t)
        self.op("aten::_scaled_dot_product_flash_attention", t + 50.0 * s, 40.0,
                [[1, heads, T, d]] * 3 + [[], [], [], []], [bf16] * 3 + ["Scalar"] * 4,
                ["", "", "", "0.", "True", "False", ""])
        inner = self.op("aten::_flash_attention_forward", t + 55.0 * s, 30.0, [[1, T, heads, d]] * 3, [bf16] * 3)
        self.run("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>", 50.0, inner, 2.0, matrix=True)
        self.flops += 2 * heads * (T * (T + 1) // 2) * (2 * d)
        self.op("aten::mm", t + 100.0 * s, 20.0, [[T, H], [H, 4 * H]], [self.dt] * 2)
        self.run(self.gemm_names()[1], 40.0, None, 2.0, launch_ts=t + 105.0 * s, matrix=True)
        self.flops += 2 * T * H * 4 * H
        add = self.op("aten::add", t + 130.0 * s, 10.0, [[T, H], [T, H], []], [bf16, bf16, "Scalar"])
        self.run("void at::native::vectorized_elementwise_kernel<4, add>", 8.0, add, 2.0)
        for _ in range(filler):
            self.emit({"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1736): _call_impl",
                       "pid": 1, "tid": 1, "ts": t + 1.0, "dur": 0.5, "args": {"Python id": 1}})

    def step(self, number: int, t: float, layers: int, filler: int) -> float:
        """One ``ProfilerStep#``: its ops and kernels from CPU time ``t``; returns where the next step starts."""
        s, step_start, gpu_before = self.cpu_scale, t, self.gpu
        self.spans = []
        if self.v.prefetch and number > 1:  # the next batch's copy, on a side stream, while the GPU is busy
            copy = self.op("aten::copy_", t, 1.0, [[self.tokens, self.hidden], [self.tokens, self.hidden], []],
                           ["float", "float", "Scalar"])
            self.kernel("Memcpy HtoD (Pageable -> Device)", t + 5.0, self.draw(10.0), copy, cat="gpu_memcpy",
                        stream=21)
            t += 2.0
        self.gpu = max(t + 20.0, gpu_before + 20.0) if self.v.prefetch else t + 20.0
        first_compute = self.gpu
        for _ in range(layers):
            self.layer(t, filler)
            t += 150.0 * s
        ar = self.op("c10d::allreduce_", t, 10.0, [[self.hidden, self.hidden]], ["c10::BFloat16"])
        overlap = self.draw(5.0, 0.0, 2.0)  # the all-reduce on its own stream overlaps the last kernel
        self.kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                    self.gpu - overlap, self.draw(20.0), ar, stream=20)
        self.gpu = max(self.gpu, max(e for _, e in self.spans))
        self.emit({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{number}", "pid": 1, "tid": 1,
                   "ts": step_start, "dur": t + 20.0 * s - step_start, "args": {"External id": next(self.ext)}})
        self._gpu_range(number, first_compute)
        return t + 20.0 * s + 1.0 if self.v.prefetch else self.gpu + self.draw(100.0, 0.5, 1.5)

    def _gpu_range(self, number: int, first_compute: float) -> None:
        kind = self.v.gpu_ranges
        if kind == "none":
            return
        lo, hi = {"full": (first_compute, self.gpu + 30.0), "short": (first_compute, first_compute + 17.0),
                  "kernels": (min(a for a, _ in self.spans), max(b for _, b in self.spans))}[kind]
        self.emit({"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{number}", "pid": 0, "tid": 7,
                   "ts": lo, "dur": hi - lo, "args": {}})


def write_kineto_trace(path: Path, steps: int = 2, layers: int = 2, rank: int | None = 0, tokens: int = 1024,
                       hidden: int = 1024, heads: int = 16, gzip_output: bool = False,
                       filler_events: int = 0, variant: TraceVariant | None = None) -> KinetoTruth:
    """Write a PyTorch-profiler-shaped trace of a small transformer forward (CUDA, H100 unless ``variant`` says).

    Per layer: ``aten::linear`` → ``aten::addmm`` (a GEMM kernel and a memset), causal
    ``aten::_scaled_dot_product_flash_attention`` (a flash kernel under
    ``aten::_flash_attention_forward``), ``aten::mm`` linked by correlation only (no External
    id), ``aten::add`` (vector); per step an NCCL all-reduce partly overlapped. ``filler_events``
    python_function events per layer make big files for benchmarks; ``variant`` adds what a test
    needs (:class:`TraceVariant`). Written event by event.

    Returns:
        The exact FLOPs and kernel time per step.
    """
    import gzip as _gzip

    v = variant or TraceVariant()
    if v.gpu_ranges not in GPU_RANGES:
        raise ValueError(f"gpu_ranges must be one of {', '.join(GPU_RANGES)}")
    with (_gzip.open(path, "wt", encoding="utf-8") if gzip_output else path.open("w", encoding="utf-8")) as fh:
        header = {"schemaVersion": 1, "deviceProperties": [v.device], "cuda_runtime_version": 12040,
                  "record_shapes": 1, "with_flops": 0}
        if rank is not None:
            header["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 8}
        fh.write("{\n" + "".join(f'  "{key}": {json.dumps(value)},\n' for key, value in header.items()))
        fh.write('  "traceEvents": [\n')
        w = _KinetoWriter(fh, v, tokens, hidden, heads)
        t = 1_000_000.0
        for number in range(1, steps + 1):
            t = w.step(number, t, layers, filler_events)
        fh.write("\n  ]\n}\n")
    return KinetoTruth(w.flops // steps, w.kernel_us / steps, steps, w.kernels, w.matrix_us / steps)
