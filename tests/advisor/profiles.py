"""Generated Ascend profiles for the advisor's rules: a clean step, and the same step with one problem planted.

Every profile runs on a 910B2 (chosen: 353.9 TFLOP/s BF16, 88.5 FP32, 1,600 GB/s, 24 AI cores, 48
vector cores, 64 GB). The clean step (:data:`CLEAN`) has none of the problems the rules look for:
aligned BF16 matmuls near 70 % MFU, an element-wise Add at 78.6 % of HBM bandwidth, a causal
FlashAttention (the compressed 2048×2048 mask), one all-reduce, 1 µs between kernels, full Block Dim.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from mfu_desktop.core.advisor.advice import Advice, advise, contexts
from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from tests.helpers import kernel_row, make_rank

BF16x2 = "DT_BF16;DT_BF16"
#: The spec's real FlashAttention row (mfu.md §3.5): SBH, B=2, N=4, S=4096, D=128 — here with the
#: compressed causal mask; :data:`FULL_MASK` puts the 4096×4096 one in its place.
FA_INPUTS = "4096,2,512;4096,2,512;4096,2,512;;;;{mask};;;;;"
FA_TYPES = "DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL;INT64;INT64;INT64;INT64;INT64"
FA_OUTPUTS = "2,4,4096,8;2,4,4096,8;;4096,2,512"
FA_OUT_TYPES = "FLOAT;FLOAT;DT_BF16;DT_BF16"
CAUSAL_MASK = "2048,2048"
FULL_MASK = "4096,4096"


@dataclass(frozen=True)
class K:
    """One kernel of a generated step; ``gap`` µs of device idle before it (its Wait Time too)."""

    name: str
    type: str
    core: str
    dur: float
    inputs: str = "N/A"
    in_types: str = "N/A"
    outputs: str = "N/A"
    out_types: str = "N/A"
    block: int = 24
    gap: float = 1.0
    hf32_eligible: str = "NO"


def matmul(name: str, m: int, n: int, k: int, dur: float, dtype: str = "DT_BF16", block: int = 24,
           gap: float = 1.0) -> K:
    """A MatMulV2 [M,K]·[N,K] → [M,N] (NT layout)."""
    return K(name, "MatMulV2", "AI_CORE", dur, f"{m},{k};{n},{k}", f"{dtype};{dtype}", f"{m},{n}", dtype, block, gap)


def add(name: str, dur: float, block: int = 48, gap: float = 1.0) -> K:
    """An element-wise Add of two 4096×4096 BF16 tensors: 100,663,296 bytes."""
    return K(name, "Add", "AI_VECTOR_CORE", dur, "4096,4096;4096,4096", BF16x2, "4096,4096", "DT_BF16", block, gap)


def flash_attention(name: str, dur: float, mask: str = CAUSAL_MASK, gap: float = 1.0) -> K:
    """The spec's FlashAttentionScore row with the given atten_mask shape."""
    return K(name, "FlashAttentionScore", "MIX_AIC", dur, FA_INPUTS.format(mask=mask), FA_TYPES, FA_OUTPUTS,
             FA_OUT_TYPES, 24, gap)


ADD_BYTES = 3 * 4096 * 4096 * 2
#: Σ non-communication kernel time of the clean step (µs).
CLEAN_COMPUTING = 555.0 + 80.0 + 410.188
#: The clean step: 555 + 80 + 410.188 + 100 µs of kernels, 1 µs apart.
CLEAN = (
    matmul("MatMul_qkv", 4096, 4096, 4096, 555.0),
    add("Add_residual", 80.0),
    flash_attention("FlashAttention", 410.188),
    K("hcom_allReduce_1", "hcom_allReduce_", "HCCL", 100.0, block=0),
)


@dataclass
class Trace:
    """One step-trace row (µs)."""

    computing: float
    comm: float
    free: float


def write_profile(root: Path, steps: list[list[K]] | None = None, traces: list[Trace] | None = None,
                  name: str = "rank0_ascend_pt", rank: int = 0, matrix_ms: float | None = None,
                  process_mb: float | None = None, step_trace: bool = True, device_info: bool = False) -> Path:
    """A rank folder of ``steps`` (default: one clean step) laid out kernel after kernel.

    Args:
        root: Where the rank folder goes.
        steps: The kernels of each step.
        traces: One step-trace row per step (default: computing = Σ non-HCCL time, comm 20, free = Σ gaps).
        name: The rank folder's name.
        rank: Its rank id.
        matrix_ms: When given, a communication matrix whose one all-reduce's longest link takes this long.
        process_mb: When given, memory files whose process (APP) reserved peak is this many MB.
        step_trace: Write the step trace at all.
        device_info: Write the device's ``info.json`` (24 AI cores at 1800 MHz: the chip is detected, no ``--chip``).
    """
    steps = steps if steps is not None else [list(CLEAN)]
    rows, auto = [], []
    clock = 1_000_000.0
    for number, kernels in enumerate(steps, start=1):
        computing = free = 0.0
        for k in kernels:
            clock += k.gap
            rows.append(kernel_row(k.name, k.type, k.core, f"{clock:.3f}", k.dur, k.inputs, k.in_types, k.outputs,
                                   k.out_types, k.block, number, wait=k.gap, hf32_eligible=k.hf32_eligible))
            clock += k.dur
            free += k.gap
            computing += 0.0 if k.core == "HCCL" else k.dur
        auto.append(Trace(computing, 20.0, free))
        clock += 1000.0
    traces = traces or auto
    text = ("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
            "Communication(Not Overlapped and Exclude Receive),Preparing\n")
    for number, t in enumerate(traces, start=1):
        stage = t.computing + t.comm + t.free
        text += f"{number},{t.computing},{t.comm},0,{t.comm},{t.free},{stage},0,{t.comm},0\n"
    path = make_rank(root, name, rank, rows, step_trace=text if step_trace else None)
    out = path / "ASCEND_PROFILER_OUTPUT"
    if matrix_ms is not None:
        links = {f"{rank}-{dst}": {"Transport Type": "HCCS", "Transit Size(MB)": 64.0,
                                   "Transit Time(ms)": matrix_ms if dst == 1 - rank else matrix_ms / 2}
                 for dst in (0, 1)}
        data = {f"step{n}": {"p2p": {}, "collective": {f"hcom_allReduce__1_{n}_1@123": links}}
                for n in range(1, len(steps) + 1)}
        (out / "communication_matrix.json").write_text(json.dumps(data))
    if process_mb is not None:
        _memory_files(out, process_mb)
    if device_info:
        device = path / "PROF_000001_20260101000000000_TEST" / "device_0"
        device.mkdir(parents=True, exist_ok=True)
        (device / "info.json.0").write_text(json.dumps({"DeviceInfo": [{
            "id": 0, "ai_core_num": 24, "aiv_num": 48, "aic_frequency": "1800", "aiv_frequency": "1800"}],
            "rank_id": rank}))
    return path


def _memory_files(out: Path, process_mb: float) -> None:
    """memory_record.csv with the allocator at half the process peak, and the process (APP) at ``process_mb``."""
    header = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type"
    rows = [f"PTA+GE,1000100.000\t,{process_mb / 2},{process_mb / 2 + 100},{process_mb / 2},11,NPU:0",
            f"APP,1000200.000\t,,{process_mb},,,NPU:0"]
    (out / "memory_record.csv").write_bytes(("\r\n".join([header, *rows]) + "\r\n").encode("utf-8"))


def options(hf32: bool = False, **flops) -> AnalysisOptions:
    """The 910B2, HF32 on or off, and any FLOP convention given."""
    return AnalysisOptions(chip="910B2", hf32=hf32, flops=FlopOptions(**flops))


def analyse(*paths: Path, hf32: bool = False, **flops):
    """The folder analysis of ``paths`` on the 910B2 (no cache)."""
    return analyze_paths(list(paths), options(hf32, **flops), use_cache=False)


def rank_context(path: Path, hf32: bool = False, **flops) -> RankContext:
    """The advisor's context of the one rank under ``path``."""
    return contexts(analyse(path, hf32=hf32, **flops))[0]


def advice_on(*paths: Path, **flops) -> Advice:
    """Every rule on the ranks under ``paths``."""
    return advise(analyse(*paths, **flops))


def swapped(kernels: tuple[K, ...], name: str, **changes) -> list[K]:
    """The clean step with one kernel changed."""
    return [replace(k, **changes) if k.name == name else k for k in kernels]


def two_rank_profile(root: Path) -> Path:
    """Two 910B2 ranks (info.json: the chip is detected) with three findings each, rank 1 slower.

    Per rank: 300 µs of not-overlapped communication (0.1 ms of it the longest link), an Add at 25 % of
    HBM bandwidth, two AI CPU operators (NonZero 50 µs, Unique 80 µs); rank 1 computes 200 µs more.
    """
    cpu = [K("NonZero_1", "NonZero", "AI_CPU", 50.0, "4096", "INT64", "4096,1", "INT64", block=1),
           K("Unique_1", "Unique", "AI_CPU", 80.0, "4096", "INT64", "4096", "INT64", block=1)]
    step = [*swapped(CLEAN, "Add_residual", dur=251.658), *cpu]
    computing = CLEAN_COMPUTING + 171.658 + 130.0
    for rank, extra in ((0, 0.0), (1, 200.0)):
        write_profile(root, [step], [Trace(computing + extra, 300.0, 7.0)], name=f"r{rank}_ascend_pt", rank=rank,
                      matrix_ms=0.1, device_info=True)
    return root
