"""Builders of small synthetic profiler folders for tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mfu_desktop.demo import HEADER as DEMO_HEADER

#: The Level1/PipeUtilization kernel_details header (variant B), as the demo generator writes it.
HEADER_B = ",".join(DEMO_HEADER)

STEP_TRACE = (
    "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
    "Communication(Not Overlapped and Exclude Receive),Preparing\n"
    "1,1000.0,200.0,50.0,250.0,300.0,1500.0,0,200.0,10.0\n"
)


def kernel_row(name: str, op_type: str, core: str, start_us: str, dur: float, inputs: str = "N/A",
               in_types: str = "N/A", outputs: str = "N/A", out_types: str = "N/A", block: int = 24,
               step: int = 1, pmu: dict[str, float] | None = None) -> str:
    """One header-B row; shapes are quoted the way torch_npu writes them."""
    def q(shapes: str) -> str:
        return shapes if shapes == "N/A" else f'"""{shapes}"""'

    values = {
        "aicore_time(us)": 0, "aic_total_cycles": 0, "aic_mac_time(us)": 0, "aic_mac_ratio": 0,
        "aic_scalar_time(us)": 0, "aic_scalar_ratio": 0, "aic_mte1_time(us)": 0, "aic_mte1_ratio": 0,
        "aic_mte2_time(us)": 0, "aic_mte2_ratio": 0, "aic_fixpipe_time(us)": 0, "aic_fixpipe_ratio": 0,
        "aic_icache_miss_rate": 0, "aiv_time(us)": 0, "aiv_total_cycles": 0, "aiv_vec_time(us)": 0,
        "aiv_vec_ratio": 0, "aiv_scalar_time(us)": 0, "aiv_scalar_ratio": 0, "aiv_mte2_time(us)": 0,
        "aiv_mte2_ratio": 0, "aiv_mte3_time(us)": 0, "aiv_mte3_ratio": 0, "aiv_icache_miss_rate": 0,
        "cube_utilization(%)": 0,
    }
    values.update(pmu or {})
    base = [str(step), "4294967295", "1", "2", name, op_type, "dynamic", core, f"{start_us}\t", f"{dur}", "0",
            str(block), "0", "NO", q(inputs), in_types, "ND", q(outputs), out_types, "ND", "N/A"]
    return ",".join(base + [str(v) for v in values.values()])


def make_rank(root: Path, folder: str, rank: int | None, rows: list[str], header: str = HEADER_B,
              step_trace: str | None = STEP_TRACE, info: dict | None = None, done: bool = True) -> Path:
    """A ``*_ascend_pt`` folder with profiler_info, kernel_details.csv and (optionally) a step trace."""
    path = root / folder
    out = path / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernel_details.csv").write_text(header + "\n" + "\n".join(rows) + ("\n" if rows else ""),
                                            encoding="utf-8")
    if step_trace is not None:
        (out / "step_trace_time.csv").write_text(step_trace, encoding="utf-8")
    if done:
        (out / "analyse.done").write_text("")
    payload = info if info is not None else {
        "config": {"common_config": {"record_shapes": True},
                   "experimental_config": {"_profiler_level": "Level1",
                                           "_aic_metrics": "ACL_AICORE_PIPE_UTILIZATION", "_export_type": "text"}},
    }
    if rank is not None:
        payload = dict(payload, rank_id=rank)
    name = f"profiler_info_{rank}.json" if rank is not None else "profiler_info.json"
    (path / name).write_text(json.dumps(payload), encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file under ``folder`` with size, mtime and content (for read-only checks)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[str(p.relative_to(folder))] = (st.st_size, st.st_mtime_ns, p.read_bytes())
    return out


def brute_mask_count(sq: int, skv: int, mode: int, pre: int | None = None, nxt: int | None = None) -> int:
    """Unmasked FlashAttention score elements by enumerating the S_q × S_kv grid (the test oracle)."""
    i = np.arange(sq)[:, None]
    j = np.arange(skv)[None, :]
    if mode in (0, 1):
        keep = np.ones((sq, skv), bool)
    elif mode == 2:
        keep = j <= i
    elif mode == 3:
        keep = j <= i + (skv - sq)
    else:
        d = i + (skv - sq)
        keep = (j >= d - pre) & (j <= d + nxt)
    return int(keep.sum())
