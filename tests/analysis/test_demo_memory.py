"""The bundled demo captures memory: its peaks follow from the generator's constants by hand."""

from __future__ import annotations

import pytest

from mfu_desktop import demo_memory as dm
from mfu_desktop.core.analysis.memory import memory_of
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.demo import generate


@pytest.fixture(scope="module")
def demo_memory(tmp_path_factory):
    root = generate(tmp_path_factory.mktemp("demo") / "demo", ranks=4, memory=True)
    result = analyze_paths([root], AnalysisOptions(), default_catalog())
    return {r.rank: memory_of(r) for r in result.ranks}, result


def test_peaks_by_hand(demo_memory):
    memory, _ = demo_memory
    # the peak is at the end of a forward pass: resident + the first step's optimizer state + every activation
    # (+6 % on the heavy rank 3) + the graph engine's workspace (PTA+GE is the framework's allocator)
    light = 30_720 + 1_024 + 14_336 + 256  # = 46,336 MB
    heavy = 30_720 + 1_024 + 14_336 * 1.06 + 256  # = 47,196.16 MB
    assert memory[0].allocator == "PTA+GE"
    assert memory[0].peak_allocated_mb == pytest.approx(light, abs=0.01)
    assert memory[3].peak_allocated_mb == pytest.approx(heavy, abs=0.01)
    # reserved = PTA's running maximum × 1.05 fragmentation, + GE's 256 MB
    assert memory[3].peak_reserved_mb == pytest.approx((heavy - 256) * 1.05 + 256, abs=0.01)  # 49,543.168
    # the process (APP) = that + HCCL 1,600 MB + RUNTIME 620 MB
    assert memory[3].process_reserved_mb == pytest.approx((heavy - 256) * 1.05 + 256 + 1_600 + 620, abs=0.01)
    # never released: the resident 30,720 MB and the 1,024 MB optimizer state
    assert memory[0].not_released_mb == pytest.approx(31_744.0)
    assert memory[0].components_mb == {"HCCL": 1_600.0, "RUNTIME": 620.0}
    # 910B2: 64 GB; share = 51,763.168 / 65,536
    assert memory[3].capacity_gb == 64.0
    assert memory[3].share == pytest.approx(51_763.168 / 65_536, rel=1e-6)


def test_the_peak_sits_in_the_forward_pass(demo_memory):
    memory, result = demo_memory
    for rank in result.ranks:
        m = memory[rank.rank]
        step = rank.summary.step_time_us
        assert 0 < m.peak_at_us < dm.FORWARD_SHARE * step * 1.01
        assert m.top_live[0].name == "aten::empty_strided" and m.top_live[0].size_mb == dm.RESIDENT_MB


def test_the_bundled_demo_is_what_the_generator_writes(tmp_path):
    from tests.conftest import ROOT

    fresh = generate(tmp_path / "demo", memory=True)
    shipped = ROOT / "resources" / "demo"
    for path in sorted(fresh.rglob("*")):
        if path.is_file():
            assert path.read_bytes() == (shipped / path.relative_to(fresh)).read_bytes(), path
