"""The chip catalog: no peak of 0 or a denormal, huge fields survived, the quarantine keeps rows as written.

Before (issue 22 §1): peaks of 0 or 5e-324 were accepted (``"mfu": Infinity``); the quarantine of
a user catalog with a bad row rewrote every value to 6 significant digits and dropped the
columns it did not know.
"""

from __future__ import annotations

import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.chips.catalog import ChipCatalog, read_catalog_text
from mfu_desktop.core.chips.user_catalog import quarantine_user_catalog, validate_cell
from mfu_desktop.core.paths import user_catalog_path

HEADER = "vendor,model,architecture_type,cube_bf16_tflops,hbm_bandwidth_gbs,my_notes"


@pytest.mark.parametrize("peak", ["0", "0.0", "5e-324", "1e-300", "-1", "inf", "nan"])
def test_a_peak_that_would_divide_to_infinity_skips_its_row(peak):
    load = read_catalog_text(f"{HEADER}\nLab,X,Lab,{peak},1000,\nLab,Y,Lab,100,1000,\n", "test")
    assert [c.model for c in load.chips] == ["Y"]
    assert load.problems == [f"test: line 2: cube_bf16_tflops = {peak!r} is not a positive number of at least 1e-06 "
                             "(leave it blank when not published); row skipped"]
    assert validate_cell("cube_bf16_tflops", peak) is not None  # the editor refuses it too


def test_mfu_from_a_user_chip_is_never_infinite(capsys):
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{HEADER}\nLab,Zero,Lab,0,1000,\n", encoding="utf-8")
    code = mfu(["calc", "gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--time-us", "800", "--chip", "Lab Zero",
                "--json"])
    out = capsys.readouterr()
    assert code == 2 and "Infinity" not in out.out  # before: "mfu": Infinity
    assert mfu(["chips", "--json"]) == 0
    assert "Infinity" not in capsys.readouterr().out


def test_a_huge_field_is_a_problem_not_a_crash():
    text = f"{HEADER}\nLab,Big,Lab,100,1000,{'x' * 200_000}\nLab,Ok,Lab,100,1000,\n"
    load = read_catalog_text(text, "test")
    assert [c.model for c in load.chips] == ["Ok"] and "field larger than field limit" in load.problems[0]


def test_the_quarantine_keeps_valid_rows_byte_for_byte(tmp_path):
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    original = (f"{HEADER}\n"
                "Lab,Precise,Lab,100.123456789,1638.4,\"my, own, note\"\n"
                "Lab,Zero,Lab,0,1000,bad\n"
                f"Lab,Huge,Lab,100,1000,{'x' * 200_000}\n"
                "Lab,Second,Lab,7e2,,kept\n")
    path.write_text(original, encoding="utf-8")
    result = quarantine_user_catalog(path)
    assert result is not None and result.backup.read_text(encoding="utf-8") == original
    assert path.read_text(encoding="utf-8") == (f"{HEADER}\n"
                                                "Lab,Precise,Lab,100.123456789,1638.4,\"my, own, note\"\n"
                                                "Lab,Second,Lab,7e2,,kept\n")  # before: 100.123, my_notes dropped
    catalog = ChipCatalog.load()
    assert catalog.find("Lab Precise").value("cube_bf16_tflops") == 100.123456789
    assert quarantine_user_catalog(path) is None  # clean now


def test_a_gbk_user_catalog_is_read(tmp_path):
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("vendor,model,cube_bf16_tflops,notes\nLab,X,100,实验室芯片\n".encode("gbk"))
    chip = ChipCatalog.load().find("Lab X")
    assert chip.value("cube_bf16_tflops") == 100 and chip.notes == "实验室芯片"
