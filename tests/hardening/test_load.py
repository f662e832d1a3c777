"""Load, scaled for CI: many ranks with one corrupt among them.

The full figure (64 ranks × 100,000 kernels: peak RSS and GUI stall) comes from
``bench/bench_load.py``; this test runs the same construction at 16 ranks × 20,000 kernels.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from tests.hardening.test_concurrency import rss_mb

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench_load import build_cluster


def test_sixteen_ranks_and_a_corrupt_one(tmp_path):
    csv_bytes = build_cluster(tmp_path, ranks=16, kernels=20_000)
    before = rss_mb()
    result = analyze_paths([tmp_path / "cluster"], AnalysisOptions(), use_cache=False)
    after = rss_mb()
    assert len(result.ranks) == 16
    assert len(result.failures) == 1 and result.failures[0].folder.rank == 16
    assert "cannot" in result.failures[0].reason or "no " in result.failures[0].reason
    assert all(r.summary.mfu_ops is not None for r in result.ranks)
    assert len(result.cluster.table) == 16
    if before is not None and after is not None:
        # everything kept for 16 × 20,000 kernels, against the CSV bytes read
        assert after - before < 2.0 * csv_bytes / 1e6 + 150
