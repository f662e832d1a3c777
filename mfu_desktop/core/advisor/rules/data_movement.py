"""Transposes, format conversions, copies and casts: kernels that only move or re-type data.

The kernels of the ``memory copy`` family (Transpose, TransData, TensorMove, contiguous, copy_,
Memcpy/Memset, concatenation and slicing: families.py) and the casts (``Cast``, ``aten::_to_copy``).

Time at stake: their whole time per step. An upper bound: each could be avoided (a layout the
consumer reads directly, one dtype throughout, an in-place write) — some will remain.
"""

from __future__ import annotations

import re

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rule import Rule, for_vendor, material, of_step, us
from mfu_desktop.core.analysis.classify import KernelClass

#: Reported from this share of the step: a few per cent of copies and casts is the normal price of a model.
DATA_MOVEMENT_SHARE = 0.05
#: Casts by type name (Ascend Cast; ATen's dtype conversions).
CAST = re.compile(r"Cast|_to_copy|aten::to\b")

_ADVICE = Text(
    "Transposes and format conversions ({formats}): let the consumer read the layout (matmuls take transposed "
    "operands: NT/TN layouts){keep_format}. Casts: keep one dtype through the model (autocast regions that "
    "flip dtypes back and forth, FP32 master weights cast every micro-batch, a loss computed in FP32), or fuse "
    "the cast into its producer. Copies ({copies}): avoid .contiguous() after a view, preallocate and write in "
    "place, let the consumer take a list instead of a concatenation. Convolution nets: torch.channels_last, so the "
    "library needs no NCHW ↔ NHWC transposes around each convolution.",
    "转置与格式转换（{formats}）：让下游直接读取该布局（matmul 支持转置输入：NT/TN 布局）{keep_format}。类型转换："
    "整个模型保持同一种数据类型（autocast 区域来回切换类型、FP32 主权重每个 micro-batch 都要转换、loss 用 FP32 计算），"
    "或把转换融合进上游算子。拷贝（{copies}）：避免在 view 之后调用 .contiguous()，预先分配并原地写入，"
    "让下游接收列表而不是拼接后的张量。卷积网络：使用 torch.channels_last，库就不必在每个卷积前后做 NCHW ↔ NHWC 转置。",
)
#: The words of each vendor's kernels and settings in the advice.
_ASCEND_WORDS = {"formats": Text("Transpose, TransData between ND and NZ", "Transpose、ND 与 NZ 之间的 TransData"),
                 "keep_format": Text(", keep tensors in one format (torch_npu: torch.npu.config.allow_internal_format)",
                                     "，张量保持同一种格式（torch_npu：torch.npu.config.allow_internal_format）"),
                 "copies": Text("contiguous, clone, TensorMove, cat/split", "contiguous、clone、TensorMove、cat/split")}
_GPU_WORDS = {"formats": Text("transpose and permute kernels, NCHW ↔ NHWC conversions",
                              "transpose 与 permute kernel、NCHW ↔ NHWC 转换"),
              "keep_format": Text("", ""),
              "copies": Text("contiguous, clone, copy_, Memcpy DtoD, cat/split",
                             "contiguous、clone、copy_、Memcpy DtoD、cat/split")}


def advice_for(finding: Finding) -> Text:
    """The advice in the words of the finding's vendor (Ascend formats and settings, or a GPU's kernels)."""
    words = {k: for_vendor(finding, a, _GPU_WORDS[k]) for k, a in _ASCEND_WORDS.items()}
    return Text(_ADVICE.en.format(**{k: w.en for k, w in words.items()}),
                _ADVICE.zh.format(**{k: w.zh for k, w in words.items()}))


class DataMovement(Rule):
    """The memory-copy family and casts, when they take a sizeable share of the step."""

    id = "data-movement"
    title = Text("Transposes, copies and casts take a large share", "转置、拷贝和类型转换占比过高")

    def check(self, ctx: RankContext) -> Finding | None:
        if ctx.kernels.empty:
            return None
        moved = (ctx.families == "memory copy") | ctx.types_matching(lambda t: CAST.search(t) is not None)
        rows = moved & ~ctx.of_class(KernelClass.COMM, KernelClass.AICPU)
        if not rows.any():
            return None
        stake = np.where(rows, ctx.durations, 0.0)
        total = ctx.per_step(float(stake.sum()))
        if not ctx.step_us or total < DATA_MOVEMENT_SHARE * ctx.step_us or not material(ctx, total):
            return None
        casts = rows & ctx.types_matching(lambda t: CAST.search(t) is not None)
        evidence = ctx.kernel_evidence(rows, stake)
        facts = {"kernels_n": ctx.per_step(float(rows.sum())), "casts_us": ctx.per_step(float(stake[casts].sum()))}
        return self.finding(ctx, total, Confidence.MEDIUM, evidence=evidence, rows=np.flatnonzero(rows), facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        n, casts = float(f.get("kernels_n") or 0.0), float(f.get("casts_us") or 0.0)
        step = of_step(finding)
        types = ", ".join(dict.fromkeys(e.label.en.split(" [")[0] for e in finding.evidence[:5]))
        summary = Text(
            f"{n:,.4g} kernels per step only move or re-type data: {us(finding.time_at_stake_us)}{step.en}, of which "
            f"casts {us(casts)}. Largest: {types}.",
            f"每 step 有 {n:,.4g} 个只搬运数据或转换类型的算子：{us(finding.time_at_stake_us)}{step.zh}，其中类型转换 "
            f"{us(casts)}。最大的几项：{types}。",
        )
        return summary, advice_for(finding)


RULE = DataMovement()
