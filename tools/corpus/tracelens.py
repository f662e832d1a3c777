"""AMD-AGI/TraceLens: the same inference workloads traced on an H100 and an MI300X (samples/tracelens).

Both traces are read by the engine itself (:func:`~mfu_desktop.core.pipeline.analyze.analyze_paths`):
the compute-class kernels of each PyTorch op are summed per op call, keyed by the op, its input
shapes and dtypes — the same key on both chips, whatever kernels each vendor's library launched.
FLOPs and bytes per call are the engine's (what ``mfu predict`` sees on these traces).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.steps import captured_steps
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.predict.error_categories import base_category
from mfu_desktop.core.predict.inputs import rank_inputs
from mfu_desktop.core.readers import columns as C
from tools.corpus.rows import Measurement

REF = "AMD-AGI/TraceLens@171dd74"
CHIPS = {"h100": "NVIDIA H100 SXM", "mi300": "AMD MI300X"}
WORKLOADS = ("gaunernst_bert-small-uncased__1016001", "Falconsai_nsfw_image_detection__1016002")
COMPUTE = ("cube", "vector", "mix")


def op_table(path: Path, catalog: ChipCatalog) -> pd.DataFrame:
    """Per (op, shapes, dtypes): calls per step, time per call and FLOPs/bytes per call."""
    rank = rank_inputs(analyze_paths([path], AnalysisOptions(), catalog, use_cache=False))[0]
    k = rank.kernels
    steps = captured_steps(rank.trace, k).count
    k = k[k["klass"].astype(str).isin(COMPUTE)]
    share = k[C.FLOPS_SHARE].to_numpy(dtype=np.float64) if C.FLOPS_SHARE in k.columns else np.ones(len(k))
    frame = pd.DataFrame({
        "op_type": k[C.OP_TYPE].astype(str).to_numpy(), "shapes": k[C.INPUT_SHAPES].astype(str).to_numpy(),
        "dtypes": k[C.INPUT_DTYPES].astype(str).to_numpy(), "us": k[C.DURATION_US].to_numpy(dtype=np.float64),
        "share": share, "flops": k["flops"].to_numpy(dtype=np.float64), "bytes": k["bytes"].to_numpy(dtype=np.float64),
    })
    g = frame.groupby(["op_type", "shapes", "dtypes"], sort=False).agg(
        us=("us", "sum"), share=("share", "sum"), flops=("flops", lambda v: v.sum(min_count=1)),
        bytes=("bytes", lambda v: v.sum(min_count=1))).reset_index()
    calls = np.maximum(np.round(g["share"].to_numpy()), 1.0)
    g["calls"] = calls / steps
    g["us"] = g["us"] / calls
    # a kernel carries its op's FLOPs × its share of the op: Σ FLOPs / Σ shares is the op's
    g["flops"] = g["flops"] / g["share"]
    g["bytes"] = g["bytes"] / g["share"]
    return g


def measurements(samples: Path) -> list[Measurement]:
    """Rows of both chips for the ops both traces ran (an op only one chip ran is left out and said)."""
    catalog = ChipCatalog.load(include_user=False)
    out = []
    for workload in WORKLOADS:
        tables = {chip: op_table(samples / folder / f"{workload}.json.gz", catalog) for folder, chip in
                  (("h100", CHIPS["h100"]), ("mi300", CHIPS["mi300"]))}
        keys = ["op_type", "shapes", "dtypes"]
        both = tables[CHIPS["h100"]].merge(tables[CHIPS["mi300"]][keys], on=keys)
        name = workload.split("__")[0]
        for chip, table in tables.items():
            for r in table.merge(both[keys], on=keys).itertuples(index=False):
                category = base_category(r.op_type)
                out.append(Measurement(
                    op_id=f"tracelens:{name}:{r.op_type}:{r.shapes}", dataset="tracelens", source_ref=REF,
                    source_file=f"tests/traces/{'h100' if 'H100' in chip else 'mi300'}/{workload}.json.gz", model=name,
                    workload=f"{name} inference", op=r.op_type, op_type=r.op_type, category=category,
                    unit="cube" if category in ("gemm", "attention") else "vector", dtype="bf16", shapes=r.shapes,
                    flops=float(r.flops), bytes=float(r.bytes), calls=float(r.calls), chip=chip,
                    measured_us=float(r.us), raw_us=float(r.us), note="kernel time per op call, per step"))
    return out
