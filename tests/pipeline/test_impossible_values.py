"""Nothing silently wrong: impossible values are left out or read as missing, counted with their reason.

Before (issue 22 §3): ``Duration(us)`` = 1e309 gave operator MFU 0.0 with no warning and
``Infinity`` in ``--json`` (the cached run crashed writing it); 1e308 gave an MFU of 7e-304; a
Step Id of 1e23 dropped its kernel from the step's FLOPs; a rank_id beyond int64 was taken as
is; a text row in the database's STEP_TIME failed the rank; a 5,001-digit number or deep
nesting anywhere in profiler_info.json lost the whole file (and the rank id with it).

The matmul of every case: 2·4096³ = 137,438,953,472 FLOPs; two such kernels of 800 µs each
achieve 2 · 137,438,953,472 / 1,600 µs = 171.8 TFLOP/s.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.pipeline.analyze import analyze_paths
from tests.helpers import kernel_row, make_rank, write_profiler_db

MM = 2 * 4096**3
SHAPES = ("4096,4096;4096,4096", "DT_BF16;DT_BF16", "4096,4096", "DT_BF16")


def _mm(i: int, dur: object = 800.0, step: int = 1) -> str:
    return kernel_row(f"mm{i}", "MatMulV2", "AI_CORE", f"{1767225600000000 + i * 1000}.000", dur, *SHAPES, step=step)


def _strict(text: str) -> dict:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _analysis(path):
    return analyze_paths([path], AnalysisOptions(chip="910B2"), use_cache=False)


def _expected_mfu() -> float:
    peak = ChipCatalog.load().peak("910B2", "bf16").tflops * 1e12
    return 2 * MM / 1600e-6 / peak


@pytest.mark.parametrize(("cell", "why"), [
    ("1e309", "1 with an infinite duration"),
    ("-5", "1 with a negative duration"),
    ("1e308", "1 with a duration longer than the capture could hold (> 60 s)"),
    ("7.2e10", "1 with a duration longer than the capture could hold (> 60 s)"),  # 20 h
])
def test_an_impossible_duration_is_left_out_and_counted(tmp_path, cell, why):
    make_rank(tmp_path, "r_ascend_pt", 0, [_mm(0), _mm(1, cell), _mm(2)])
    rank = _analysis(tmp_path).ranks[0]
    assert len(rank.kernels) == 2
    assert f"1 kernel(s) left out (mm1): {why}" in rank.warnings
    assert rank.summary.mfu_ops == pytest.approx(_expected_mfu())  # before: 0.0 (inf) or 7e-304 (1e308)


@pytest.mark.parametrize("chip", ["910B2", None])  # a confirmed peak, and a peak range (mfu_lo / mfu_hi)
def test_a_vanishing_duration_is_an_impossible_mfu_without_numpy_warnings(tmp_path, chip, recwarn):
    # 2·4096³ FLOPs in 1e-300 µs: 1.4e305 TFLOP/s, beyond float32 (the display columns) — before, numpy printed
    # "RuntimeWarning: overflow encountered in cast" three times on the console
    make_rank(tmp_path, "r_ascend_pt", 0, [_mm(0), _mm(1, "1e-300"), _mm(2)])
    rank = analyze_paths([tmp_path], AnalysisOptions(chip=chip), use_cache=False).ranks[0]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    if chip is not None:
        assert rank.kernels.set_index("name").loc["mm1", "status"] == "suspicious"  # MFU > 100 %: kept out
        assert rank.summary.mfu_ops == pytest.approx(_expected_mfu())  # the two 800 µs matmuls alone


def test_the_json_is_always_valid_and_the_cache_survives_it(tmp_path, capsys):
    make_rank(tmp_path, "r_ascend_pt", 0, [_mm(0), _mm(1, "1e309"), _mm(2)])
    for _ in range(2):  # analysed, then served from the cache (before: the cached run crashed on Infinity)
        assert mfu(["analyze", str(tmp_path), "--chip", "910B2", "--json"]) == 0
        rank = _strict(capsys.readouterr().out)["ranks"][0]
        assert rank["kernels"] == 2 and rank["mfu_ops"] == pytest.approx(_expected_mfu())
        assert any("left out" in w for w in rank["warnings"])


def test_finite_json_replaces_every_non_finite_number():
    import numpy as np

    from mfu_desktop.core.numbers import json_text

    data = {"a": float("inf"), "b": [float("nan"), 1.5, np.float32("-inf"), np.int64(3)], "c": (np.float64(2.0),)}
    assert json_text(data) == '{"a": null, "b": [null, 1.5, null, 3], "c": [2.0]}'


def test_an_unreadable_step_id_takes_the_step_of_the_kernel_before(tmp_path):
    clean = make_rank(tmp_path / "clean", "r_ascend_pt", 0, [_mm(i) for i in range(4)])
    rows = [_mm(i) for i in range(4)]
    rows[2] = rows[2].replace("1,4294967295", "100000000000000000000000,4294967295", 1)  # Step Id 1e23
    damaged = make_rank(tmp_path / "damaged", "r_ascend_pt", 0, rows)
    good, bad = _analysis(clean.parent).ranks[0], _analysis(damaged.parent).ranks[0]
    assert bad.summary.mfu_step == pytest.approx(good.summary.mfu_step)  # before: 3/4 of it
    assert "1 cells in Step Id are out of range (kept as missing; data row 3)" in bad.data.problems
    assert "1 kernel(s) with an unreadable Step Id were given the step of the kernel before them in time" \
        in bad.data.problems


def test_a_blank_step_id_is_not_filled(tmp_path):
    rows = [_mm(0), _mm(1).replace("1,4294967295", ",4294967295", 1), _mm(2)]
    rank = _analysis(make_rank(tmp_path, "r_ascend_pt", 0, rows).parent).ranks[0]
    assert rank.kernels["step_id"].isna().sum() == 1  # a kernel outside the steps stays outside


@pytest.mark.parametrize("rank_id", [2**63, 10**23, 2**31])
def test_a_rank_id_beyond_any_cluster_is_no_rank_id(tmp_path, rank_id):
    make_rank(tmp_path, "r_ascend_pt", rank_id, [_mm(0)])
    rank = _analysis(tmp_path).ranks[0]
    assert rank.rank == -1 and rank.data.folder.rank is None
    assert any(p.startswith(f"rank id {str(rank_id)[:24]} (") for p in rank.data.problems)


def test_a_text_row_in_step_time_and_mistyped_ids_are_counted(tmp_path):
    folder = tmp_path / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    folder.mkdir(parents=True)
    kernel = {"name": "mm", "type": "MatMulV2", "inputs": "4096,4096;4096,4096", "in_types": "DT_BF16;DT_BF16",
              "outputs": "4096,4096", "out_types": "DT_BF16"}
    ops = [{"start_ns": 1_000_000 * i, "tid": 1, "name": "aten::mm",
            "kernels": [dict(kernel, start_ns=1_000_000 * i + 10_000, dur_ns=800_000)]} for i in range(1, 4)]
    db = write_profiler_db(folder / "ascend_pytorch_profiler_0.db", ops, steps=[(1, 0, 10_000_000)])
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO STEP_TIME VALUES ('step two', 'soon', 'later')")
    conn.execute("UPDATE TASK SET endNs = 'late' WHERE globalTaskId = 3")
    conn.execute("UPDATE COMPUTE_TASK_INFO SET opType = 'MatMul' WHERE globalTaskId = 2")
    conn.commit()
    conn.close()
    rank = _analysis(tmp_path).ranks[0]  # before: the STEP_TIME row failed the rank (ValueError)
    problems = rank.data.problems
    assert "STEP_TIME: 1 row(s) whose id or times are not integers (or end before they start) skipped" in problems
    assert "TASK: 1 task(s) whose start or end time is not a number (kept without a duration)" in problems
    assert "COMPUTE_TASK_INFO: 1 opType cell(s) that are not string ids (kept as missing)" in problems
    assert len(rank.kernels) == 3


def test_absurd_json_values_lose_only_themselves(tmp_path):
    rank = make_rank(tmp_path, "r_ascend_pt", None, [_mm(0)])
    text = ('{"rank_id": 6, "junk": ' + "[" * 100_000 + "]" * 100_000 + ', "big": ' + "9" * 5_001
            + ', "config": {"common_config": {"record_shapes": true}}}')
    (rank / "profiler_info.json").write_text(text)
    result = _analysis(tmp_path).ranks[0]
    assert result.rank == 6  # before: "not valid JSON" — the rank lost its id and its configuration
    assert "profiler_info.json: 1 value(s) nested deeper than 200 levels read as null; 1 integer(s) of more " \
           "than 1,000 digits read as null" in result.data.problems
