"""``calibration.csv`` is never lost: read whatever a spreadsheet saved, never rewritten when not read whole.

Before (issue 22 §1): ``--save-calibration`` rewrote a ``calibration.csv`` it could not read
(saved as GBK by Excel) with only the new rows — the old factors lost, no backup; a field over
128 KB made every ``mfu predict`` crash with ``_csv.Error``.
"""

from __future__ import annotations

import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.paths import user_calibration_path
from mfu_desktop.core.predict.basis import ADVERTISED, ROOFLINE, SEED, SavedFactor
from mfu_desktop.core.predict.calibration_store import read_factors, save_factors
from mfu_desktop.core.writing import ExportError

HEADER = "source,target,basis,category,factor,fitted_on"
OLD = f"{HEADER}\nAscend 910B2,Ascend 910C,advertised,matmul,1.25,两个集群 2026-11-01\n"


def _new(factor: float = 1.5) -> list[SavedFactor]:
    return [SavedFactor("Ascend 910B2", "Ascend 910C", ADVERTISED, "attention", factor, "b vs c, 2026-12-01")]


def test_a_gbk_file_is_read_and_kept(tmp_path):
    path = tmp_path / "calibration.csv"
    original = OLD.encode("gbk")
    path.write_bytes(original)
    factors, problems = read_factors(path)
    assert problems == [] and [(f.category, f.factor, f.fitted_on) for f in factors] == [
        ("matmul", 1.25, "两个集群 2026-11-01")]
    save_factors(_new(), path)
    factors, _ = read_factors(path)
    assert {(f.category, f.factor) for f in factors} == {("matmul", 1.25), ("attention", 1.5)}  # before: matmul lost
    assert (tmp_path / "calibration.csv.bak").read_bytes() == original


def test_a_file_that_cannot_be_read_whole_is_never_rewritten(tmp_path):
    path = tmp_path / "calibration.csv"
    damaged = OLD.encode() + b"A,B,advertised,matmul,1.1,\xff\xfe\xfa\n"  # neither UTF-8 nor GBK
    path.write_bytes(damaged)
    with pytest.raises(ExportError, match=r"could not be read whole .* not rewritten"):
        save_factors(_new(), path)
    assert path.read_bytes() == damaged


def test_a_huge_field_neither_crashes_nor_is_lost(tmp_path):
    path = tmp_path / "calibration.csv"
    huge = OLD + f"A,B,advertised,matmul,1.0,{'x' * 200_000}\n"  # over the CSV module's 128 KB field limit
    path.write_text(huge, encoding="utf-8")
    factors, problems = read_factors(path)  # before: _csv.Error out of every mfu predict
    assert [f.factor for f in factors] == [1.25]
    assert any("field larger than field limit" in p for p in problems)
    with pytest.raises(ExportError):
        save_factors(_new(), path)
    assert path.read_text(encoding="utf-8") == huge


def test_other_rows_and_columns_are_kept_as_written(tmp_path):
    path = tmp_path / "calibration.csv"
    path.write_text(f"{HEADER},note\nAscend 910B2,Ascend 910C,advertised,matmul,1.2500001,x,keep\n"
                    "broken,row\n", encoding="utf-8")
    factors, problems = read_factors(path)
    assert len(factors) == 1 and "line 3" in problems[0]
    new = _new(2.0)
    save_factors(new, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    # a file from before the model column gains it after its own columns; its rows stay as written (the seed's)
    assert lines[0] == f"{HEADER},note,model"
    assert lines[1] == "Ascend 910B2,Ascend 910C,advertised,matmul,1.2500001,x,keep"  # digits and column kept
    assert lines[2] == "broken,row"
    assert lines[3] == f"Ascend 910B2,Ascend 910C,advertised,attention,2,\"b vs c, 2026-12-01\",,{new[0].model}"
    factors, _ = read_factors(path)
    assert [(f.category, f.model) for f in factors] == [("matmul", SEED), ("attention", new[0].model)]


def test_a_factor_is_replaced_only_for_its_own_model(tmp_path):
    path = tmp_path / "calibration.csv"
    path.write_text(OLD, encoding="utf-8")  # matmul 1.25, written before the model column: the seed model's
    save_factors([SavedFactor("Ascend 910B2", "Ascend 910C", ADVERTISED, "matmul", 2.0, "r", ROOFLINE)], path)
    factors, _ = read_factors(path)
    assert sorted((f.model, f.factor) for f in factors) == [(ROOFLINE, 2.0), (SEED, 1.25)]  # both kept
    save_factors([SavedFactor("Ascend 910B2", "Ascend 910C", ADVERTISED, "matmul", 3.0, "s", SEED)], path)
    factors, _ = read_factors(path)
    assert sorted((f.model, f.factor) for f in factors) == [(ROOFLINE, 2.0), (SEED, 3.0)]  # the seed's replaced


def test_mfu_predict_survives_a_damaged_calibration_file(capsys, tmp_path):
    from tests.helpers import kernel_row, make_rank

    make_rank(tmp_path, "r_ascend_pt", 0, [kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.000", 800.0,
                                                       "4096,4096;4096,4096", "DT_BF16;DT_BF16", "4096,4096",
                                                       "DT_BF16")])
    path = user_calibration_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(OLD + f"A,B,advertised,matmul,1.0,{'x' * 200_000}\n", encoding="utf-8")
    assert mfu(["predict", str(tmp_path), "--source", "910B2", "--targets", "910C", "--json"]) == 0
    assert "field larger than field limit" in capsys.readouterr().err
