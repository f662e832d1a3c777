"""MSTX enrichment of an Ascend rank (profiler-formats.md §4.3): torch_npu's ``mfu_flops`` ranges and
``flash_attn_args`` marks, on generated databases that follow the documented schema (no public sample has them)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from mfu_desktop.core.analysis.annotate import FlopsSource, Status
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.mstx.marks import arguments_text, spread_by_time
from tests.helpers import HEADER_B, kernel_row, write_profiler_db

B = 1_767_225_600_000_000_000  # ns
PY = 100  # the Python thread's globalTid
VARLEN_ARGS = {"input_layout": "TND", "sparse_mode": 3, "actual_seq_qlen": [128, 384], "actual_seq_kvlen": [128, 384]}
#: 2·Σ count_i·N·(D_qk + D_v) with causal counts s(s+1)/2 for s = 128 and 256.
VARLEN_FLOPS = 2 * (128 * 129 // 2 + 256 * 257 // 2) * 8 * (128 + 128)
MATMUL_FLOPS = 2 * 256 * 1024 * 512
TND = "384,8,128"


def kernel(start: int, dur_us: float, name: str, op_type: str, core: str = "AI_CORE", **shapes: str) -> dict:
    return {"start_ns": start, "dur_ns": int(dur_us * 1000), "name": name, "type": op_type, "core": core, **shapes}


OPS = [
    {"start_ns": B + 1_000_000, "tid": PY, "name": "npu_fusion_attention", "kernels": [
        kernel(B + 1_050_000, 100, "FlashAttentionScore_1", "FlashAttentionScore", inputs=f"{TND};{TND};{TND}",
               in_types="DT_BF16;DT_BF16;DT_BF16", outputs=f"384,8,8;384,8,8;0;{TND}",
               out_types="FLOAT;FLOAT;DT_BF16;DT_BF16")]},
    {"start_ns": B + 2_000_000, "tid": PY, "name": "npu_moe_custom", "kernels": [
        kernel(B + 2_050_000, 30, "MoeCustom_1", "MoeCustom", inputs="4096,1024", in_types="DT_BF16"),
        kernel(B + 2_090_000, 10, "Cast_1", "Cast", "AI_VECTOR_CORE", inputs="4096,1024", in_types="DT_BF16")]},
    {"start_ns": B + 3_000_000, "tid": PY, "name": "aten::matmul", "kernels": [
        kernel(B + 3_050_000, 20, "MatMulV2_1", "MatMulV2", inputs="256,512;512,1024", in_types="DT_BF16;DT_BF16",
               outputs="256,1024", out_types="DT_BF16"),
        kernel(B + 3_080_000, 5, "Cast_2", "Cast", "AI_VECTOR_CORE", inputs="256,1024", in_types="DT_BF16")]},
    {"start_ns": B + 4_000_000, "tid": PY, "name": "npu_fusion_attention_grad", "kernels": [
        kernel(B + 4_050_000, 200, "FlashAttentionScoreGrad_1", "FlashAttentionScoreGrad",
               inputs=f"{TND};{TND};{TND};{TND};384,8,8;384,8,8",
               in_types="DT_BF16;DT_BF16;DT_BF16;DT_BF16;FLOAT;FLOAT",
               outputs=f"{TND};{TND};{TND}", out_types="DT_BF16;DT_BF16;DT_BF16")]},
]
MARKS = [
    ("flash_attn_args", B + 990_000, B + 990_000, PY, json.dumps(VARLEN_ARGS)),
    ("mfu_flops", B + 995_000, B + 1_020_000, PY, "999-npu_fusion_attention"),  # shapes + args win over it
    ("mfu_flops", B + 1_990_000, B + 2_010_000, PY, "1000000000-npu_moe_custom"),
    ("mfu_flops", B + 2_990_000, B + 3_010_000, PY, "999999-matmul"),  # the MatMul has FLOPs from its shapes
    ("mfu_flops", B + 5_000_000, B + 5_010_000, PY, "abc"),
    ("flash_attn_args", B + 5_000_000, B + 5_000_000, PY, "not json"),
    ("other_domain", B + 2_000_000, B + 2_001_000, PY, "5-ignored"),
]


def db_rank(root: Path, csv: bool = False) -> Path:
    out = root / "w0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    write_profiler_db(out / "ascend_pytorch_profiler_0.db", OPS, MARKS, steps=[(1, B, B + 6_000_000)])
    if csv:  # the text export of the same capture: its kernels are tied to the database by start time
        rows = [kernel_row(k["name"], k["type"], k["core"], f"{k['start_ns'] / 1000:.3f}", k["dur_ns"] / 1000,
                           k.get("inputs", "N/A"), k.get("in_types", "N/A"), k.get("outputs", "N/A"),
                           k.get("out_types", "N/A")) for op in OPS for k in op["kernels"]]
        (out / "kernel_details.csv").write_text(HEADER_B + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (out / "analyse.done").write_text("")
    return root


@pytest.mark.parametrize("csv", [False, True], ids=["db", "text export beside the db"])
def test_marks_give_varlen_attributes_and_recorded_flops(tmp_path, csv):
    result = analyze_paths([db_rank(tmp_path, csv)], AnalysisOptions(), use_cache=False)
    assert not result.failures
    rank = result.ranks[0]
    k = rank.kernels.set_index(C.NAME)

    def row(name):
        return k.loc[name]

    # varlen FlashAttention: layout, sparse_mode and lengths from the mark; the shapes engine counts it
    fa = row("FlashAttentionScore_1")
    assert fa["flops"] == VARLEN_FLOPS == 168_558_592
    assert fa["status"] == Status.COUNTED and fa["flops_source"] == FlopsSource.SHAPES_AND_ARGS
    assert "recorded input_layout" in fa["assumption"] and "sparse_mode 3 (recorded)" in fa["assumption"]
    # a custom op with no FLOP rule: the range's FLOPs spread over its kernels by time (30 : 10)
    assert row("MoeCustom_1")["flops"] == pytest.approx(750e6) and row("Cast_1")["flops"] == pytest.approx(250e6)
    assert row("MoeCustom_1")["flops_source"] == FlopsSource.RECORDED
    assert row("MoeCustom_1")["status"] == Status.COUNTED and row("Cast_1")["status"] == Status.COUNTED
    # a range whose MatMul has FLOPs from its shapes: the recording is not added on top (the Cast gets none)
    assert row("MatMulV2_1")["flops"] == MATMUL_FLOPS and row("MatMulV2_1")["flops_source"] == FlopsSource.SHAPES
    assert np.isnan(row("Cast_2")["flops"]) and row("Cast_2")["status"] == Status.NO_RULE
    # the backward kernel had no mark: still excluded, and the reason says how to fix it
    grad = row("FlashAttentionScoreGrad_1")
    assert grad["status"] == Status.EXCLUDED and "flash_attn_args" in grad["reason"]
    # per step FLOPs (one step): the sum of the above
    assert rank.summary.flops == pytest.approx(VARLEN_FLOPS + 1e9 + MATMUL_FLOPS)
    # what was read and what was skipped is said
    assert any("3 mfu_flops ranges (3 tied to 5 kernels), 1 flash_attn_args marks (1 tied" in n
               for n in rank.notes), rank.notes
    assert any("1 of 4 mfu_flops ranges skipped" in w for w in rank.warnings)
    assert any("1 of 2 flash_attn_args marks skipped" in w for w in rank.warnings)


def test_marks_on_another_thread_or_too_early_do_not_attach(tmp_path):
    marks = [("flash_attn_args", B + 990_000, B + 990_000, 999, json.dumps(VARLEN_ARGS)),  # another thread
             ("flash_attn_args", B - 5_000_000, B - 5_000_000, PY, json.dumps(VARLEN_ARGS)),  # 6 ms before
             ("mfu_flops", B + 1_990_000, B + 1_999_000, 999, "1000000000-npu_moe_custom")]  # another thread
    out = tmp_path / "w0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    write_profiler_db(out / "ascend_pytorch_profiler_0.db", OPS, marks)
    rank = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False).ranks[0]
    k = rank.kernels.set_index(C.NAME)
    assert k.loc["FlashAttentionScore_1", "status"] == Status.EXCLUDED
    assert k.loc["MoeCustom_1", "status"] == Status.NO_RULE
    assert any("2 flash_attn_args marks have no FlashAttention kernel" in w for w in rank.warnings)
    assert any("1 mfu_flops ranges cover no kernel" in w for w in rank.warnings)


def test_database_without_framework_tables_says_marks_are_unused(tmp_path):
    out = tmp_path / "w0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    db = write_profiler_db(out / "ascend_pytorch_profiler_0.db", OPS, MARKS)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE CONNECTION_IDS")
    rank = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False).ranks[0]
    assert any("no PYTORCH_API/CONNECTION_IDS" in w for w in rank.warnings)
    assert rank.kernels["flops_source"].eq(FlopsSource.RECORDED).sum() == 0


def test_nested_ranges_take_the_innermost():
    import pandas as pd

    from mfu_desktop.core.readers.mstx.marks import _innermost_range
    ranges = pd.DataFrame({"start_ns": [0, 10, 12, 40], "end_ns": [100, 30, 20, 50], "tid": [1, 1, 1, 1],
                           "flops": [1.0, 2.0, 3.0, 4.0]})
    op_ns = np.array([5, 11, 15, 25, 35, 45, 99, 150, 15])
    tid = np.array([1, 1, 1, 1, 1, 1, 1, 1, 2])
    assert _innermost_range(op_ns, tid, ranges).tolist() == [0, 1, 2, 1, 0, 3, 0, -1, -1]


def test_arguments_text_and_spread():
    assert arguments_text(json.dumps(VARLEN_ARGS)) == (
        "input_layout=TND;sparse_mode=3;actual_seq_qlen=128,384;actual_seq_kvlen=128,384")
    assert arguments_text('{"sparse_mode": true}') is None and arguments_text("[1, 2]") is None
    assert arguments_text('{"input_layout": "BSND", "extra": 1}') == "input_layout=BSND"
    out = spread_by_time(np.array([0, 0, 1, -1, 1]), np.array([3.0, 1.0, 0.0, 5.0, 0.0]), np.array([8.0, 10.0]))
    assert out[:3].tolist() == [6.0, 2.0, 5.0] and np.isnan(out[3]) and out[4] == 5.0
