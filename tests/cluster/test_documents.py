"""Cluster figures from rank documents, against hand-computed values (cluster/documents.py)."""

from __future__ import annotations

import math

import pytest

from mfu_desktop.core.analysis.steps import SLOW_RANK_MARGIN, across_ranks, slow_ranks
from mfu_desktop.core.cluster.documents import (
    analysis_json,
    cluster_document,
    cluster_rate,
    folder_document,
    merge_hot_rows,
    mixed_chips_warning,
    slow_rank_excess,
    slow_rank_text,
)


def rank_doc(rank: int, step_us: float | None, mfu: float | None, time_us: float, flops: float, *,
             confirmed: bool = True, chip: str = "Ascend 910B2", mfu_range=None, hot=(), **extra) -> dict:
    """A minimal rank document with the fields the cluster reads."""
    return {"rank": rank, "path": f"/p/rank{rank}", "chip": chip, "vendor": "Huawei", "mfu_ops": mfu,
            "mfu_ops_range": mfu_range, "mfu_step": extra.pop("mfu_step", None), "confirmed": confirmed,
            "step_time_us": step_us, "countable_time_us": time_us, "flops": flops, "kernels": 10,
            "countable_kernels": 8, "tier": 1, "steps": 2, "hot_by_lost": list(hot), "hot_by_time": list(hot),
            "step_breakdown": {"computing": 800.0, "comm_not_overlapped": 100.0, "free": 100.0, "bubble": 0.0},
            **extra}


def test_operator_mfu_of_the_cluster_is_time_weighted():
    # rank 0: 50 % over 100 µs, rank 1: 20 % over 300 µs → (50 + 60) / 400 = 27.5 %
    ranks = [rank_doc(0, 1000.0, 0.5, 100.0, 1e12), rank_doc(1, 1000.0, 0.2, 300.0, 3e12)]
    rate = cluster_rate(ranks)
    assert rate["mfu"] == pytest.approx(0.275)
    assert rate["flops"] == 4e12 and rate["time_us"] == 400.0
    # 4e12 FLOPs in 400 µs = 1e16 FLOP/s = 10,000 TFLOP/s
    assert rate["achieved_tflops"] == pytest.approx(1e4)
    assert rate["mfu_range"] is None


def test_unconfirmed_chips_give_a_range_and_a_mix_gives_neither():
    a = rank_doc(0, 1000.0, None, 100.0, 1e12, confirmed=False, mfu_range=[0.4, 0.6])
    b = rank_doc(1, 1000.0, None, 100.0, 1e12, confirmed=False, mfu_range=[0.2, 0.3])
    rate = cluster_rate([a, b])
    assert rate["mfu"] is None
    assert rate["mfu_range"] == pytest.approx([0.3, 0.45])
    mixed = cluster_rate([a, rank_doc(2, 1000.0, 0.5, 100.0, 1e12)])
    assert mixed["mfu"] is None and mixed["mfu_range"] is None


def test_no_counted_time_gives_no_rate_rather_than_zero():
    rate = cluster_rate([rank_doc(0, 1000.0, None, 0.0, 0.0)])
    assert rate["achieved_tflops"] is None and rate["mfu"] is None


def test_slow_ranks_are_above_the_fastest_plus_the_margin():
    slow, threshold = slow_ranks({0: 1000.0, 1: 1049.0, 2: 1051.0, 3: None, 4: float("nan")})
    assert threshold == pytest.approx(1000.0 * (1 + SLOW_RANK_MARGIN))
    assert slow == [2]
    assert slow_ranks({}) == ([], None)


def test_step_time_is_the_mean_per_rank_with_the_slowest_beside_it():
    summary = across_ranks([(0, 1000.0), (1, 1200.0), (2, None), (3, 800.0)])
    assert summary.mean == pytest.approx(1000.0)
    assert (summary.slowest_rank, summary.slowest_value, summary.ranks) == (1, 1200.0, 3)
    assert summary.differs
    assert across_ranks([]).mean is None


def test_cluster_document_rows_and_slow_rank_text():
    ranks = [rank_doc(0, 1000.0, 0.5, 100.0, 1e12, mfu_step=0.30), rank_doc(5, 1100.0, 0.4, 100.0, 1e12,
                                                                              mfu_step=0.25)]
    doc = cluster_document(ranks, top_n=5)
    assert doc["ranks"] == 2 and doc["slow_ranks"] == [5]
    assert doc["mfu_step_range"] == [0.25, 0.30]
    assert doc["step_time"] == {"mean": 1050.0, "slowest_rank": 5, "slowest_value": 1100.0, "ranks": 2}
    assert [row["slow"] for row in doc["rows"]] == [False, True]
    assert doc["rows"][1]["computing"] == 800.0
    assert slow_rank_excess(doc) == [(5, pytest.approx(0.1))]
    assert slow_rank_text(doc) == "rank 5 (+10 % step time vs the fastest rank)"


def test_negative_rank_ids_are_never_slow_ranks():
    # traces without an id are shown as -1, -2 …: they are not compared as ranks of one job
    doc = cluster_document([rank_doc(-1, 1000.0, 0.5, 100.0, 1e12), rank_doc(-2, 2000.0, 0.5, 100.0, 1e12)], 5)
    assert doc["slow_ranks"] == []


def test_hot_rows_are_means_per_rank_with_time_weighted_mfu():
    r0 = [{"type": "MatMulV2", "input_shapes": "a", "count": 4, "time_us": 100.0, "lost_us": 50.0, "mfu": 0.5}]
    r1 = [{"type": "MatMulV2", "input_shapes": "a", "count": 2, "time_us": 300.0, "lost_us": 150.0, "mfu": 0.3},
          {"type": "Add", "input_shapes": "b", "count": 10, "time_us": 40.0, "lost_us": 10.0, "bw_util": 0.5}]
    rows = merge_hot_rows([r0, r1], "lost_us", top_n=10, ranks=2)
    assert [r["type"] for r in rows] == ["MatMulV2", "Add"]
    mm, add = rows
    assert mm["count"] == 3.0 and mm["time_us"] == 200.0 and mm["lost_us"] == 100.0
    assert mm["mfu"] == pytest.approx((0.5 * 100 + 0.3 * 300) / 400)  # 0.35
    assert add["time_us"] == 20.0 and add["bw_util"] == pytest.approx(0.5) and add["mfu"] is None
    assert len(merge_hot_rows([r0, r1], "lost_us", top_n=1, ranks=2)) == 1


def test_mixed_chips_are_warned_once_in_the_folder_document():
    ranks = [rank_doc(0, 1000.0, 0.5, 100.0, 1e12), rank_doc(1, 1000.0, 0.5, 100.0, 1e12, chip="NVIDIA H100 SXM")]
    warning = mixed_chips_warning(ranks)
    assert warning is not None and "2 different chips" in warning
    assert mixed_chips_warning(ranks[:1]) is None
    folder = folder_document(["/p"], ranks, [], ["earlier warning"], ["convention"], top_n=3)
    assert folder["warnings"] == ["earlier warning", warning]
    out = analysis_json(folder)
    assert out["cluster"]["ranks"] == 2
    assert out["cluster"]["mfu_ops"] == pytest.approx(0.5)
    # internal fields stay out of the --json contract; hot rows keep only the contract's fields
    assert all("confirmed" not in r and "chip_id" not in r for r in out["ranks"])
    assert all(set(row) <= {"type", "input_shapes", "count", "time_us", "mfu", "lost_us", "bw_util", "roof_util",
                            "bound"} for r in out["ranks"] for row in r["hot_by_lost"])
    assert not any(math.isnan(r["step_time_us"]) for r in folder["cluster"]["rows"])


def test_an_unidentified_chip_differs_only_by_its_vendor():
    """An unidentified NVIDIA GPU beside H100 ranks may be an H100: no warning. An unidentified Ascend chip
    beside them is a different chip; so is an unnamed GPU beside Ascend ranks."""
    h100 = rank_doc(0, 1000.0, 0.5, 100.0, 1e12, chip="NVIDIA H100 SXM", vendor="NVIDIA")
    gpu = [h100, rank_doc(1, 1000.0, None, 100.0, 1e12, chip=None, vendor="NVIDIA", confirmed=False)]
    assert mixed_chips_warning(gpu) is None
    assert mixed_chips_warning([h100, rank_doc(1, 1000.0, None, 100.0, 1e12, chip=None, vendor="GPU")]) is None
    ascend = rank_doc(2, 1000.0, None, 100.0, 1e12, chip=None, vendor="Huawei", confirmed=False)
    warning = mixed_chips_warning([*gpu, ascend])
    assert warning is not None and warning.startswith(
        "the ranks ran on 2 different chips (NVIDIA H100 SXM, an unidentified Huawei chip)")
    amd = rank_doc(3, 1000.0, None, 100.0, 1e12, chip=None, vendor="AMD", confirmed=False)
    assert "2 different chips" in mixed_chips_warning([h100, amd])  # an AMD GPU is not an H100
    assert mixed_chips_warning([ascend, rank_doc(4, 1000.0, None, 100.0, 1e12, chip=None, vendor="GPU")]) is not None
