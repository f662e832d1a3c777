"""Tools → Chip catalog: shipped rows read-only, user rows validated per cell, saved and reloaded everywhere."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.chips.user_catalog import CATALOG_COLUMNS, quarantine_user_catalog, read_user_rows
from mfu_desktop.core.paths import user_catalog_path
from mfu_desktop.gui.dialogs.catalog_editor import CatalogEditor

pytestmark = pytest.mark.gui


def col(name: str) -> int:
    return CATALOG_COLUMNS.index(name)


def test_shipped_rows_are_read_only_with_sources(qtbot):
    editor = CatalogEditor(ChipCatalog.load())
    qtbot.addWidget(editor)
    model = editor.shipped_model
    assert model.rowCount() == len(ChipCatalog.load().chips) == 57  # chips.csv's 49 + the 8 validation GPUs
    index = model.index(0, col("cube_fp16_tflops"))
    assert not model.flags(index) & Qt.ItemFlag.ItemIsEditable
    assert not model.setData(index, "1")
    sources = [model.data(model.index(r, col("source"))) for r in range(model.rowCount())]
    assert all(sources)


def test_add_validate_save_and_use_a_chip(make_window, qtbot):
    window = make_window("--lang", "en")
    editor = CatalogEditor(window.catalog, window)
    qtbot.addWidget(editor)
    position = editor.add_blank()
    model = editor.user_model
    assert model.problems  # a blank chip has no peak yet: flagged before saving
    assert not editor.save() and "Not saved" in editor.status.text()
    assert not user_catalog_path().exists()
    assert model.setData(model.index(position, col("model")), "Lab NPU X")
    assert model.setData(model.index(position, col("cube_bf16_tflops")), "abc")
    bad = model.index(position, col("cube_bf16_tflops"))
    assert "not a number" in model.data(bad, Qt.ItemDataRole.ToolTipRole)
    assert model.data(bad, Qt.ItemDataRole.BackgroundRole) is not None
    model.setData(bad, "512")
    model.setData(model.index(position, col("hbm_bandwidth_gbs")), "0")
    assert "positive" in model.data(model.index(position, col("hbm_bandwidth_gbs")), Qt.ItemDataRole.ToolTipRole)
    model.setData(model.index(position, col("hbm_bandwidth_gbs")), "")  # blank = not published
    assert editor.save()
    rows, problems = read_user_rows()
    assert problems == [] and rows[0]["model"] == "Lab NPU X" and rows[0]["cube_bf16_tflops"] == "512"

    window.reload_catalog()
    calc = window.calculator
    calc.chip.setCurrentIndex(calc.chip.findData("Custom Lab NPU X"))
    assert calc.peak.text() == "512"
    assert window.prediction.targets.findItems("Custom Lab NPU X", Qt.MatchFlag.MatchExactly)
    assert window.profiler.chip_choice.findData("Custom Lab NPU X") >= 0


def test_copy_a_shipped_row_to_override_it(qtbot):
    catalog = ChipCatalog.load()
    editor = CatalogEditor(catalog)
    qtbot.addWidget(editor)
    editor.tabs.setCurrentIndex(0)
    row = [c.identifier for c in catalog.chips].index("Huawei Ascend 910B3")
    editor.shipped_view.setCurrentIndex(editor.shipped_model.index(row, 0))
    position = editor.copy_selected()
    editor.user_model.setData(editor.user_model.index(position, col("cpu")), "1.1")
    assert editor.save()
    reloaded = ChipCatalog.load()
    chip = reloaded.find("910B3")
    assert chip.origin == "user" and chip.value("cpu") == 1.1
    assert chip.value("cube_fp16_tflops") == catalog.find("910B3").value("cube_fp16_tflops")


def test_corrupt_user_catalog_is_backed_up_and_reported_once(make_window):
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    header = ",".join(CATALOG_COLUMNS)
    good = ",".join("Lab" if c == "vendor" else "Good" if c == "model" else "100" if c == "cube_fp16_tflops" else ""
                    for c in CATALOG_COLUMNS)
    bad = ",".join("Lab" if c == "vendor" else "Bad" if c == "model" else "fast" if c == "cube_fp16_tflops" else ""
                   for c in CATALOG_COLUMNS)
    original = f"{header}\n{good}\n{bad}\n"
    path.write_text(original, encoding="utf-8")
    window = make_window("--lang", "en")
    assert "chip catalog had problems" in window.info.label.text()
    backups = list(path.parent.glob("devices_info.csv.bad-*"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == original
    assert window.catalog.find("Lab Good").value("cube_fp16_tflops") == 100
    assert quarantine_user_catalog() is None  # clean now: the next start says nothing
