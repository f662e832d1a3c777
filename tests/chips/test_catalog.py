"""The chip catalog: shipped values, sources, name matching, user rows, other layouts."""

from __future__ import annotations

import csv

import pytest

from mfu_desktop.core.chips.catalog import CatalogError, ChipCatalog, UnknownChipError, read_catalog_text
from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.paths import shipped_catalog_path, user_catalog_path


@pytest.fixture
def catalog():
    return ChipCatalog.load(include_user=False)


def test_shipped_catalog_holds_every_reference_device(catalog, spec_dir):
    with (spec_dir / "chips.csv").open(newline="", encoding="utf-8") as fh:
        reference = list(csv.DictReader(fh))
    # the 49 reference devices plus the 8 GPUs the public validation data measured (validation/neusight)
    assert len(reference) == 49 and len(catalog.chips) == 49 + 8
    columns = {
        "cube_fp16_tflops": "cube_fp16_tflops", "cube_bf16_tflops": "cube_bf16_tflops",
        "cube_fp32_tflops": "cube_fp32_tflops", "cube_hf32_or_tf32_tflops": "cube_hf32_tflops",
        "cube_int8_tflops": "cube_int8_tflops", "cube_fp8_tflops": "cube_fp8_tflops",
        "hbm_bandwidth_gbs": "hbm_bandwidth_gbs", "interconnect_gbs": "interconnect_bandwidth",
        "cpu_coefficient": "cpu",
    }
    for row in reference:
        chip = catalog.find(f"{row['vendor']} {row['model']}")
        for ref_col, our_col in columns.items():
            expected = float(row[ref_col]) if row[ref_col].strip() else None
            assert chip.value(our_col) == expected, (chip.identifier, our_col)
        assert chip.source == row["source"] and chip.confidence == row["confidence"]


@pytest.mark.parametrize("name, column, value", [
    ("NVIDIA V100 PCIe 32GB", "cube_fp16_tflops", 112.0), ("NVIDIA V100 PCIe 32GB", "hbm_bandwidth_gbs", 900.0),
    ("NVIDIA T4", "cube_fp32_tflops", 8.1), ("NVIDIA T4", "hbm_bandwidth_gbs", 320.0),
    ("NVIDIA L4", "cube_bf16_tflops", 121.0),  # the datasheet's 242 "with sparsity", halved
    ("NVIDIA P100 PCIe 16GB", "cube_fp32_tflops", 9.3), ("NVIDIA P4", "cube_fp16_tflops", None),
    ("AMD MI100", "cube_fp32_tflops", 46.1), ("AMD MI210", "hbm_bandwidth_gbs", 1638.4),
    ("AMD MI250 (per GCD)", "cube_fp32_tflops", 90.5 / 2),  # one GCD is one framework device
])
def test_validation_gpus_carry_datasheet_values_with_sources(catalog, name, column, value):
    chip = catalog.find(name)
    assert chip.value(column) == value
    assert chip.source and chip.confidence == "B"


def test_shipped_file_keeps_seed_layout_first():
    header = shipped_catalog_path().read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[:11] == ["vendor", "model", "architecture_type", "cube_fp16_tflops", "cube_fp32_tflops",
                           "vector_fp16_tflops", "vector_fp32_tflops", "hbm_bandwidth_gbs", "memory_gb", "tdp_w",
                           "notes"]
    assert {"interconnect_bandwidth", "cpu", "cube_bf16_tflops", "source", "confidence"} <= set(header)


@pytest.mark.parametrize(
    "name", ["910B2", "Ascend 910B2", "Huawei Ascend 910B2", "ascend910b2", "  huawei ascend 910b2 "]
)
def test_name_matching(catalog, name):
    assert catalog.find(name).identifier == "Huawei Ascend 910B2"


def test_sourced_value_ships_and_seed_value_stays_visible(catalog):
    b1 = catalog.find("910B1")
    assert catalog.peak(b1, "bf16").tflops == 363.7
    assert "378.88" in b1.notes
    seed = catalog.find("910B1@seed MFU table")
    assert catalog.peak(seed, "bf16").tflops == 378.88
    assert "seed MFU table" in catalog.peak(seed, "bf16").source


def test_peak_by_dtype(catalog):
    assert catalog.peak("910B2", ComputeDtype.FP32).tflops == 88.5
    assert catalog.peak("910B2", "int8").tflops == 707.8
    assert catalog.peak("H100 SXM", "hf32").tflops == 494.7
    assert catalog.peak("Ascend 950DT", "fp8").tflops == 865.1
    peak = catalog.peak("910B3", "bf16")
    assert peak.tflops == 294.9 and peak.confidence == "B" and "CFG" in peak.source


@pytest.mark.parametrize(("chip", "dtype"), [("910A", "bf16"), ("950DT", "fp32"), ("910B2", "hf32"), ("PPU", "fp16")])
def test_blank_peak_is_an_error_never_a_fallback(catalog, chip, dtype):
    with pytest.raises(CatalogError, match="not published"):
        catalog.peak(chip, dtype)


def test_unknown_chip_suggests(catalog):
    with pytest.raises(UnknownChipError) as err:
        catalog.find("910B9")
    assert "Huawei Ascend 910B" in " ".join(err.value.suggestions)


def test_ambiguous_name_lists_candidates(catalog):
    with pytest.raises(UnknownChipError, match=r"ambiguous|did you mean"):
        catalog.find("A100")


def test_seed_alias_rows(catalog):
    assert catalog.find("Huawei Ascend 910B").value("cpu") == 1.0
    assert catalog.find("Huawei Ascend 910C").value("interconnect_bandwidth") == 784



@pytest.mark.parametrize(("name", "candidates"), [
    # the seed's "H100" alias is also the start of two other models: the catalog asks which (issue 21 §3)
    ("H100", ["NVIDIA H100 SXM", "NVIDIA H100 PCIe", "NVIDIA H100 NVL"]),
    ("nvidia h100", ["NVIDIA H100 SXM", "NVIDIA H100 PCIe", "NVIDIA H100 NVL"]),
    ("A100", ["NVIDIA A100 SXM 40GB", "NVIDIA A100 SXM 80GB", "NVIDIA A100 PCIe 40GB", "NVIDIA A100 PCIe 80GB"]),
    ("910C die", ["Huawei Ascend 910C die (Ascend910_9381/9382)", "Huawei Ascend 910C die (Ascend910_9391/9392)"]),
])
def test_a_name_that_starts_several_models_asks_which(catalog, name, candidates):
    with pytest.raises(UnknownChipError, match="ambiguous: which one") as err:
        catalog.find(name)
    assert err.value.suggestions == candidates


@pytest.mark.parametrize(("name", "identifier"), [
    # a row's own name wins even when other models start with it
    ("910C", "Huawei Ascend 910C"), ("910B", "Huawei Ascend 910B"), ("H200", "NVIDIA H200"), ("H20", "NVIDIA H20"),
    ("H100 SXM", "NVIDIA H100 SXM"), ("nvidia h100 pcie", "NVIDIA H100 PCIe"), ("Ascend910B2", "Huawei Ascend 910B2"),
])
def test_a_rows_own_name_is_never_ambiguous(catalog, name, identifier):
    assert catalog.find(name).identifier == identifier


def test_cores_and_clock_identify_skus(catalog):
    names = [c.identifier for c in catalog.match_cores_clock(20, 1800)]
    assert names[0] == "Huawei Ascend 910B3"
    assert "Huawei Ascend 910B1" in [c.identifier for c in catalog.match_cores_clock(24, 1850)]


def test_user_catalog_overrides_and_reports_malformed_rows():
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "vendor,model,architecture_type,cube_fp16_tflops,cube_bf16_tflops,hbm_bandwidth_gbs,source,confidence\n"
        "Huawei,Ascend 910B2,NPU,350,350,1600,my lab,A\n"
        "Acme,X1,NPU,100,abc,900,,\n"
        "Acme,X2,NPU,120,120,1000,datasheet,B\n",
        encoding="utf-8",
    )
    catalog = ChipCatalog.load()
    assert catalog.peak("910B2", "bf16").tflops == 350
    assert catalog.find("910B2").origin == "user"
    assert catalog.peak("Acme X2", "bf16").tflops == 120
    assert any("line 3" in p and "cube_bf16_tflops" in p for p in catalog.problems)
    with pytest.raises(UnknownChipError):
        catalog.find("X1")


def test_seed_script_layout_is_recognised_with_tbs_bandwidth():
    text = (
        "vendor,model,architecture_type,cube_fp16_tflops,cube_fp32_tflops,vector_fp16_tflops,vector_fp32_tflops,"
        "hbm_bandwidth,memory_gb,interconnect_bandwidth,cpu,notes\n"
        "Huawei,Ascend 910B,NPU,354,88,22,11,1.6,64,392,1.0,baseline\n"
        "NVIDIA,H20,GPU,148,44,88,44,4.0,96,900,1.2,\n"
    )
    load = read_catalog_text(text, "seed")
    assert load.layout.startswith("seed script")
    catalog = ChipCatalog(load.chips)
    assert catalog.find("Huawei Ascend 910B").value("hbm_bandwidth_gbs") == 1600
    assert catalog.find("NVIDIA H20").value("cpu") == 1.2


def test_empty_and_garbage_files_do_not_crash(tmp_path):
    assert read_catalog_text("", "x").problems
    assert read_catalog_text("a,b\n1,2\n", "x").problems
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    catalog = ChipCatalog.load(include_user=False, extra_files=[bad])
    assert catalog.problems
    assert len(catalog.chips) == len(ChipCatalog.load(include_user=False).chips)  # the shipped rows, untouched
