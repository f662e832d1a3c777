"""Ranks with many distinct shapes (MoE token counts, varlen, dynamic shapes) are analysed whole.

A rank with 124+ distinct FLOP groups used to fail with ``OverflowError: Python integer 242 out
of bounds for int8`` (category codes plus an offset). These tests pin the fix at the sizes where
narrow integer types change (127/128, 32767/32768) and far beyond.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mfu_desktop.core.analysis.aggregates import fine_table, rate
from mfu_desktop.core.analysis.annotate import Status, annotate, counted_mask
from mfu_desktop.core.analysis.chip_resolution import resolve_chip
from mfu_desktop.core.analysis.grouping import lookup, slots
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.predict.kernels import kernel_inputs
from mfu_desktop.core.readers import columns as C
from mfu_desktop.demo import write_rank

CATALOG = default_catalog()


def _frame(m: np.ndarray, n: np.ndarray, k: np.ndarray, dtypes: list[str] | None = None) -> pd.DataFrame:
    rows = len(m)
    ins = [f"{a},{c};{c},{b}" for a, b, c in zip(m, n, k)]
    outs = [f"{a},{b}" for a, b in zip(m, n)]
    return pd.DataFrame({
        C.OP_TYPE: pd.Categorical(["MatMulV2"] * rows),
        C.CORE_TYPE: pd.Categorical(["AI_CORE"] * rows),
        C.INPUT_SHAPES: pd.Categorical(ins),
        C.OUTPUT_SHAPES: pd.Categorical(outs),
        C.INPUT_DTYPES: pd.Categorical(dtypes or ["DT_BF16;DT_BF16"] * rows),
        C.DURATION_US: np.full(rows, 10_000.0),
    })


def test_slots_widen_narrow_codes_before_adding() -> None:
    codes = np.array([0, 5, -1, 126], dtype=np.int8)
    assert slots(codes, 127).dtype == np.intp
    # an offset that would overflow int8 (the reported crash: 242)
    assert (slots(codes, 127) + 200).tolist() == [200, 205, 327, 326]
    assert lookup(np.array([10, 20, 30]), np.array([1, -1, 0], dtype=np.int8)).tolist() == [20, 30, 10]


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(distinct=st.one_of(st.sampled_from([1, 123, 124, 126, 127, 128, 255, 256, 32_767, 32_768]),
                          st.integers(1, 3_000)),
       seed=st.integers(0, 2**31 - 1), confirmed=st.booleans(), unknown_dtype_share=st.sampled_from([0.0, 0.3]))
def test_any_number_of_distinct_shapes_is_counted_exactly(distinct: int, seed: int, confirmed: bool,
                                                          unknown_dtype_share: float) -> None:
    rng = np.random.default_rng(seed)
    base = np.arange(distinct, dtype=np.int64)
    m = 16 + base  # every row a distinct shape
    n = rng.integers(16, 2048, distinct)
    k = rng.integers(16, 2048, distinct)
    dtypes = np.where(rng.random(distinct) < unknown_dtype_share, "INT64;INT64", "DT_BF16;DT_BF16").tolist()
    frame = _frame(m, n, k, dtypes)
    chip = resolve_chip(CATALOG, "910B2" if confirmed else None, [], None, None, frame)
    annotated = annotate(frame, chip, AnalysisOptions())
    exact = sum(2 * int(a) * int(b) * int(c) for a, b, c in zip(m, n, k))
    assert annotated["flops"].sum() == pytest.approx(exact, rel=1e-12)
    no_dtype = np.array([d.startswith("INT64") for d in dtypes])
    status = annotated["status"].to_numpy()
    assert (status[no_dtype] == Status.EXCLUDED.value).all()
    assert (status[~no_dtype] == Status.COUNTED.value).all()
    use = counted_mask(annotated, AnalysisOptions())
    counted_exact = sum(2 * int(a) * int(b) * int(c) for a, b, c, x in zip(m, n, k, no_dtype) if not x)
    assert rate(annotated, use, chip.confirmed).flops == pytest.approx(counted_exact, rel=1e-12)
    fine = fine_table(annotated, AnalysisOptions(), chip.confirmed)
    assert fine["count"].sum() == distinct
    inputs = kernel_inputs(frame)
    assert inputs.frame["duration_us"].sum() == pytest.approx(10_000.0 * distinct)


def test_one_hundred_thousand_distinct_shapes() -> None:
    distinct = 100_000
    rng = np.random.default_rng(3)
    m, n, k = (rng.integers(1, 4096, distinct) for _ in range(3))
    frame = _frame(m, n, k)
    chip = resolve_chip(CATALOG, "910B2", [], None, None, frame)
    annotated = annotate(frame, chip, AnalysisOptions())
    exact = sum(2 * int(a) * int(b) * int(c) for a, b, c in zip(m, n, k))
    assert annotated["flops"].sum() == pytest.approx(exact, rel=1e-12)
    assert annotated["shape_group"].max() >= 90_000  # (a few random repeats share a group)
    assert (annotated["status"] == Status.COUNTED.value).all()


def test_generated_rank_of_200k_kernels_with_5000_shapes(tmp_path) -> None:
    rng = np.random.default_rng(11)
    timelines = write_rank(tmp_path, 0, 1, 1, 200_000, rng, distinct_shapes=6_000)
    exact = sum(t.varied_matmul_flops for t in timelines)
    result = analyze_paths([tmp_path], AnalysisOptions(chip="910B2"), CATALOG, use_cache=False)
    assert not result.failures, [f.reason for f in result.failures]
    rank = result.ranks[0]
    assert rank.summary.kernels == 200_000
    shapes = rank.by_shape[rank.by_shape["type"].isin(["MatMulV2", "MatMulV3"])]
    assert len(shapes) >= 5_000
    counted = shapes[shapes["status"] == Status.COUNTED.value]
    assert counted["flops"].sum() == pytest.approx(exact, rel=1e-12)
    types = rank.by_type.set_index("type")
    assert types.loc[["MatMulV2", "MatMulV3"], "flops"].sum() == pytest.approx(exact, rel=1e-12)
