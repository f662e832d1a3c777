"""Column specs of the Profiler tab's tables: headers, formats and tooltips per engine column."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import QCoreApplication

from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.readers import columns as C
from mfu_desktop.gui.models.dataframe_model import (
    ColumnSpec,
    fmt_bytes,
    fmt_calls,
    fmt_flops,
    fmt_int,
    fmt_number,
    fmt_pct,
    fmt_tenths,
    fmt_tier,
    fmt_us,
)

translate = QCoreApplication.translate  # module-level helpers use the "Columns" context


def _kernel_known() -> list[ColumnSpec]:
    """Every kernel column the engine or a reader makes, in table order: the figures that judge first."""
    return [
        ColumnSpec(C.NAME, translate("Columns", "Name"), tooltip=translate(
            "Columns", "the kernel's short display name; the full name is the cell's tooltip and in the detail pane"),
            display=short_name),
        ColumnSpec(C.OP_TYPE, translate("Columns", "Type"), display=short_name),
        ColumnSpec(C.DURATION_US, translate("Columns", "Duration (µs)"), fmt_us),
        ColumnSpec("mfu", translate("Columns", "MFU"), fmt_pct, translate("Columns", "the figure of a compute-bound "
                   "kernel: achieved TFLOP/s / peak (coloured where it judges the kernel)"),
                   color_mfu=True, judges="mfu"),
        ColumnSpec("bw_util", translate("Columns", "BW util"), fmt_pct,
                   translate("Columns", "achieved GB/s / the chip's HBM bandwidth: the figure of a memory-bound "
                             "kernel (coloured where it judges the kernel)"), color_mfu=True, judges="bw_util"),
        ColumnSpec("lost_us", translate("Columns", "Lost (µs)"), fmt_us,
                   translate("Columns", "measured − roofline-attainable (t − t*); duration × (1 − MFU) for a counted "
                             "kernel without bytes")),
        ColumnSpec("bound", translate("Columns", "Bound"), None,
                   translate("Columns", "compute when FLOPs / peak > bytes / bandwidth, else memory (the roofline)")),
        ColumnSpec(C.INPUT_SHAPES, translate("Columns", "Input shapes")),
        ColumnSpec(C.STEP_ID, translate("Columns", "Step"), fmt_int),
        ColumnSpec(C.CORE_TYPE, translate("Columns", "Core")),
        ColumnSpec("klass", translate("Columns", "Class")),
        ColumnSpec("status", translate("Columns", "Status")),
        ColumnSpec("reason", translate("Columns", "Reason")),
        ColumnSpec("flops", translate("Columns", "FLOPs"), fmt_flops),
        ColumnSpec("achieved_tflops", translate("Columns", "Achieved TFLOP/s"), fmt_number),
        ColumnSpec("peak_tflops", translate("Columns", "Peak TFLOP/s"), fmt_number),
        ColumnSpec("mfu_lo", translate("Columns", "MFU low"), fmt_pct, color_mfu=True, judges="mfu"),
        ColumnSpec("mfu_hi", translate("Columns", "MFU high"), fmt_pct, color_mfu=True, judges="mfu"),
        ColumnSpec("bytes", translate("Columns", "Bytes"), fmt_bytes,
                   translate("Columns", "minimum bytes: every input read once, every output written once")),
        ColumnSpec("achieved_gbs", translate("Columns", "Achieved GB/s"), fmt_number),
        ColumnSpec("intensity", translate("Columns", "FLOP/byte"), fmt_number,
                   translate("Columns", "arithmetic intensity = FLOPs / bytes")),
        ColumnSpec("attainable_us", translate("Columns", "Roofline t* (µs)"), fmt_us,
                   translate("Columns", "max(FLOPs / peak, bytes / bandwidth): the fastest the roofline allows")),
        ColumnSpec("dtype", translate("Columns", "Dtype")),
        ColumnSpec(C.OUTPUT_SHAPES, translate("Columns", "Output shapes")),
        ColumnSpec(C.INPUT_DTYPES, translate("Columns", "Input dtypes")),
        ColumnSpec(C.OUTPUT_DTYPES, translate("Columns", "Output dtypes")),
        ColumnSpec(C.BLOCK_DIM, translate("Columns", "Block dim"), fmt_int),
        ColumnSpec(C.MIX_BLOCK_DIM, translate("Columns", "Mix block dim"), fmt_int),
        ColumnSpec("cube_utilization_pct", translate("Columns", "Cube util (%)"), fmt_number,
                   translate("Columns", "hardware counter: how busy the cube pipeline was (not MFU)")),
        ColumnSpec("confidence", translate("Columns", "Confidence")),
        ColumnSpec("flops_source", translate("Columns", "FLOPs source"), None,
                   translate("Columns", "shapes: the FLOP rules on the kernel's shapes; + flash_attn_args: with the "
                             "arguments an MSTX mark recorded; mfu_flops range: FLOPs torch_npu recorded for the "
                             "call")),
        ColumnSpec("assumption", translate("Columns", "Assumption")),
        ColumnSpec("hw_ratio", translate("Columns", "HW/model FLOPs"), fmt_number,
                   translate("Columns", "aic_cube_fops / model FLOPs")),
        ColumnSpec("executed_flops", translate("Columns", "Executed FLOPs"), fmt_flops),
        ColumnSpec("hw_bytes", translate("Columns", "HW bytes"), fmt_bytes,
                   translate("Columns", "main-memory bytes the hardware counted (aic_metrics Memory / MemoryAccess)")),
        ColumnSpec(C.HF32_ELIGIBLE, translate("Columns", "HF32 eligible"), None,
                   translate("Columns", "the profiler's HF32 eligible column: an FP32 matmul that may run as HF32")),
        ColumnSpec(C.WAIT_US, translate("Columns", "Wait (µs)"), fmt_us),
        ColumnSpec(C.START_NS, translate("Columns", "Start (ns)"), fmt_int),
        ColumnSpec(C.DEVICE_ID, translate("Columns", "Device"), fmt_int),
        ColumnSpec(C.STREAM_ID, translate("Columns", "Stream"), fmt_int),
        ColumnSpec(C.OP_CALL, translate("Columns", "Op call"), fmt_int,
                   translate("Columns", "the op call that launched the kernel (a GPU op may launch several)")),
        ColumnSpec(C.ATTRIBUTES, translate("Columns", "Attributes")),
        ColumnSpec(C.FLOPS_SHARE, translate("Columns", "Share of the op's FLOPs"), fmt_number,
                   translate("Columns", "the part of its launching op's FLOPs this kernel carries (by duration)")),
        ColumnSpec(C.RECORDED_FLOPS, translate("Columns", "Recorded FLOPs"), fmt_flops),
        ColumnSpec(C.ENRICHMENT, translate("Columns", "Marks")),
        *_counter_columns(),
    ]


def _counter_columns() -> list[ColumnSpec]:
    """The Ascend hardware counters (aic_* cube core, aiv_* vector core), named in words."""
    counter = translate("Columns", "hardware counter")
    return [ColumnSpec(key, header, fmt, counter) for key, header, fmt in (
        ("aicore_time_us", translate("Columns", "AI Core time (µs)"), fmt_us),
        ("aic_total_cycles", translate("Columns", "Cube cycles"), fmt_number),
        ("aic_mac_time_us", translate("Columns", "Cube MAC time (µs)"), fmt_us),
        ("aic_mte1_time_us", translate("Columns", "Cube MTE1 time (µs)"), fmt_us),
        ("aic_mte2_time_us", translate("Columns", "Cube MTE2 time (µs)"), fmt_us),
        ("aic_cube_fops", translate("Columns", "Cube FLOPs (counted)"), fmt_flops),
        ("aiv_time_us", translate("Columns", "Vector core time (µs)"), fmt_us),
        ("aiv_total_cycles", translate("Columns", "Vector cycles"), fmt_number),
        ("aiv_vec_time_us", translate("Columns", "Vector VEC time (µs)"), fmt_us),
        ("aiv_mte2_time_us", translate("Columns", "Vector MTE2 time (µs)"), fmt_us),
        ("aiv_mte3_time_us", translate("Columns", "Vector MTE3 time (µs)"), fmt_us),
        ("aic_main_mem_read_bw_gbps", translate("Columns", "Cube main-memory read (GB/s)"), fmt_number),
        ("aic_main_mem_write_bw_gbps", translate("Columns", "Cube main-memory write (GB/s)"), fmt_number),
        ("aiv_main_mem_read_bw_gbps", translate("Columns", "Vector main-memory read (GB/s)"), fmt_number),
        ("aiv_main_mem_write_bw_gbps", translate("Columns", "Vector main-memory write (GB/s)"), fmt_number),
        ("aic_read_main_memory_datas_kb", translate("Columns", "Cube main-memory read (KB)"), fmt_number),
        ("aic_write_main_memory_datas_kb", translate("Columns", "Cube main-memory write (KB)"), fmt_number),
        ("aiv_read_main_memory_datas_kb", translate("Columns", "Vector main-memory read (KB)"), fmt_number),
        ("aiv_write_main_memory_datas_kb", translate("Columns", "Vector main-memory write (KB)"), fmt_number),
    )]


#: Columns never shown (internal to the engine).
HIDDEN_KERNEL_COLUMNS = {"shape_group", "flops_detail", "peak_lo_tflops", "peak_hi_tflops", "roof_util",
                         C.RECORDED_RANGE}


def readable_header(key: str) -> str:
    """A header for a column no spec names: words, not snake_case ("comm_wait_us" → "Comm wait (µs)")."""
    words = str(key).split("_")
    unit = {"us": "µs", "ns": "ns", "pct": "%", "mb": "MB", "kb": "KB", "gbs": "GB/s", "gbps": "GB/s"}.get(words[-1])
    if unit:
        words = words[:-1]
    text = " ".join(words).strip() or str(key)
    text = text[:1].upper() + text[1:]
    return f"{text} ({unit})" if unit else text


def kernel_columns(frame: pd.DataFrame) -> list[ColumnSpec]:
    """Column specs of the annotated kernel frame: the known columns, then any other (named in words)."""
    known = _kernel_known()
    keys = {s.key for s in known}
    extra = [ColumnSpec(c, readable_header(c), fmt_number) for c in frame.columns
             if c not in keys and c not in HIDDEN_KERNEL_COLUMNS]
    return [s for s in known if s.key in frame.columns] + extra


#: The kernel table's column presets (the column chooser), each a list of column keys.
KERNEL_PRESETS: dict[str, list[str] | None] = {
    "Essentials": [C.NAME, C.OP_TYPE, C.DURATION_US, "mfu", "mfu_lo", "mfu_hi", "bw_util", "lost_us", "bound",
                   C.INPUT_SHAPES, "dtype", "status", C.STEP_ID],
    "Roofline": [C.NAME, C.OP_TYPE, C.DURATION_US, "flops", "bytes", "intensity", "achieved_tflops", "peak_tflops",
                 "achieved_gbs", "mfu", "bw_util", "bound", "attainable_us", "lost_us"],
    "Hardware counters": [C.NAME, C.OP_TYPE, C.DURATION_US, C.CORE_TYPE, C.BLOCK_DIM, C.MIX_BLOCK_DIM,
                          "cube_utilization_pct", "hw_ratio", "executed_flops", "hw_bytes", *C.PMU_COLUMNS],
    "All": None,
}


def catalog_names(catalog: ChipCatalog) -> list[str]:
    """Chip identifiers for pickers."""
    return [c.identifier for c in catalog.chips]


#: The By type / By type and shape tables' column presets.
AGGREGATE_PRESETS: dict[str, list[str] | None] = {
    "Essentials": ["type", "input_shapes", "count", "time_us", "time_share", "mfu", "bw_util", "lost_us", "bound",
                   "dtype"],
    "Roofline": ["type", "input_shapes", "time_us", "flops", "bytes", "intensity", "achieved_tflops",
                 "achieved_gbs", "mfu", "bw_util", "bound", "attainable_us", "lost_us"],
    "All": None,
}


def aggregate_columns(frame: pd.DataFrame) -> list[ColumnSpec]:
    """Readable specs for the aggregate tables."""
    labels = {
        "type": (translate("Columns", "Type"), None),
        "input_shapes": (translate("Columns", "Input shapes"), None),
        "output_shapes": (translate("Columns", "Output shapes"), None),
        "dtype": (translate("Columns", "Dtype"), None),
        "count": (translate("Columns", "Kernels/step"), fmt_calls),
        "calls": (translate("Columns", "Calls/step"), fmt_calls),
        "time_us": (translate("Columns", "Time (µs/step)"), fmt_us),
        "time_share": (translate("Columns", "Share"), fmt_pct),
        "counted": (translate("Columns", "Counted/step"), fmt_calls),
        "counted_time_us": (translate("Columns", "Counted time (µs/step)"), fmt_us),
        "flops": (translate("Columns", "FLOPs/step"), fmt_flops),
        "flops_per_call": (translate("Columns", "FLOPs per kernel"), fmt_flops),
        "mean_us": (translate("Columns", "Mean per kernel (µs)"), fmt_us),
        "achieved_tflops": (translate("Columns", "Achieved TFLOP/s"), fmt_number),
        "mfu": (translate("Columns", "MFU"), fmt_pct),
        "klass": (translate("Columns", "Class"), None),
        "family": (translate("Columns", "Family"), None),
        "preparing": (translate("Columns", "Preparing (µs)"), fmt_us),
        "comm_not_overlapped_excl_receive": (translate("Columns", "Comm not overlapped, excl. receive (µs)"), fmt_us),
        "flops_step": (translate("Columns", "FLOPs/step"), fmt_flops),
        "counted_time_us_step": (translate("Columns", "Counted time (µs/step)"), fmt_us),
        "mfu_lo": (translate("Columns", "MFU low"), fmt_pct),
        "mfu_hi": (translate("Columns", "MFU high"), fmt_pct),
        "cube_utilization": (translate("Columns", "Cube util (%)"), fmt_number),
        "lost_us": (translate("Columns", "Lost (µs/step)"), fmt_us),
        "bound": (translate("Columns", "Bound"), None),
        "bytes": (translate("Columns", "Bytes/step"), fmt_bytes),
        "achieved_gbs": (translate("Columns", "Achieved GB/s"), fmt_number),
        "bw_util": (translate("Columns", "BW util"), fmt_pct),
        "intensity": (translate("Columns", "FLOP/byte"), fmt_number),
        "attainable_us": (translate("Columns", "Roofline t* (µs/step)"), fmt_us),
        "roof_util": (translate("Columns", "Roofline util"), fmt_pct),
        "hw_bytes": (translate("Columns", "HW bytes/step"), fmt_bytes),
        "hw_bytes_ratio": (translate("Columns", "HW / minimum bytes"), fmt_number),
        "status": (translate("Columns", "Status"), None),
        "reason": (translate("Columns", "Reason"), None),
        "assumption": (translate("Columns", "Assumption"), None),
        "confidence": (translate("Columns", "Confidence"), None),
        "step": (translate("Columns", "Step"), None),
        "computing": (translate("Columns", "Computing (µs)"), fmt_us),
        "comm_not_overlapped": (translate("Columns", "Comm not overlapped (µs)"), fmt_us),
        "overlapped": (translate("Columns", "Overlapped (µs)"), fmt_us),
        "communication": (translate("Columns", "Communication (µs)"), fmt_us),
        "free": (translate("Columns", "Free (µs)"), fmt_us),
        "stage": (translate("Columns", "Stage (µs)"), fmt_us),
        "bubble": (translate("Columns", "Bubble (µs)"), fmt_us),
        "step_time_us": (translate("Columns", "Step time (µs)"), fmt_us),
        "mfu_step": (translate("Columns", "Step MFU"), fmt_pct),
        "mfu_lo_step": (translate("Columns", "Step MFU low"), fmt_pct),
        "mfu_hi_step": (translate("Columns", "Step MFU high"), fmt_pct),
    }
    judges = {"mfu": "mfu", "mfu_lo": "mfu", "mfu_hi": "mfu", "bw_util": "bw_util"}
    specs = []
    same = "calls" in frame.columns and "count" in frame.columns and bool((frame["calls"] == frame["count"]).all())
    for col in frame.columns:
        if col == "calls" and same:  # one kernel per op call (Ascend): the column would repeat Kernels/step
            continue
        header, fmt = labels.get(col, (readable_header(col), fmt_number))
        specs.append(ColumnSpec(col, header, fmt, color_mfu=col in ("mfu", "mfu_step", "bw_util", "roof_util"),
                                judges=judges.get(col, ""), display=short_name if col == "type" else None))
    return specs


def cluster_columns() -> list[ColumnSpec]:
    """Specs of the cluster table."""
    return [
        ColumnSpec("label", translate("Columns", "Rank"), None,
                   translate("Columns", "the rank's id, or its file; a rank id several folders share is followed by "
                             "the part of the path that tells them apart")),
        ColumnSpec("rank", translate("Columns", "Rank id"), fmt_int),
        ColumnSpec("chip", translate("Columns", "Chip")),
        ColumnSpec("mfu_ops", translate("Columns", "Operator MFU"), fmt_pct, color_mfu=True),
        ColumnSpec("mfu_step", translate("Columns", "Step MFU"), fmt_pct, color_mfu=True),
        ColumnSpec("cube_utilization", translate("Columns", "Cube util"), fmt_pct),
        ColumnSpec("tier", translate("Columns", "Tier"), fmt_tier,
                   translate("Columns", "fallback tier: T1 FLOPs-based MFU, T2 cube utilisation, T3 device busy")),
        ColumnSpec("step_time_us", translate("Columns", "Step time (µs)"), fmt_us,
                   translate("Columns", "mean over the rank's captured steps")),
        ColumnSpec("steps", translate("Columns", "Steps"), fmt_int),
        ColumnSpec("computing", translate("Columns", "Computing (µs)"), fmt_us),
        ColumnSpec("comm_not_overlapped", translate("Columns", "Comm not overlapped (µs)"), fmt_us),
        ColumnSpec("free", translate("Columns", "Free (µs)"), fmt_us),
        ColumnSpec("bubble", translate("Columns", "Bubble (µs)"), fmt_us),
        ColumnSpec("peak_allocated_mb", translate("Columns", "Peak allocated (MB)"), fmt_tenths,
                   translate("Columns", "the framework allocator's peak (profile_memory=True)")),
        ColumnSpec("peak_reserved_mb", translate("Columns", "Peak reserved (MB)"), fmt_tenths),
        ColumnSpec("process_reserved_mb", translate("Columns", "Process reserved (MB)"), fmt_tenths,
                   translate("Columns", "the whole process's reserved peak (APP): allocator, runtime, HCCL buffers")),
        ColumnSpec("memory_share", translate("Columns", "Memory used"), fmt_pct,
                   translate("Columns", "the footprint against the chip's memory (memory_gb)")),
        ColumnSpec("kernels", translate("Columns", "Kernels (total)"), fmt_int),
        ColumnSpec("countable_kernels", translate("Columns", "Counted"), fmt_int),
        ColumnSpec("slow", translate("Columns", "Slow"), fmt_int),
        ColumnSpec("source", translate("Columns", "Source"), None,
                   translate("Columns", "where the rank comes from: folder or file under the opened root, format "
                             "(text / db / msprof / trace), capture level")),
        ColumnSpec("path", translate("Columns", "Folder")),
    ]
