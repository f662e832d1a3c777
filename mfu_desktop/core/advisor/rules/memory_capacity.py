"""Memory peak near the chip's capacity: a risk and a limit, not lost time.

From the rank's memory figures (core/analysis/memory.py): the footprint — the process's reserved
peak when recorded, else the allocator's reserved — against the chip's ``memory_gb``. Reported
from :data:`NEAR_CAPACITY` of it.

Time at stake: none (0). Near capacity the allocator retries and fragments, nothing larger fits
(a bigger micro-batch, less recomputation), and a longer sequence runs out of memory; the time
this costs is not in the profile.
"""

from __future__ import annotations

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Evidence, EvidenceKind, Finding, Text
from mfu_desktop.core.advisor.rule import Rule, share
from mfu_desktop.core.numbers import finite_number

#: Reported from this share of the chip's memory.
NEAR_CAPACITY = 0.90
#: Live allocations at the peak listed as evidence.
TOP_LIVE = 5

_ADVICE = Text(
    "Free memory before it runs out: recompute activations (selective recomputation of attention and MLP "
    "activations), shard optimizer states and gradients (ZeRO-1/2, a distributed optimizer) or parameters "
    "(ZeRO-3/FSDP), offload optimizer states, lower the micro-batch; against fragmentation (reserved well above "
    "allocated) set PYTORCH_NPU_ALLOC_CONF=expandable_segments:True (Ascend; PYTORCH_CUDA_ALLOC_CONF on "
    "NVIDIA). The largest allocations live at the peak are listed.",
    "在显存耗尽之前释放显存：重计算激活（选择性重计算 attention 与 MLP 的激活）、切分优化器状态和梯度（ZeRO-1/2、"
    "分布式优化器）或参数（ZeRO-3/FSDP）、卸载优化器状态、减小 micro-batch；碎片化（reserved 远大于 allocated）时设置 "
    "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True（Ascend；NVIDIA 上为 PYTORCH_CUDA_ALLOC_CONF）。下面列出了峰值时"
    "存活的最大分配。",
)


class MemoryCapacity(Rule):
    """The rank's memory footprint at :data:`NEAR_CAPACITY` of the chip's memory or more."""

    id = "memory-capacity"
    title = Text("Memory peak near capacity", "显存峰值接近容量")

    def check(self, ctx: RankContext) -> Finding | None:
        memory = ctx.document.get("memory") or {}
        ratio = finite_number(memory.get("share"))
        if ratio is None or ratio < NEAR_CAPACITY:
            return None
        rank = ctx.rank.rank
        evidence = [Evidence(
            f"rank {rank}", Text(f"rank {rank}: {memory.get('footprint_basis') or 'footprint'}",
                                 f"rank {rank}：{memory.get('footprint_basis') or 'footprint'}"),
            EvidenceKind.RANK, None, None, None,
            {"footprint_mb": finite_number(memory.get("footprint_mb")),
             "capacity_gb": finite_number(memory.get("capacity_gb")), "share": ratio,
             "headroom_gb": finite_number(memory.get("headroom_gb"))})]
        for live in (memory.get("top_live") or [])[:TOP_LIVE]:
            name = str(live.get("name") or "?")
            evidence.append(Evidence(f"rank {rank}: {name} {live.get('mb')}", Text(f"rank {rank}: {name}"),
                                     EvidenceKind.RANK, None, None, None, {"mb": finite_number(live.get("mb"))}))
        confirmed = "not confirmed" not in str(memory.get("capacity_source") or "")
        facts = {"share": ratio, "footprint_mb": finite_number(memory.get("footprint_mb")),
                 "capacity_gb": finite_number(memory.get("capacity_gb")),
                 "headroom_gb": finite_number(memory.get("headroom_gb")),
                 "basis": str(memory.get("footprint_basis") or "")}
        return self.finding(ctx, 0.0, Confidence.HIGH if confirmed else Confidence.MEDIUM, evidence=evidence,
                            facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        mb, gb, free = f.get("footprint_mb"), f.get("capacity_gb"), f.get("headroom_gb")
        summary = Text(
            f"The memory footprint ({f.get('basis')}) is {mb:,.0f} MB = {share(f.get('share'))} of the chip's "
            f"{gb:g} GB ({free:.1f} GB free). No time is at stake in the profile: it is a risk (out of memory, "
            "allocator retries) and a limit (no larger micro-batch).",
            f"显存占用（{f.get('basis')}）为 {mb:,.0f} MB，"
            f"占芯片 {gb:g} GB 的 {share(f.get('share'))}（剩余 {free:.1f} GB）。"
            "profile 中没有可节省的时间：这是风险（显存不足、分配器重试）也是限制（无法增大 micro-batch）。",
        ) if isinstance(mb, float) and isinstance(gb, float) and isinstance(free, float) else Text(
            f"The memory footprint is {share(f.get('share'))} of the chip's memory.",
            f"显存占用为芯片显存的 {share(f.get('share'))}。")
        return summary, _ADVICE


RULE = MemoryCapacity()
