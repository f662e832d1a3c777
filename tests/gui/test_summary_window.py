"""The window on a cluster summary: tree, cards and heat map from the documents; a selected rank's kernels
read from its path (a few at a time); an unreachable rank says so."""

from __future__ import annotations

import json
import shutil

import pytest

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.pipeline.runners import Runner
from mfu_desktop.core.pipeline.summarize import summarize
from mfu_desktop.core.store.summaries import MANIFEST
from mfu_desktop.gui.tabs.profiler_tab import MAX_FULL_RANKS
from tests.gui.conftest import wait_idle


@pytest.fixture
def summary(tmp_path):
    profile = tmp_path / "job"
    shutil.copytree(demo_profile_dir(), profile)
    out = tmp_path / "summary"
    summarize([profile], out, AnalysisOptions(), default_catalog(), Runner(workers=2))
    return profile, out


def test_summary_opens_with_tree_heat_map_and_bounded_full_ranks(make_window, qtbot, summary):
    _, out = summary
    window = make_window("--lang", "en", "--tab", "profiler")
    window.open_paths([out])
    wait_idle(qtbot, window)
    profiler = window.profiler
    result = profiler.result
    assert result.summary_root == out and len(result.ranks) == 8
    assert all(r.lite for r in result.ranks)
    assert profiler.card_ops.full_value == "62.9 %"  # the cluster, from the documents
    assert "rank 5" in profiler.card_tier.full_value  # the slow rank
    # the heat map: one cell per rank; a click selects that rank, whose kernels are read from its path
    heat = profiler.heat_map
    assert sorted(heat.ranks.tolist()) == list(range(8))
    step_ms = next(d["step_time_us"] for d in result.documents if d["rank"] == 5) / 1000
    assert heat.value_text(5).startswith(f"rank 5: {step_ms:.1f} ms")
    heat.click_rank_at(5)
    wait_idle(qtbot, window)
    current = profiler.current
    assert current.rank == 5 and not current.lite and len(current.kernels) > 0
    assert profiler.kernel_model.rowCount() > 0
    # memory stays bounded: at most MAX_FULL_RANKS ranks hold their kernels at once
    for rank in range(8):
        profiler.select_rank(rank)
        wait_idle(qtbot, window)
    assert profiler.full_ranks() == MAX_FULL_RANKS
    assert not profiler.current.lite  # the one on screen is full


def test_unreachable_ranks_show_the_summary_and_say_why(make_window, qtbot, summary, tmp_path):
    profile, out = summary
    shutil.rmtree(profile)  # as on a laptop that does not mount the cluster's file system
    window = make_window("--lang", "en", "--tab", "profiler")
    window.open_paths([out])
    wait_idle(qtbot, window)
    profiler = window.profiler
    profiler.select_rank(3)
    wait_idle(qtbot, window)
    assert profiler.current.lite and profiler.current.rank == 3
    assert "not reachable from this machine" in profiler.kernel_count.text()
    assert profiler.type_model.rowCount() > 0  # the summary's tables are shown
    assert profiler.card_ops.full_value.endswith("%")


def test_a_damaged_summary_is_a_message_not_a_crash(make_window, qtbot, summary):
    _, out = summary
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    manifest["version"] = 99
    (out / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    window = make_window("--lang", "en", "--tab", "profiler")
    window.open_paths([out])
    wait_idle(qtbot, window)
    assert window.profiler.result is None or not window.profiler.result.ranks
    assert "version 99" in window.profiler.info.label.text()
