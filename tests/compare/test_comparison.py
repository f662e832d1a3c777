"""Compare two profiles: pairs with a known answer (ops slowed, calls added, shapes changed), the real
samples (two ranks of one job; the H100 and MI300X traces of one workload), the family mapping, the JSON."""

from __future__ import annotations

import json

import pytest

from mfu_desktop.core.analysis.families import DEFAULT_FAMILIES, families_from_csv, families_to_csv, family_of
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.compare.comparison import compare, comparison_json, side_groups, table
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.predict.basis import SEED, Basis, default_basis
from mfu_desktop.core.predict.inputs import rank_inputs
from mfu_desktop.core.predict.predictor import predict
from tests.conftest import SAMPLES, requires_samples
from tests.helpers import kernel_row, make_rank

T = "1767225600000{:03d}.000"  # start times (µs), one per kernel
MM = ("MatMulV2", "AI_CORE", "1024,1024;1024,1024", "DT_BF16;DT_BF16", "1024,1024", "DT_BF16")
ADD = ("Add", "AI_VECTOR_CORE", "1024,1024;1024,1024", "DT_BF16;DT_BF16", "1024,1024", "DT_BF16")
FA_A = ("FlashAttentionScore", "AI_CORE", "1,1024,8,128;1,1024,8,128;1,1024,8,128", "DT_BF16;DT_BF16;DT_BF16",
        "1,8,1024,8;1,8,1024,8;0;1,1024,8,128", "FLOAT;FLOAT;DT_BF16;DT_BF16")
FA_B = ("FlashAttentionScore", "AI_CORE", "1,2048,8,128;1,2048,8,128;1,2048,8,128", "DT_BF16;DT_BF16;DT_BF16",
        "1,8,2048,8;1,8,2048,8;0;1,2048,8,128", "FLOAT;FLOAT;DT_BF16;DT_BF16")
CAST = ("Cast", "AI_VECTOR_CORE", "1024,1024", "DT_BF16", "1024,1024", "FLOAT")


def rows(spec: list[tuple[tuple, float]]) -> list[str]:
    """kernel_details rows from (op, duration µs) pairs, one step."""
    out = []
    for i, (op, dur) in enumerate(spec):
        op_type, core, ins, in_t, outs, out_t = op
        out.append(kernel_row(f"{op_type}_{i}", op_type, core, T.format(i * 2), dur, ins, in_t, outs, out_t))
    return out


@pytest.fixture
def pair(tmp_path):
    """BASE and NEW ranks whose differences are chosen (one step each, same step trace)."""
    base = rows([(MM, 100.0), (MM, 100.0), (ADD, 10.0), (ADD, 10.0), (FA_A, 200.0)])
    new = rows([(MM, 150.0), (MM, 150.0),                       # slowed: same shape, MFU × 2/3
                (ADD, 10.0), (ADD, 10.0), (ADD, 10.0), (ADD, 10.0),  # calls added
                (FA_B, 300.0),                                  # shape changed
                (CAST, 7.0)])                                   # new operator family
    make_rank(tmp_path / "base", "b_ascend_pt", 0, base)
    make_rank(tmp_path / "new", "n_ascend_pt", 0, new)
    options = AnalysisOptions(chip="910B2")
    return (analyze_paths([tmp_path / "base"], options, use_cache=False),
            analyze_paths([tmp_path / "new"], options, use_cache=False))


def test_known_answer_pair(pair):
    base, new = pair
    c = compare(base, new, default_catalog())
    t = table(c)
    assert not c.chip_vs_chip
    by = {(r["level"], r["type"]): r for r in t.to_dict("records")}
    mm = by[("same shape", "MatMulV2")]
    assert mm["base_time_us"] == pytest.approx(200.0) and mm["new_time_us"] == pytest.approx(300.0)
    assert mm["delta_us"] == pytest.approx(100.0) and mm["ratio"] == pytest.approx(1.5)
    assert mm["new_mfu"] / mm["base_mfu"] == pytest.approx(2 / 3)
    assert "same shape, MFU" in mm["why"] and "calls" not in mm["why"]
    add = by[("same shape", "Add")]
    assert add["base_count"] == 2 and add["new_count"] == 4 and add["delta_us"] == pytest.approx(20.0)
    assert add["why"].startswith("calls ×2")
    fa = by[("same family", "attention")]
    assert fa["delta_us"] == pytest.approx(100.0) and "different shapes" in fa["why"]
    cast = by[("only NEW", "element-wise")]
    assert cast["new_time_us"] == pytest.approx(7.0) and "only in NEW (Cast)" in cast["why"]
    # sorted by |Δ|: the two +100 µs rows first, Cast last
    assert list(t["delta_us"].abs()) == sorted(t["delta_us"].abs(), reverse=True)
    assert t.iloc[-1]["type"] == "element-wise"
    # the same step trace on both sides: no change of the step
    assert c.step_delta()["step_time_us"] == 0.0


def test_identical_profiles_have_no_change(pair):
    base, _ = pair
    c = compare(base, base)
    assert (table(c)["delta_us"] == 0).all() and set(table(c)["why"]) == {""}
    assert c.waterfall() == []


def test_json_contract(pair):
    base, new = pair
    j = json.loads(json.dumps(comparison_json(compare(base, new, default_catalog()))))
    assert set(j) >= {"base", "new", "step_delta", "step_ratio", "chip_vs_chip", "predicted_step_us", "waterfall",
                      "rows", "rows_total", "notes"}
    assert set(j["rows"][0]) == {"level", "family", "display_name", "type", "input_shapes", "dtype", "base_count",
                                 "base_kernels", "base_time_us", "base_flops", "base_mfu", "new_count", "new_kernels",
                                 "new_time_us", "new_flops", "new_mfu", "delta_us", "ratio", "why",
                                 "predicted_new_us", "prediction_error"}
    assert j["rows_total"] == len(j["rows"]) == 4


def test_chip_vs_chip_adds_the_prediction(pair):
    """BASE declared a 910B2, NEW a 910C die: each same-shape row carries BASE predicted on the 910C."""
    base, new = pair
    catalog = default_catalog()
    c = compare(base, new, catalog, chip_base="Huawei Ascend 910B2",
                chip_new="Huawei Ascend 910C die (Ascend910_9381/9382)")
    assert c.chip_vs_chip
    mm = next(r for r in table(c).to_dict("records") if r["type"] == "MatMulV2")
    # no pipe times in these rows: the fallback scales cube kernels by the FP16/BF16 peak ratio
    source, target = catalog.find("Huawei Ascend 910B2"), catalog.find("Huawei Ascend 910C die (Ascend910_9381/9382)")
    expected = 200.0 * source.value("cube_fp16_tflops") / target.value("cube_fp16_tflops")
    assert mm["predicted_new_us"] == pytest.approx(expected)
    assert mm["prediction_error"] == pytest.approx(expected / 300.0 - 1.0)
    assert any("chip vs chip" in n for n in c.notes)


def test_family_mapping():
    assert family_of("MatMulV3") == family_of("aten::addmm") == family_of("sm90_xmma_gemm_bf16") == "matmul"
    assert family_of("FlashAttentionScoreGrad") == "attention backward"
    assert family_of("aten::_scaled_dot_product_flash_attention") == family_of("FlashAttentionScore") == "attention"
    assert family_of("hcom_allReduce_") == family_of("ncclDevKernel_AllReduce_Sum") == "communication"
    assert family_of("SomethingNew") == "other"
    rows, problems = families_from_csv(families_to_csv())
    assert [r.family for r in rows] == [r.family for r in DEFAULT_FAMILIES] and not problems
    rows, problems = families_from_csv("family,pattern\nmatmul,MatMul\nbroken,(\n,x\n")
    assert [r.family for r in rows] == ["matmul"] and len(problems) == 2


@requires_samples
def test_two_ranks_of_the_level1_sample():
    root = SAMPLES / "msinsight/test/data/pytorch/text/level1"
    r0 = analyze_paths([root / "rank0_ascend_pt"], use_cache=False)
    r1 = analyze_paths([root / "rank1_ascend_pt"], use_cache=False)
    c = compare(r0, r1)
    t = table(c)
    # the ranks of one data-parallel job run the same operators with the same shapes
    assert (t["level"] == "same shape").mean() > 0.8
    total = t["new_time_us"].sum() - t["base_time_us"].sum()
    assert total == pytest.approx(t["delta_us"].sum())


@requires_samples
def test_h100_vs_mi300x_traces_match_by_family():
    model = "Falconsai_nsfw_image_detection__1016002.json.gz"
    h100 = analyze_paths([SAMPLES / "tracelens/h100" / model], use_cache=False)
    mi300 = analyze_paths([SAMPLES / "tracelens/mi300" / model], use_cache=False)
    c = compare(h100, mi300, default_catalog(), basis=Basis(model=SEED))
    t = table(c)
    assert c.chip_vs_chip and c.chips == ("NVIDIA H100 SXM", "AMD MI300X")
    # same ATen ops and shapes on both GPUs: the GEMMs match shape for shape
    addmm = t[(t["type"] == "aten::addmm") & (t["level"] == "same shape")]
    assert len(addmm) >= 3
    # the measured pair: GEMMs slower on the MI300X than the seed's peak ratio predicts (validation.md §2)
    big = addmm.sort_values("base_time_us").iloc[-1]
    assert big["new_time_us"] > big["predicted_new_us"]
    assert side_groups(h100)["family"].isin(["matmul", "attention"]).any()
    # chip vs chip predicts with mfu predict's model and basis: by default its defaults, the same numbers
    default = compare(h100, mi300, default_catalog())
    prediction = predict(rank_inputs(h100), default_catalog().find("NVIDIA H100 SXM"),
                         [default_catalog().find("AMD MI300X")], basis=default_basis())
    assert default.predicted_step_us == prediction.targets[0].predicted_step_us
    assert any(default_basis().label in n for n in default.notes)
