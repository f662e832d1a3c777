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
    fmt_us,
)

translate = QCoreApplication.translate  # module-level helpers use the "Columns" context


def kernel_columns(frame: pd.DataFrame) -> list[ColumnSpec]:
    """Column specs of the annotated kernel frame: known columns first, then every other one."""
    known = [
        ColumnSpec(C.STEP_ID, translate("Columns", "Step"), fmt_int),
        ColumnSpec(C.NAME, translate("Columns", "Name"), tooltip=translate(
            "Columns", "the kernel's short display name; the full name is the cell's tooltip and in the detail pane"),
            display=short_name),
        ColumnSpec(C.OP_TYPE, translate("Columns", "Type"), display=short_name),
        ColumnSpec(C.CORE_TYPE, translate("Columns", "Core")),
        ColumnSpec("klass", translate("Columns", "Class")),
        ColumnSpec(C.DURATION_US, translate("Columns", "Duration (µs)"), fmt_us),
        ColumnSpec("flops", translate("Columns", "FLOPs"), fmt_flops),
        ColumnSpec("achieved_tflops", translate("Columns", "Achieved TFLOP/s"), fmt_number),
        ColumnSpec("peak_tflops", translate("Columns", "Peak TFLOP/s"), fmt_number),
        ColumnSpec("mfu", translate("Columns", "MFU"), fmt_pct, color_mfu=True),
        ColumnSpec("mfu_lo", translate("Columns", "MFU low"), fmt_pct, color_mfu=True),
        ColumnSpec("mfu_hi", translate("Columns", "MFU high"), fmt_pct, color_mfu=True),
        ColumnSpec("bound", translate("Columns", "Bound"), None,
                   translate("Columns", "compute when FLOPs / peak > bytes / bandwidth, else memory (the roofline)")),
        ColumnSpec("bytes", translate("Columns", "Bytes"), fmt_bytes,
                   translate("Columns", "minimum bytes: every input read once, every output written once")),
        ColumnSpec("achieved_gbs", translate("Columns", "Achieved GB/s"), fmt_number),
        ColumnSpec("bw_util", translate("Columns", "BW util"), fmt_pct,
                   translate("Columns", "achieved GB/s / the chip's HBM bandwidth: the figure of a memory-bound "
                             "kernel"), color_mfu=True),
        ColumnSpec("intensity", translate("Columns", "FLOP/byte"), fmt_number,
                   translate("Columns", "arithmetic intensity = FLOPs / bytes")),
        ColumnSpec("attainable_us", translate("Columns", "Roofline t* (µs)"), fmt_us,
                   translate("Columns", "max(FLOPs / peak, bytes / bandwidth): the fastest the roofline allows")),
        ColumnSpec("lost_us", translate("Columns", "Lost (µs)"), fmt_us,
                   translate("Columns", "measured − roofline-attainable (t − t*); duration × (1 − MFU) for a counted "
                             "kernel without bytes")),
        ColumnSpec("status", translate("Columns", "Status")),
        ColumnSpec("reason", translate("Columns", "Reason")),
        ColumnSpec("dtype", translate("Columns", "Dtype")),
        ColumnSpec(C.INPUT_SHAPES, translate("Columns", "Input shapes")),
        ColumnSpec(C.OUTPUT_SHAPES, translate("Columns", "Output shapes")),
        ColumnSpec(C.INPUT_DTYPES, translate("Columns", "Input dtypes")),
        ColumnSpec(C.BLOCK_DIM, translate("Columns", "Block dim"), fmt_int),
        ColumnSpec(C.MIX_BLOCK_DIM, translate("Columns", "Mix block dim"), fmt_int),
        ColumnSpec(
            "cube_utilization_pct",
            translate("Columns", "Cube util (%)"),
            fmt_number,
            translate("Columns", "hardware counter: how busy the cube pipeline was (not MFU)"),
        ),
        ColumnSpec("confidence", translate("Columns", "Confidence")),
        ColumnSpec(
            "flops_source",
            translate("Columns", "FLOPs source"),
            None,
            translate("Columns", "shapes: the FLOP rules on the kernel's shapes; + flash_attn_args: with the "
                      "arguments an MSTX mark recorded; mfu_flops range: FLOPs torch_npu recorded for the call"),
        ),
        ColumnSpec("assumption", translate("Columns", "Assumption")),
        ColumnSpec(
            "hw_ratio",
            translate("Columns", "HW/model FLOPs"),
            fmt_number,
            translate("Columns", "aic_cube_fops / model FLOPs"),
        ),
        ColumnSpec("executed_flops", translate("Columns", "Executed FLOPs"), fmt_flops),
        ColumnSpec("hw_bytes", translate("Columns", "HW bytes"), fmt_bytes,
                   translate("Columns", "main-memory bytes the hardware counted (aic_metrics Memory / MemoryAccess)")),
        ColumnSpec(C.WAIT_US, translate("Columns", "Wait (µs)"), fmt_us),
        ColumnSpec(C.START_NS, translate("Columns", "Start (ns)"), fmt_int),
    ]
    keys = {s.key for s in known}
    hidden = {"shape_group", "flops_detail", "peak_lo_tflops", "peak_hi_tflops", "roof_util"}
    extra = [ColumnSpec(c, str(c), fmt_number) for c in frame.columns if c not in keys and c not in hidden]
    return [s for s in known if s.key in frame.columns] + extra


def catalog_names(catalog: ChipCatalog) -> list[str]:
    """Chip identifiers for pickers."""
    return [c.identifier for c in catalog.chips]


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
    specs = []
    same = "calls" in frame.columns and "count" in frame.columns and bool((frame["calls"] == frame["count"]).all())
    for col in frame.columns:
        if col == "calls" and same:  # one kernel per op call (Ascend): the column would repeat Kernels/step
            continue
        header, fmt = labels.get(col, (str(col), fmt_number))
        specs.append(ColumnSpec(col, header, fmt, color_mfu=col in ("mfu", "mfu_step", "bw_util", "roof_util"),
                                display=short_name if col == "type" else None))
    return specs


def cluster_columns() -> list[ColumnSpec]:
    """Specs of the cluster table."""
    return [
        ColumnSpec("rank", translate("Columns", "Rank"), fmt_int),
        ColumnSpec("chip", translate("Columns", "Chip")),
        ColumnSpec("mfu_ops", translate("Columns", "Operator MFU"), fmt_pct, color_mfu=True),
        ColumnSpec("mfu_step", translate("Columns", "Step MFU"), fmt_pct, color_mfu=True),
        ColumnSpec("cube_utilization", translate("Columns", "Cube util"), fmt_pct),
        ColumnSpec("tier", translate("Columns", "Tier"), fmt_int),
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
        ColumnSpec("path", translate("Columns", "Folder")),
    ]
