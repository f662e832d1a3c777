"""Minimum bytes a kernel moves, from its shapes and dtypes (mfu.md §6).

Every input tensor is read once and every output written once: ``Σ inputs + Σ outputs``, each
``numel × s(dtype)``. This one rule gives the spec's cases:

* element-wise / activation / cast: inputs + output; a broadcast input counts its stored
  (recorded) size, not the broadcast size; an in-place op reads its input and writes it once;
* reduction / norm: input + weights (gamma/beta) + output (+ saved statistics when they are
  outputs);
* matmul ``(M,K)·(K,N) → (M,N)``: ``s·(M·K + K·N + M·N)`` (+ bias); batched: × B;
* FlashAttention forward: Q + K + V (+ mask) + O (+ softmax_max/sum); backward: Q + K + V + O +
  dO (+ statistics) + dQ + dK + dV.

Two families move less than their inputs' size, named by operator type:

* write-only (``ZerosLike``, ``Fill`` …, :data:`WRITE_ONLY`): the input gives only the shape —
  the output is written, nothing is read;
* gathers and strided views (``GatherV2``, ``Index``, ``AsStrided``, ``StridedSlice`` …,
  :data:`READS_AS_MUCH_AS_WRITTEN`): the data input is read only where the output takes from it,
  so it counts at most the output's size (indices count in full).

Formats with padding (NC1HWC0, FRACTAL_NZ) are recorded in their stored, already padded shape
(a 3-channel FP32 NCHW image is recorded as NC1HWC0 ``32,1,224,224,8``), so their size is what
they occupy. An empty shape segment is an absent optional tensor or a 0-d scalar (0 bytes). A
PyTorch trace records inputs only: the output is taken as large as the largest input (stated as
an assumption).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from mfu_desktop.core.formulas.shapes import Shape, ShapeError, format_shape, numel, parse_dtypes, parse_shapes
from mfu_desktop.core.numbers import grouped

#: Bytes per element of each dtype spelling (upper case, ``DT_`` and ``C10::`` prefixes removed).
ELEMENT_BYTES: dict[str, int] = {
    **dict.fromkeys(("BF16", "BFLOAT16", "FLOAT16", "FP16", "HALF", "F16", "INT16", "UINT16", "SHORT"), 2),
    **dict.fromkeys(("FLOAT", "FLOAT32", "FP32", "F32", "INT32", "UINT32", "INT", "UNSIGNED INT", "COMPLEX32",
                     "HF32", "TF32"), 4),
    **dict.fromkeys(("DOUBLE", "FLOAT64", "FP64", "INT64", "UINT64", "LONG", "LONG INT", "LONG LONG",
                     "COMPLEX64"), 8),
    **dict.fromkeys(("INT8", "UINT8", "BOOL", "SIGNED CHAR", "UNSIGNED CHAR", "CHAR", "QINT8", "QUINT8", "FP8",
                     "FLOAT8_E4M3FN", "FLOAT8_E5M2", "FLOAT8_E4M3FNUZ", "FLOAT8_E5M2FNUZ", "HIFLOAT8", "E4M3",
                     "E5M2", "INT4", "UINT1"), 1),
    "COMPLEX128": 16,
}


@lru_cache(maxsize=1024)
def element_bytes(dtype: str | None) -> int | None:
    """Bytes per element of a dtype spelling (``DT_BF16`` → 2, ``c10::BFloat16`` → 2), ``None`` when unknown."""
    if not dtype:
        return None
    name = dtype.strip().upper()
    for prefix in ("DT_", "C10::", "TORCH."):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return ELEMENT_BYTES.get(name)


#: Operator types that write their output without reading their inputs (the input gives the shape).
WRITE_ONLY = frozenset({
    "ZerosLike", "OnesLike", "Fill", "Fills", "FillD", "FillV2", "FillV2D", "Zeros", "Ones", "Empty",
    "aten::zeros", "aten::ones", "aten::zeros_like", "aten::ones_like", "aten::zero_", "aten::fill_", "aten::full",
    "aten::full_like", "aten::empty", "aten::empty_like",
})
#: Operator types whose data input (the first) is read only where the output takes from it.
READS_AS_MUCH_AS_WRITTEN = frozenset({
    "GatherV2", "Gather", "GatherV2D", "GatherElements", "GatherNd", "IndexSelect", "Index", "IndexByTensor",
    "Embedding", "AsStrided", "StridedSlice", "StridedSliceD", "StridedSliceV2", "Slice", "SliceD", "SplitV",
    "aten::index", "aten::index_select", "aten::embedding", "aten::gather", "aten::as_strided", "aten::slice",
    "aten::narrow", "aten::select",
})


@dataclass(frozen=True)
class ByteCount:
    """Minimum bytes of one kernel shape, or why there are none.

    Attributes:
        bytes: The bytes, ``None`` when unknown.
        reason: Why unknown (empty when known).
        read: Bytes of each input read.
        written: Bytes of each output written.
        assumption: What was assumed (the output size of a trace op, a convention).
    """

    bytes: int | None
    reason: str = ""
    read: tuple[int, ...] = ()
    written: tuple[int, ...] = ()
    assumption: str = ""

    @property
    def detail(self) -> str:
        """The sum with numbers substituted ("33,554,432 + 33,554,432 read + 33,554,432 written = …")."""
        if self.bytes is None:
            return ""
        return (" + ".join(grouped(p) for p in self.read) or "0") + " read + " + \
            (" + ".join(grouped(p) for p in self.written) or "0") + f" written = {grouped(self.bytes)} bytes"

    def explain(self) -> str:
        """The detail with its assumption, or why the bytes are unknown."""
        if self.bytes is None:
            return f"no bytes: {self.reason}" if self.reason else ""
        return f"{self.detail} ({self.assumption})" if self.assumption else self.detail


def _tensors(shapes: tuple[Shape, ...], dtypes: tuple[str, ...], side: str) -> tuple[list[tuple[Shape, int]], str]:
    """(shape, bytes per element) of each present tensor; a reason when a dtype is unknown."""
    out = []
    for i, shape in enumerate(shapes):
        if shape == ():  # an absent optional tensor (or a non-tensor argument of a trace op)
            continue
        dtype = dtypes[i] if i < len(dtypes) else ""
        size = element_bytes(dtype)
        if size is None:
            return [], f"{side} {i} ({format_shape(shape)}) has no known dtype ({dtype or 'none recorded'})"
        out.append((shape, size))
    return out, ""


@lru_cache(maxsize=1 << 16)
def min_bytes(input_shapes: str | None, output_shapes: str | None, input_dtypes: str | None,
              output_dtypes: str | None, op_type: str | None = None) -> ByteCount:
    """Minimum bytes of a kernel from its profiler cells (see the module docstring). Pure and cached."""
    try:
        ins = parse_shapes(input_shapes)
        outs = parse_shapes(output_shapes)
    except ShapeError as exc:
        return ByteCount(None, f"malformed shapes: {exc}")
    if ins is None:
        return ByteCount(None, "no shapes recorded")
    inputs, why = _tensors(ins, parse_dtypes(input_dtypes), "input")
    if why:
        return ByteCount(None, why)
    assumption = ""
    if outs is None and op_type in READS_AS_MUCH_AS_WRITTEN:
        outputs, assumption = _gather_output(op_type, inputs)
        if outputs is None:
            return ByteCount(None, f"the output size of {op_type} is not recorded")
    elif outs is None:
        biggest = max(inputs, key=lambda t: numel(t[0]) * t[1], default=None)
        outputs = [biggest] if biggest else []
        assumption = "output not recorded: taken as large as the largest input"
    else:
        outputs, why = _tensors(outs, parse_dtypes(output_dtypes), "output")
        if why:
            return ByteCount(None, why)
    if not inputs and not outputs:
        return ByteCount(None, "no tensor in the shapes")
    read = [numel(s) * b for s, b in inputs]
    written = [numel(s) * b for s, b in outputs]
    if op_type in WRITE_ONLY:
        read = []
        assumption = _join(assumption, f"{op_type} writes its output without reading its input")
    elif op_type in READS_AS_MUCH_AS_WRITTEN and read and read[0] > sum(written):
        read[0] = sum(written)
        assumption = _join(assumption, f"{op_type} reads its data input only where the output takes from it")
    return ByteCount(sum(read) + sum(written), "", tuple(read), tuple(written), assumption)


def _gather_output(op_type: str, inputs: list[tuple[Shape, int]]) -> tuple[list[tuple[Shape, int]] | None, str]:
    """The output of a trace's gather, which records inputs only: rows gathered × row size, or ``None``."""
    if len(inputs) < 2:
        return None, ""
    (data, size), (index, _) = inputs[0], inputs[1]
    if op_type == "aten::embedding" and data:  # weight [V, D], indices [...] → [..., D]
        return [((numel(index), data[-1]), size)], "output = indices × embedding width"
    if op_type == "aten::index_select" and data:  # self, index (dim taken as 0)
        return [((numel(index), numel(data) // max(data[0], 1)), size)], \
            "output = index length × one row of the input (dim 0 assumed)"
    if op_type == "aten::gather":  # output has the index's shape
        return [(index, size)], "output = the index's shape"
    return None, ""


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a else b
