"""Host-bound free time: the device sits idle — neither computing nor communicating — for part of the step.

Time at stake: the free time per step — the step trace's ``Free`` (the profiler's own figure), or
without a step trace the device idle gaps between the kernels. An upper bound: a device that is
never idle cannot be made faster this way.

The gaps between consecutive kernels say where it goes: many short gaps (the host launches
operators slower than the device runs them: dispatch-bound) or a few long ones (the host stopped:
a synchronisation, the data loader, CPU work between steps).
"""

from __future__ import annotations

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Evidence, EvidenceKind, Finding, Text
from mfu_desktop.core.advisor.rule import Rule, material, of_step, us

#: Free time is reported from this share of the step: a few per cent of idle device is normal.
FREE_SHARE = 0.05
#: A gap between kernels this long (µs) is the host stopping, not a launch: a sync, the data loader.
LONG_GAP_US = 1000.0
#: Kernels that waited at least this long (µs) for their launch are the ones highlighted.
WAITED_US = 10.0
#: Without a step trace, gaps shorter than this (µs) are the device's own launch latency between
#: back-to-back kernels, not a wait for the host: they do not count as free time.
DEVICE_LATENCY_US = 5.0

_DISPATCH = Text(
    "Many short gaps: the host launches operators more slowly than the device runs them (dispatch-bound). "
    "Launch fewer, larger operators (fusion, torch.compile, fused optimizers), capture graphs (Ascend: "
    "torch_npu aclgraph or TorchAir; NVIDIA: CUDA Graphs), enable the task queue and bind the process to CPU "
    "cores (Ascend: TASK_QUEUE_ENABLE=2, CPU_AFFINITY_CONF=1), or give each operator more work (a larger "
    "micro-batch).",
    "大量短间隙：host 下发算子的速度跟不上设备执行的速度（下发瓶颈）。减少算子数量、增大单个算子（算子融合、"
    "torch.compile、融合优化器），使用图模式（Ascend：torch_npu aclgraph 或 TorchAir；NVIDIA：CUDA Graphs），"
    "开启任务队列并绑核（Ascend：TASK_QUEUE_ENABLE=2、CPU_AFFINITY_CONF=1），"
    "或让每个算子做更多的工作（增大 micro-batch）。",
)
_STALLS = Text(
    "A few long gaps: the host stopped feeding the device. Look at what the host ran just before the kernels "
    "listed (they start right after the longest gaps): a synchronisation (tensor.item(), .cpu(), printing a "
    "device tensor, a data-dependent shape such as NonZero), the data loader (more workers, pin_memory, "
    "prefetching), logging or checkpointing, CPU work between steps.",
    "少量长间隙：host 停止了向设备下发任务。查看下列算子（它们紧跟在最长的间隙之后）之前 host 在做什么：同步操作"
    "（tensor.item()、.cpu()、打印设备上的张量、NonZero 这类依赖数据的 shape）、数据加载（增加 workers、"
    "pin_memory、预取）、日志或保存 checkpoint、step 之间的 CPU 计算。",
)
_BETWEEN = Text(
    "The idle time sits before the step's first kernel: the host's work between steps (data loading, the "
    "optimizer on the host, logging) — overlap it with the device (prefetch the next batch, asynchronous "
    "checkpoints).",
    "空闲时间集中在 step 的第一个算子之前：即 step 之间 host 的工作（数据加载、host 上的优化器、日志）——"
    "让它与设备执行重叠（预取下一个 batch、异步保存 checkpoint）。",
)


class HostBound(Rule):
    """The step trace's free time (else the idle gaps between kernels), split by gap length."""

    id = "host-bound"
    title = Text("The device waits for the host (free time)", "设备在等待 host（空闲时间）")

    def check(self, ctx: RankContext) -> Finding | None:
        idle = ctx.idle_us
        gaps = np.where(np.isfinite(idle), idle, 0.0)
        free = ctx.breakdown("free")
        source = "step trace"
        if free is None:
            gaps = np.where(gaps >= DEVICE_LATENCY_US, gaps, 0.0)
            free, source = (ctx.per_step(float(gaps.sum())) if len(ctx.kernels) else None), "kernel gaps"
        within = ctx.per_step(float(gaps.sum()))
        if free is None or not ctx.step_us or free < FREE_SHARE * ctx.step_us or not material(ctx, free):
            return None
        long = gaps >= LONG_GAP_US
        short = (gaps > 0) & ~long
        evidence = [
            _step_row("short-gaps", Text(f"gaps shorter than {us(LONG_GAP_US)}", f"短于 {us(LONG_GAP_US)} 的间隙"),
                      ctx.per_step(float(short.sum())), ctx.per_step(float(gaps[short].sum()))),
            _step_row("long-gaps", Text(f"gaps of {us(LONG_GAP_US)} or more", f"不短于 {us(LONG_GAP_US)} 的间隙"),
                      ctx.per_step(float(long.sum())), ctx.per_step(float(gaps[long].sum()))),
        ]
        between = max(free - within, 0.0) if source == "step trace" else 0.0
        evidence.append(_step_row("between-steps", Text("before the step's first kernel and between steps",
                                                        "step 第一个算子之前及 step 之间"), None, between))
        evidence += ctx.kernel_evidence(long, gaps * long)
        waited = np.flatnonzero(gaps >= WAITED_US)
        median = float(np.median(gaps[gaps > 0])) if (gaps > 0).any() else 0.0
        facts = {"free_us": free, "source": source, "short_gaps_us": evidence[0].time_us,
                 "long_gaps_us": evidence[1].time_us, "between_us": between, "median_gap_us": median}
        confidence = Confidence.HIGH if source == "step trace" else Confidence.MEDIUM
        return self.finding(ctx, free, confidence, evidence=evidence, rows=waited, facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        step = of_step(finding)
        short, long, between = (float(f.get(k) or 0.0) for k in ("short_gaps_us", "long_gaps_us", "between_us"))
        src_en = "the step trace's Free" if f.get("source") == "step trace" else "idle gaps between kernels"
        src_zh = "step trace 的 Free" if f.get("source") == "step trace" else "算子之间的空闲间隙"
        summary = Text(
            f"The device is idle {us(finding.time_at_stake_us)} per step{step.en} ({src_en}): short gaps between "
            f"kernels add up to {us(short)}, gaps of {us(LONG_GAP_US)} or more to {us(long)}, the time before the "
            f"step's first kernel to {us(between)}; median gap {us(f.get('median_gap_us'))}.",
            f"设备每 step 空闲 {us(finding.time_at_stake_us)}{step.zh}（{src_zh}）：算子之间的短间隙共 {us(short)}，"
            f"不短于 {us(LONG_GAP_US)} 的间隙共 {us(long)}，step 第一个算子之前共 {us(between)}；间隙中位数 "
            f"{us(f.get('median_gap_us'))}。",
        )
        parts = sorted(((short, _DISPATCH), (long, _STALLS), (between, _BETWEEN)), key=lambda p: -p[0])
        advice = [text for value, text in parts if value > 0.1 * max(finding.time_at_stake_us, 1e-9)] or [_DISPATCH]
        return summary, Text(" ".join(t.en for t in advice), "".join(t.zh for t in advice))


def _step_row(key: str, label: Text, count: float | None, time_us: float) -> Evidence:
    """A part of the free time as an evidence row (its time is its share of the time at stake)."""
    return Evidence(key, label, EvidenceKind.STEP, count, time_us, time_us)


RULE = HostBound()
