"""FP32 matmuls (and attention, convolutions) that could run in BF16, or with HF32/TF32.

Time at stake, per kernel: ``t · (1 − t*_BF16 / t*_FP32)`` — its measured time scaled by the ratio
of its roofline-attainable times at BF16 and at FP32 (the same roofline efficiency):
``t*_FP32 = max(FLOPs / P_FP32, bytes / BW)`` and ``t*_BF16 = max(FLOPs / P_BF16, (bytes / 2) / BW)``
(operands in 2 bytes instead of 4). A compute-bound kernel on an Ascend A2/A3 cube (FP32 at ¼ of
the BF16 rate) saves ¾ of its time, a memory-bound one ½. An upper bound: the BF16 peak is the
fastest of the alternatives (HF32/TF32 sit between).
"""

from __future__ import annotations

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rule import Rule, material, of_step, us
from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.analysis.kernel_roofline import chip_bandwidth
from mfu_desktop.core.chips.dtypes import ComputeDtype

_ADVICE = Text(
    "Run them in BF16 (torch.autocast, or the model in BF16 with FP32 master weights in the optimizer), or keep "
    "FP32 tensors and let the matrix unit use its reduced-precision FP32 mode: HF32 on Ascend "
    "(torch.npu.matmul.allow_hf32 = True; convolutions: torch.npu.conv.allow_hf32), TF32 on NVIDIA "
    "(torch.backends.cuda.matmul.allow_tf32 = True or torch.set_float32_matmul_precision('high')). Keep FP32 "
    "only where the numerics need it (an MoE router, the loss): the time at stake assumes every listed kernel "
    "moves to BF16.",
    "改用 BF16 运行（torch.autocast，或模型用 BF16、优化器保留 FP32 主权重），或者保留 FP32 张量、让矩阵单元使用"
    "降精度的 FP32 模式：Ascend 的 HF32（torch.npu.matmul.allow_hf32 = True；卷积：torch.npu.conv.allow_hf32）、"
    "NVIDIA 的 TF32（torch.backends.cuda.matmul.allow_tf32 = True 或 torch.set_float32_matmul_precision('high')）。"
    "只在数值确实需要时保留 FP32（MoE 路由、loss）：涉及时间假设列出的算子全部改为 BF16。",
)


class Fp32Matmul(Rule):
    """Counted kernels whose compute dtype is FP32 (HF32/TF32 off)."""

    id = "fp32-matmul"
    title = Text("Matmuls run in FP32", "矩阵乘以 FP32 运行")

    def check(self, ctx: RankContext) -> Finding | None:
        k = ctx.kernels
        if k.empty or "dtype" not in k.columns:
            return None
        rows = ctx.category_is("status", Status.COUNTED.value) & ctx.category_is("dtype", ComputeDtype.FP32.value)
        ratio = ctx.peak_ratio(ComputeDtype.BF16, ComputeDtype.FP32)
        if not rows.any() or not ratio:
            return None
        faster = _bf16_fraction(ctx, ratio)
        stake = np.where(rows & np.isfinite(faster), ctx.durations * (1.0 - np.nan_to_num(faster, nan=1.0)), 0.0)
        stake = np.maximum(stake, 0.0)
        total = ctx.per_step(float(stake.sum()))
        if not material(ctx, total):
            return None
        evidence = ctx.kernel_evidence(rows, stake, figures={"mfu": ctx.column("mfu"), "bf16_fraction": faster})
        facts = {**ctx.kernel_facts(rows), "peak_ratio": ratio}
        return self.finding(ctx, total, Confidence.MEDIUM, evidence=evidence, rows=np.flatnonzero(rows), facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        n, time_us, ratio = float(f.get("kernels_n") or 0.0), f.get("time_us"), float(f.get("peak_ratio") or 0.0)
        step = of_step(finding)
        summary = Text(
            f"{n:,.4g} FP32 kernels per step take {us(time_us)} on a matrix unit whose BF16 peak is {ratio:.3g}× its "
            f"FP32 peak; in BF16 at the same roofline efficiency they would save up to {us(finding.time_at_stake_us)}"
            f"{step.en}.",
            f"每 step 有 {n:,.4g} 个 FP32 算子，耗时 {us(time_us)}；"
            f"该矩阵单元的 BF16 峰值是 FP32 峰值的 {ratio:.3g} 倍，"
            f"以相同的 roofline 效率改用 BF16 最多可节省 {us(finding.time_at_stake_us)}{step.zh}。",
        )
        return summary, _ADVICE


def _bf16_fraction(ctx: RankContext, ratio: float) -> np.ndarray:
    """Per kernel t*_BF16 / t*_FP32 (NaN where its FLOPs or peak are unknown)."""
    flops = ctx.column("flops")
    peak = ctx.column("peak_tflops") if ctx.rank.chip.confirmed else ctx.column("peak_lo_tflops")
    with np.errstate(divide="ignore", invalid="ignore"):
        compute32 = flops / peak / 1e6
        bw = chip_bandwidth(ctx.rank.chip)
        memory32 = ctx.column("bytes") / bw / 1e3 if bw else np.full(len(flops), np.nan)
        t32 = np.fmax(compute32, memory32)
        t16 = np.fmax(compute32 / ratio, memory32 / 2.0)
        return np.where((t32 > 0) & np.isfinite(t32), t16 / t32, np.nan)


RULE = Fp32Matmul()
