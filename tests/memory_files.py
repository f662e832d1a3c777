"""Generated memory files (profiler-formats.md §14) with peaks computed by hand, for the memory tests.

The Ascend rank (:func:`ascend_memory_rank`): step 1's first kernel starts at 1 000 050 µs.

* ``memory_record.csv`` (CRLF, timestamps with the trailing tab, blank cells): PTA+GE peaks at
  420 MB allocated at 1 000 300 µs (250 µs into the step), 540 MB reserved; PTA alone 400/512; APP
  (the process) 3 500.5 MB.
* ``operator_memory.csv``: live at the peak aten::mm 200 MB (never released, allocated at +150 µs),
  aten::empty_strided 100 MB (+50 µs, released after the peak), aten::gelu 10 MB (allocated at the
  peak itself, never released); aten::add and aten::relu are not live. Not released: 210 MB.
* ``npu_module_mem.csv``: HCCL peaks at 300 MB, RUNTIME at 50 MB, SLOG never reserves.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import kernel_row, make_rank

RECORD_HEADER = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type"
RECORD_ROWS = [
    "APP,1000000.000\t,,3000.0,,,NPU:0",
    "PTA,1000100.000\t,100.0,200.0,100.0,11,NPU:0",
    "PTA+GE,1000100.000\t,110.0,220.0,110.0,11,NPU:0",
    "GE,1000100.000\t,10.0,20.0,,,NPU:0",
    "PTA,1000300.000\t,400.0,512.0,400.0,11,NPU:0",
    "PTA+GE,1000300.000\t,420.0,540.0,420.0,11,NPU:0",
    "APP,1000400.000\t,,3500.5,,,NPU:0",
    "PTA+GE,1000500.000\t,,,,,NPU:0",
    "PTA+GE,1000600.000\t,150.0,540.0,150.0,11,NPU:0",
    "PTA,1000600.000\t,140.0,512.0,140.0,11,NPU:0",
]
OPERATOR_HEADER = ("Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
                   "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
                   "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
                   "Release Total Active(MB),Stream Ptr,Device Type")
OPERATOR_ROWS = [
    "aten::empty_strided,102400.0,1000100.000\t,1000600.000\t,1000600.000\t,500.0\t,500.0\t,110.0,220.0,110.0,"
    "150.0,540.0,150.0,11,NPU:0",
    "aten::mm,204800.0,1000200.000\t,,,,,310.0,540.0,310.0,,,,11,NPU:0",
    "aten::add,51200.0,1000250.000\t,1000280.000\t,1000280.000\t,30.0\t,30.0\t,360.0,540.0,360.0,310.0,540.0,"
    "310.0,11,NPU:0",
    "aten::gelu,10240.0,1000300.000\t,,,,,420.0,540.0,420.0,,,,11,NPU:0",
    "aten::relu,20480.0,1000400.000\t,1000450.000\t,1000450.000\t,50.0\t,50.0\t,430.0,540.0,430.0,410.0,540.0,"
    "410.0,11,NPU:0",
]
MODULE_HEADER = "Component,Timestamp(us),Total Reserved(MB),Device"
MODULE_ROWS = [
    "SLOG,1000000.0\t,0.0,NPU:0",
    "HCCL,1000000.0\t,100.0,NPU:0",
    "RUNTIME,1000000.0\t,50.0,NPU:0",
    "HCCL,1000500.0\t,300.0,NPU:0",
    "RUNTIME,1000500.0\t,50.0,NPU:0",
]

PEAK_ALLOCATED_MB = 420.0
PEAK_RESERVED_MB = 540.0
PROCESS_MB = 3500.5
PEAK_AT_US = 250.0
NOT_RELEASED_MB = 210.0
TOP_LIVE = [("aten::mm", 200.0, 150.0), ("aten::empty_strided", 100.0, 50.0), ("aten::gelu", 10.0, 250.0)]


def write_csv(path: Path, header: str, rows: list[str], newline: str = "\r\n") -> Path:
    """A CSV the way torch_npu writes it (CRLF by default)."""
    path.write_bytes((newline.join([header, *rows]) + newline).encode("utf-8"))
    return path


def ascend_rank(root: Path, name: str = "rank0_ascend_pt", rank: int = 0, profile_memory: bool | None = True) -> Path:
    """A torch_npu rank folder with a step of kernels (first kernel at 1 000 050 µs), no memory files yet."""
    rows = [kernel_row("MatMul_1", "MatMulV2", "AI_CORE", "1000050.000", 100.0, inputs="64,64;64,64",
                       in_types="FLOAT16;FLOAT16", outputs="64,64", out_types="FLOAT16"),
            kernel_row("Add_2", "Add", "AI_VECTOR_CORE", "1000400.000", 50.0, inputs="64,64;64,64",
                       in_types="FLOAT16;FLOAT16", outputs="64,64", out_types="FLOAT16")]
    common = {"record_shapes": True}
    if profile_memory is not None:
        common["profile_memory"] = profile_memory
    info = {"config": {"common_config": common,
                       "experimental_config": {"_profiler_level": "Level1",
                                               "_aic_metrics": "ACL_AICORE_PIPE_UTILIZATION", "_export_type": "text"}}}
    return make_rank(root, name, rank, rows, info=info)


def ascend_memory_rank(root: Path, name: str = "rank0_ascend_pt", rank: int = 0) -> Path:
    """:func:`ascend_rank` with the three memory files of the module docstring."""
    path = ascend_rank(root, name, rank)
    out = path / "ASCEND_PROFILER_OUTPUT"
    write_csv(out / "memory_record.csv", RECORD_HEADER, RECORD_ROWS)
    write_csv(out / "operator_memory.csv", OPERATOR_HEADER, OPERATOR_ROWS)
    write_csv(out / "npu_module_mem.csv", MODULE_HEADER, MODULE_ROWS, newline="\n")
    return path
