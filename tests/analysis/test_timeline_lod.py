"""Level of detail of the timeline: pixel columns of a lane, hit tests and counters, against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from mfu_desktop.core.analysis import timeline_lod
from mfu_desktop.core.analysis.timeline_lod import (
    LaneIndex,
    counter_columns,
    hit,
    mark_columns,
    reduce_lane,
)


def lane(*kernels: tuple[float, float, float]) -> LaneIndex:
    """Kernels (start, end, value) sorted by start."""
    arr = np.array(sorted(kernels), dtype=np.float64)
    return LaneIndex(arr[:, 0], arr[:, 1], arr[:, 2])


def test_columns_hand_computed():
    # four columns of 10 µs over [0, 40)
    cols = reduce_lane(lane((0, 10, 0.2), (10, 15, 0.8), (18, 24, 0.4), (30, 31, 0.5)), 0.0, 40.0, 4)
    # busy: [0,10) 10 µs; [10,20) 5 + 2 = 7 µs; [20,30) 4 µs; [30,40) 1 µs
    assert cols.coverage == pytest.approx([1.0, 0.7, 0.4, 0.1])
    # time-weighted values: (0.8·5 + 0.4·2) / 7 = 4.8 / 7
    assert cols.value == pytest.approx([0.2, 4.8 / 7, 0.4, 0.5], rel=1e-6)


def test_a_kernel_without_a_figure_counts_as_busy_but_not_in_the_value():
    cols = reduce_lane(lane((0, 5, np.nan), (5, 10, 0.6)), 0.0, 10.0, 1)
    assert cols.coverage == pytest.approx([1.0])
    assert cols.value == pytest.approx([0.6])  # only the judged 5 µs: 0.6·5 / 5
    cols = reduce_lane(lane((0, 5, np.nan)), 0.0, 10.0, 1)
    assert cols.coverage == pytest.approx([0.5]) and np.isnan(cols.value[0])


def test_overlapping_kernels_are_clipped_at_full_coverage():
    cols = reduce_lane(lane((0, 10, 1.0), (0, 10, 0.0)), 0.0, 10.0, 2)
    assert cols.coverage == pytest.approx([1.0, 1.0])
    assert cols.value == pytest.approx([0.5, 0.5])


def brute(start, end, value, t0, t1, width):
    """Busy time and value integral per column by clipping every kernel to every column (the oracle)."""
    bounds = np.linspace(t0, t1, width + 1)
    lo, hi = bounds[:-1, None], bounds[1:, None]
    overlap = np.clip(np.minimum(end[None], hi) - np.maximum(start[None], lo), 0, None)
    judged = np.isfinite(value)
    busy = overlap.sum(axis=1)
    w = overlap[:, judged].sum(axis=1)
    v = (overlap[:, judged] * value[judged][None]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return busy, np.where(w > 0, v / w, np.nan)


@pytest.mark.parametrize("local", [True, False])
def test_generated_lanes_match_clipping_every_kernel(local, monkeypatch):
    rng = np.random.default_rng(5)
    monkeypatch.setattr(timeline_lod, "LOCAL_LIMIT", 10**9 if local else 0)
    gaps = rng.exponential(3.0, 3000)
    dur = rng.exponential(2.0, 3000)
    start = np.cumsum(gaps + np.concatenate([[0], dur[:-1]]))
    end = start + dur
    value = np.where(rng.random(3000) < 0.2, np.nan, rng.random(3000))
    index = LaneIndex(start, end, value)
    for t0, t1, width in ((0.0, float(end[-1]), 700), (1000.0, 1100.0, 333), (5000.0, 5000.5, 50)):
        cols = reduce_lane(index, t0, t1, width)
        busy, val = brute(start, end, value, t0, t1, width)
        px = (t1 - t0) / width
        assert cols.coverage == pytest.approx(np.clip(busy / px, 0, 1), abs=2e-6)
        ok = np.isfinite(val) & (busy > px * 1e-6)
        assert cols.value[ok] == pytest.approx(val[ok], abs=2e-5)


def test_categories_take_the_kernel_at_the_centre():
    index = LaneIndex(np.array([0.0, 12.0, 31.0]), np.array([9.0, 14.0, 32.0]), category=np.array([4, 7, 2]))
    cols = reduce_lane(index, 0.0, 40.0, 4)
    # column centres 5, 15, 25, 35: kernel 0 holds 5; 15 falls in a gap but [12,14) overlaps the column;
    # nothing overlaps [20,30); [31,32) overlaps the last column
    assert cols.category.tolist() == [4, 7, -1, 2]


def test_edges_mark_the_start_of_kernels_four_pixels_wide():
    index = LaneIndex(np.array([0.0, 40.0, 50.0]), np.array([40.0, 45.0, 100.0]), np.zeros(3))
    cols = reduce_lane(index, 0.0, 100.0, 10)  # 10 µs per pixel: 40 µs and 50 µs kernels are ≥ 4 px
    assert np.flatnonzero(cols.edges).tolist() == [0, 5]


def test_mark_columns_never_loses_a_kernel_narrower_than_a_pixel():
    marked = mark_columns(np.array([0.5, 37.0]), np.array([0.6, 39.5]), 0.0, 40.0, 4)
    assert marked.tolist() == [True, False, False, True]


def test_hit():
    index = LaneIndex(np.array([0.0, 10.0, 30.0]), np.array([10.0, 15.0, 31.0]))
    assert hit(index, 12.0, 3.0) == 1
    assert hit(index, 20.0, 3.0) == -1
    assert hit(index, 28.0, 3.0) == 2  # 2 µs before the third kernel
    assert hit(index, 16.0, 3.0) == 1  # 1 µs after the second
    nested = LaneIndex(np.array([0.0, 2.0]), np.array([10.0, 3.0]))
    assert hit(nested, 5.0, 0.0) == 0  # inside the long kernel, after the short one ended


def test_counter_columns_keep_peaks_and_hold_levels():
    t = np.array([0.0, 5.0, 12.0, 13.0, 35.0])
    mb = np.array([1.0, 3.0, 2.0, 8.0, 4.0])
    # [0,10): max(1, 3); [10,20): max(2, 8); [20,30): 8 held since 13; [30,40): 8 held until 35, then 4
    assert counter_columns(t, mb, 0.0, 40.0, 4).tolist() == [3.0, 8.0, 8.0, 8.0]
    early = counter_columns(t, mb, -20.0, 0.0, 2)
    assert np.isnan(early[0]) and np.isnan(early[1])  # nothing before the first sample


def test_empty_lane():
    cols = reduce_lane(LaneIndex(np.zeros(0), np.zeros(0), np.zeros(0)), 0.0, 1.0, 8)
    assert cols.coverage.tolist() == [0.0] * 8 and np.isnan(cols.value).all()
    assert hit(LaneIndex(np.zeros(0), np.zeros(0)), 0.5, 1.0) == -1


def test_no_rounding_noise_where_no_kernel_is():
    # large times (a 10 s capture in µs) and many kernels: differences of big prefix sums leave noise ~1e-9 µs
    start = np.arange(200_000) * 50.0 + 1e7
    index = LaneIndex(start, start + 20.0, np.full(len(start), 0.5))
    cols = reduce_lane(index, 0.0, 3e7, 3000)  # 10,000 µs per column: all 200,000 kernels visible
    empty = np.arange(3000) < 1000  # the first 10 s hold no kernel
    assert (cols.coverage[empty] == 0).all() and np.isnan(cols.value[empty]).all()
    assert cols.coverage[1500] == pytest.approx(0.4)  # 20 µs busy every 50 µs
    assert cols.value[1500] == pytest.approx(0.5)
