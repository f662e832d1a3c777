"""FlashAttention computed in full where the shapes say causal: an S×S mask with sparse_mode 0.

A FlashAttention kernel (Ascend FlashAttentionScore / Grad) that receives an explicit
``atten_mask`` of S_q × S_kv with S_q = S_kv — a self-attention mask — and runs sparse_mode 0
computes every score and masks elementwise; given the 2048 × 2048 compressed causal mask with
sparse_mode 2 (3 when the diagonal is at the bottom right) it skips the masked blocks.

Time at stake, per kernel: ``t · (1 − (S + 1) / (2S))`` — the causal share of the work
``S(S+1)/2`` over the full ``S²`` (mfu.md §3.2), the rest saved. An upper bound that holds only if
the mask is causal: the profile records the mask's shape, not its values (confidence medium).
"""

from __future__ import annotations

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rule import Rule, material, of_step, us
from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.formulas.shapes import ShapeError, parse_dims

_ADVICE = Text(
    "If the mask is causal (a decoder's), pass npu_fusion_attention the 2048 × 2048 compressed causal mask with "
    "sparse_mode=2 (left-up causal; 3 when the diagonal sits at the bottom right, S_q ≠ S_kv) instead of the "
    "S × S mask: the kernel then skips the masked-out half and no longer reads an S × S mask from HBM "
    "(MindSpeed/Megatron: a causal attention mask type with the fused attention). A sliding window is "
    "sparse_mode 4 with pre_tokens/next_tokens. If the mask is not causal (padding, document masks), this "
    "finding does not apply.",
    "如果 mask 是因果 mask（decoder 的），请给 npu_fusion_attention 传入 2048 × 2048 的压缩因果 mask 并设置 "
    "sparse_mode=2（左上因果；对角线在右下、S_q ≠ S_kv 时用 3），而不是 S × S 的 mask：算子会跳过被屏蔽的一半，"
    "也不再从 HBM 读取 S × S 的 mask（MindSpeed/Megatron：融合注意力配合因果 mask 类型）。滑动窗口用 sparse_mode 4 "
    "并设置 pre_tokens/next_tokens。如果 mask 不是因果的（padding、文档 mask），本条不适用。",
)


class FaFullMask(Rule):
    """FlashAttention kernels with an S×S atten_mask (S_q = S_kv) whose sparse mode was read as 0 from it."""

    id = "fa-full-mask"
    title = Text("FlashAttention computes the masked half", "FlashAttention 计算了被 mask 屏蔽的一半")

    def check(self, ctx: RankContext) -> Finding | None:
        k = ctx.kernels
        if k.empty or "shape_group" not in k.columns:
            return None
        group, _ = ctx.estimates
        seq = np.array([_full_square(d) for d in ctx.group_dims()] + [0], dtype=np.float64)
        s = seq[np.where(group < 0, len(seq) - 1, group)]
        rows = (s > 1) & ctx.category_is("status", Status.COUNTED.value)
        if not rows.any():
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            saved = np.where(rows, 1.0 - (s + 1.0) / (2.0 * s), 0.0)
        stake = ctx.durations * saved
        total = ctx.per_step(float(stake.sum()))
        if not material(ctx, total):
            return None
        evidence = ctx.kernel_evidence(rows, stake, figures={"seq": s, "mfu": ctx.column("mfu")})
        facts = {**ctx.kernel_facts(rows), "seq": float(np.max(s[rows]))}
        return self.finding(ctx, total, Confidence.MEDIUM, evidence=evidence, rows=np.flatnonzero(rows), facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        n, seq = float(f.get("kernels_n") or 0.0), int(f.get("seq") or 0)
        step = of_step(finding)
        summary = Text(
            f"{n:,.4g} FlashAttention kernels per step ({us(f.get('time_us'))}) get an explicit {seq} × {seq} "
            f"atten_mask and run sparse_mode 0: every score is computed. If the mask is causal, half of the work is "
            f"masked away: up to {us(finding.time_at_stake_us)} per step{step.en}.",
            f"每 step 有 {n:,.4g} 个 FlashAttention 算子（{us(f.get('time_us'))}）传入了显式的 {seq} × {seq} "
            f"atten_mask 并以 sparse_mode 0 运行：所有分数都被计算。若该 mask 是因果 mask，一半的计算被屏蔽掉：每 step "
            f"最多 {us(finding.time_at_stake_us)}{step.zh}。",
        )
        return summary, _ADVICE


def _full_square(dims: dict[str, object]) -> int:
    """S when a FlashAttention group read sparse_mode 0 from an S × S atten_mask with S_q = S_kv = S, else 0."""
    if dims.get("sparse_mode") != 0 or dims.get("sparse_mode_from") != "atten_mask" or dims.get("layout") == "TND":
        return 0
    s_q, s_kv = dims.get("S_q"), dims.get("S_kv")
    try:
        mask = parse_dims(str(dims.get("atten_mask") or ""))
    except ShapeError:  # no mask, or an unreadable one: no evidence
        return 0
    if not isinstance(s_q, int) or s_q != s_kv or len(mask) < 2 or tuple(mask[-2:]) != (s_q, s_kv):
        return 0
    return s_q


RULE = FaFullMask()
