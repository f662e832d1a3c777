"""Small kernels dominated by launch overhead: short kernels the device waited to be launched.

Time at stake: count × gap — the kernels shorter than :data:`SMALL_KERNEL_US` per step times the
mean device idle time just before each (each gap capped at :data:`LAUNCH_GAP_CAP_US`: a longer wait
is the host doing something else, which the host-bound finding covers). Reported only when they are
dominated by it: the mean gap is at least their median run time. An upper bound: fused into fewer
kernels their launch gaps go, but the fused kernel's own launch remains.
"""

from __future__ import annotations

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rule import SMALL_KERNEL_US, Rule, material, of_step, us
from mfu_desktop.core.analysis.classify import KernelClass

#: A launch rarely costs the host more than this (µs): longer waits count only this much here (the rest is
#: the host doing something else: the host-bound finding).
LAUNCH_GAP_CAP_US = 100.0
#: Reported from this share of the step.
SMALL_KERNELS_SHARE = 0.01

_ADVICE = Text(
    "Launch fewer kernels: fuse the small ones (torch.compile; fused operators such as npu_rms_norm, "
    "npu_rotary_mul, npu_swiglu, fused Adam/AdamW), batch many small tensors into one call (torch._foreach_*, "
    "multi-tensor apply, flattened gradient buckets), or capture the step as a graph so launches cost no host "
    "time (Ascend: torch_npu aclgraph or TorchAir; NVIDIA: CUDA Graphs). On Ascend the task queue "
    "(TASK_QUEUE_ENABLE=2) hides part of the launch cost.",
    "减少 kernel 的数量：融合小算子（torch.compile；npu_rms_norm、npu_rotary_mul、npu_swiglu、融合 Adam/AdamW "
    "等融合算子），把大量小张量合并成一次调用（torch._foreach_*、multi-tensor apply、展平的梯度桶），或把 step "
    "捕获成图，使下发不再占用 host 时间（Ascend：torch_npu aclgraph 或 TorchAir；NVIDIA：CUDA Graphs）。Ascend 上开启"
    "任务队列（TASK_QUEUE_ENABLE=2）可隐藏部分下发开销。",
)


class SmallKernels(Rule):
    """Compute kernels shorter than :data:`SMALL_KERNEL_US` and the idle time before each."""

    id = "small-kernels"
    title = Text("Small kernels wait for their launch", "小算子在等待下发")

    def check(self, ctx: RankContext) -> Finding | None:
        compute = ctx.of_class(KernelClass.CUBE, KernelClass.VECTOR, KernelClass.MIX, KernelClass.UNKNOWN)
        idle = ctx.idle_us
        small = compute & (ctx.durations < SMALL_KERNEL_US) & np.isfinite(idle)
        if not small.any():
            return None
        gap = np.where(small, np.minimum(np.nan_to_num(idle), LAUNCH_GAP_CAP_US), 0.0)
        total = ctx.per_step(float(gap.sum()))
        mean_gap, median_run = float(gap[small].mean()), float(np.median(ctx.durations[small]))
        if mean_gap < median_run or not material(ctx, total, SMALL_KERNELS_SHARE):
            return None
        evidence = ctx.kernel_evidence(small, gap, figures={"mean_gap_us": np.where(small, gap, np.nan)})
        facts = {"kernels_n": ctx.per_step(float(small.sum())), "mean_gap_us": mean_gap,
                 "median_kernel_us": median_run}
        waited = np.flatnonzero(small & (gap > 0))
        return self.finding(ctx, total, Confidence.MEDIUM, evidence=evidence, rows=waited, facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        n = float(f.get("kernels_n") or 0.0)
        step = of_step(finding)
        summary = Text(
            f"{n:,.4g} kernels per step run shorter than {us(SMALL_KERNEL_US)} (median {us(f.get('median_kernel_us'))})"
            f" and the device waits {us(f.get('mean_gap_us'))} on average before each: {us(finding.time_at_stake_us)} "
            f"of launch gaps per step{step.en}.",
            f"每 step 有 {n:,.4g} 个运行时间短于 {us(SMALL_KERNEL_US)} 的算子"
            f"（中位数 {us(f.get('median_kernel_us'))}），"
            f"设备在每个之前平均等待 {us(f.get('mean_gap_us'))}：每 step 下发间隙共 "
            f"{us(finding.time_at_stake_us)}{step.zh}。",
        )
        return summary, _ADVICE


RULE = SmallKernels()
