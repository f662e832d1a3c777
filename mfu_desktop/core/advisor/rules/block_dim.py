"""Under-filled cores on Ascend: kernels launched on fewer blocks than the chip has cores.

A cube kernel (``AI_CORE``, ``MIX_AIC``) runs its Block Dim on the AI cores (AIC), a vector kernel
(``AI_VECTOR_CORE``, ``MIX_AIV``) on the vector cores (AIV) — profiler-formats.md §3.5. The core
counts come from the profile's ``info.json`` (``ai_core_num``, ``aiv_num``) or the hardware
counters, else the chip catalog (``ai_core_count``, ``vector_core_count``; chips.md b.4). Kernels
shorter than 20 µs are left out: a short kernel has too little work to spread.

Time at stake, per kernel: ``t · (1 − Block Dim / cores)`` — its time if the same work spread over
every core at the same per-core speed. An upper bound: a kernel split over more blocks pays more
for its synchronisation and tails.
"""

from __future__ import annotations

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rule import SMALL_KERNEL_US, Rule, material, of_step, us
from mfu_desktop.core.readers import columns as C

#: Accelerator cores whose Block Dim counts AI (cube) cores, and those whose Block Dim counts vector cores.
CUBE_CORES = ("AI_CORE", "MIX_AIC")
VECTOR_CORES = ("AI_VECTOR_CORE", "MIX_AIV")

_ADVICE = Text(
    "These kernels leave cores idle: their tiling split the work into fewer blocks than the chip has cores — "
    "usually because a dimension the kernel splits over is small (batch × heads, rows of a norm, experts). "
    "Give each call more work (fuse small operators, batch calls), pad or reshape the split dimension, tune the "
    "operator (AOE), and for a custom AscendC kernel set blockDim to the core count (GetCoreNumAic / "
    "GetCoreNumAiv) with the work spread evenly.",
    "这些算子让部分核空闲：其 tiling 把工作切成的 block 数少于芯片的核数——通常是因为被切分的维度太小（batch × "
    "heads、norm 的行数、专家数）。让每次调用做更多工作（融合小算子、合并调用），补齐或调整被切分的维度，用 AOE 调优"
    "算子；自定义 AscendC 算子请把 blockDim 设为核数（GetCoreNumAic / GetCoreNumAiv）并均匀切分工作。",
)


class BlockDim(Rule):
    """Ascend kernels (≥ 20 µs) whose Block Dim is below their core count."""

    id = "block-dim"
    title = Text("Kernels leave cores idle (Block Dim below the core count)", "算子未用满所有核（Block Dim 小于核数）")

    def check(self, ctx: RankContext) -> Finding | None:
        k = ctx.kernels
        if k.empty or C.BLOCK_DIM not in k.columns or C.CORE_TYPE not in k.columns:
            return None
        aic, aiv = _core_counts(ctx)
        cores = np.full(len(k), np.nan)
        if aic:
            cores[ctx.cores(*CUBE_CORES)] = aic
        if aiv:
            cores[ctx.cores(*VECTOR_CORES)] = aiv
        blocks = ctx.column(C.BLOCK_DIM)
        rows = np.isfinite(cores) & (blocks > 0) & (blocks < cores) & (ctx.durations >= SMALL_KERNEL_US)
        if not rows.any():
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            stake = np.where(rows, ctx.durations * (1.0 - blocks / cores), 0.0)
        total = ctx.per_step(float(stake.sum()))
        if not material(ctx, total):
            return None
        evidence = ctx.kernel_evidence(rows, stake, figures={"block_dim": blocks, "cores": cores})
        facts = {**ctx.kernel_facts(rows), "ai_cores": float(aic) if aic else None,
                 "vector_cores": float(aiv) if aiv else None}
        return self.finding(ctx, total, Confidence.MEDIUM, evidence=evidence, rows=np.flatnonzero(rows), facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        n = float(f.get("kernels_n") or 0.0)
        aic, aiv = f.get("ai_cores"), f.get("vector_cores")
        counts_en = ", ".join(p for p in (f"{aic:g} AI cores" if aic else "",
                                          f"{aiv:g} vector cores" if aiv else "") if p)
        counts_zh = "、".join(p for p in (f"{aic:g} 个 AI Core" if aic else "",
                                         f"{aiv:g} 个 Vector Core" if aiv else "") if p)
        step = of_step(finding)
        summary = Text(
            f"{n:,.4g} kernels per step ({us(f.get('time_us'))}) run on fewer blocks than the chip has cores "
            f"({counts_en}); spread over every core they would take up to {us(finding.time_at_stake_us)} less per "
            f"step{step.en}.",
            f"每 step 有 {n:,.4g} 个算子（{us(f.get('time_us'))}）的 block 数少于芯片的核数（{counts_zh}）；"
            f"若铺满所有核，每 step 最多可少用 {us(finding.time_at_stake_us)}{step.zh}。",
        )
        return summary, _ADVICE


def _core_counts(ctx: RankContext) -> tuple[float | None, float | None]:
    """(AI cores, vector cores) of the rank: the profile's, else the catalog's (``None`` when unknown)."""
    infos = ctx.rank.data.device_infos if ctx.rank.data is not None else []
    aic = ctx.rank.chip.cores or next((i.ai_core_num for i in infos if i.ai_core_num), None) \
        or ctx.chip_value("ai_core_count")
    aiv = next((i.aiv_num for i in infos if i.aiv_num), None) or ctx.chip_value("vector_core_count")
    return (float(aic) if aic else None), (float(aiv) if aiv else None)


RULE = BlockDim()
