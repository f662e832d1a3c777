"""Degenerate profiles: every rule runs (no rule fails into a note), nothing crashes, nothing is claimed."""

from __future__ import annotations

import pytest

from mfu_desktop.core.advisor.advice import advise
from mfu_desktop.core.analysis.idle import device_time
from tests.advisor.profiles import CLEAN, K, Trace, analyse, write_profile
from tests.helpers import kernel_row, make_rank


def degenerate_profiles(root):
    yield "one kernel", write_profile(root / "one", [[CLEAN[0]]], [Trace(555.0, 0.0, 0.0)])
    yield "communication only", write_profile(root / "comm", [[CLEAN[3]]], [Trace(0.0, 100.0, 0.0)])
    yield "zero durations", write_profile(root / "zero", [[K(**{**k.__dict__, "dur": 0.0}) for k in CLEAN]],
                                          [Trace(0.0, 0.0, 0.0)])
    yield "no step trace, no gaps", write_profile(root / "none", [[K(**{**k.__dict__, "gap": 0.0}) for k in CLEAN]],
                                                  step_trace=False)
    rows = [kernel_row("x", "N/A", "N/A", "N/A", 10.0), kernel_row("y", "MatMulV2", "AI_CORE", "-5", float("nan"))]
    yield "no start times", make_rank(root / "bad", "r_ascend_pt", 0, rows)


def test_degenerate_profiles_give_no_error_and_no_claim(tmp_path):
    for name, path in degenerate_profiles(tmp_path):
        advice = advise(analyse(path))
        assert advice.notes == [], name
        assert all(f.time_at_stake_us >= 0 for f in advice.findings), name
        for f in advice.findings:  # whatever is found is material and explained
            assert f.summary.en and f.advice.en and f.summary.zh, name


def test_device_time_by_hand():
    """Kernels [0,10) and [5,20) overlap, then [30,35): busy 25 µs, idle 10 µs before the third."""
    import pandas as pd

    frame = pd.DataFrame({"start_ns": [0, 5_000, 30_000], "duration_us": [10.0, 15.0, 5.0]})
    t = device_time(frame)
    assert t.busy_us == pytest.approx(25.0)
    assert list(t.idle_us[1:]) == [0.0, 10.0] and t.idle_total_us == pytest.approx(10.0)
    frame["wait_us"] = [0.0, 0.0, 4.0]  # the profiler says the third kernel waited 4 µs: a cut-out list
    assert device_time(frame).idle_us[2] == pytest.approx(4.0)
    frame["step_id"] = [1, 1, 2]  # the gap before a step's first kernel is the host's, not a launch gap
    assert pd.isna(device_time(frame).idle_us[2])
