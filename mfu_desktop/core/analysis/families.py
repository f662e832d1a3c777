"""Operator families: the documented mapping that lets two profiles be compared when names differ.

Ascend ``MatMulV2`` / ``MatMulV3`` / ``GroupedMatmul`` and PyTorch ``aten::mm`` / ``aten::addmm`` /
cuBLAS kernels are all *matmul*; ``FlashAttentionScore`` and SDPA are *attention*; and so on.
The mapping is data — a CSV with ``family,pattern,note`` rows, ``pattern`` a case-insensitive
regular expression matched on **name tokens**: a match must start and end where a token of
the name does (at a separator such as ``_`` ``::`` ``.`` or a space, a lower→upper case change
as in ``MatMul``, or a letter↔digit change as in ``s16816gemm``). So ``fill`` matches
``aten::fill_`` and ``FillFunctor`` but not ``mha_batch_prefill``, and ``mul`` matches
``aten::mul`` and ``RotaryMul`` but not ``multimem_all_reduce``. The first matching row wins,
so specific rows come first. A GPU kernel is classified through the op that launched it
(the operator type its row carries), and through its own name only when the op is not
recognised (:func:`family_of_kernel`). ``mfu compare --families FILE`` and the app's Compare
view take an edited copy (:func:`families_to_csv` writes the defaults).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: The family of anything no row matches.
OTHER = "other"


@dataclass(frozen=True)
class Family:
    """One mapping row: operators whose type matches ``pattern`` belong to ``family``."""

    family: str
    pattern: str
    note: str = ""

    def matches(self, op_type: str) -> bool:
        """True when ``pattern`` matches whole tokens of ``op_type`` (case-insensitive; module docstring)."""
        return _compiled(self.pattern).search(op_type) is not None


#: Where a name token starts or ends: outside the name's letters and digits, at a lower→upper case change,
#: at a letter↔digit change, before the last capital of an acronym (``HCCLAllReduce``) or before a version
#: suffix (``TopKV2``). Case-sensitive.
TOKEN_EDGE = (r"(?-i:(?:(?<![A-Za-z0-9])|(?![A-Za-z0-9])|(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])"
              r"|(?<=[0-9])(?=[A-Za-z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Z])(?=V[0-9])))")


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` anchored at token edges on both sides (every alternative of it)."""
    return re.compile(f"{TOKEN_EDGE}(?:{pattern}){TOKEN_EDGE}", re.IGNORECASE)


#: The shipped mapping (first match wins; patterns match whole name tokens, see the module docstring).
DEFAULT_FAMILIES: tuple[Family, ...] = (
    Family("attention backward", r"FlashAttention.*Grad|attention.*backward|flash_attn.*backward|fmha.*bwd|"
           r"flash_bwd|(?:attn|mha|mla)_bwd\w*", "FlashAttentionScoreGrad; SDPA and flash_attn backward ops and "
           "kernels; Triton/CK attention backward kernels"),
    Family("attention", r"FlashAttention|FusedInferAttention|PromptFlashAttention|IncreFlashAttention|"
           r"scaled_dot_product|flash_attn|fmha|flash_fwd|attention|attn|mha|mla|sdpa", "FlashAttentionScore; SDPA; "
           "flash_attn; aiter/CK mha kernels; Triton attn_fwd"),
    Family("matmul", r"MatMul|Matmul|GroupedMatmul|BatchMatMul|aten::(?:linear|matmul)|(?:add|baddb|b|scaled_|"
           r"grouped_)?mm|[sdhcz]?gemm|gemv|cublas|cutlass|xmma|hipblaslt|Cijk_|nvjet|"
           r"(?:f|bf|fp|i)\d+(?:f|bf|fp|i)\d+(?:f|bf|fp)\d+", "Ascend MatMul family; ATen matmuls; cuBLAS/CUTLASS/"
           "hipBLASLt/Tensile kernels (fused MatmulAllReduce too); FBGEMM GEMMs named by their dtypes "
           "(f8f8bf16_rowwise, bf16bf16bf16_grouped)"),
    Family("convolution", r"Conv|convolution|cudnn.*conv|implicit_gemm|winograd|igemm",
           "Conv2D; aten::convolution; MIOpen igemm kernels"),
    Family("communication", r"^hcom_|hccl|nccl|rccl|c10d::|record_param_comms|all_?reduce|all_?gather|"
           r"reduce_?scatter|all_?to_?all(?:v)?|send|recv|multimem|symm_mem|nvshmem",
           "HCCL (hcom_*), NCCL/RCCL kernels, c10d ops, record_param_comms, symmetric-memory collectives"),
    Family("norm", r"RmsNorm|LayerNorm|layer_norm|rms_norm|BatchNorm|batch_norm|GroupNorm|group_norm",
           "RMSNorm / LayerNorm (and their gradients)"),
    Family("optimizer", r"Adam|AdamW|SGD|Lamb|Foreach|_fused_adamw?|multi_tensor", "optimizer steps"),
    Family("reduce/gather", r"split_embedding\w*", "FBGEMM's embedding lookups (split_embedding_*) are not a split"),
    Family("memory copy", r"Memcpy|Memset|TensorMove|Identity|copy|aten::to|Transpose|Transdata|Contiguous|"
           r"aten::cat|CatArray\w*|Concat|Split|Slice|StridedSlice|BroadcastTo|expand",
           "copies, format changes, transposes, concatenation, broadcasts"),
    Family("softmax/loss", r"Softmax|CrossEntropy|cross_entropy|nll_loss|log_softmax", "softmax, losses"),
    Family("element-wise", r"Add|Mul|Sub|Div|Cast|SwiGlu|Gelu|Silu|Relu|Exp|Sqrt|Rsqrt|Pow|Neg|Rotary|Dropout|"
           r"GenBitMask|Where|Select|Fill|fill_|elementwise|vectorized|tanh|sigmoid|clamp|quantize|dequantize|"
           r"aten::(?:add|mul|sub|div|eq|ne|lt|gt|le|ge|abs)",
           "element-wise arithmetic, comparisons, activations, rotary embedding, dropout, (de)quantisation"),
    Family("reduce/gather", r"Reduce|Sum|Mean|Max|Min|ArgMax|argmax|argmin|amax|amin|cumsum|Gather|Index|Scatter|"
           r"Embedding|NonZero|Sort|TopK|MoeInitRouting|Routing", "reductions, gathers, embeddings, routing"),
)


def family_of(op_type: str, families: tuple[Family, ...] | list[Family] = DEFAULT_FAMILIES) -> str:
    """The family of one operator type (:data:`OTHER` when no row matches)."""
    for row in families:
        if row.matches(op_type):
            return row.family
    return OTHER


def family_of_kernel(op_type: str, kernel: str | None,
                     families: tuple[Family, ...] | list[Family] = DEFAULT_FAMILIES) -> str:
    """The family of a kernel: through the op that launched it first, through its own name when the op says nothing.

    Args:
        op_type: The operator type the kernel's row carries (its launching op on GPUs).
        kernel: The kernel's name (``None`` or empty when unknown).
        families: The mapping.
    """
    family = family_of(op_type, families)
    if family == OTHER and kernel and kernel != op_type:
        return family_of(kernel, families)
    return family


def family_names(families: tuple[Family, ...] | list[Family] = DEFAULT_FAMILIES) -> tuple[str, ...]:
    """The distinct family names of a mapping in its order, then :data:`OTHER`."""
    return tuple(dict.fromkeys([*(f.family for f in families), OTHER]))


def family_codes(types: Any, names: Any = None,
                 families: tuple[Family, ...] | list[Family] = DEFAULT_FAMILIES) -> np.ndarray:
    """:func:`family_of_kernel` of every row, as an index into :func:`family_names`, vectorised.

    The mapping runs once per distinct text: first on the operator types, then — for the rows whose
    type is missing or says nothing (:data:`OTHER`) — on the kernels' own names.

    Args:
        types: Operator types per row (a categorical column, or anything pandas makes one of).
        names: Kernel names per row (``None``: the types alone decide).
        families: The mapping.
    """
    import numpy as np

    table = family_names(families)
    codes = _codes_of(types, table, families)
    if names is not None:
        unresolved = codes == table.index(OTHER)
        if unresolved.any():
            codes = np.where(unresolved, _codes_of(names, table, families), codes)
    return codes


def _codes_of(texts: Any, table: tuple[str, ...], families: tuple[Family, ...] | list[Family]) -> np.ndarray:
    """The family index of every text (missing → :data:`OTHER`), mapping each distinct text once."""
    import numpy as np
    import pandas as pd

    series = pd.Series(texts, copy=False)
    if not isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype("category")
    lookup = np.array([table.index(family_of(str(t), families)) for t in series.cat.categories]
                      + [table.index(OTHER)], dtype=np.int64)
    codes = series.cat.codes.to_numpy()
    return lookup[np.where(codes < 0, len(lookup) - 1, codes)]


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
