"""Non-operator time ranked with the hot operators, and a group's kernels, on hand-made rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mfu_desktop.core.analysis.grouping import group_rows
from mfu_desktop.core.analysis.kernel_roofline import judged_values
from mfu_desktop.core.analysis.roofline_figures import judged_figure
from mfu_desktop.core.analysis.time_sinks import OPERATOR, mean_breakdown, non_operator_rows, ranked_time
from mfu_desktop.core.cluster.documents import merge_hot_rows


def test_free_time_leads_when_the_device_idles():
    """The H100 BERT case: 3.6 of 3.9 ms per step free, the first operator an 80 µs addmm."""
    breakdown = {"computing": 250.0, "comm_not_overlapped": 50.0, "free": 3600.0, "bubble": 0.0}
    operators = [{"type": "aten::addmm", "input_shapes": "[768], [512, 768]", "time_us": 100.0, "lost_us": 80.0},
                 {"type": "aten::gelu", "input_shapes": "[512, 3072]", "time_us": 20.0, "lost_us": 0.0},
                 {"type": "aten::copy_", "input_shapes": "", "time_us": 10.0, "lost_us": None}]
    rows = ranked_time(operators, breakdown, "lost_us", top_n=10)
    # free (3,600) > communication not overlapped (50)? no: the addmm's 80 µs ranks before the 50 µs
    assert [(r["kind"], r["type"], r["lost_us"]) for r in rows] == [
        ("free", "free: device idle (host gaps)", 3600.0),
        (OPERATOR, "aten::addmm", 80.0),
        ("comm_not_overlapped", "communication not overlapped", 50.0),
    ]  # gelu (lost 0), copy_ (no lost time) and the empty bubble are not listed
    assert ranked_time(operators, breakdown, "lost_us", top_n=2)[-1]["type"] == "aten::addmm"
    by_time = ranked_time(operators, breakdown, "time_us", top_n=10)
    assert [r["time_us"] for r in by_time] == [3600.0, 100.0, 50.0, 20.0, 10.0]


def test_non_operator_rows_need_a_positive_time():
    assert non_operator_rows(None) == []
    assert non_operator_rows({"free": float("nan"), "comm_not_overlapped": -1.0, "bubble": 12.5}) == [
        {"kind": "bubble", "type": "pipeline bubble", "input_shapes": "", "count": None, "time_us": 12.5,
         "lost_us": 12.5, "mfu": None, "bw_util": None, "bound": None}]


def test_the_cluster_breakdown_is_the_mean_over_the_ranks_that_have_one():
    # free: (100 + 300) / 2 = 200; communication only on rank 1: 40; no rank has a bubble
    mean = mean_breakdown([{"free": 100.0, "comm_not_overlapped": None}, {"free": 300.0, "comm_not_overlapped": 40.0},
                           None])
    assert mean == {"free": 200.0, "comm_not_overlapped": 40.0, "bubble": None}


def test_a_group_that_loses_nothing_is_not_a_hot_operator_by_lost_time():
    r0 = [{"type": "MatMulV2", "input_shapes": "a", "count": 1, "time_us": 100.0, "lost_us": 0.0, "mfu": 1.0}]
    r1 = [{"type": "MatMulV2", "input_shapes": "a", "count": 1, "time_us": 100.0, "lost_us": 0.0, "mfu": 1.0},
          {"type": "Add", "input_shapes": "b", "count": 2, "time_us": 30.0, "lost_us": 6.0}]
    assert [r["type"] for r in merge_hot_rows([r0, r1], "lost_us", top_n=5, ranks=2)] == ["Add"]
    assert [r["type"] for r in merge_hot_rows([r0, r1], "time_us", top_n=5, ranks=2)] == ["MatMulV2", "Add"]


def test_rank_hot_table_by_lost_time_drops_zero_lost_groups():
    from mfu_desktop.core.analysis.aggregates import hot_operators

    # the fine table's sums of three groups: a MatMul exactly at its roofline time (lost 0 µs), an Add that
    # loses 20 µs, a Cast without a roofline time
    fine = pd.DataFrame({"display_type": ["MatMul", "Add", "Cast"], "input_shapes": ["a", "b", "c"],
                         "klass": ["cube", "vector", "vector"], "count": [1.0, 1.0, 1.0],
                         "time_us": [100.0, 50.0, 10.0], "counted": [1.0, 0.0, 0.0],
                         "counted_time_us": [100.0, 0.0, 0.0], "flops": [1e9, 0.0, 0.0],
                         "lost_us": [0.0, 20.0, 0.0], "lost_n": [1, 1, 0],
                         "mfu_ideal_us": [100.0, 0.0, 0.0], "mfu_time_us": [100.0, 0.0, 0.0]})
    assert hot_operators(fine, 10, "lost_us")["type"].tolist() == ["Add"]
    assert hot_operators(fine, 10, "time_us")["type"].tolist() == ["MatMul", "Add", "Cast"]


def test_judged_values_agree_with_judged_figure_row_by_row():
    table = pd.DataFrame({"mfu": [0.4, np.nan, 0.3, 0.2], "bw_util": [0.0775, 0.75, np.nan, 0.9],
                          "bound": ["compute", "memory", "memory", None]})
    values = judged_values(table)
    # a compute-bound GEMM at 7.75 % BW is judged by its 40 % MFU; a memory-bound row without a BW keeps its MFU
    assert values.tolist()[:3] == [0.4, 0.75, 0.3]
    for row, value in zip(table.to_dict("records"), values):
        expected = judged_figure(row)[1]
        assert (expected is None and np.isnan(value)) or expected == pytest.approx(value)


def test_group_rows_match_type_and_shapes_and_untyped_kernels_by_name():
    kernels = pd.DataFrame({
        "Type": pd.Categorical(["MatMulV2", "MatMulV2", "N/A", "Add", "MatMulV2"]),
        "Name": pd.Categorical(["mm_0", "mm_1", "aclnnMatmul_0", "add_0", "mm_2"]),
        "Input Shapes": pd.Categorical(["1,2;2,3", "1,2;2,3", "", "4;4", "8,8;8,8"]),
    })
    from mfu_desktop.core.readers import columns as C

    kernels = kernels.rename(columns={"Type": C.OP_TYPE, "Name": C.NAME, "Input Shapes": C.INPUT_SHAPES})
    assert group_rows(kernels, "MatMulV2", "1,2;2,3").tolist() == [0, 1]
    assert group_rows(kernels, "MatMulV2").tolist() == [0, 1, 4]
    assert group_rows(kernels, "aclnnMatmul_0", "").tolist() == [2]  # a Level0 kernel is grouped by its name
    assert group_rows(kernels, "Missing").tolist() == []
    assert group_rows(pd.DataFrame(), "MatMulV2").tolist() == []
