"""msprof's memory files: ``*_slice_N_*.csv`` concatenated in slice order, KB converted, −1 = not collected."""

from __future__ import annotations

import pytest

from mfu_desktop.core.analysis.aggregates import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.readers.memory.files import msprof_memory_files
from tests.memory_files import write_csv

OP_SUMMARY = ("Device_id,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),Input Shapes,"
              "Input Data Types,Output Shapes,Output Data Types")
RECORD = "Device_id,Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Device"


def prof(tmp_path):
    """A PROF_* capture: one matmul, GE memory in two slices (KB), the process in npu_mem."""
    out = tmp_path / "PROF_000001_20240101" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    write_csv(out / "op_summary_20240101.csv", OP_SUMMARY,
              ['0,MatMul_1,MatMulV2,AI_CORE,1000050.000\t,100.0,"64,64;64,64",FLOAT16;FLOAT16,"64,64",FLOAT16'])
    write_csv(out / "memory_record_slice_10_20240101.csv", RECORD, ["0,GE,1000500,512,20480,NPU:0"])
    write_csv(out / "memory_record_slice_0_20240101.csv", RECORD,
              ["0,GE,1000100,1024,2048,NPU:0", "0,GE,1000200,4096,8192,NPU:0"])
    write_csv(out / "memory_record_slice_1_20240101.csv", RECORD,
              ["0,GE,1000300,10240,20480,NPU:0", "0,GE,1000400,2048,20480,NPU:0"])
    write_csv(out / "memory_record_20230101.csv", RECORD, ["0,GE,1000300,999999,999999,NPU:0"])  # not a slice
    write_csv(out / "npu_mem_20240101.csv", "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)",
              ["0,APP,0,3145728,3145728,1000100", "0,Device,0,4194304,4194304,1000100"])
    write_csv(out / "npu_module_mem_20240101.csv", "Device_id,Component,Timestamp(us),Total Reserved(KB),Device",
              ["0,HCCL,1000100,-1,NPU:0", "0,HCCL,1000200,204800,NPU:0", "0,RUNTIME,1000200,-1,NPU:0"])
    # msprof's operator_memory has no release time: allocation time + duration (blank = not released)
    write_csv(out / "operator_memory_20240101.csv", "Name,Size(KB),Allocation Time(us),Duration(us),"
              "Allocation Total Allocated(KB),Allocation Total Reserved(KB),Release Total Allocated(KB),"
              "Release Total Reserved(KB),Device",
              ["Conv2D_1,6144,1000250,100,6144,20480,1024,20480,NPU:0",
               "MatMul_2,2048,1000280,,8192,20480,,,NPU:0",
               "Add_3,1024,1000100,50,2048,8192,1024,8192,NPU:0"])
    return out.parent


def test_slices_are_found_in_order_and_the_stray_file_is_ignored(tmp_path):
    files = msprof_memory_files(prof(tmp_path) / "mindstudio_profiler_output")
    assert [p.name for p in files["memory_record"]] == [  # slice order, not text order (10 after 1)
        "memory_record_slice_0_20240101.csv", "memory_record_slice_1_20240101.csv",
        "memory_record_slice_10_20240101.csv"]
    assert set(files) == {"memory_record", "npu_mem", "npu_module_mem", "operator_memory"}


def test_slices_concatenated_kb_converted(tmp_path):
    path = prof(tmp_path)
    assert discover(path).ranks[0].reader == "msprof"
    result = analyze_paths([path], AnalysisOptions(chip="Ascend 910B2"), use_cache=False)
    assert not result.failures
    m = result.documents[0]["memory"]
    assert m["allocator"] == "GE"  # the only component msprof collects
    assert m["peak_allocated_mb"] == pytest.approx(10.0)  # 10 240 KB, in the second slice
    assert m["peak_reserved_mb"] == pytest.approx(20.0)
    assert m["process_reserved_mb"] == pytest.approx(3072.0)  # npu_mem APP hbm 3 145 728 KB
    assert m["peak_at_us"] == pytest.approx(250.0)  # 1 000 300 − the first kernel at 1 000 050
    assert m["components_mb"] == {"HCCL": 200.0}  # −1 = not collected, never a negative size
    assert any("3 slices concatenated" in n for n in m["notes"])
    assert "memory_record_slice_0_20240101.csv" in m["source"]
    # live at 1 000 300: Conv2D_1 (1 000 250 + 100 µs) and MatMul_2 (never released); Add_3 ended at 1 000 150
    assert [(a["name"], a["mb"], a["allocated_at_us"]) for a in m["top_live"]] == [
        ("Conv2D_1", 6.0, 200.0), ("MatMul_2", 2.0, 230.0)]
    assert m["not_released_mb"] == 2.0
