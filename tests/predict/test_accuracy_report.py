"""The validation corpus, its split, the fit and the accuracy report (issue 23).

Hand-computed rows cite the public source they come from (validation/vidur, validation/neusight).
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.predict.accuracy import COMBINATIONS, accuracy_table, combination
from mfu_desktop.core.predict.accuracy_split import (
    HELD_OUT_CHIPS,
    HELD_OUT_MODELS,
    held_out_pairs,
    training_measurements,
)
from mfu_desktop.core.predict.basis import Basis
from mfu_desktop.core.predict.corpus import CORPUS_COLUMNS, corpus_pairs, read_corpus
from mfu_desktop.core.predict.kernel_model import target_totals
from mfu_desktop.core.predict.kernels import kernel_inputs
from mfu_desktop.core.predict.model_fit import fit_model
from mfu_desktop.core.predict.model_table import shipped_model_table, table_to_csv
from mfu_desktop.core.predict.options import DEFAULT_BASIS, DEFAULT_MODEL
from mfu_desktop.core.predict.priors import catalog_priors, chip_priors
from mfu_desktop.core.predict.rules import DEFAULT_RULES
from mfu_desktop.core.readers import columns as C

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalog():
    return ChipCatalog.load(include_user=False)


@pytest.fixture(scope="module")
def corpus():
    return read_corpus()


def test_the_corpus_has_hundreds_of_pairs_with_their_provenance(corpus, catalog):
    counts = corpus["dataset"].value_counts().to_dict()
    assert counts["vidur"] == 2 * 486 and counts["neusight"] > 4000 and counts["tracelens"] >= 50
    assert counts["benchmark"] == 16  # the 8 FlagPerf / limulidae throughputs of validation.md §1, on two chips each
    assert corpus["source_ref"].str.contains("@").all() and (corpus["source_file"] != "").all()
    for chip in corpus["chip"].unique():
        catalog.find(chip)  # every chip is a catalog row
    assert len(corpus_pairs(corpus)) > 20000
    assert tuple(corpus.columns) == CORPUS_COLUMNS


def test_a_vidur_row_by_hand(corpus):
    """validation/vidur/a100_h100_ops.csv, Llama-2-7B TP1, 1 token, attn_pre_proj: 1×4096 @ 4096×12288 in FP16.

    F = 2·1·4096·12288 = 100,663,296; bytes = 2·(1·4096 + 4096·12288 + 1·12288) = 100,696,064; 65 µs on the
    A100, 38 µs on the H100."""
    rows = corpus[corpus["op_id"] == "vidur:Llama-2-7b-hf:tp1 tokens 1:attn_pre_proj"].set_index("chip")
    assert rows["flops"].tolist() == [2 * 4096 * 12288] * 2
    assert rows["bytes"].tolist() == [2 * (4096 + 4096 * 12288 + 12288)] * 2
    assert rows.loc["NVIDIA A100 SXM 80GB", "measured_us"] == 65.0 and rows.loc["NVIDIA H100 SXM", "measured_us"] == 38


def test_neusight_nodes_lose_the_timer_overhead(tmp_path):
    """A generated label file: size/getitem nodes time the host's CUDA-event cost (7 and 7.2 µs, median 7.1);
    the addmm (1024×1280 @ 1280×3840, fp32: F = 2·1024·1280·3840) keeps 0.5 ms − 7.1 µs; dropout is left out."""
    from tools.corpus import neusight

    folder = tmp_path / "label" / "NVIDIA_H100_80GB_HBM3"
    folder.mkdir(parents=True)
    meta = "{'nn_module_stack': OrderedDict([('drop', <class 'torch.nn.modules.dropout.Dropout'>)])}"
    rows = [("call_method", "size", "[[1, 1024]]", "(1,)", 0.0070, "{}", "size"),
            ("call_function", "<built-in function getitem>", "[[1]]", "(1,)", 0.0072, "{}", "getitem"),
            ("call_function", "<built-in method addmm of type object at 0x1>", "[[3840], [1024, 1280], [1280, 3840]]",
             "(1024, 3840)", 0.5, "{}", "addmm"),
            ("call_module", "drop", "[[1, 1024, 3840]]", "(1, 1024, 3840)", 0.02, meta, "drop")]
    pd.DataFrame(rows, columns=["op", "target", "input_shapes", "output_shape", "fw_latency", "meta", "Name"]) \
        .to_csv(folder / "gpt2_large-inf-1024-4.csv", index=False)
    out = neusight.measurements(tmp_path)
    assert [m.op for m in out] == ["addmm"]
    m = out[0]
    assert m.measured_us == pytest.approx(500.0 - 7.1) and m.raw_us == pytest.approx(500.0)
    assert m.flops == 2 * 1024 * 1280 * 3840 and m.category == "gemm" and m.chip == "NVIDIA H100 SXM"
    assert m.model == "gpt2_large" and "7.10 µs" in m.note


def test_the_split_keeps_every_held_out_answer_out_of_the_fit(corpus, catalog):
    """No held-out measurement influences a fitted parameter: scaling all of them by 3 leaves the table unchanged."""
    train = training_measurements(corpus)
    assert not corpus.loc[train, "model"].isin(HELD_OUT_MODELS).any()
    assert not corpus.loc[train, "chip"].isin(HELD_OUT_CHIPS).any()
    assert not corpus.loc[train, "dataset"].eq("benchmark").any()
    small = corpus[corpus["dataset"].isin(["vidur", "tracelens"])].reset_index(drop=True)
    mask = training_measurements(small)
    fitted = table_to_csv(fit_model(small[mask], catalog))
    changed = small.copy()
    changed.loc[~mask, "measured_us"] *= 3.0
    assert table_to_csv(fit_model(changed[training_measurements(changed)], catalog)) == fitted
    # a pair is held out when its target's measurement was never trained on, whatever its source
    pairs = corpus_pairs(small)
    held = held_out_pairs(pairs)
    assert held.any() and (~held).any()
    target_trained = pairs.merge(small.assign(trained=mask)[["op_id", "chip", "trained"]],
                                 left_on=["op_id", "target_chip"], right_on=["op_id", "chip"])["trained"]
    assert (held == ~target_trained.to_numpy()).all()


def test_the_fit_recovers_generated_parameters(catalog):
    """Generated GEMMs on one chip from known values — efficiency 0.6 of the A100 SXM 80GB's FP16 peak (312),
    bandwidth efficiency 0.8 of 2039 GB/s, floor 3 µs, p = 1 — are fitted back within the grids' steps."""
    rng = np.random.default_rng(7)
    flops = np.geomspace(1e7, 1e12, 40)
    nbytes = flops / rng.uniform(20, 400, len(flops))
    measured = flops / (0.6 * 312e12) * 1e6 + nbytes / (0.8 * 2039e9) * 1e6 + 3.0
    rows = pd.DataFrame({"chip": "NVIDIA A100 SXM 80GB", "unit": "cube", "dtype": "fp16", "category": "gemm",
                         "dataset": "vidur", "flops": flops, "bytes": nbytes, "measured_us": measured})
    table = fit_model(rows, catalog)
    assert table.power == 1.0
    eta, fitted = table.compute_efficiency("NVIDIA A100 SXM 80GB", "cube", "fp16")
    assert fitted and eta == pytest.approx(0.6, rel=0.06)
    assert table.memory_efficiency("NVIDIA A100 SXM 80GB")[0] == pytest.approx(0.8, rel=0.1)
    assert table.floor_us("NVIDIA A100 SXM 80GB", "gemm", fitted=True)[0] == pytest.approx(3.0, rel=0.1)


def _kernel_frame(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs' source rows as a GPU trace's kernels (the bound as the analysis would give it)."""
    dtypes = {"fp16": "FLOAT16", "bf16": "DT_BF16", "fp32": "FLOAT"}
    frame = pd.DataFrame({C.NAME: pairs["op_id"].to_numpy(), C.OP_TYPE: pairs["op_type"].to_numpy(),
                          C.CORE_TYPE: np.where(pairs["unit"] == "cube", "AI_CORE", "AI_VECTOR_CORE"),
                          C.DURATION_US: pairs["source_us"].to_numpy(),
                          C.INPUT_DTYPES: pairs["dtype"].map(dtypes).to_numpy(),
                          "flops": pairs["flops"].to_numpy(), "bytes": pairs["bytes"].to_numpy()})
    for col in (C.NAME, C.OP_TYPE, C.CORE_TYPE, C.INPUT_DTYPES):
        frame[col] = frame[col].astype("category")
    return frame


def test_the_report_predicts_what_the_app_predicts(corpus, catalog):
    """Each kernel-timed pair of the report, run through the app's own per-kernel model, gives the same time."""
    small = corpus[corpus["dataset"].isin(["vidur", "tracelens"])].reset_index(drop=True)
    acc = accuracy_table(small, catalog, shipped_model_table())
    sample = acc[(acc["source_chip"] == "NVIDIA H100 SXM")].groupby(["dataset", "category"]).head(1)
    for target in sample["target_chip"].unique():
        part = sample[sample["target_chip"] == target].reset_index(drop=True)
        for model, basis in COMBINATIONS:
            for i in range(len(part)):
                one = part.iloc[[i]]
                frame = _kernel_frame(one)
                if one["unit"].iloc[0] == "vector":
                    t_m = one["bytes"].iloc[0] / 3350e3
                    frame["bound"] = pd.Categorical(["memory" if not one["flops"].iloc[0] > 0 or t_m > 0 else
                                                     "compute"], categories=["compute", "memory"])
                tk = target_totals(kernel_inputs(frame), catalog.find("NVIDIA H100 SXM"), catalog.find(target),
                                   list(DEFAULT_RULES), basis=Basis(basis, model=model))
                expected = one[f"{combination(model, basis)}_us"].iloc[0]
                assert tk.predicted_us == pytest.approx(expected, rel=1e-9), (model, basis, one["op_id"].iloc[0])


def test_the_report_is_up_to_date_and_the_default_is_its_best():
    """CI regenerates docs/accuracy.md, the model table and the bands in memory: any stale file fails; the shipped
    default model and basis are the ones the report finds most accurate on the held-out pairs."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "accuracy.py"), "--check"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    doc = (ROOT / "docs" / "accuracy.md").read_text(encoding="utf-8")
    assert f"**{DEFAULT_MODEL} model, {DEFAULT_BASIS} basis**." in doc and "stale" not in doc.split("## Which")[1][:400]
    bands = pd.read_csv(ROOT / "resources" / "accuracy_bands.csv")
    assert {(m, b) for m, b in zip(bands["model"], bands["basis"])} == set(COMBINATIONS)
    assert (bands["p10"] <= bands["median"]).all() and (bands["median"] <= bands["p90"]).all()
    assert math.isfinite(bands["pairs"].sum())


def test_the_fit_recovers_a_memory_efficiency_per_kernel_category(catalog):
    """Generated rows on one chip: element-wise kernels stream at 0.95 of the H100's 3350 GB/s, memory-bound GEMMs
    at 0.70 (floors 1.5 and 4 µs). The chip's shared efficiency lies between; each category's is fitted back within
    the grid's steps, and the model's prediction of a 1 MB element-wise kernel uses the category's."""
    rng = np.random.default_rng(11)
    ew_bytes = np.geomspace(1e5, 1e9, 60)
    gemm_bytes = np.geomspace(1e6, 5e8, 60)
    gemm_flops = gemm_bytes * rng.uniform(1, 4, len(gemm_bytes))  # intensity 1–4: memory-bound on an H100
    rows = pd.DataFrame({
        "chip": "NVIDIA H100 SXM", "dataset": "vidur",
        "unit": ["vector"] * 60 + ["cube"] * 60, "dtype": "fp16",
        "category": ["element-wise"] * 60 + ["gemm"] * 60,
        "flops": np.concatenate([np.full(60, np.nan), gemm_flops]),
        "bytes": np.concatenate([ew_bytes, gemm_bytes]),
        "measured_us": np.concatenate([ew_bytes / (0.95 * 3350e3) + 1.5,
                                       gemm_flops / (0.9 * 989.4e6) + gemm_bytes / (0.70 * 3350e3) + 4.0]),
    })
    table = fit_model(rows, catalog)
    h100 = "NVIDIA H100 SXM"
    shared = table.memory_efficiency(h100)[0]
    assert table.memory_efficiency(h100, category="element-wise") == (pytest.approx(0.95, rel=0.06), True)
    assert table.memory_efficiency(h100, category="gemm")[0] == pytest.approx(0.70, rel=0.08)
    assert 0.70 * 0.94 <= shared <= 0.95 * 1.06
    # a category without rows of its own takes the chip's value; its factor is 1
    assert table.memory_efficiency(h100, category="norm") == (shared, True)
    assert table.memory_factor(h100, "norm") == pytest.approx(1.0)
    assert table.memory_factor(h100, "element-wise") == pytest.approx(
        table.memory_efficiency(h100, category="element-wise")[0] / shared)


def test_the_fit_weighs_each_row_by_its_calls(catalog):
    """Tiny element-wise kernels on the H100 (bytes negligible): one row at 2 µs stands for 48 calls per step,
    three rows at 8 µs for one call each. Weighted by calls the floor follows the 48 launches (2 µs); unweighted
    it would follow the three rows (8 µs)."""
    rows = pd.DataFrame({"chip": "NVIDIA H100 SXM", "dataset": "tracelens", "unit": "vector", "dtype": "bf16",
                         "category": "element-wise", "flops": np.nan, "bytes": 1.0,
                         "measured_us": [2.0, 8.0, 8.0, 8.0], "calls": [48, 1, 1, 1]})
    assert table_floor(fit_model(rows, catalog)) == pytest.approx(2.0, rel=0.1)
    assert table_floor(fit_model(rows.assign(calls=1), catalog)) == pytest.approx(8.0, rel=0.1)


def table_floor(table) -> float:
    return table.floor_us("NVIDIA H100 SXM", "element-wise", fitted=True)[0]


def test_the_priors_are_the_chips_own_measurements_else_the_catalogs_median(catalog):
    """MI300X: MAMF BF16 668.4 of 1307.4 and FP8 1159.5 of its FP8 peak → their median; HBM 4090 of 5300.
    The T4 was never measured: the catalog's medians (0.81 of the matrix peak, 0.84 of the bandwidth)."""
    default = catalog_priors(catalog)
    assert default == (pytest.approx(0.808, abs=0.001), pytest.approx(0.844, abs=0.001))
    mi300x = catalog.find("MI300X")
    compute, memory = chip_priors(mi300x, default)
    expected = np.median([668.4 / 1307.4, 1159.5 / mi300x.value("cube_fp8_tflops")])
    assert compute == pytest.approx(expected) and memory == pytest.approx(4090 / 5300)
    assert chip_priors(catalog.find("T4"), default) == default
