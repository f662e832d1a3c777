"""The canonical kernel frame: one set of typed columns whatever the file variant.

Every ``kernel_details.csv`` / ``op_summary_*.csv`` header variant and the SQLite export map
to these names (profiler-formats.md §3, §8). Only the columns listed here are read.
"""

from __future__ import annotations

import re

# --- canonical names --------------------------------------------------------------------

STEP_ID = "step_id"
DEVICE_ID = "device_id"
NAME = "name"
OP_TYPE = "op_type"
CORE_TYPE = "core_type"  # "Accelerator Core" / "Task Type"
START_NS = "start_ns"
DURATION_US = "duration_us"
WAIT_US = "wait_us"
BLOCK_DIM = "block_dim"
MIX_BLOCK_DIM = "mix_block_dim"
OP_STATE = "op_state"
HF32_ELIGIBLE = "hf32_eligible"
#: ``hf32_eligible`` values: ``YES`` / ``NO`` on Ascend (whether the kernel runs HF32 when HF32 is on); a
#: PyTorch trace writes ``TF32`` for a kernel that ran FP32 inputs on TF32 tensor cores (its name says so)
#: and ``NO`` for an FP32 matmul kernel that cannot (CUDA cores, a GPU older than Ampere).
HF32_RAN = "TF32"
HF32_NO = "NO"
INPUT_SHAPES = "input_shapes"
INPUT_DTYPES = "input_dtypes"
INPUT_FORMATS = "input_formats"
OUTPUT_SHAPES = "output_shapes"
OUTPUT_DTYPES = "output_dtypes"
OUTPUT_FORMATS = "output_formats"
#: A framework op's scalar arguments, ``;``-separated (Kineto "Concrete Inputs"): conv strides, is_causal …
ATTRIBUTES = "attributes"
#: The share of its op's FLOPs a kernel carries (an op's FLOPs spread over its kernels by time; 1 on Ascend).
FLOPS_SHARE = "flops_share"
STREAM_ID = "stream_id"
#: The framework op call a kernel belongs to (an id unique within the rank, −1: none). A GPU op may launch
#: several kernels (cuBLAS: a GEMM and a memset per ``aten::mm``); readers without it have one kernel per call.
OP_CALL = "op_call"
#: FLOPs a producer recorded for the call a kernel belongs to, this kernel's share (MSTX ``mfu_flops``).
RECORDED_FLOPS = "recorded_flops"
#: Which recorded range a kernel belongs to (−1: none); recorded FLOPs are used per range.
RECORDED_RANGE = "recorded_range"
#: Which marks described a kernel (``mfu_flops``, ``flash_attn_args``), missing when none.
ENRICHMENT = "enrichment"

#: Text columns stored as categoricals (few distinct values, millions of rows). Formats and OP State
#: are not read: nothing uses them.
CATEGORY_COLUMNS = (NAME, OP_TYPE, CORE_TYPE, HF32_ELIGIBLE, INPUT_SHAPES, INPUT_DTYPES, OUTPUT_SHAPES, OUTPUT_DTYPES,
                    ATTRIBUTES, ENRICHMENT)
#: Integer id columns (nullable).
INT_COLUMNS = (STEP_ID, DEVICE_ID, STREAM_ID, BLOCK_DIM, MIX_BLOCK_DIM)

#: Main-memory counters (``--aic-metrics Memory`` / ``MemoryAccess``): GB/s over the core's busy time,
#: or KB moved (mfu.md §6: shown beside the minimum bytes).
MEMORY_COUNTERS = (
    "aic_main_mem_read_bw_gbps", "aic_main_mem_write_bw_gbps", "aiv_main_mem_read_bw_gbps",
    "aiv_main_mem_write_bw_gbps", "aic_read_main_memory_datas_kb", "aic_write_main_memory_datas_kb",
    "aiv_read_main_memory_datas_kb", "aiv_write_main_memory_datas_kb",
)

#: Hardware-counter columns the analysis and the prediction use (µs for times). They are kept as
#: float32 (7 significant digits is more than the counters carry); scalar/fixpipe times and the
#: ratio columns are not read: nothing uses them (prediction.md §2 ignores scalar and fixpipe).
PMU_COLUMNS = (
    "aicore_time_us", "aic_total_cycles", "aic_mac_time_us", "aic_mte1_time_us", "aic_mte2_time_us",
    "aiv_time_us", "aiv_total_cycles", "aiv_vec_time_us", "aiv_mte2_time_us", "aiv_mte3_time_us",
    "cube_utilization_pct", "aic_cube_fops", *MEMORY_COUNTERS,
)
#: Cube FLOPs counted in hardware reach 1e12+: float64 keeps the ratio to model FLOPs exact enough.
PMU_FLOAT64 = ("aic_cube_fops",)
FLOAT_COLUMNS = (DURATION_US, WAIT_US, *PMU_COLUMNS)

#: Read as float32 (small integers and counters; float32 is exact to 2**24).
FLOAT32_COLUMNS = (WAIT_US, STEP_ID, DEVICE_ID, STREAM_ID, BLOCK_DIM, MIX_BLOCK_DIM,
                   *(c for c in PMU_COLUMNS if c not in PMU_FLOAT64))

#: Every canonical column, in display order.
KERNEL_COLUMNS = (
    STEP_ID, DEVICE_ID, NAME, OP_TYPE, CORE_TYPE, STREAM_ID, START_NS, DURATION_US, WAIT_US, BLOCK_DIM, MIX_BLOCK_DIM,
    HF32_ELIGIBLE, INPUT_SHAPES, INPUT_DTYPES, OUTPUT_SHAPES, OUTPUT_DTYPES, *PMU_COLUMNS,
)

# --- header aliases -----------------------------------------------------------------------

#: Header text (lower-cased, spaces collapsed) → canonical name.
_BASE_ALIASES = {
    "step id": STEP_ID,
    "device_id": DEVICE_ID,
    "device id": DEVICE_ID,
    "name": NAME,
    "op name": NAME,
    "type": OP_TYPE,
    "op type": OP_TYPE,
    "accelerator core": CORE_TYPE,
    "stream id": STREAM_ID,
    "task type": CORE_TYPE,
    "start time(us)": START_NS,
    "task start time(us)": START_NS,
    "duration(us)": DURATION_US,
    "task duration(us)": DURATION_US,
    "wait time(us)": WAIT_US,
    "task wait time(us)": WAIT_US,
    "block dim": BLOCK_DIM,
    "block num": BLOCK_DIM,
    "mix block dim": MIX_BLOCK_DIM,
    "mix block num": MIX_BLOCK_DIM,
    "hf32 eligible": HF32_ELIGIBLE,
    "input shapes": INPUT_SHAPES,
    "input data types": INPUT_DTYPES,
    "output shapes": OUTPUT_SHAPES,
    "output data types": OUTPUT_DTYPES,
}

#: First-generation chips print PMU names without the aic_/aiv_ prefix.
_UNPREFIXED = {
    "total_cycles": "aic_total_cycles",
    "mac_time_us": "aic_mac_time_us",
    "mac_ratio": "aic_mac_ratio",
    "scalar_time_us": "aic_scalar_time_us",
    "mte1_time_us": "aic_mte1_time_us",
    "mte2_time_us": "aic_mte2_time_us",
    "fixpipe_time_us": "aic_fixpipe_time_us",
    "vec_time_us": "aiv_vec_time_us",
    "mte3_time_us": "aiv_mte3_time_us",
    "cube_fops": "aic_cube_fops",
    "main_mem_read_bw_gbps": "aic_main_mem_read_bw_gbps",
    "main_mem_write_bw_gbps": "aic_main_mem_write_bw_gbps",
    "read_main_memory_datas_kb": "aic_read_main_memory_datas_kb",
    "write_main_memory_datas_kb": "aic_write_main_memory_datas_kb",
}

_UNIT = re.compile(r"\((us|%|gb/s|kb)\)$")


def pmu_name(header: str) -> str:
    """Normalise a PMU header name.

    ``aic_mac_time(us)`` → ``aic_mac_time_us``, ``cube_utilization(%)`` → ``cube_utilization_pct``.
    """
    text = header.strip().lower()
    match = _UNIT.search(text)
    if match:
        unit = {"us": "us", "%": "pct", "gb/s": "gbps", "kb": "kb"}[match.group(1)]
        text = text[: match.start()].rstrip() + "_" + unit
    return _UNPREFIXED.get(text, text)


def canonical_name(header: str) -> str | None:
    """The canonical column for a header, or ``None`` when the column is not needed."""
    key = " ".join(header.strip().lstrip("\ufeff").lower().split())
    if key in _BASE_ALIASES:
        return _BASE_ALIASES[key]
    name = pmu_name(key)
    return name if name in PMU_COLUMNS else None


#: Values of ``Accelerator Core`` that are communication.
COMM_CORES = frozenset({"HCCL", "COMMUNICATION"})
