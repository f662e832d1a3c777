"""One corpus row (an operator measured on one chip) and its FLOPs/bytes from the engine's formulas."""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, fields

from mfu_desktop.core.formulas.bytes import min_bytes
from mfu_desktop.core.formulas.flop_rules import estimate
from mfu_desktop.core.predict.corpus import CORPUS_COLUMNS
from mfu_desktop.core.predict.error_categories import base_category


@dataclass(frozen=True)
class Measurement:
    """One operator call measured on one chip.

    ``op_id`` names the same work on every chip (rows of two chips with one ``op_id`` are a
    prediction pair); ``model`` is what the train/held-out split is by; ``measured_us`` is the
    device time of one call; ``raw_us`` what the source printed when a correction was applied
    (``note`` says which); ``calls`` how many times the workload runs it (whole-workload sums).
    """

    op_id: str
    dataset: str
    source_ref: str
    source_file: str
    model: str
    workload: str
    op: str
    op_type: str
    category: str
    unit: str
    dtype: str
    shapes: str
    flops: float
    bytes: float
    calls: float
    chip: str
    measured_us: float
    raw_us: float
    note: str = ""


COLUMNS = tuple(f.name for f in fields(Measurement))
assert COLUMNS == CORPUS_COLUMNS, "the corpus file's columns are defined once, in core/predict/corpus.py"


def cells(row: Measurement) -> list[str]:
    """The row as CSV cells (numbers without float noise, NaN as blank)."""
    out = []
    for value in astuple(row):
        if isinstance(value, float):
            out.append("" if math.isnan(value) else f"{value:.10g}")
        else:
            out.append(str(value))
    return out


@dataclass(frozen=True)
class Work:
    """FLOPs and minimum bytes of one call, its category and the unit that runs it."""

    flops: float
    bytes: float
    category: str
    unit: str


def work(op_type: str, input_shapes: str, output_shapes: str | None, dtype: str) -> Work:
    """FLOPs and bytes of an ATen-style call by the engine's own rules (NaN where they have none).

    Args:
        op_type: ``aten::mm``, ``aten::add`` … (what a PyTorch trace records).
        input_shapes: ``M,K;K,N`` (the profiler's cell format).
        output_shapes: ``M,N`` or ``None`` (traces record inputs only).
        dtype: One dtype spelling for every tensor (``float``, ``c10::Half``), or one per input
            (``float;long int``: the outputs take the first).
    """
    n_in = input_shapes.count(";") + 1
    in_dtypes = dtype if ";" in dtype else ";".join([dtype] * n_in)
    first = in_dtypes.split(";")[0]
    out_dtypes = ";".join([first] * (output_shapes.count(";") + 1)) if output_shapes else None
    est = estimate(op_type, input_shapes, output_shapes, in_dtypes, out_dtypes)
    flops = float(est.flops) if est is not None and est.flops is not None else math.nan
    nbytes = min_bytes(input_shapes, output_shapes, in_dtypes, out_dtypes, op_type).bytes
    category = base_category(op_type)
    unit = "cube" if category in ("gemm", "attention") else "vector"
    return Work(flops, float(nbytes) if nbytes is not None else math.nan, category, unit)
