"""microsoft/vidur: A100 vs H100 median times of the same per-layer ops (validation/vidur)."""

from __future__ import annotations

import csv
from pathlib import Path

from tools.corpus.rows import Measurement, work

REF = "microsoft/vidur@7d47513"
FILE = "data/profiling/compute/{a100,h100}/<model>/mlp.csv"
#: vidur's profiling data names its GPUs a100 / h100: the DGX parts (SXM, 80 GB).
CHIPS = {"a100_us": "NVIDIA A100 SXM 80GB", "h100_us": "NVIDIA H100 SXM"}
#: vidur's mlp profiler casts the model to torch.float16 (vidur/profiling/mlp/mlp_wrapper.py).
DTYPE = "c10::Half"


def _call(kind: str, m: int, k: int, n: int) -> tuple[str, str, str]:
    """(op type, input shapes, output shapes) of one vidur row (SOURCES.txt: how each kind is modelled)."""
    if kind == "mm":
        return "aten::mm", f"{m},{k};{k},{n}", f"{m},{n}"
    if kind == "add":  # residual add: [T, d] + [T, d]
        return "aten::add", f"{m},{k};{m},{k}", f"{m},{k}"
    return "aten::mul", f"{m},{k};{m},{k}", f"{m},{k}"  # SiLU-and-mul as a mul of two [T, f/tp] tensors


def measurements(folder: Path) -> list[Measurement]:
    """Two rows (A100, H100) per op of ``a100_h100_ops.csv``."""
    out = []
    with (folder / "a100_h100_ops.csv").open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            m, k, n = int(row["M"]), int(row["K"]), int(row["N"])
            op_type, shapes, output = _call(row["kind"], m, k, n)
            w = work(op_type, shapes, output, DTYPE)
            name = row["model"].split("/")[-1]
            workload = f"tp{row['tp']} tokens {row['tokens']}"
            for column, chip in CHIPS.items():
                us = float(row[column])
                out.append(Measurement(
                    op_id=f"vidur:{name}:{workload}:{row['op']}", dataset="vidur", source_ref=REF, source_file=FILE,
                    model=name, workload=workload, op=row["op"], op_type=op_type, category=w.category, unit=w.unit,
                    dtype="fp16", shapes=shapes, flops=w.flops, bytes=w.bytes, calls=1.0, chip=chip,
                    measured_us=us, raw_us=us, note="median of vidur's time_stats; µs resolution"))
    return out
