"""Matmul shapes not aligned to the cube / tensor-core tile, and what it costs in this profile.

Aligned means every one of M, N, K is a multiple of 16 (the 16×16×16 cube fractal) and, from 1024
up, of 256 (the tiles large matmuls are cut into): the one definition of
:func:`~mfu_desktop.core.formulas.mfu.unaligned_dims`, shared with the kernel hints.

Time at stake, per unaligned compute-bound kernel: ``t − t_ideal / MFU_ref`` (≥ 0), where
``MFU_ref`` is the MFU that the same operator type reaches, in the same dtype, on its aligned
shapes in this profile (Σ ideal time / Σ time over them) — i.e. ``t · (1 − MFU / MFU_ref)``. A
type with no aligned kernel in the profile has no reference and is not judged. Memory-bound
matmuls (a small M) are the bandwidth's, not the tile's: they are left to the bandwidth rule.
"""

from __future__ import annotations

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rule import Rule, material, of_step, share, us
from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.analysis.grouping import codes_of, group_ids, lookup
from mfu_desktop.core.formulas.mfu import CUBE_ALIGN, TILE_ALIGN, unaligned_dims

_ADVICE = Text(
    f"Pad the dimensions that miss the tile: model dims (hidden size, FFN size, vocabulary, heads × head_dim) to "
    f"multiples of {CUBE_ALIGN}, large ones to multiples of {TILE_ALIGN} (a vocabulary of 32001 → 32256 with "
    f"padded embedding rows); token counts (M) from packing or MoE routing to multiples of {CUBE_ALIGN} (bucket "
    "sequence lengths, pad expert capacity). On Ascend a matmul with an unaligned inner axis also runs as a "
    "MIX_AIC kernel with format conversions around it.",
    f"补齐未对齐 tile 的维度：模型维度（hidden、FFN、词表、heads × head_dim）补齐到 {CUBE_ALIGN} 的倍数，"
    f"较大的维度补齐到 {TILE_ALIGN} 的倍数（词表 32001 → 32256，embedding 补零行）；来自序列拼接或 MoE 路由的 "
    f"token 数（M）补齐到 {CUBE_ALIGN} 的倍数（按长度分桶、补齐专家容量）。在 Ascend 上，内轴未对齐的 matmul 还会以 "
    "MIX_AIC 算子运行，并在前后插入格式转换。",
)


class MatmulAlignment(Rule):
    """Unaligned counted matmuls against the aligned ones of the same type and dtype."""

    id = "matmul-alignment"
    title = Text("Matmul shapes miss the cube tile", "矩阵乘的 shape 未对齐 cube tile")

    def check(self, ctx: RankContext) -> Finding | None:
        k = ctx.kernels
        if k.empty or "shape_group" not in k.columns:
            return None
        group, _ = ctx.estimates
        dims = ctx.group_dims()
        texts = [_unaligned(d) for d in dims]
        judged = np.array([t is not None for t in texts] + [False])
        unaligned = np.array([bool(t) for t in texts] + [False])
        slot = np.where(group < 0, len(texts), group)
        rows = (ctx.category_is("status", Status.COUNTED.value) & (ctx.families == "matmul") & judged[slot]
                & ~ctx.category_is("bound", "memory"))
        mfu = _mfu(ctx)
        rows &= np.isfinite(mfu) & (ctx.durations > 0)
        bad = rows & unaligned[slot]
        if not bad.any():
            return None
        reference = _reference(ctx, rows & ~unaligned[slot], mfu)
        with np.errstate(divide="ignore", invalid="ignore"):
            stake = np.where(bad & (reference > 0), ctx.durations * np.clip(1.0 - mfu / reference, 0.0, None), 0.0)
        total = ctx.per_step(float(np.nansum(stake)))
        if not material(ctx, total):
            return None
        judged_rows = bad & (reference > 0)
        evidence = ctx.kernel_evidence(judged_rows, stake, figures={"mfu": mfu, "mfu_ref": reference})
        for e in evidence:
            e.figures["unaligned"] = texts[int(group[e.rows[0]])] or ""
        facts = ctx.kernel_facts(judged_rows)
        return self.finding(ctx, total, Confidence.MEDIUM, evidence=evidence,
                            rows=np.flatnonzero(judged_rows), facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        n = float(finding.facts.get("kernels_n") or 0.0)
        worst = finding.evidence[0] if finding.evidence else None
        step = of_step(finding)
        detail_en = detail_zh = ""
        if worst is not None:
            mfu, ref = share(worst.figures.get("mfu")), share(worst.figures.get("mfu_ref"))
            detail_en = (f" Largest: {worst.label.en} ({worst.figures.get('unaligned')}) at MFU {mfu} where its "
                         f"aligned shapes reach {ref}.")
            detail_zh = (f"最大的一项：{worst.label.en}（{worst.figures.get('unaligned')}）MFU 为 {mfu}，"
                         f"而同类型对齐的 shape 达到 {ref}。")
        summary = Text(
            f"{n:,.4g} compute-bound matmuls per step have dims that miss the cube tile and run below the MFU their "
            f"type reaches on aligned shapes in this profile: {us(finding.time_at_stake_us)} per step{step.en}."
            + detail_en,
            f"每 step 有 {n:,.4g} 个计算受限的矩阵乘维度未对齐 cube tile，其 MFU 低于同类型对齐 shape 在本 profile 中的"
            f"水平：每 step {us(finding.time_at_stake_us)}{step.zh}。" + detail_zh,
        )
        return summary, _ADVICE


def _unaligned(dims: dict[str, object]) -> str | None:
    """``"N=8, K=1000"`` for an unaligned matmul, ``""`` for an aligned one, ``None`` when it has no M/N/K."""
    named = dict(dims)
    if "T" in named and "M" not in named:  # GroupedMatmul: T tokens play M
        named["M"] = named["T"]
    if not all(isinstance(named.get(d), (int, np.integer)) and not isinstance(named.get(d), bool)
               for d in ("M", "N", "K")):
        return None
    fractal, tile = unaligned_dims({d: int(named[d]) for d in ("M", "N", "K")})
    return ", ".join(fractal + tile)


def _mfu(ctx: RankContext) -> np.ndarray:
    """Each kernel's MFU (the highest of the range when the chip is not confirmed: ratios are the same)."""
    mfu = ctx.column("mfu")
    return mfu if ctx.rank.chip.confirmed else ctx.column("mfu_hi")


def _reference(ctx: RankContext, aligned: np.ndarray, mfu: np.ndarray) -> np.ndarray:
    """Per kernel: the MFU of the aligned kernels of its (type, dtype), Σ MFU·t / Σ t (NaN when none)."""
    dtype = np.asarray(codes_of(ctx.kernels["dtype"])[0], dtype=np.int64)
    ids, first = group_ids([ctx.type_codes, dtype])
    g = len(first)
    t = ctx.durations
    num = np.bincount(ids[aligned], weights=(mfu * t)[aligned], minlength=g)
    den = np.bincount(ids[aligned], weights=t[aligned], minlength=g)
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = np.where(den > 0, num / den, np.nan)
    return lookup(np.append(ref, np.nan), ids)


RULE = MatmulAlignment()
