"""The roofline model for kernels without pipe counters (issue 23): hand-computed cases.

T̂ = (F/P)^p + (B/BW)^p)^(1/p) + floor on each chip; predicted = measured × T̂_target / T̂_source.
Catalog values used (devices_info.csv): V100 PCIe 32GB FP16 112 TFLOP/s, 900 GB/s; H100 SXM FP16
989.4, 3350 GB/s; A100 SXM 80GB 2039 GB/s.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.pipeline.summary_document import records
from mfu_desktop.core.predict.attainable import attainable_us, combine
from mfu_desktop.core.predict.basis import ADVERTISED, FITTED, ROOFLINE, SEED, Basis
from mfu_desktop.core.predict.error_band import error_band, profile_mix
from mfu_desktop.core.predict.error_categories import ERROR_CATEGORIES
from mfu_desktop.core.predict.kernel_model import predict_kernels, target_totals
from mfu_desktop.core.predict.kernels import kernel_inputs
from mfu_desktop.core.predict.model_table import Fitted, ModelTable, table_from_csv, table_to_csv
from mfu_desktop.core.predict.predictor import RankInput, predict
from mfu_desktop.core.predict.rules import DEFAULT_RULES
from mfu_desktop.core.predict.summary_groups import GROUP_COLUMNS, ROOFLINE_SHAPE_COLUMNS, prepared_rank
from mfu_desktop.core.readers import columns as C

V100, H100, A100 = "NVIDIA V100 PCIe 32GB", "NVIDIA H100 SXM", "NVIDIA A100 SXM 80GB"
#: The pure roofline: max(F/P, B/BW), no floors, no efficiencies.
PURE = ModelTable(power=math.inf)


@pytest.fixture(scope="module")
def catalog():
    return ChipCatalog.load(include_user=False)


def gpu_kernels(rows: list[tuple[str, str, float, float, float]], dtype: str = "FLOAT16") -> pd.DataFrame:
    """(core, type, duration µs, FLOPs, bytes) rows without pipe times, as a GPU trace gives them."""
    frame = pd.DataFrame({C.NAME: [f"k{i}" for i in range(len(rows))], C.OP_TYPE: [r[1] for r in rows],
                          C.CORE_TYPE: [r[0] for r in rows], C.DURATION_US: [r[2] for r in rows],
                          C.INPUT_DTYPES: [dtype] * len(rows), "flops": [r[3] for r in rows],
                          "bytes": [r[4] for r in rows]})
    for col in (C.NAME, C.OP_TYPE, C.CORE_TYPE, C.INPUT_DTYPES):
        frame[col] = frame[col].astype("category")
    return frame


def test_attainable_time_by_hand():
    # F = 2e10 FLOP, B = 1e8 bytes on the V100: F/P = 2e10 / 112e12 s = 178.571 µs, B/BW = 1e8 / 900e9 s = 111.111 µs
    t_c, t_m = 2e10 / 112e12 * 1e6, 1e8 / 900e9 * 1e6
    assert attainable_us(np.array([2e10]), np.array([1e8]), 112.0, 900.0, 0.0, math.inf)[0] == pytest.approx(t_c)
    assert attainable_us(np.array([2e10]), np.array([1e8]), 112.0, 900.0, 2.0, 1.0)[0] == pytest.approx(t_c + t_m + 2)
    assert attainable_us(np.array([2e10]), np.array([1e8]), 112.0, 900.0, 0.0, 2.0)[0] == \
        pytest.approx(math.hypot(t_c, t_m))
    # a term that is unknown is left out; with neither, T̂ is unknown
    assert combine(np.array([np.nan, np.nan]), np.array([3.0, np.nan]), 1.0).tolist()[0] == 3.0
    assert np.isnan(combine(np.array([np.nan]), np.array([np.nan]), 1.0)[0])


def test_gemm_compute_bound_on_the_source_memory_bound_on_the_target(catalog):
    """Intensity 200 FLOP/byte: above the V100's ridge (112e12 / 900e9 = 124), below the H100's (295).

    V100: max(178.571, 111.111) = 178.571 µs (compute-bound); H100: max(2e10 / 989.4e12 = 20.214 µs,
    1e8 / 3350e9 = 29.851 µs) = 29.851 µs (memory-bound). A 200 µs GEMM → 200 × 29.851 / 178.571 = 33.43 µs;
    the seed's peak ratio says 200 × 112 / 989.4 = 22.64 µs, the bandwidth it then needs exceeds the H100's.
    """
    frame = gpu_kernels([("AI_CORE", "MatMulV2", 200.0, 2e10, 1e8)])
    src, tgt = catalog.find(V100), catalog.find(H100)
    roofline = predict_kernels(kernel_inputs(frame), src, tgt, list(DEFAULT_RULES),
                               Basis(ADVERTISED, model=ROOFLINE, parameters=PURE))
    expected = 200 * (1e8 / 3350e9) / (2e10 / 112e12)
    assert roofline.predicted_us == pytest.approx(expected) == pytest.approx(33.43, abs=0.01)
    assert roofline.frame["predicted_us"].iloc[0] == pytest.approx(expected)
    assert roofline.frame["fallback"].tolist() == ["roofline model"]
    seed = target_totals(kernel_inputs(frame), src, tgt, list(DEFAULT_RULES), basis=Basis(ADVERTISED, model=SEED))
    assert seed.predicted_us == pytest.approx(200 * 112 / 989.4)
    # the smooth form p = 1 adds the terms: (20.214 + 29.851) / (178.571 + 111.111)
    smooth = target_totals(kernel_inputs(frame), src, tgt, list(DEFAULT_RULES),
                           basis=Basis(ADVERTISED, model=ROOFLINE, parameters=ModelTable(power=1.0)))
    assert smooth.predicted_us == pytest.approx(200 * (2e10 / 989.4e12 + 1e8 / 3350e9) / (2e10 / 112e12 + 1e8 / 900e9))


def test_a_3_us_kernel_sits_at_the_floor(catalog):
    """An add of 100 kB: B/BW is 0.049 µs on the A100 (1e5 / 2039e9) and 0.030 µs on the H100 (1e5 / 3350e9).

    With floors of 2.0 µs (A100) and 1.5 µs (H100) for element-wise kernels, T̂ = 2.049 and 1.530 µs: the
    3 µs kernel becomes 3 × 1.530 / 2.049 = 2.24 µs — the floors' ratio, not the bandwidth ratio (1.83 µs).
    """
    table = ModelTable(power=1.0, floors={(A100, "element-wise"): Fitted(2.0), (H100, "element-wise"): Fitted(1.5)})
    frame = gpu_kernels([("AI_VECTOR_CORE", "Add", 3.0, np.nan, 1e5)], dtype="DT_BF16")
    src, tgt = catalog.find(A100), catalog.find(H100)
    tk = target_totals(kernel_inputs(frame), src, tgt, list(DEFAULT_RULES),
                       basis=Basis(ADVERTISED, model=ROOFLINE, parameters=table))
    t_s, t_t = 1e5 / 2039e9 * 1e6 + 2.0, 1e5 / 3350e9 * 1e6 + 1.5
    assert tk.predicted_us == pytest.approx(3.0 * t_t / t_s) == pytest.approx(2.24, abs=0.01)
    without = target_totals(kernel_inputs(frame), src, tgt, list(DEFAULT_RULES),
                            basis=Basis(ADVERTISED, model=ROOFLINE, parameters=PURE))
    assert without.predicted_us == pytest.approx(3.0 * 2039 / 3350)
    # a chip without a fitted floor takes the default row ("*")
    table_default = ModelTable(floors={("*", "element-wise"): Fitted(1.0)})
    assert table_default.floor_us("AMD MI300X", "element-wise") == (1.0, False)


def test_identity_and_the_fallbacks(catalog):
    """Source → source: scale 1 for every kernel, floors and all; a kernel with neither FLOPs nor bytes keeps the
    class rule (cube → compute ratio); a blank peak makes a kernel with FLOPs unpredictable, never ratio 1."""
    table = ModelTable(power=1.0, floors={(H100, "gemm"): Fitted(4.0), (H100, "element-wise"): Fitted(1.5)})
    frame = gpu_kernels([("AI_CORE", "MatMulV2", 50.0, 1e9, 1e7), ("AI_VECTOR_CORE", "Add", 3.0, np.nan, 1e5),
                         ("AI_CORE", "MatMulV2", 20.0, np.nan, np.nan)])
    h100 = catalog.find(H100)
    basis = Basis(ADVERTISED, model=ROOFLINE, parameters=table)
    same = predict_kernels(kernel_inputs(frame), h100, h100, list(DEFAULT_RULES), basis)
    assert same.frame["scale"].tolist() == pytest.approx([1.0, 1.0, 1.0])
    other = predict_kernels(kernel_inputs(frame), h100, catalog.find("NVIDIA H200"), list(DEFAULT_RULES), basis)
    assert other.frame["fallback"].tolist() == ["roofline model", "roofline model", "class"]
    assert other.frame["scale"].iloc[2] == pytest.approx(989.4 / 989.4)  # FP16 peak ratio H100 / H200
    blank = target_totals(kernel_inputs(frame), h100, catalog.find("Huawei Ascend 950DT"), list(DEFAULT_RULES),
                          basis=basis)
    assert blank.predicted_us > 0 and blank.unpredictable_us == 0.0  # 950DT has an FP16 peak
    fp32 = gpu_kernels([("AI_CORE", "MatMulV2", 50.0, 1e9, 1e7)], dtype="FLOAT")
    blank = target_totals(kernel_inputs(fp32), h100, catalog.find("Huawei Ascend 950DT"), list(DEFAULT_RULES),
                          basis=basis)
    assert blank.unpredictable_us == 50.0 and "cube_fp32_tflops not published" in next(
        iter(blank.unpredictable_by_reason))


def test_the_fitted_basis_scales_each_chip_by_its_efficiency(catalog):
    """Fitted: P = η × advertised. η(V100 FP16) = 0.5, η(H100 FP16) = 0.8, bandwidths at the prior 1.0:
    the compute-bound GEMM above is 2e10 / (0.5 × 112e12) = 357.14 µs on the V100 and 2e10 / (0.8 × 989.4e12) =
    25.27 µs on the H100, still below its memory term 29.85 µs (memory-bound there)."""
    table = ModelTable(power=math.inf, efficiency={(V100, "cube fp16"): Fitted(0.5), (H100, "cube fp16"): Fitted(0.8)})
    frame = gpu_kernels([("AI_CORE", "MatMulV2", 200.0, 2e10, 1e8)])
    tk = target_totals(kernel_inputs(frame), catalog.find(V100), catalog.find(H100), list(DEFAULT_RULES),
                       basis=Basis(FITTED, model=ROOFLINE, parameters=table))
    assert tk.predicted_us == pytest.approx(200 * (1e8 / 3350e9) / (2e10 / (0.5 * 112e12)))
    assert tk.basis_us == {"fitted": 200.0}
    # the seed model on the fitted basis: the compute ratio of the effective peaks (0.5 × 112) / (0.8 × 989.4)
    seed = target_totals(kernel_inputs(frame), catalog.find(V100), catalog.find(H100), list(DEFAULT_RULES),
                         basis=Basis(FITTED, model=SEED, parameters=table))
    assert seed.predicted_us == pytest.approx(200 * (0.5 * 112) / (0.8 * 989.4))


def test_model_table_round_trip_and_bad_rows():
    table = ModelTable(power=math.inf, floors={(H100, "gemm"): Fitted(4.25, 12, "x")},
                       host_floors={H100: Fitted(9.0, 3)}, efficiency={("*", "cube"): Fitted(0.8)},
                       fitted_floors={(H100, "gemm"): Fitted(3.5, 12)})
    back = table_from_csv(table_to_csv(table))
    assert back.power == math.inf and back.floor_us(H100, "gemm") == (4.25, True)
    assert back.floor_us(H100, "gemm", fitted=True) == (3.5, True) and back.host_floor_us(H100) == 9.0
    assert back.compute_efficiency("NVIDIA B200", "cube", "bf16") == (0.8, False)
    with pytest.raises(ValueError, match="line 2"):
        table_from_csv("parameter,chip,key,value,rows,note\nfloor_us,X,gemm,abc,,\n")
    with pytest.raises(ValueError, match="unknown parameter"):
        table_from_csv("parameter,chip,key,value,rows,note\nspeed,X,,1,,\n")


def test_a_summary_carries_the_roofline_shapes(catalog):
    """A cluster summary keeps each rank's distinct (group, FLOPs, bytes): predicting from it equals the profile's."""
    frame = gpu_kernels([("AI_CORE", "MatMulV2", 200.0, 2e10, 1e8), ("AI_CORE", "MatMulV2", 100.0, 2e10, 1e8),
                         ("AI_VECTOR_CORE", "Add", 3.0, np.nan, 1e5)])
    inputs = kernel_inputs(frame)
    assert len(inputs.shapes) == 2 and inputs.shapes["count"].tolist() == [2, 1]
    doc = {"prediction": {"groups": records(inputs.groups, GROUP_COLUMNS),
                          "shapes": records(inputs.shapes, ROOFLINE_SHAPE_COLUMNS), "excluded": [],
                          "flags": inputs.flags, "fallback_flags": inputs.fallback_flags, "steps": 1}}
    prepared = prepared_rank(json.loads(json.dumps(doc)))  # through JSON, as a summary file stores it
    src, tgt = catalog.find(V100), catalog.find(H100)
    basis = Basis(ADVERTISED, model=ROOFLINE, parameters=ModelTable(power=1.0))
    direct = target_totals(inputs, src, tgt, list(DEFAULT_RULES), basis=basis)
    from_summary = target_totals(prepared.inputs, src, tgt, list(DEFAULT_RULES), basis=basis)
    assert from_summary.predicted_us == pytest.approx(direct.predicted_us)
    # a summary written before the roofline model (no shapes, no roofline_us): its groups are all ratios
    old = {"prediction": {**doc["prediction"], "shapes": [],
                          "groups": [{k: v for k, v in g.items() if not k.startswith("roofline")}
                                     for g in doc["prediction"]["groups"]]}}
    legacy = target_totals(prepared_rank(old).inputs, src, tgt, list(DEFAULT_RULES), basis=basis)
    seed = target_totals(inputs, src, tgt, list(DEFAULT_RULES), basis=Basis(ADVERTISED, model=SEED))
    assert legacy.predicted_us == pytest.approx(seed.predicted_us)


def test_the_error_band_weights_the_report_by_the_kernel_mix(catalog):
    """60 µs of compute-bound GEMM and 40 µs of element-wise: band = 0.6 × GEMM quantiles + 0.4 × element-wise."""
    frame = gpu_kernels([("AI_CORE", "MatMulV2", 60.0, 2e10, 1e8), ("AI_VECTOR_CORE", "Add", 40.0, np.nan, 1e5)])
    inputs = kernel_inputs(frame)
    src, tgt = catalog.find(H100), catalog.find("NVIDIA H200")
    mix = profile_mix({0: inputs}, {0: 1}, src)  # intensity 200 < 295 on the H100: memory-bound there
    assert mix.tolist() == pytest.approx([0.0, 60.0, 0.0, 40.0, 0.0, 0.0])
    bands = pd.DataFrame([
        {"model": "roofline", "basis": "fitted", "pair_class": "same vendor", "category": "GEMM memory-bound",
         "pairs": 10, "p10": -0.20, "median": -0.05, "p90": 0.10},
        {"model": "roofline", "basis": "fitted", "pair_class": "same vendor", "category": "all",
         "pairs": 50, "p10": -0.30, "median": 0.0, "p90": 0.30},
    ])
    band = error_band(mix, "roofline", "fitted", src, tgt, bands)
    # element-wise has no row of its own for the class: the class's "all" row stands in
    assert (band.p10, band.median, band.p90) == pytest.approx((0.6 * -0.20 + 0.4 * -0.30, 0.6 * -0.05,
                                                                0.6 * 0.10 + 0.4 * 0.30))
    assert band.pair_class == "same vendor" and band.text == "−24 % … +18 % (median −3 %)"
    assert error_band(mix, "seed", "fitted", src, tgt, bands) is None  # nothing measured for that model
    assert error_band(np.zeros(len(ERROR_CATEGORIES)), "roofline", "fitted", src, tgt, bands) is None


def test_the_prediction_quotes_the_shipped_band(catalog):
    frame = gpu_kernels([("AI_CORE", "MatMulV2", 60.0, 2e10, 1e8), ("AI_VECTOR_CORE", "Add", 40.0, np.nan, 1e5)])
    p = predict([RankInput(0, frame)], catalog.find(H100), [catalog.find("AMD MI300X"), catalog.find("NVIDIA H200")],
                basis=Basis(FITTED, model=ROOFLINE))
    cross, same = (t.error_band for t in p.targets)
    assert cross.pair_class == "cross vendor" and same.pair_class == "same vendor"
    assert cross.p10 < cross.median < cross.p90 and same.p10 < same.p90


def test_the_fitted_basis_uses_each_categorys_memory_efficiency(catalog):
    """Fitted basis, p = ∞, no floors: an element-wise kernel of 1e8 bytes, 100 µs on the A100 SXM 80GB, to the H100.
    A100 memory 0.9 (no category value), H100 memory 0.8 but element-wise 1.0: the kernel's T̂ is
    1e8 / (2039e9 × 0.9) on the source and 1e8 / (3350e9 × 1.0) on the target — not the H100's shared 0.8."""
    table = ModelTable(power=math.inf, efficiency={(A100, "memory"): Fitted(0.9), (H100, "memory"): Fitted(0.8),
                                                   (H100, "memory element-wise"): Fitted(1.0)})
    frame = gpu_kernels([("AI_VECTOR_CORE", "Add", 100.0, np.nan, 1e8)])
    tk = target_totals(kernel_inputs(frame), catalog.find(A100), catalog.find(H100), list(DEFAULT_RULES),
                       basis=Basis(FITTED, model=ROOFLINE, parameters=table))
    assert tk.predicted_us == pytest.approx(100.0 * (2039 * 0.9) / (3350 * 1.0)) == pytest.approx(54.78, abs=0.01)
    # the advertised basis ignores every efficiency
    adv = target_totals(kernel_inputs(frame), catalog.find(A100), catalog.find(H100), list(DEFAULT_RULES),
                        basis=Basis(ADVERTISED, model=ROOFLINE, parameters=table))
    assert adv.predicted_us == pytest.approx(100.0 * 2039 / 3350)
