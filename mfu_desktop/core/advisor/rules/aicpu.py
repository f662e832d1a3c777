"""AI CPU fallback: operators that run on the AI CPU instead of the AI Core.

Time at stake: the AI CPU kernels' own time per step — fixed, they would run on the AI Core in
a fraction of it (an upper bound: the replacement kernel's time is not subtracted).
"""

from __future__ import annotations

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rule import Rule, material, of_step, us
from mfu_desktop.core.analysis.classify import KernelClass

#: AI CPU kernels are reported from this share of the step: they are almost always a fixable defect
#: (a dtype or a dynamic shape) and often stall the stream around them.
AICPU_SHARE = 0.001

_ADVICE = Text(
    "These operators fell back to the AI CPU, a slow scalar processor that also holds up the stream. "
    "Usual causes: an input dtype the AI Core kernel does not take (int64 or float64: cast to int32 or "
    "float32 first), a data-dependent output shape (NonZero, Unique, masked_select, boolean indexing: "
    "keep shapes static, use torch.where or a fixed-size top-k), or an operator with no AI Core kernel in "
    "this CANN version (upgrade CANN/torch_npu, or use the fused aclnn operator). Check each type against "
    "the operator list of your CANN version.",
    "这些算子回退到 AI CPU 执行：AI CPU 是较慢的标量处理器，还会阻塞其所在的流。常见原因：输入数据类型不被 "
    "AI Core 算子支持（int64 或 float64：先转为 int32 或 float32）；输出 shape 依赖数据（NonZero、Unique、"
    "masked_select、布尔索引：保持静态 shape，改用 torch.where 或固定大小的 top-k）；或当前 CANN 版本没有该算子的 "
    "AI Core 实现（升级 CANN/torch_npu，或改用融合的 aclnn 算子）。请对照所用 CANN 版本的算子清单逐一检查。",
)


class AicpuFallback(Rule):
    """Kernels whose class is AI CPU."""

    id = "aicpu-fallback"
    title = Text("Operators fall back to the AI CPU", "算子回退到 AI CPU 执行")

    def check(self, ctx: RankContext) -> Finding | None:
        mask = ctx.of_class(KernelClass.AICPU)
        if not mask.any():
            return None
        stake = ctx.durations * mask
        total = ctx.per_step(float(stake.sum()))
        if not material(ctx, total, AICPU_SHARE):
            return None
        evidence = ctx.kernel_evidence(mask, stake)
        return self.finding(ctx, total, Confidence.HIGH, evidence=evidence, rows=mask.nonzero()[0],
                            facts={"calls_n": ctx.per_step(float(mask.sum())), "types_n": float(len(evidence))})

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        calls = finding.facts.get("calls_n") or 0.0
        types = ", ".join(dict.fromkeys(e.label.en.split(" [")[0] for e in finding.evidence))
        step = of_step(finding)
        at_stake = us(finding.time_at_stake_us)
        summary = Text(f"{calls:,.4g} AI CPU kernels per step take {at_stake}{step.en}: {types}.",
                       f"每 step 有 {calls:,.4g} 个 AI CPU 算子，耗时 {at_stake}{step.zh}：{types}。")
        return summary, _ADVICE


RULE = AicpuFallback()
