"""Cross-chip prediction (prediction.md): per-kernel model, rules, step composite, ranks, calibration."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mfu_desktop.core.analysis.measured_step import measured_step
from mfu_desktop.core.chips.catalog import ChipCatalog, read_catalog_file
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.predict.calibrate import calibrate
from mfu_desktop.core.predict.kernel_model import predict_kernels, target_totals
from mfu_desktop.core.predict.kernels import kernel_inputs
from mfu_desktop.core.predict.predictor import RankInput, predict
from mfu_desktop.core.predict.rules import DEFAULT_RULES, rules_from_csv, rules_to_csv, with_rules_disabled
from mfu_desktop.core.predict.step import comm_line, step_composite
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.ascend.communication import parse_comm_matrix, read_comm_matrix
from mfu_desktop.core.readers.step_trace import StepTrace, read_step_trace_csv
from mfu_desktop.core.report.prediction_rows import prediction_json
from mfu_desktop.demo import generate

SEED_FILE = Path(__file__).resolve().parents[1] / "data" / "seed_devices_info.csv"


@pytest.fixture(scope="module")
def catalog():
    return ChipCatalog.load(include_user=False)


def kernels(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for col in (C.NAME, C.OP_TYPE, C.CORE_TYPE, C.INPUT_DTYPES):
        frame[col] = frame[col].astype("category")
    return frame


def k(core: str, op: str, dur: float, dtype: str = "DT_BF16", **pmu: float) -> dict:
    row = {C.NAME: f"{op}_{core}", C.OP_TYPE: op, C.CORE_TYPE: core, C.INPUT_DTYPES: dtype, C.DURATION_US: dur}
    for name in ("aic_mac_time_us", "aic_mte1_time_us", "aic_mte2_time_us", "aiv_vec_time_us", "aiv_mte2_time_us",
                 "aiv_mte3_time_us"):
        row[name] = pmu.get(name, 0.0)
    return row


SAMPLE = kernels([
    k("AI_CORE", "MatMulV2", 100.0, aic_mac_time_us=60, aic_mte1_time_us=30, aic_mte2_time_us=40),
    k("AI_VECTOR_CORE", "Add", 50.0, aiv_vec_time_us=10, aiv_mte2_time_us=35, aiv_mte3_time_us=20),
    k("MIX_AIC", "FlashAttentionScore", 200.0, aic_mac_time_us=120, aic_mte1_time_us=50, aic_mte2_time_us=70,
      aiv_vec_time_us=90, aiv_mte2_time_us=30, aiv_mte3_time_us=80),
    k("MIX_AIV", "ReduceSum", 20.0, aiv_vec_time_us=8, aiv_mte2_time_us=9, aiv_mte3_time_us=4),
    k("AI_CORE", "MatMulV3", 80.0, dtype="FLOAT;INT64", aic_mac_time_us=50, aic_mte1_time_us=10, aic_mte2_time_us=20),
    k("AI_CPU", "NonZero", 30.0),
    k("HCCL", "hcom_allReduce_", 500.0),
    k("DSA_SQE", "DSAGenBitMask", 5.0),
])


def test_compute_and_memory_extraction_by_class():
    inp = kernel_inputs(SAMPLE)
    f = inp.frame.set_index("type")
    assert list(f.loc["MatMulV2", ["class", "compute_us", "memory_us"]]) == ["cube", 60, 40]  # mac; max(mte1, mte2)
    assert list(f.loc["Add", ["class", "compute_us", "memory_us"]]) == ["vector", 10, 35]  # vec; max(mte2, mte3)
    fa = f.loc["FlashAttentionScore"]
    assert (fa["class"], fa["compute_us"], fa["memory_us"], fa["unit"]) == ("mix", 120, 80, "cube")  # max of all
    assert f.loc["ReduceSum", "unit"] == "vector"  # MIX_AIV: vector dominates
    assert f.loc["MatMulV2", "precision"] == "bf16" and f.loc["MatMulV3", "precision"] == "fp32"
    excluded = set(inp.excluded["class"])
    assert excluded == {"AI CPU", "communication", "DSA"}


def test_hand_computed_scale_910b_to_h20(catalog):
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("NVIDIA H20")
    tk = predict_kernels(kernel_inputs(SAMPLE), src, tgt, list(DEFAULT_RULES))
    f = tk.frame
    # MatMulV2 (cube, bf16): compute 60 × 353.9/148 + memory 40 × 1600/4000 over 100 → × 100 µs
    expected = 100 * (60 * 353.9 / 148 + 40 * 1600 / 4000) / 100
    assert f["predicted_us"].iloc[0] == pytest.approx(expected)
    # Add (vector, bf16 → vector fp16 column): 10 × 22.1/88 + 35 × 0.4 over 45
    assert f["scale"].iloc[1] == pytest.approx((10 * 22.1 / 88 + 35 * 0.4) / 45)
    # MatMulV3 FP32: cube fp32 88.5 / 44
    assert f["compute_ratio"].iloc[4] == pytest.approx(88.5 / 44)
    assert tk.predicted_us == pytest.approx(f["predicted_us"].sum())


def test_identity_source_to_source_is_exactly_one(catalog):
    for name in ("Huawei Ascend 910B", "Huawei Ascend 950DT", "Huawei Ascend 950PR", "NVIDIA H200"):
        chip = catalog.find(name)
        tk = predict_kernels(kernel_inputs(SAMPLE.iloc[[0, 1, 2, 3]]), chip, chip, list(DEFAULT_RULES))
        assert (tk.frame["scale"] == 1.0).all(), name
        assert tk.predicted_us == tk.baseline_us


def test_910c_dual_die_falls_out_of_catalog_values(catalog):
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("Huawei Ascend 910C")
    tk = predict_kernels(kernel_inputs(SAMPLE.iloc[[0, 1, 2, 3]]), src, tgt, list(DEFAULT_RULES))
    assert tk.frame["compute_ratio"].to_numpy() == pytest.approx(0.5, rel=1e-3)
    assert tk.frame["memory_ratio"].to_numpy() == pytest.approx(0.5)
    assert not tk.rules
    comp = composite(StepTrace(read_step_trace_frame(1000, 200, 300), "t"), comm_matrix(120.0), 2.0, src, tgt)
    assert comp.predicted_comm_us == pytest.approx(120 * 392 / 784 + 80)


def test_950_rules_effective_peak_and_inverse(catalog):
    b, dt = catalog.find("Huawei Ascend 910B"), catalog.find("Huawei Ascend 950DT")
    inp = kernel_inputs(SAMPLE.iloc[[0, 1, 2, 3]])
    fwd = predict_kernels(inp, b, dt, list(DEFAULT_RULES)).frame
    assert fwd["compute_ratio"].iloc[0] == pytest.approx(353.9 / (432.5 * 1.2))  # MatMul ×1.2: 518.4-ish
    assert fwd["compute_ratio"].iloc[2] == pytest.approx(353.9 / (432.5 * 2.0))  # FlashAttention ×2.0
    assert fwd["compute_ratio"].iloc[1] == pytest.approx(22.1 / 54.1)  # vector: no rule
    assert "950 MatMul ×1.2 (target)" in fwd["rules"].iloc[0]
    assert fwd["rules"].iloc[1] == ""
    back = predict_kernels(inp, dt, b, list(DEFAULT_RULES)).frame
    assert back["compute_ratio"].iloc[0] == pytest.approx(432.5 * 1.2 / 353.9)
    assert "(source)" in back["rules"].iloc[0]


def test_950pr_bandwidth_equivalence_only_among_ascend(catalog):
    b, pr, h200 = catalog.find("Huawei Ascend 910B"), catalog.find("Huawei Ascend 950PR"), catalog.find("NVIDIA H200")
    inp = kernel_inputs(SAMPLE.iloc[[1]])
    assert predict_kernels(inp, b, pr, list(DEFAULT_RULES)).frame["memory_ratio"].iloc[0] == pytest.approx(1.0)
    assert predict_kernels(inp, h200, pr, list(DEFAULT_RULES)).frame["memory_ratio"].iloc[0] == pytest.approx(
        4800 / 1400)
    off = with_rules_disabled(list(DEFAULT_RULES))
    assert predict_kernels(inp, b, pr, off).frame["memory_ratio"].iloc[0] == pytest.approx(1600 / 1400)


def test_rules_table_round_trips_and_reports_bad_rows():
    text = rules_to_csv(DEFAULT_RULES)
    rules, problems = rules_from_csv(text)
    assert [r.name for r in rules] == [r.name for r in DEFAULT_RULES] and not problems
    rules, problems = rules_from_csv(text + "true,bad,nonsense,x,,1,,,\n")
    assert len(rules) == 3 and "line 5" in problems[0]


def test_fallback_for_kernels_without_pipe_times(catalog):
    frame = kernels([k("AI_CORE", "MatMulV2", 100.0), k("AI_VECTOR_CORE", "Add", 50.0)])
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("NVIDIA H20")
    inp = kernel_inputs(frame)
    assert "no pipe times" in inp.fallback_flags["seed"] and "no pipe times" in inp.fallback_flags["roofline"]
    tk = predict_kernels(inp, src, tgt, list(DEFAULT_RULES))
    assert tk.frame["scale"].iloc[0] == pytest.approx(353.9 / 148)  # cube → compute ratio
    assert tk.frame["scale"].iloc[1] == pytest.approx(1600 / 4000)  # vector → memory ratio
    assert (tk.frame["fallback"] == "class").all() and tk.fallback_us == 150.0
    assert "by their class" in inp.fallback_flags["seed"]


def test_fallback_uses_the_roofline_bound_of_vector_kernels(catalog):
    """Without pipe times, a vector kernel with a roofline bound scales by it; a matmul keeps the cube ratio.

    A compute-bound vector kernel → vector peak ratio; a memory-bound one → bandwidth ratio; a
    memory-bound matmul still → cube peak ratio (docs/accuracy.md: better on the public pair).
    """
    frame = kernels([k("AI_CORE", "MatMulV2", 100.0), k("AI_VECTOR_CORE", "Exp", 60.0),
                     k("AI_VECTOR_CORE", "Add", 50.0), k("AI_VECTOR_CORE", "Mul", 40.0)])
    frame["bound"] = pd.Categorical(["memory", "compute", "memory", None], categories=["compute", "memory"])
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("NVIDIA H100 SXM")
    inp = kernel_inputs(frame)
    assert "2 predicted by their roofline bound" in inp.fallback_flags["seed"]
    assert "2 without bytes by their class" in inp.fallback_flags["seed"]
    tk = predict_kernels(inp, src, tgt, list(DEFAULT_RULES))
    cube, vec, bw = 353.9 / 989.4, 22.1 / 133.8, 1600 / 3350
    assert tk.frame["scale"].tolist() == pytest.approx([cube, vec, bw, bw])
    assert tk.frame["fallback"].tolist() == ["class", "roofline bound", "roofline bound", "class"]
    # the totals agree with the per-kernel table
    assert tk.predicted_us == pytest.approx(100 * cube + 60 * vec + 50 * bw + 40 * bw)


def test_blank_catalog_value_stays_unknown(catalog):
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("Huawei Ascend 950DT")  # 950DT FP32 not published
    totals = target_totals(kernel_inputs(SAMPLE), src, tgt, list(DEFAULT_RULES))
    assert totals.unpredictable_us == 80.0  # the FP32 MatMulV3
    assert "cube_fp32_tflops not published" in next(iter(totals.unpredictable_by_reason))


def read_step_trace_frame(computing: float, comm: float, free: float) -> pd.DataFrame:
    return pd.DataFrame({"step": ["1"], "computing": [computing], "comm_not_overlapped": [comm], "free": [free],
                         "step_time_us": [computing + comm + free]})


def comm_matrix(real_us: float):
    return parse_comm_matrix({"step1": {"collective": {"allreduce-total@1": {
        "0-1": {"Transit Time(ms)": real_us / 1000, "Transit Size(MB)": 10.0},
        "0-2": {"Transit Time(ms)": real_us / 2000, "Transit Size(MB)": 5.0}}}, "p2p": {}}})


def composite(trace, comm, speedup, src, tgt, default_cpu=None):
    measured, _ = measured_step(trace, comm)
    return step_composite(measured, speedup, src, tgt, default_cpu)


def test_step_composite_hand_computed(catalog):
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("Huawei Ascend 910C")
    comp = composite(StepTrace(read_step_trace_frame(1000, 200, 300), "t"), comm_matrix(120.0), 2.0, src, tgt)
    assert (comp.measured.transfer_us, comp.measured.wait_us) == (pytest.approx(120.0), pytest.approx(80.0))
    # 1000/2 + 120 × 392/784 + 80 + 300 × 1.0/1.2
    assert comp.predicted_step_us == pytest.approx(500 + 60 + 80 + 250)
    assert (comp.predicted_computing_us, comp.predicted_transfer_us, comp.predicted_wait_us,
            comp.predicted_free_us) == pytest.approx((500, 60, 80, 250))
    assert comp.relative == pytest.approx(1500 / 890)
    assert comm_line(200, 120, 80) == "Comm (not overlapped): 200.00 µs (transfer: 120.00 µs, wait: 80.00 µs)"
    assert comm_line(200, 120, 80, "zh_CN") == "未掩盖通信: 200.00 µs（真实通信: 120.00 µs, 等待: 80.00 µs）"


def test_step_figures_are_means_per_step(catalog):
    """Two steps of 1500 and 3000 µs: the measured step is their mean (2250), each step with its own transfer."""
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("Huawei Ascend 910C")
    trace = pd.DataFrame({"step": ["1", "2"], "computing": [1000.0, 2000.0], "comm_not_overlapped": [200.0, 400.0],
                          "free": [300.0, 600.0], "step_time_us": [1500.0, 3000.0]})
    matrix = parse_comm_matrix({
        "step1": {"collective": {"allreduce-total@1": {"0-1": {"Transit Time(ms)": 0.12, "Transit Size(MB)": 1}}}},
        "step2": {"collective": {"allreduce-total@1": {"0-1": {"Transit Time(ms)": 0.30, "Transit Size(MB)": 1}}}}})
    comp = composite(StepTrace(trace, "t"), matrix, 2.0, src, tgt)
    m = comp.measured
    assert m.steps == 2 and m.step_us == pytest.approx(2250)
    assert (m.computing_us, m.comm_not_overlapped_us, m.free_us) == pytest.approx((1500, 300, 450))
    assert (m.transfer_us, m.wait_us) == pytest.approx(((120 + 300) / 2, (80 + 100) / 2))
    assert comp.predicted_step_us == pytest.approx(750 + 210 * 0.5 + 90 + 450 / 1.2)


def test_amdahl_example_time_based_vs_readme_formula(catalog):
    """prediction.md §4.3: Computing 50 %, communication 50 %, compute 2× faster, comm unchanged →
    1/(0.25 + 0.5) = 1.33× by time, 1.5× by the README's arithmetic mean."""
    chip = catalog.find("Huawei Ascend 910B")
    comp = composite(StepTrace(read_step_trace_frame(500, 500, 0), "t"), comm_matrix(500.0), 2.0, chip, chip)
    assert comp.relative == pytest.approx(4 / 3)
    assert comp.readme_relative == pytest.approx(1.5)


def test_negative_wait_is_clamped_and_flagged(catalog):
    chip = catalog.find("Huawei Ascend 910B")
    measured, notes = measured_step(StepTrace(read_step_trace_frame(1000, 100, 0), "t"), comm_matrix(400.0))
    assert measured.wait_us == 0 and measured.transfer_us == 100
    assert any("clamped" in n for n in notes)
    assert step_composite(measured, 1.0, chip, chip).relative == pytest.approx(1.0)


def test_both_matrix_layouts_on_real_samples(samples, catalog):
    chip = catalog.find("Huawei Ascend 910B")
    level1 = samples / "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
    comp = composite(read_step_trace_csv(level1 / "step_trace_time.csv"),
                     read_comm_matrix(level1 / "communication_matrix.json"), 1.0, chip, chip)
    assert comp.measured.transfer_us == pytest.approx(3979.73953125)
    assert comp.measured.wait_us == pytest.approx(101963.203 - 3979.73953125)
    old = samples / "msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT"
    matrix = read_comm_matrix(old / "communication_matrix.json")
    comp = composite(read_step_trace_csv(old / "step_trace_time.csv"), matrix, 1.0, chip, chip)
    assert comp.measured.transfer_us == pytest.approx(matrix.real_communication()[0])
    assert comp.relative == pytest.approx(1.0)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("pdemo") / "p", ranks=4, steps=1)


def ranks_of(path):
    result = analyze_paths([path], use_cache=False)
    return [RankInput(r.rank, r.data.kernels, r.data.step_trace, r.data.comm) for r in result.ranks]


def test_several_ranks_mean_and_slowest(demo, catalog):
    ranks = ranks_of(demo)
    p = predict(ranks, catalog.find("Huawei Ascend 910B"), [catalog.find("Huawei Ascend 910C")])
    t = p.targets[0]
    assert p.ranks == [0, 1, 2, 3]
    assert t.predicted_step_us == pytest.approx(t.per_rank["predicted_step_us"].mean())
    assert t.slowest_rank == int(t.per_rank.loc[t.per_rank["predicted_step_us"].idxmax(), "rank"])
    # one step per rank here: the mean per rank of each rank's compute-class time
    assert t.baseline_compute_us == pytest.approx(np.mean([kernel_inputs(r.kernels).frame["duration_us"].sum()
                                                           for r in ranks]))


def test_totals_path_equals_detail_path(demo, catalog):
    ranks = ranks_of(demo)
    targets = [catalog.find(n) for n in ("Huawei Ascend 950DT", "NVIDIA H200", "Huawei Ascend 950PR")]
    fast = predict(ranks, catalog.find("Huawei Ascend 910B"), targets)
    slow = predict(ranks, catalog.find("Huawei Ascend 910B"), targets, keep_details=True)
    for a, b in zip(fast.targets, slow.targets):
        assert a.predicted_compute_us == pytest.approx(b.predicted_compute_us, rel=1e-12)
        detail = sum(float(np.nansum(slow.details[(r.rank, b.device)]["predicted_us"])) for r in ranks)
        # the detail file lists every kernel (a total); the figures are per step (1 here), mean per rank
        assert detail / len(ranks) == pytest.approx(a.predicted_compute_us, rel=1e-12)


def seed_reference(kernel_csv: Path, devices: Path, source: str) -> dict[str, float]:
    """The seed README's algorithm written plainly, row by row, as an independent reference."""
    import csv

    chips = {}
    with devices.open() as fh:
        for row in csv.DictReader(fh):
            chips[f"{row['vendor']} {row['model']}"] = row
    src = chips[source]
    totals = {name: 0.0 for name in chips}
    base = 0.0
    with kernel_csv.open() as fh:
        for row in csv.DictReader(fh):
            core = row["Accelerator Core"]
            if core not in ("AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV"):
                continue

            def f(name, row=row):
                v = row.get(name, "N/A")
                return float(v) if v not in ("N/A", "") else 0.0

            if core == "AI_CORE":
                compute, memory, unit = f("aic_mac_time(us)"), max(f("aic_mte1_time(us)"), f("aic_mte2_time(us)")), \
                    "cube"
            elif core == "AI_VECTOR_CORE":
                compute, memory, unit = f("aiv_vec_time(us)"), max(f("aiv_mte2_time(us)"), f("aiv_mte3_time(us)")), \
                    "vector"
            else:
                mac, vec = f("aic_mac_time(us)"), f("aiv_vec_time(us)")
                compute = max(mac, vec)
                memory = max(f("aic_mte1_time(us)"), f("aic_mte2_time(us)"), f("aiv_mte2_time(us)"),
                             f("aiv_mte3_time(us)"))
                unit = "cube" if mac >= vec else "vector"
            dtype = row["Input Data Types"].split(";")[0]
            prec = "fp32" if dtype in ("FLOAT", "DT_FP32", "DT_FLOAT") else "fp16"
            dur = f("Duration(us)")
            base += dur
            for name, tgt in chips.items():
                col = f"{unit}_{prec}_tflops"
                cr = float(src[col]) / float(tgt[col])
                mr = float(src["hbm_bandwidth"]) / float(tgt["hbm_bandwidth"])
                total = compute + memory
                scale = (compute * cr + memory * mr) / total if total > 0 else 1.0
                totals[name] += dur * scale
    return {name: base / value for name, value in totals.items()}


def test_reproduces_the_seed_scripts_speedups_with_its_own_catalog(tmp_path):
    profile = generate(tmp_path / "one", ranks=1, steps=1)
    csv_path = next(profile.glob("*_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv"))
    reference = seed_reference(csv_path, SEED_FILE, "Huawei Ascend 910B")
    load = read_catalog_file(SEED_FILE)
    assert load.layout.startswith("seed script") and not load.problems
    seed_catalog = ChipCatalog(load.chips)
    source = seed_catalog.find("Huawei Ascend 910B")
    targets = [seed_catalog.find(n) for n in reference]
    # Rules off: the script's 950 rules match type substrings differently (prediction.md §3, chips.md e.3).
    p = predict(ranks_of(profile), source, targets, with_rules_disabled(list(DEFAULT_RULES)))
    for t in p.targets:
        # 1e-7: the engine keeps pipe counters as float32 (7 significant digits), the reference float64.
        assert t.relative_performance == pytest.approx(reference[t.device], rel=1e-7), t.device
        assert t.unpredictable_time_share == 0.0
    assert reference["Huawei Ascend 910C"] == pytest.approx(2.0, rel=0.01)


def test_calibration_with_a_known_answer(tmp_path, catalog):
    """Profile B is profile A re-timed exactly as predicted on 910C, except vector kernels 10 % slower:
    every vector type is off by −1/1.1 and every other type by 0."""
    a = generate(tmp_path / "a", ranks=1, steps=1)
    ranks_a = ranks_of(a)
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("Huawei Ascend 910C")
    inp = kernel_inputs(ranks_a[0].kernels)
    tk = predict_kernels(inp, src, tgt, list(DEFAULT_RULES))
    measured = ranks_a[0].kernels.copy()
    scale = np.ones(len(measured))
    rows = _compute_rows(measured)
    scale[rows] = tk.frame["scale"].to_numpy()
    vector = np.zeros(len(measured), bool)
    vector[rows] = (inp.frame["class"] == "vector").to_numpy()
    measured[C.DURATION_US] = measured[C.DURATION_US] * scale * np.where(vector, 1.1, 1.0)
    cal = calibrate(ranks_a, [RankInput(0, measured)], src, tgt)
    by_type = cal.by_type.set_index("type")
    vector_types = set(inp.frame.loc[inp.frame["class"] == "vector", "type"].astype(str))
    for t, row in by_type.iterrows():
        expected = (1 / 1.1 - 1) if t in vector_types else 0.0
        assert row["error"] == pytest.approx(expected, abs=1e-9), t
    assert cal.mape == pytest.approx(len(vector_types) * (1 - 1 / 1.1) / len(by_type), rel=1e-9)
    assert not math.isnan(cal.compute_error)


def _compute_rows(frame: pd.DataFrame) -> np.ndarray:
    core = frame[C.CORE_TYPE].astype(str)
    comm = frame[C.OP_TYPE].astype(str).str.startswith("hcom_")
    return np.flatnonzero(core.isin(["AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV"]).to_numpy() & ~comm.to_numpy())


def test_level0_and_missing_inputs_degrade_with_reasons(samples, catalog):
    chip = catalog.find("Huawei Ascend 910B")
    ranks = ranks_of(samples / "msinsight/test/data/pytorch/text/level0")
    p = predict(ranks, chip, [catalog.find("NVIDIA H20")])
    assert p.baseline_compute_us == 0.0
    assert "unknown (N/A)" in set(p.excluded["class"])
    comp = step_composite(None, 1.0, chip, chip)
    assert comp.predicted_step_us is None and "no step trace" in comp.not_predicted


@pytest.mark.parametrize(("op_type", "rule"), [
    ("MatMulV2", "MatMul"), ("MatMulV3", "MatMul"), ("BatchMatMulV2", "MatMul"), ("GroupedMatmul", "MatMul"),
    ("TransposeBatchMatMul", "MatMul"), ("QuantBatchMatmulV3", "MatMul"), ("WeightQuantBatchMatmulV2", "MatMul"),
    ("MatmulAllReduce", "MatMul"), ("AllGatherMatmul", "MatMul"), ("MatmulReduceScatter", "MatMul"),
    ("matmul", "MatMul"),  # case-insensitive
    ("FlashAttentionScore", "FlashAttention"), ("FlashAttentionScoreGrad", "FlashAttention"),
    ("PromptFlashAttention", "FlashAttention"), ("IncreFlashAttention", "FlashAttention"),
    ("FusedInferAttentionScore", "FlashAttention"),
    ("Add", None), ("RmsNorm", None), ("SwiGlu", None), ("hcom_allReduce_", None),
])
def test_default_rules_cover_each_operator_family(op_type, rule):
    from mfu_desktop.core.predict.rules import efficiency

    class Chip950:
        identifier = "Huawei Ascend 950DT"

    factor, names = efficiency(Chip950(), op_type, list(DEFAULT_RULES))  # type: ignore[arg-type]
    if rule is None:
        assert (factor, names) == (1.0, [])
    else:
        assert len(names) == 1 and rule in names[0]
        assert factor == (1.2 if rule == "MatMul" else 2.0)


def test_rule_patterns_are_editable_and_checked():
    text = rules_to_csv(DEFAULT_RULES).replace(",matmul,", ",^MatMulV3$,")
    rules, problems = rules_from_csv(text)
    assert not problems and rules[0].pattern == "^MatMulV3$"
    assert rules[0].matches_type("matmulv3") and not rules[0].matches_type("MatMulV2")
    rules, problems = rules_from_csv(text.replace("^MatMulV3$", "(unclosed"))
    assert len(rules) == 2 and "not a regular expression" in problems[0]


def test_rules_file_of_an_earlier_version_reads_its_prefixes():
    old = ("enabled,name,kind,chips,op_types,factor,value,peer_vendor,note\n"
           "true,950 MatMul ×1.2,efficiency,Ascend 950,MatMul;BatchMatMul,1.2,,,\n")
    rules, problems = rules_from_csv(old)
    assert not problems
    assert rules[0].matches_type("MatMulV2") and rules[0].matches_type("BatchMatMulV3")
    assert not rules[0].matches_type("TransposeBatchMatMul")  # prefixes, as that version meant


def test_dtype_flags_tell_missing_from_non_float():
    frame = kernels([k("AI_VECTOR_CORE", "Cast", 5.0, dtype="INT64", aiv_vec_time_us=1, aiv_mte2_time_us=2),
                     k("AI_VECTOR_CORE", "Add", 5.0, dtype="", aiv_vec_time_us=1, aiv_mte2_time_us=2),
                     k("AI_CORE", "MatMulV2", 5.0, aic_mac_time_us=3)])
    frame[C.INPUT_DTYPES] = frame[C.INPUT_DTYPES].cat.add_categories(["N/A"])
    frame.loc[1, C.INPUT_DTYPES] = np.nan
    flags = kernel_inputs(frame).flags
    assert any(f.startswith("1 compute kernels have no input dtype") for f in flags)
    assert any(f.startswith("1 compute kernels have a non-floating-point input dtype") for f in flags)
    assert kernel_inputs(frame).frame["precision"].astype(str).tolist() == ["other", "unknown", "bf16"]


def test_partial_prediction_covers_only_the_predictable_share(catalog):
    """950DT has no FP32 cube peak: the FP32 MatMulV3 (80 of 480 µs) is unpredictable."""
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("Huawei Ascend 950DT")
    trace = StepTrace(read_step_trace_frame(480, 200, 300), "t")
    p = predict([RankInput(0, SAMPLE, trace, comm_matrix(120.0))], src, [tgt], default_cpu=None)
    t = p.targets[0]
    assert t.partial and t.unpredictable_compute_us == pytest.approx(80.0)
    assert t.baseline_compute_us == pytest.approx(370.0)  # 100 + 50 + 200 + 20 compute-class, predictable
    assert t.predicted_share == pytest.approx(370 / 450)
    assert t.relative_performance == pytest.approx(370 / t.predicted_compute_us)
    assert "cube_fp32_tflops not published" in t.partial_reason
    # the step keeps the unpredictable 80 µs at its measured time
    r = t.ranks[0]
    assert r.all_compute_speedup == pytest.approx(450 / (t.predicted_compute_us + 80))
    assert t.predicted_computing_us == pytest.approx(480 / r.all_compute_speedup)
    assert any("kept at its measured time" in n for n in t.notes)


def test_assumed_cpu_is_stated(catalog):
    src, tgt = catalog.find("Huawei Ascend 910B"), catalog.find("NVIDIA H100 SXM")  # no cpu coefficient
    trace = StepTrace(read_step_trace_frame(480, 200, 300), "t")
    ranks = [RankInput(0, SAMPLE, trace, comm_matrix(120.0))]
    without = predict(ranks, src, [tgt]).targets[0]
    assert without.predicted_step_us is None and "cpu coefficient of NVIDIA H100 SXM" in without.step_not_predicted
    with_cpu = predict(ranks, src, [tgt], default_cpu=1.0)
    assert with_cpu.targets[0].predicted_step_us is not None
    assert any("assumed 1 (--assume-cpu)" in n for n in with_cpu.targets[0].notes)
    assert prediction_json(with_cpu)["assumed_cpu"] == 1.0


def test_detail_frame_of_several_ranks_and_targets(demo, catalog, tmp_path):
    """One row per (kernel, target) over every rank, categories merged; written as CSV and Parquet alike."""
    from mfu_desktop.core.report.prediction_rows import detail_frame, write_outputs

    ranks = ranks_of(demo)
    targets = [catalog.find(n) for n in ("Huawei Ascend 950DT", "NVIDIA H200")]
    p = predict(ranks, catalog.find("Huawei Ascend 910B"), targets, keep_details=True)
    detail = detail_frame(p)
    kernels = sum(len(p.inputs[r.rank].frame) for r in ranks)
    assert len(detail) == kernels * 2
    assert set(detail["device"].astype(str)) == {t.display_name for t in targets}
    assert (detail["duration_us"] == detail["duration_us"].round(3)).all()
    # per rank and target the rows sum to that rank's predicted compute (one step per rank here)
    for t in p.targets:
        rows = detail[detail["device"] == t.device]
        assert rows["predicted_us"].sum() / len(ranks) == pytest.approx(t.predicted_compute_us, rel=1e-6)
    written = write_outputs(p, tmp_path / "out", "both")
    assert {w.name for w in written} == {"performance_prediction.csv", "kernel_prediction_detail.csv",
                                         "performance_prediction.parquet", "kernel_prediction_detail.parquet",
                                         "architecture_rules.csv"}
    csv_back = pd.read_csv(tmp_path / "out" / "kernel_prediction_detail.csv", encoding="utf-8-sig")
    parquet_back = pd.read_parquet(tmp_path / "out" / "kernel_prediction_detail.parquet")
    assert len(csv_back) == len(parquet_back) == len(detail)
    assert csv_back["predicted_us"].sum() == pytest.approx(parquet_back["predicted_us"].sum())
    # no float32 artefacts: every number has at most 3 decimals in the file
    raw = (tmp_path / "out" / "kernel_prediction_detail.csv").read_text(encoding="utf-8-sig")
    assert not re.search(r"\d\.\d{7,}", raw)


def test_detail_frame_merges_categories_of_different_dtypes(catalog):
    """Ranks read by different readers type their categories differently (object vs str): still one frame."""
    from mfu_desktop.core.report.prediction_rows import detail_frame

    other = SAMPLE.copy()
    for col in (C.NAME, C.OP_TYPE, C.CORE_TYPE, C.INPUT_DTYPES):
        cats = other[col].cat.categories
        other[col] = pd.Categorical.from_codes(other[col].cat.codes, categories=pd.Index(list(cats), dtype=object))
    p = predict([RankInput(0, SAMPLE), RankInput(1, other)], catalog.find("Huawei Ascend 910B"),
                [catalog.find("NVIDIA H20")], keep_details=True)
    detail = detail_frame(p)
    assert len(detail) == 2 * len(p.inputs[0].frame)
    assert detail["name"].astype(str).tolist()[:5] == detail["name"].astype(str).tolist()[5:10]
