"""kernel_details.csv / op_summary readers: every header variant of profiler-formats.md §3."""

from __future__ import annotations

import numpy as np
import pytest

from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.ascend.kernels_csv import KernelFileError, read_kernel_csv
from tests.helpers import HEADER_B, kernel_row

TEXT = "msinsight/test/data/pytorch/text"


def test_level0_header_a(samples):
    t = read_kernel_csv(samples / TEXT / "level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv")
    assert len(t.frame) == 191
    assert C.INPUT_SHAPES in t.missing_columns
    assert t.frame[C.OP_TYPE].isna().sum() > 150  # Type N/A at Level0
    assert set(t.frame[C.CORE_TYPE].dropna().astype(str)) == {"HCCL"}
    # "1736405443881410.320\t" → exact integer ns
    assert t.frame[C.START_NS].iloc[0] == 1736405443881410320
    assert t.frame[C.DURATION_US].iloc[0] == pytest.approx(50.621)


def test_level1_header_b_pipeutilization(samples):
    t = read_kernel_csv(samples / TEXT / "level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv")
    f = t.frame
    assert len(f) == 191 and not t.problems
    first = f.iloc[0]
    assert first[C.NAME] == "trans_TransData_0" and first[C.CORE_TYPE] == "AI_VECTOR_CORE"
    assert first[C.START_NS] == 1736408883704643212  # 19 digits kept exactly
    assert first[C.INPUT_SHAPES] == "32,3,224,224"  # outer quotes stripped
    assert first["aiv_time_us"] == pytest.approx(50.522)
    mm = f[f[C.OP_TYPE] == "MatMulV2"].iloc[0]
    assert mm[C.INPUT_SHAPES] == "32,9216;4096,9216;4096" and mm[C.OUTPUT_SHAPES] == "32,4096"
    assert mm[C.INPUT_DTYPES] == "FLOAT;FLOAT;FLOAT"
    hccl = f[f[C.CORE_TYPE] == "HCCL"]
    assert len(hccl) == 4 and hccl[C.BLOCK_DIM].iloc[0] == 0 and hccl["aicore_time_us"].isna().all()


def test_level2_lf_line_ends(samples):
    t = read_kernel_csv(samples / TEXT / "level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv")
    assert len(t.frame) == 191 and not t.problems


def test_arithmetic_utilization_header_c(samples):
    t = read_kernel_csv(samples / "msprof-analyze/test/ut/advisor/advisor_backend/compute_advice/kernel_details.csv")
    f = t.frame
    assert len(f) == 591
    mm = f[f[C.NAME] == "MatMul91"].iloc[0]
    assert mm["aic_cube_fops"] == 473_250_242_560
    assert mm[C.START_NS] == 1699529623118495200  # one decimal, no TAB (2023)


def test_memoryl0_header_d_short_row_reported_not_shifted(samples):
    t = read_kernel_csv(samples / "msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/"
                        "kernel_details.csv")
    assert len(t.frame) == 20
    assert t.rows_skipped == 1
    assert "line 17 has 31 of 32 fields" in t.problems[0]
    # No row carries a shifted value: every duration is a positive float.
    assert (t.frame[C.DURATION_US] > 0).all()


def test_quoted_start_time_with_tab(samples):
    t = read_kernel_csv(samples / "msprof-analyze/test/ut/advisor/compute_advice/data/kernel_details.csv")
    assert t.frame[C.START_NS].iloc[0] == 1736413971558972912


def test_minimal_header_e_without_step_id(samples):
    t = read_kernel_csv(samples / "msprof-analyze/test/resource/test.csv")
    assert len(t.frame) == 8 and C.STEP_ID in t.missing_columns
    assert t.frame[C.START_NS].iloc[0] == 1702866902796675000


def test_op_summary_names(samples):
    t = read_kernel_csv(samples / "msinsight/server/src/test/test_data/test_kernel_parse/op_summary_1.csv")
    assert len(t.frame) == 20
    assert {C.NAME, C.OP_TYPE, C.CORE_TYPE, C.DURATION_US} <= set(t.frame.columns)
    assert t.frame[C.DURATION_US].iloc[0] == pytest.approx(496.8508)


def test_newest_header_block_num_device_id_communication(tmp_path):
    header = ("Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
              "Duration(us),Wait Time(us),Block Num,Mix Block Num,HF32 Eligible,Input Shapes,Input Data Types,"
              "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID")
    rows = [
        '3,7,4294967295,1,2,mm,MatMulV3,dynamic,AI_CORE,"1767225600000001.500\t",10.5,0,24,0,NO,'
        '"""128,256;256,512""",DT_BF16;DT_BF16,ND;ND,"""128,512""",DT_BF16,ND,N/A',
        "3,7,4294967295,N/A,N/A,hcom_allReduce__1_0_1,hcom_allReduce_,N/A,COMMUNICATION,1767225600000020.000\t,"
        "99.0,0,0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A",
    ]
    path = tmp_path / "kernel_details.csv"
    path.write_text(header + "\r\n" + "\r\n".join(rows) + "\r\n", encoding="utf-8")
    f = read_kernel_csv(path).frame
    assert list(f[C.BLOCK_DIM]) == [24, 0]
    assert list(f[C.DEVICE_ID]) == [7, 7] and list(f[C.STEP_ID]) == [3, 3]
    assert f[C.START_NS].tolist() == [1767225600000001500, 1767225600000020000]
    assert f[C.CORE_TYPE].iloc[1] == "COMMUNICATION"


def test_bom_and_garbage_cells_are_reported(tmp_path):
    rows = [kernel_row("a", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512",
                       "DT_BF16;DT_BF16", "128,512", "DT_BF16"),
            kernel_row("b", "Add", "AI_VECTOR_CORE", "1767225600000002.500", 3.0).replace(",3.0,", ",abc,", 1)]
    path = tmp_path / "kernel_details.csv"
    path.write_bytes(("\ufeff" + HEADER_B + "\n" + "\n".join(rows) + "\n").encode("utf-8"))
    t = read_kernel_csv(path)
    assert len(t.frame) == 2
    assert t.frame[C.DURATION_US].iloc[0] == 10.0 and np.isnan(t.frame[C.DURATION_US].iloc[1])
    assert any("Duration(us) are not numbers" in p for p in t.problems)


def test_non_utf8_bytes_do_not_crash(tmp_path):
    row = kernel_row("名字", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512",
                     "DT_BF16;DT_BF16", "128,512", "DT_BF16")
    path = tmp_path / "kernel_details.csv"
    path.write_bytes((HEADER_B + "\n").encode() + row.encode("utf-8").replace("名".encode(), b"\xff\xfe") + b"\n")
    t = read_kernel_csv(path)
    assert len(t.frame) == 1 and t.frame[C.DURATION_US].iloc[0] == 10.0
    assert any("UTF-8" in p for p in t.problems)


def test_missing_duration_column_is_an_error(tmp_path):
    path = tmp_path / "kernel_details.csv"
    path.write_text("Name,Type,Accelerator Core,Start Time(us)\na,MatMul,AI_CORE,1.0\n")
    with pytest.raises(KernelFileError, match="no Duration"):
        read_kernel_csv(path)


def test_empty_file_is_an_error(tmp_path):
    path = tmp_path / "kernel_details.csv"
    path.write_text("")
    with pytest.raises(KernelFileError, match="empty"):
        read_kernel_csv(path)


def test_truncated_file_keeps_the_whole_rows(tmp_path):
    rows = [kernel_row(f"k{i}", "Add", "AI_VECTOR_CORE", f"17672256000000{i:02d}.500", 3.0) for i in range(5)]
    text = HEADER_B + "\n" + "\n".join(rows) + "\n"
    path = tmp_path / "kernel_details.csv"
    path.write_text(text[: len(text) - 40])  # cut in the middle of the last row
    t = read_kernel_csv(path)
    assert len(t.frame) == 4
    assert t.rows_skipped == 1


def test_start_time_slow_path_matches_fast_path(tmp_path):
    rows = [kernel_row("a", "Add", "AI_VECTOR_CORE", "1767225600000001.5", 1.0),
            kernel_row("b", "Add", "AI_VECTOR_CORE", "1767225600000002", 1.0),
            kernel_row("c", "Add", "AI_VECTOR_CORE", "1767225600000003.123", 1.0)]
    path = tmp_path / "kernel_details.csv"
    path.write_text(HEADER_B + "\n" + "\n".join(rows) + "\n")
    assert read_kernel_csv(path).frame[C.START_NS].tolist() == [1767225600000001500, 1767225600000002000,
                                                                 1767225600000003123]
