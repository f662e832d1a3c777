"""sitar-lab/NeuSight: per-node latencies of one transformer layer on 11 GPUs (validation/neusight).

Each label file times every FX node of one layer (plus embeddings and head) with CUDA events
around the node, so every latency carries the timer's own cost: nodes that launch no kernel
(``size``, ``getitem``) take 6–12 µs depending on the host. That overhead — the median latency
of the file's ``size``/``getitem`` nodes — is subtracted from every node of the same file to
estimate its device time (``raw_us`` keeps the printed value). Forward latencies only; nodes
whose corrected time is under 1 µs, that move fewer than 1,024 output elements, or that launch
no well-defined work (views, casts, dropout, tensor creation) are left out.
"""

from __future__ import annotations

import ast
import csv
import math
import re
import statistics
from pathlib import Path

from tools.corpus.rows import Measurement, work

REF = "sitar-lab/NeuSight@6945927"
#: The label folders and the catalog rows they are (one MI250 GCD is one PyTorch device).
CHIPS = {
    "NVIDIA_H100_80GB_HBM3": "NVIDIA H100 SXM", "NVIDIA_A100-PCIE-40GB": "NVIDIA A100 PCIe 40GB",
    "NVIDIA_A100_80GB_PCIe": "NVIDIA A100 PCIe 80GB", "Tesla_V100-PCIE-32GB": "NVIDIA V100 PCIe 32GB",
    "NVIDIA_L4": "NVIDIA L4", "Tesla_T4": "NVIDIA T4", "Tesla_P100-PCIE-16GB": "NVIDIA P100 PCIe 16GB",
    "Tesla_P4": "NVIDIA P4", "AMD_Instinct_MI100": "AMD MI100", "AMD_Instinct_MI210": "AMD MI210",
    "AMD_Instinct_MI250": "AMD MI250 (per GCD)",
}
#: Element-wise nodes and their ATen names.
ELEMENTWISE = {"add": "aten::add", "mul": "aten::mul", "sub": "aten::sub", "truediv": "aten::div",
               "pow": "aten::pow", "tanh": "aten::tanh", "gelu": "aten::gelu", "where": "aten::where",
               "masked_fill": "aten::masked_fill", "rsqrt": "aten::rsqrt", "eq": "aten::eq", "ne": "aten::ne",
               "gt": "aten::gt", "lt": "aten::lt", "le": "aten::le", "ReLU": "aten::relu", "Tanh": "aten::tanh"}
#: Reductions and copies (category "other").
OTHER = {"softmax": "aten::softmax", "contiguous": "aten::contiguous", "mean": "aten::mean", "max": "aten::max",
         "sum": "aten::sum", "cumsum": "aten::cumsum"}
OVERHEAD_NODES = ("size", "getitem")
MIN_OUTPUT_ELEMENTS = 1024
MIN_DEVICE_US = 1.0


def node_name(row: dict[str, str]) -> str:
    """The node's operation: the module class of a ``call_module``, else the function or method name."""
    if row["op"] == "call_module":
        classes = re.findall(r"<class '([^']+)'>", row["meta"])
        return classes[-1].rsplit(".", 1)[-1] if classes else ""
    target = row["target"]
    match = re.match(r"<built-in (?:method|function) (\w+)", target) or re.match(r"<function (\w+)", target)
    return match.group(1) if match else target


def _dims(shape: list[int]) -> str:
    return ",".join(str(int(d)) for d in shape)


def _gemm(name: str, ins: list[list[int]], out: list[int]) -> tuple[str, str, str] | None:
    """(op type, input shapes, output shape) of a matmul node, or ``None``."""
    if name == "Linear" and ins and out:
        k, n = ins[0][-1], out[-1]
        m = math.prod(ins[0][:-1])
        return "aten::mm", f"{m},{k};{k},{n}", f"{m},{n}"
    if name == "addmm" and len(ins) == 3:
        return "aten::addmm", ";".join(_dims(s) for s in ins), _dims(out)
    if name in ("matmul", "bmm") and len(ins) == 2:
        return f"aten::{name}", ";".join(_dims(s) for s in ins), _dims(out)
    return None


def call_of(name: str, ins: list[list[int]], out: list[int]) -> tuple[str, str, str, str] | None:
    """(op type, input shapes, output shape, input dtypes) of a node the corpus keeps, else ``None``."""
    gemm = _gemm(name, ins, out)
    if gemm:
        return (*gemm, "float")
    tensors = [s for s in ins if s]
    if not tensors or math.prod(out or [0]) < MIN_OUTPUT_ELEMENTS:
        return None
    shapes = ";".join(_dims(s) for s in tensors)
    if name == "LayerNorm":
        d = tensors[0][-1]
        return "aten::layer_norm", f"{_dims(tensors[0])};{d};{d}", _dims(out), "float"
    if name in ("Embedding", "embedding"):
        rows = math.prod(tensors[-1])  # the table is read only where the output takes from it
        return "aten::embedding", f"{rows},{out[-1]};{_dims(tensors[-1])}", _dims(out), "float;long int"
    op_type = ELEMENTWISE.get(name) or OTHER.get(name)
    return (op_type, shapes, _dims(out), "float") if op_type else None


def _shapes(text: str) -> list[list[int]] | None:
    """A node's input shapes (``[[1, 1024, 1280], [1]]``); an argument that is no tensor becomes ``[]``."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return [list(s) if isinstance(s, (list, tuple)) else [] for s in value]


def overhead_us(rows: list[dict[str, str]]) -> float:
    """The timer's cost in this file: median latency of nodes that launch no kernel (µs)."""
    values = [float(r["fw_latency"]) * 1000 for r in rows if r["op"] in ("call_method", "call_function")
              and node_name(r) in OVERHEAD_NODES]
    return statistics.median(values) if values else 0.0


def _file_rows(path: Path, chip: str) -> list[Measurement]:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    overhead = overhead_us(rows)
    workload = path.stem
    model = workload.split("-")[0]
    out = []
    for r in rows:
        if r["op"] not in ("call_function", "call_method", "call_module"):
            continue
        inputs = _shapes(r["input_shapes"])
        try:
            output = list(ast.literal_eval(r["output_shape"] or "()"))
        except (ValueError, SyntaxError):
            continue
        name = node_name(r)
        call = call_of(name, inputs, output) if inputs is not None else None
        raw = float(r["fw_latency"]) * 1000
        if call is None or raw - overhead < MIN_DEVICE_US:
            continue
        op_type, shapes, out_shape, dtypes = call
        w = work(op_type, shapes, out_shape, dtypes)
        out.append(Measurement(
            op_id=f"neusight:{workload}:{r['Name']}", dataset="neusight", source_ref=REF,
            source_file=f"scripts/asplos/label/{path.parent.name}/{path.name}", model=model, workload=workload,
            op=r["Name"], op_type=op_type, category=w.category, unit=w.unit, dtype="fp32", shapes=shapes,
            flops=w.flops, bytes=w.bytes, calls=1.0, chip=chip, measured_us=raw - overhead, raw_us=raw,
            note=f"forward latency minus the file's timer overhead {overhead:.2f} µs"))
    return out


def measurements(folder: Path) -> list[Measurement]:
    """Every kept node of every label file, one row per (node, GPU)."""
    out = []
    for directory, chip in CHIPS.items():
        for path in sorted((folder / "label" / directory).glob("*.csv")):
            out.extend(_file_rows(path, chip))
    return out
