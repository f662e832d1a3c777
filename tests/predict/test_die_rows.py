"""Chips cut from one die share the prediction model's fitted values (the catalog's ``die`` column).

A chip the corpus never measured (an A800, an H800, an MI250X, or the held-out A100 PCIe 40GB) takes
the median of its die's fitted chips before the catalog-wide ``*`` prior; its own row, when it has one,
always wins. Hand-computed on small tables; the shipped catalog's dies are checked by name.
"""

from __future__ import annotations

import math

import pytest

from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.chips.user_catalog import chip_to_row
from mfu_desktop.core.predict.basis import FITTED, ROOFLINE, Basis
from mfu_desktop.core.predict.model_fit import with_die_rows
from mfu_desktop.core.predict.model_table import Fitted, ModelTable, die_key, table_from_csv, table_to_csv
from mfu_desktop.core.predict.rates import pair_bandwidths, pair_peaks
from mfu_desktop.core.predict.rules import DEFAULT_RULES

SXM, PCIE = "NVIDIA A100 SXM 80GB", "NVIDIA A100 PCIe 80GB"
DIES = {SXM: "GA100", PCIE: "GA100", "NVIDIA L4": "AD104", "NVIDIA P4": ""}


@pytest.fixture(scope="module")
def catalog():
    return ChipCatalog.load(include_user=False)


def _table() -> ModelTable:
    return ModelTable(
        power=1.0,
        floors={(SXM, "gemm"): Fitted(6.0, 180), ("*", "gemm"): Fitted(4.0)},
        host_floors={PCIE: Fitted(20.0, 172), "NVIDIA P4": Fitted(31.0, 83)},
        efficiency={(SXM, "cube fp16"): Fitted(0.90, 180), (SXM, "memory"): Fitted(0.86, 270),
                    (PCIE, "cube fp32"): Fitted(0.86, 52), (PCIE, "memory"): Fitted(0.90, 172),
                    ("NVIDIA L4", "memory"): Fitted(1.17, 1111),
                    ("*", "cube"): Fitted(0.81), ("*", "memory"): Fitted(0.84)},
    )


def test_each_die_gets_the_median_of_its_fitted_chips():
    table = with_die_rows(_table(), DIES)
    ga100 = die_key("GA100")
    # memory: median of 0.86 (SXM) and 0.90 (PCIe) = 0.88, on 270 + 172 rows, naming both chips
    memory = table.efficiency[(ga100, "memory")]
    assert memory.value == pytest.approx(0.88) and memory.rows == 442
    assert SXM in memory.note and PCIE in memory.note
    # a key one sibling has is the die's: FP16 from the SXM, FP32 from the PCIe card, the host floor from the PCIe
    assert table.efficiency[(ga100, "cube fp16")].value == 0.90
    assert table.efficiency[(ga100, "cube fp32")].value == 0.86
    assert table.host_floors[ga100].value == 20.0 and table.floors[(ga100, "gemm")].value == 6.0
    # a chip without a die (the P4 here) lends nothing; a die of one fitted chip takes that chip's values
    assert [k for k in table.host_floors if k.startswith("die: ")] == [ga100]
    assert table.efficiency[(die_key("AD104"), "memory")].value == 1.17
    # the priors are untouched
    assert table.efficiency[("*", "memory")].value == 0.84


def test_an_unfitted_chip_takes_its_die_before_the_prior():
    table = with_die_rows(_table(), DIES)
    # the A800 was never measured: GA100's values, marked as fitted
    assert table.compute_efficiency("NVIDIA A800 SXM 80GB", "cube", "fp16", die="GA100") == (0.90, True)
    assert table.memory_efficiency("NVIDIA A800 SXM 80GB", die="GA100") == (pytest.approx(0.88), True)
    assert table.floor_us("NVIDIA A800 SXM 80GB", "gemm", die="GA100") == (6.0, True)
    assert table.host_floor_us("NVIDIA A800 SXM 80GB", die="GA100") == 20.0
    # its own row wins over the die's: the SXM keeps 0.86, not the die's 0.88
    assert table.memory_efficiency(SXM, die="GA100") == (0.86, True)
    # no die, or a die nobody fitted: the prior
    assert table.compute_efficiency("NVIDIA B200", "cube", "bf16", die="") == (0.81, False)
    assert table.memory_efficiency("NVIDIA H100 SXM", die="GH100") == (0.84, False)
    assert table.floor_us("NVIDIA H100 SXM", "gemm", die="GH100") == (4.0, False)


def test_die_rows_survive_the_csv_and_stay_out_of_the_fitted_chips():
    table = with_die_rows(_table(), DIES)
    back = table_from_csv(table_to_csv(table))
    assert back.memory_efficiency("NVIDIA A800 PCIe 80GB", die="GA100") == (pytest.approx(0.88), True)
    assert all(not c.startswith("die: ") for c in back.fitted_chips())


def test_the_shipped_catalog_names_the_dies(catalog):
    assert catalog.find("A800 SXM 80GB").die == catalog.find("A100 PCIe 40GB").die == "GA100"
    assert catalog.find("H20").die == catalog.find("H100 SXM").die == "GH100"
    assert catalog.find("MI210").die == catalog.find("MI250 (per GCD)").die
    assert catalog.find("Ascend 910B4").die == "Ascend 910B"
    assert catalog.find("T4").die == ""  # no sibling in the catalog
    # a user row keeps its die through the editor's row form
    assert chip_to_row(catalog.find("A800 SXM 80GB"))["die"] == "GA100"


def test_the_fitted_basis_of_an_unmeasured_sibling(catalog):
    """End to end through the rates: A800 SXM 80GB → H100 SXM on the fitted basis, FP16 cube and HBM.

    A800: 312 TFLOP/s × GA100's 0.90 = 280.8; 2039 GB/s × 0.88 = 1794.3. The H100 has no row and no fitted die
    sibling in this table: the table's catalog-wide priors, 989.4 × 0.81 and 3350 × 0.84 — not its own measured
    MAMF or HBM ratio (a measurement on one side only would skew the ratio, as on the achievable basis).
    """
    table = with_die_rows(_table(), DIES)
    basis = Basis(FITTED, model=ROOFLINE, parameters=table)
    a800, h100 = catalog.find("A800 SXM 80GB"), catalog.find("H100 SXM")
    peaks = pair_peaks("cube", "fp16", "aten::mm", a800, h100, list(DEFAULT_RULES), basis)
    assert peaks.source == pytest.approx(312 * 0.90) and peaks.target == pytest.approx(989.4 * 0.81)
    bw = pair_bandwidths(a800, h100, list(DEFAULT_RULES), basis)
    assert bw.source == pytest.approx(2039 * 0.88) and bw.target == pytest.approx(3350 * 0.84)
    assert math.isfinite(peaks.source / peaks.target)


def test_the_provenance_of_the_fitted_values_is_said():
    table = with_die_rows(_table(), DIES)
    assert table.provenance(SXM, "GA100") == f"{SXM}: its own fit (270 public measurements)"
    assert table.provenance("NVIDIA A800 SXM 80GB", "GA100").startswith(
        "NVIDIA A800 SXM 80GB: its die's fit (die GA100: median of ")
    assert "catalog-wide priors" in table.provenance("NVIDIA T4", "")
    assert "catalog-wide priors" in table.provenance("NVIDIA H100 SXM", "GH100")  # nobody of GH100 fitted here
