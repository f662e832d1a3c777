"""Operator families: the documented mapping that lets two profiles be compared when names differ.

Ascend ``MatMulV2`` / ``MatMulV3`` / ``GroupedMatmul`` and PyTorch ``aten::mm`` / ``aten::addmm`` /
cuBLAS kernels are all *matmul*; ``FlashAttentionScore`` and SDPA are *attention*; and so on.
The mapping is data — a CSV with ``family,pattern,note`` rows, ``pattern`` a case-insensitive
regular expression searched in the operator type (or, for a GPU kernel without an op, its
name); the first matching row wins, so specific rows come first. ``mfu compare --families FILE``
and the app's Compare view take an edited copy (:func:`families_to_csv` writes the defaults).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from functools import lru_cache

#: The family of anything no row matches.
OTHER = "other"


@dataclass(frozen=True)
class Family:
    """One mapping row: operators whose type matches ``pattern`` belong to ``family``."""

    family: str
    pattern: str
    note: str = ""

    def matches(self, op_type: str) -> bool:
        """True when ``pattern`` is found in ``op_type`` (case-insensitive)."""
        return _compiled(self.pattern).search(op_type) is not None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


#: The shipped mapping (first match wins).
DEFAULT_FAMILIES: tuple[Family, ...] = (
    Family("attention backward", r"FlashAttention.*Grad|attention.*backward|flash_attn.*backward|fmha.*bwd|"
           r"flash_bwd", "FlashAttentionScoreGrad; SDPA and flash_attn backward ops and kernels"),
    Family("attention", r"FlashAttention|FusedInferAttention|PromptFlashAttention|IncreFlashAttention|"
           r"scaled_dot_product|flash_attn|fmha|flash_fwd|attention", "FlashAttentionScore; SDPA; flash_attn"),
    Family("matmul", r"MatMul|Matmul|GroupedMatmul|BatchMatMul|aten::(mm|addmm|bmm|baddbmm|matmul|linear|_scaled_mm)"
           r"\b|gemm|cublas|cutlass|xmma|hipblaslt|Cijk_", "Ascend MatMul family; ATen matmuls; cuBLAS/CUTLASS/"
           "hipBLASLt kernels (fused MatmulAllReduce too)"),
    Family("convolution", r"Conv|convolution|cudnn.*conv|implicit_gemm|winograd", "Conv2D; aten::convolution"),
    Family("communication", r"^hcom_|hccl|nccl|rccl|c10d::|^(all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|"
           r"send|recv)", "HCCL (hcom_*), NCCL/RCCL kernels, c10d ops"),
    Family("norm", r"RmsNorm|LayerNorm|layer_norm|rms_norm|BatchNorm|batch_norm|GroupNorm|group_norm",
           "RMSNorm / LayerNorm (and their gradients)"),
    Family("optimizer", r"Adam|SGD|Lamb|Foreach|foreach|_fused_adam|multi_tensor", "optimizer steps"),
    Family("memory copy", r"Memcpy|Memset|memcpy|memset|TensorMove|Identity|copy_|aten::to\b|Transpose|"
           r"Transdata|Contiguous|contiguous|aten::copy|aten::cat|Concat|Split|Slice|StridedSlice",
           "copies, format changes, transposes, concatenation"),
    Family("softmax/loss", r"Softmax|softmax|CrossEntropy|cross_entropy|nll_loss|log_softmax", "softmax, losses"),
    Family("element-wise", r"Add|Mul|Sub|Div|Cast|SwiGlu|Gelu|gelu|Silu|silu|Relu|relu|Exp|Sqrt|Rsqrt|Pow|Neg|"
           r"Rotary|rotary|Dropout|dropout|GenBitMask|Where|Select|Fill|fill_|elementwise|vectorized|Tanh|tanh|Sigmoid|"
           r"sigmoid|aten::(add|mul|sub|div|eq|ne|lt|gt|le|ge|abs|clamp)\b",
           "element-wise arithmetic, comparisons, activations, rotary embedding, dropout"),
    Family("reduce/gather", r"Reduce|reduce|Sum|sum|Mean|mean|Max|Min|Gather|gather|Index|index|Scatter|scatter|"
           r"Embedding|embedding|NonZero|Sort|TopK|topk|MoeInitRouting|Routing", "reductions, gathers, routing"),
)


def family_of(op_type: str, families: tuple[Family, ...] | list[Family] = DEFAULT_FAMILIES) -> str:
    """The family of one operator type (:data:`OTHER` when no row matches)."""
    for row in families:
        if row.matches(op_type):
            return row.family
    return OTHER


def families_to_csv(families: tuple[Family, ...] | list[Family] = DEFAULT_FAMILIES) -> str:
    """The mapping as CSV text (``family,pattern,note``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["family", "pattern", "note"])
    for row in families:
        writer.writerow([row.family, row.pattern, row.note])
    return out.getvalue()


def families_from_csv(text: str) -> tuple[list[Family], list[str]]:
    """An edited mapping; rows that cannot be used are skipped and reported."""
    rows: list[Family] = []
    problems: list[str] = []
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    if not reader.fieldnames or not {"family", "pattern"} <= {f.strip() for f in reader.fieldnames}:
        return list(DEFAULT_FAMILIES), ["the family mapping needs the columns family,pattern: the shipped mapping "
                                        "is used"]
    for n, row in enumerate(reader, start=2):
        family = (row.get("family") or "").strip()
        pattern = (row.get("pattern") or "").strip()
        if not family or not pattern:
            problems.append(f"line {n}: family and pattern are both needed (skipped)")
            continue
        try:
            re.compile(pattern)
        except re.error as exc:
            problems.append(f"line {n}: pattern {pattern!r} is not a regular expression ({exc}) (skipped)")
            continue
        rows.append(Family(family, pattern, (row.get("note") or "").strip()))
    return rows, problems
