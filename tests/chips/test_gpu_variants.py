"""GPU names from deviceProperties → catalog rows, by each family's own rules (profiler-formats.md §13)."""

from __future__ import annotations

import pytest

from mfu_desktop.core.analysis.chip_resolution import gpu_candidates
from mfu_desktop.core.chips.catalog import default_catalog

GIB = 2**30 / 1e9  # deviceProperties count bytes in GiB, the catalog GB


@pytest.mark.parametrize(("name", "sms", "gib", "expected"), [
    # A100s all have 108 SMs: the SM count says nothing; the name (or its board code) does
    ("NVIDIA A100-PG509-200", 108, 39.6, ["A100 SXM 40GB"]),  # board code of the SXM4 40GB (PCI id 20B0)
    ("NVIDIA A100-SXM4-40GB", 108, 39.6, ["A100 SXM 40GB"]),
    ("NVIDIA A100-PCIE-40GB", 108, 39.6, ["A100 PCIe 40GB"]),
    ("NVIDIA A100 80GB PCIe", 108, 79.2, ["A100 PCIe 80GB"]),
    ("NVIDIA A100-SXM4-80GB", 108, 79.2, ["A100 SXM 80GB"]),
    ("NVIDIA A100", 108, 39.6, ["A100 SXM 40GB", "A100 PCIe 40GB"]),  # not enough to tell: a range
    # H100s: 114 SMs on the PCIe card, 132 on SXM and NVL; NVL is always named
    ("NVIDIA H100 80GB HBM3", 132, 79.2, ["H100 SXM"]),
    ("NVIDIA H100", 114, 79.2, ["H100 PCIe"]),
    ("NVIDIA H100 PCIe", 114, 79.2, ["H100 PCIe"]),
    ("NVIDIA H100 NVL", 132, 93.0, ["H100 NVL"]),
    ("NVIDIA H200", 132, 140.0, ["H200"]),
    ("NVIDIA H200 NVL", 132, 140.0, ["H200 NVL"]),
    ("AMD Instinct MI300X VF", 304, 191.5, ["MI300X"]),
])
def test_gpu_names_resolve_by_their_family_rules(name, sms, gib, expected):
    found = gpu_candidates(default_catalog(), name, sms, gib * GIB)
    assert [c.model for c in found] == expected


def test_an_a100_board_name_is_confirmed_as_the_sxm_card_in_an_analysis(tmp_path):
    """Before, the H100's SM rule (< 120 SMs → PCIe) sent A100-PG509-200 to "A100 PCIe 40GB"."""
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.analyze import analyze_paths
    from mfu_desktop.demo import A100_PG509_PROPERTIES, TraceVariant, write_kineto_trace

    write_kineto_trace(tmp_path / "a.pt.trace.json", steps=1, layers=1,
                       variant=TraceVariant(device=dict(A100_PG509_PROPERTIES)))
    rank = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False).ranks[0]
    assert rank.chip.confirmed and rank.summary.chip == "NVIDIA A100 SXM 40GB"
    assert rank.summary.peak_source == ("deviceProperties: NVIDIA A100-PG509-200, 108 SMs, 43 GB → "
                                        "NVIDIA A100 SXM 40GB")
