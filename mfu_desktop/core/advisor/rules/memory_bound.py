"""Memory-bound kernels far below the HBM bandwidth.

A kernel is judged here when the roofline calls it memory-bound (mfu.md §6), it is bandwidth work
by nature — element-wise, a norm, a copy, a softmax or loss, an optimizer update, a reduction or
gather (:data:`BANDWIDTH_FAMILIES`) — and it moves its minimum bytes at under :data:`LOW_BW_UTIL`
of the HBM bandwidth. Matmuls, attention and convolutions are not judged here even when their
intensity puts them under the ridge: a small one is limited by its size (too little work to fill
the chip), not by how it streams memory. Kernels shorter than 20 µs are left to the small-kernel
finding (their launch, not their bytes, limits them).

Time at stake, per kernel: its lost time ``t − bytes / BW`` (measured − roofline-attainable). An
upper bound: no kernel moves its bytes faster than the HBM.
"""

from __future__ import annotations

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rule import SMALL_KERNEL_US, Rule, material, of_step, share, us
from mfu_desktop.core.analysis.classify import KernelClass

#: "Far below": under this share of the HBM bandwidth (the bandwidth bands' "low" edge).
LOW_BW_UTIL = 0.3
#: Families whose kernels are bandwidth work by nature (families.py).
BANDWIDTH_FAMILIES = ("element-wise", "norm", "memory copy", "softmax/loss", "optimizer", "reduce/gather")
#: Hardware-counted bytes this far above the minimum mean redundant traffic (strided or repeated reads).
EXTRA_TRAFFIC = 1.5

_ADVICE = Text(
    "These kernels move their bytes at under 30 % of the HBM bandwidth. Usual causes: strided or "
    "non-contiguous access (a transpose hidden in a view: make the tensor contiguous once, or use an operator "
    "that reads the layout), tensors whose last dimension is not a multiple of 32 bytes (the vector unit's "
    "block), too few blocks to keep every core busy (see the core-count finding), or an implementation bound "
    "by its vector or scalar pipeline — the fused vendor operators are faster (npu_rms_norm, npu_swiglu, "
    "npu_rotary_mul, fused optimizers; on NVIDIA, torch.compile or the fused Apex/Transformer Engine kernels).",
    "这些算子搬运数据的带宽不到 HBM 带宽的 30 %。常见原因：跨步或非连续访问（view 中隐藏了转置：一次性转为连续，"
    "或使用能直接读取该布局的算子）、最后一维不是 32 字节的倍数（vector 单元的数据块）、block 太少无法让每个核都"
    "忙起来（见核数未用满一条），或实现受限于 vector/scalar 流水——厂商的融合算子更快（npu_rms_norm、npu_swiglu、"
    "npu_rotary_mul、融合优化器；NVIDIA 上用 torch.compile 或 Apex/Transformer Engine 的融合 kernel）。",
)
_EXTRA = Text(
    " The hardware counters show them moving well over their minimum bytes: redundant traffic (re-reads, "
    "strided access) — fusing them with their neighbours removes round trips to HBM.",
    "硬件计数器显示它们搬运的数据远多于最小字节数：存在冗余访存（重复读取、跨步访问）——与相邻算子融合可减少 HBM 往返。",
)


class MemoryBoundLowBandwidth(Rule):
    """Memory-bound bandwidth work at under :data:`LOW_BW_UTIL` of HBM: its lost time."""

    id = "memory-bound-low-bw"
    title = Text("Memory-bound kernels far below HBM bandwidth", "访存受限的算子远低于 HBM 带宽")

    def check(self, ctx: RankContext) -> Finding | None:
        k = ctx.kernels
        if k.empty or "bound" not in k.columns or "bw_util" not in k.columns:
            return None
        bw = ctx.column("bw_util")
        lost = ctx.column("lost_us")
        nature = np.isin(ctx.families, BANDWIDTH_FAMILIES)
        rows = (ctx.of_class(KernelClass.CUBE, KernelClass.VECTOR, KernelClass.MIX, KernelClass.UNKNOWN)
                & ctx.category_is("bound", "memory") & nature & (bw > 0) & (bw < LOW_BW_UTIL)
                & (lost > 0) & (ctx.durations >= SMALL_KERNEL_US))
        if not rows.any():
            return None
        stake = np.where(rows, lost, 0.0)
        total = ctx.per_step(float(stake.sum()))
        if not material(ctx, total):
            return None
        figures = {"bw_util": bw}
        extra = _traffic_ratio(ctx)
        if extra is not None:
            figures["hw_bytes_ratio"] = extra
        evidence = ctx.kernel_evidence(rows, stake, figures=figures)
        weights = ctx.durations[rows]
        facts = {**ctx.kernel_facts(rows),
                 "bw_util": float(np.average(bw[rows], weights=weights)) if weights.sum() > 0 else None}
        if extra is not None and np.isfinite(extra[rows]).any():
            ok = rows & np.isfinite(extra)
            facts["hw_bytes_ratio"] = float(np.average(extra[ok], weights=ctx.durations[ok] + 1e-12))
        return self.finding(ctx, total, Confidence.MEDIUM, evidence=evidence, rows=np.flatnonzero(rows), facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        n = float(f.get("kernels_n") or 0.0)
        step = of_step(finding)
        summary = Text(
            f"{n:,.4g} memory-bound kernels per step ({us(f.get('time_us'))}) reach {share(f.get('bw_util'))} of the "
            f"HBM bandwidth on average; at full bandwidth they would take {us(finding.time_at_stake_us)} less per "
            f"step{step.en}.",
            f"每 step 有 {n:,.4g} 个访存受限的算子（{us(f.get('time_us'))}），"
            f"平均只达到 HBM 带宽的 {share(f.get('bw_util'))}；"
            f"跑满带宽时每 step 可少用 {us(finding.time_at_stake_us)}{step.zh}。",
        )
        ratio = f.get("hw_bytes_ratio")
        if isinstance(ratio, float) and ratio >= EXTRA_TRAFFIC:
            return summary, Text(_ADVICE.en + _EXTRA.en, _ADVICE.zh + _EXTRA.zh)
        return summary, _ADVICE


def _traffic_ratio(ctx: RankContext) -> np.ndarray | None:
    """Hardware-counted bytes / minimum bytes per kernel, ``None`` without memory counters."""
    if "hw_bytes" not in ctx.kernels.columns:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        return ctx.column("hw_bytes") / ctx.column("bytes")


RULE = MemoryBoundLowBandwidth()
