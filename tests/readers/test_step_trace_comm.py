"""Step trace (all header variants) and communication matrix (both layouts)."""

from __future__ import annotations

import pytest

from mfu_desktop.core.readers.ascend.communication import parse_comm_matrix, read_comm_matrix, read_comm_matrix_db
from mfu_desktop.core.readers.step_trace import read_cluster_step_trace, read_step_trace_csv, read_step_trace_db

TEXT = "msinsight/test/data/pytorch/text"


def test_step_time_is_computing_plus_not_overlapped_plus_free(samples):
    t = read_step_trace_csv(samples / TEXT / "level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv")
    row = t.frame.iloc[0]
    assert row["step"] == "50"
    assert row["step_time_us"] == pytest.approx(8873.756 + 101963.203 + 25744.05, abs=1e-6)
    assert row["step_time_us"] == pytest.approx(row["stage"] + row["bubble"], abs=0.01)


def test_2023_header_without_preparing(samples):
    t = read_step_trace_csv(samples / "msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/"
                            "step_trace_time.csv")
    assert t.frame["step"].iloc[0] == "2" and t.frame["preparing"].isna().all()
    assert t.frame["step_time_us"].iloc[0] == pytest.approx(291698.098, abs=1e-3)


def test_device_id_header_variant(tmp_path):
    path = tmp_path / "step_trace_time.csv"
    path.write_text("Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
                    "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
                    "3,7,10,20,5,25,30,60,0,20,1\n")
    frame = read_step_trace_csv(path).frame
    assert frame["device_id"].iloc[0] == "3" and frame["step_time_us"].iloc[0] == 60


def test_analysis_db_step_trace(samples):
    t = read_step_trace_db(samples / "msinsight/test/data/pytorch/db/level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                           "analysis.db")
    assert t.frame["step_time_us"].iloc[0] == pytest.approx(8900.456 + 90080.699 + 25238.587, abs=1e-6)


def test_cluster_step_trace_keeps_rank_rows(samples):
    t = read_cluster_step_trace(samples / "msinsight/server/src/test/test_data/cluster_analysis_output/"
                                "cluster_step_trace_time.csv")
    assert len(t.frame) == 16 and list(t.frame["rank"])[:3] == [0, 1, 2]
    empty_step = read_cluster_step_trace(samples / "msprof-analyze/test/resource/advisor/cluster_analysis_output/"
                                         "cluster_step_trace_time.csv")
    assert len(empty_step.frame) == 8 and (empty_step.frame["step"] == "").all()


def test_garbage_step_trace_is_reported(tmp_path):
    path = tmp_path / "step_trace_time.csv"
    path.write_text("Step,Computing\n1,abc\n")
    t = read_step_trace_csv(path)
    assert t.problems and t.frame["step_time_us"].isna().all()
    path.write_text("nothing,useful\n1,2\n")
    assert read_step_trace_csv(path).empty


def test_current_layout_uses_total_keys_longest_link(samples):
    m = read_comm_matrix(samples / TEXT / "level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json")
    assert m.layout.startswith("aggregated")
    time_us, size_mb, ops = m.real_communication()
    # allreduce-total@…: longest link 0-6, 3.97973953125 ms; top1/middle/bottom are not added.
    assert ops == 1
    assert time_us == pytest.approx(3979.73953125)
    assert size_mb == pytest.approx(61.210624)


def test_2023_layout_every_key_is_an_operator(samples):
    m = read_comm_matrix(samples / "msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/"
                         "communication_matrix.json")
    assert m.layout.startswith("per operator")
    ops = {op.op.split("@")[0]: op for op in m.ops if op.kind == "collective"}
    assert "Total Op Info" not in ops
    assert ops["hcom_allReduce__483_2"].transit_time_ms == pytest.approx(1.0968948046875)  # link 0-6
    assert ops["hcom_allGather__483_3"].link == "0-4"
    time_us, _, n = m.real_communication()
    assert n == 27 and time_us == pytest.approx(sum(o.transit_time_ms for o in ops.values()) * 1000)


def test_db_comm_matrix_matches_json_layout(samples):
    m = read_comm_matrix_db(samples / "msinsight/test/data/pytorch/db/level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                            "analysis.db")
    assert m.real_communication()[2] == 1


def test_malformed_matrix_is_empty_with_reason(tmp_path):
    assert parse_comm_matrix([]).layout == "empty"
    path = tmp_path / "communication_matrix.json"
    path.write_text("{ not json")
    m = read_comm_matrix(path)
    assert m.layout == "empty" and "not valid JSON" in m.problems[0]
