"""The advisor on the demo and every public sample: the findings pinned (rule, time at stake to 3 figures).

Each finding was read against the profile by hand (the report lists why each holds); a change to
a rule that moves one of them must be looked at again, not re-pinned blindly. Times at stake are
per step, mean per rank.
"""

from __future__ import annotations

import pytest

from mfu_desktop.core.advisor.advice import advise
from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.pipeline.analyze import analyze_paths

MS = "msinsight/test/data/pytorch"
ADVISOR = "msprof-analyze/test/ut/advisor"

#: sample → [(rule, time at stake µs per step to 3 significant figures)], largest first.
PINNED: dict[str, tuple[str, list[tuple[str, float]]]] = {
    # an AlexNet-like CNN on 8 × 910B, one captured step: the all-reduce waits, the host dispatches ~100
    # tiny kernels ~50 µs apart; Level0 has no shapes (no kernel-level bandwidth or core findings)
    "text_level0": (f"{MS}/text/level0", [("comm-not-overlapped", 81500.0), ("host-bound", 25900.0),
                                          ("small-kernels", 5320.0)]),
    "text_level1": (f"{MS}/text/level1", [("comm-not-overlapped", 99200.0), ("host-bound", 26200.0),
                                          ("small-kernels", 5030.0), ("memory-bound-low-bw", 938.0),
                                          ("block-dim", 805.0)]),
    "text_level2": (f"{MS}/text/level2", [("comm-not-overlapped", 96000.0), ("host-bound", 25000.0),
                                          ("small-kernels", 5220.0), ("memory-bound-low-bw", 888.0),
                                          ("block-dim", 794.0)]),
    "db_level0": (f"{MS}/db/level0", [("comm-not-overlapped", 85900.0), ("host-bound", 25900.0),
                                      ("small-kernels", 5420.0)]),
    # db level1/2: the chip is a range (910B2/B2C/B3: 20 or 24 AI cores), so Block Dim is not judged
    "db_level1": (f"{MS}/db/level1", [("comm-not-overlapped", 98100.0), ("host-bound", 25300.0),
                                      ("small-kernels", 4820.0), ("memory-bound-low-bw", 948.0)]),
    "db_level2": (f"{MS}/db/level2", [("comm-not-overlapped", 93200.0), ("host-bound", 25200.0),
                                      ("small-kernels", 5200.0), ("memory-bound-low-bw", 914.0)]),
    # GPT-3 on 910B (2023): FlashAttention with an 8192 × 8192 mask in sparse_mode 0 on rank 0
    "msinsight_server": ("msinsight/server/src/test/test_data", [("comm-not-overlapped", 149000.0),
                                                                 ("host-bound", 68900.0),
                                                                 ("fa-full-mask", 5280.0)]),
    # no step trace: the device waits ~85 µs (its recorded Wait Time) before every kernel; Cast on the AI CPU
    "advisor_backend": (f"{ADVISOR}/advisor_backend/compute_advice", [("host-bound", 122000.0),
                                                                       ("small-kernels", 38700.0),
                                                                       ("aicpu-fallback", 785.0)]),
    # the spec's FlashAttention row (SBH, S = 4096, a 4096 × 4096 mask); MatMulV2 rows on 16 of 20 cores
    "advisor_data": (f"{ADVISOR}/compute_advice/data", [("fa-full-mask", 2330.0), ("block-dim", 150.0)]),
    # small-batch inference on H100 / MI300X: launch-bound
    "trace_h100": ("tracelens/h100", [("host-bound", 4970.0), ("small-kernels", 4710.0)]),
    "trace_mi300": ("tracelens/mi300", [("host-bound", 4130.0), ("small-kernels", 2840.0)]),
    # MIOpen convolutions on MI210: NCHW ↔ NHWC transposes around every convolution
    "trace_mi210": ("tracelens/mi210", [("data-movement", 1100.0), ("host-bound", 619.0)]),
}


def pinned(result) -> list[tuple[str, float]]:
    advice = advise(result)
    assert advice.notes == []  # every rule ran on every rank
    return [(f.rule, float(f"{f.time_at_stake_us:.3g}")) for f in advice.findings]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_sample_findings_are_pinned(samples, name):
    path, expected = PINNED[name]
    assert pinned(analyze_paths([samples / path], use_cache=False)) == expected


def test_demo_findings_are_pinned():
    """The demo: the last all-reduce is not overlapped (rank 5 is 9 % slower), AdamW at 24 % of HBM, 2 AI CPU ops."""
    result = analyze_paths([demo_profile_dir()], use_cache=False)
    assert pinned(result) == [("comm-not-overlapped", 11800.0), ("memory-bound-low-bw", 938.0),
                              ("aicpu-fallback", 131.0)]
