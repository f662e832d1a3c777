"""analysis/memory.py and the memory figures downstream: cluster, prediction, compare, summaries, the console."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from mfu_desktop.core.analysis.aggregates import AnalysisOptions
from mfu_desktop.core.analysis.chip_resolution import ChipResolution
from mfu_desktop.core.analysis.memory import (
    SAME_ALLOCATOR,
    chip_capacity,
    choose_allocator,
    memory_json,
    rank_memory,
    static_peak,
    thinned,
)
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.cluster.memory import cluster_memory
from mfu_desktop.core.compare.comparison import compare, comparison_json
from mfu_desktop.core.compare.report import console_text
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.predict.inputs import rank_inputs
from mfu_desktop.core.predict.memory_fit import Footprint, fit_on, footprint
from mfu_desktop.core.predict.predictor import predict
from mfu_desktop.core.readers.records import MemoryData
from mfu_desktop.core.report.prediction_rows import prediction_json, prediction_rows, target_lines
from tests import memory_files as mf
from tests.conftest import ROOT

CONTRACT = ("peak_allocated_mb", "peak_reserved_mb", "process_reserved_mb", "peak_at_us", "capacity_gb",
            "not_released_mb", "source", "top_live")


def records(rows):
    return pd.DataFrame(rows, columns=["component", "ts_us", "allocated_mb", "reserved_mb", "active_mb"])


def test_allocator_preference():
    assert choose_allocator(records([("PTA", 1, 1, 1, 1), ("PTA+GE", 1, 2, 2, 2), ("GE", 1, 1, 1, 1)])) == "PTA+GE"
    assert choose_allocator(records([("GE", 1, 1, 1, 1), ("PTA", 1, 2, 2, 2)])) == "PTA"
    assert choose_allocator(records([("GE", 1, 1, 1, 1)])) == "GE"
    assert choose_allocator(records([("MindSpore", 1, 1, 1, 1), ("X", 1, 1, 1, 1), ("MindSpore", 2, 1, 1, 1)])) \
        == "MindSpore"
    assert choose_allocator(None) is None


def test_peak_in_the_step_or_before_it():
    md = MemoryData(source="x", records=records([("PTA", 100.0, 10.0, 20.0, np.nan), ("PTA", 250.0, 40.0, 50.0, 1),
                                                 ("PTA", 400.0, 5.0, 50.0, 1)]),
                    steps=[("1", 200.0, 300.0), ("2", 300.0, 500.0)])
    m = rank_memory(md)
    assert (m.peak_allocated_mb, m.peak_reserved_mb, m.peak_at_us, m.peak_step) == (40.0, 50.0, 50.0, "1")
    assert m.peak_from == "the start of step 1" and m.origin_us == 200.0
    assert m.steps["start_us"].tolist() == [0.0, 100.0]
    # a peak before the first step counts from the capture's first record, and says so
    md.steps = [("1", 300.0, 500.0)]
    m = rank_memory(md)
    assert m.peak_step is None and m.peak_at_us == 150.0
    assert any("before the first step" in n for n in m.notes)


def test_no_memory_data_is_a_reason_never_figures():
    m = rank_memory(MemoryData(reason="no memory data: capture with profile_memory=True"))
    assert not m.available and memory_json(m) is None
    assert rank_memory(None).reason.startswith("no memory data")


def test_capacity_from_the_chip():
    cat = default_catalog()
    b2 = ChipResolution(cat.find("Ascend 910B2"), True, "test")
    assert chip_capacity(b2) == (64.0, "Huawei Ascend 910B2 memory_gb")
    package = ChipResolution(cat.find("Huawei Ascend 910C"), True, "test")
    gb, why = chip_capacity(package)
    assert gb == 64.0 and "one die" in why  # 128 GB is two dies; a rank is one
    unconfirmed = ChipResolution(None, False, "x", candidates=[cat.find("Ascend 910B2"), cat.find("Ascend 910B4")])
    gb, why = chip_capacity(unconfirmed)
    assert gb == 32.0 and "smallest" in why

    class Device:
        memory_gb = 79.2

    assert chip_capacity(None, Device()) == (79.2, "the trace's deviceProperties totalGlobalMem")
    assert chip_capacity(None) == (None, "no memory_gb for this chip")


def test_static_graph_peak_over_node_indices():
    ops = pd.DataFrame({"name": ["a", "b", "c", "d"], "graph": ["0/0", "0/0", "0/0", "0/1"],
                        "start": [0.0, 2.0, 5.0, 0.0], "end": [4.0, 6.0, 9.0, 1.0],
                        "size_mb": [10.0, 20.0, 40.0, 100.0]})
    # graph 0/0: a+b at 2–4 = 30, b+c at 5–6 = 60; graph 0/1: 100
    assert static_peak(ops) == 100.0
    assert static_peak(ops[ops["graph"] == "0/0"]) == 60.0
    assert static_peak(None) is None


def test_thinned_keeps_the_peak():
    frame = pd.DataFrame({"time_us": np.arange(10_000.0), "allocated_mb": np.sin(np.arange(10_000.0)),
                          "reserved_mb": 1.0})
    frame.loc[7777, "allocated_mb"] = 5.0
    small = thinned(frame, ("allocated_mb", "reserved_mb"), 100)
    assert len(small) <= 100 and small["allocated_mb"].max() == 5.0


def test_json_contract_keys_and_cluster(tmp_path):
    mf.ascend_memory_rank(tmp_path, "rank0_ascend_pt", 0)
    mf.ascend_rank(tmp_path, "rank1_ascend_pt", 1)
    result = analyze_paths([tmp_path], AnalysisOptions(chip="Ascend 910B2"), use_cache=False)
    out = result.to_json()
    by_rank = {r["rank"]: r for r in out["ranks"]}
    assert tuple(by_rank[0]["memory"])[: len(CONTRACT)] == CONTRACT
    assert set(by_rank[0]["memory"]["top_live"][0]) == {"name", "mb", "allocated_at_us"}
    assert by_rank[1]["memory"] is None and by_rank[1]["memory_reason"].startswith("no memory data")
    c = out["cluster"]["memory"]
    assert c["peak_reserved_mb"] == mf.PEAK_RESERVED_MB and c["peak_reserved_rank"] == 0
    assert c["ranks"] == 1 and c["ranks_without"] == 1
    table = result.cluster.table
    assert table["peak_reserved_mb"].dtype == np.float64
    assert table.set_index("rank")["peak_reserved_mb"].isna().tolist() == [False, True]


def test_cluster_memory_highest_rank_decides():
    docs = [{"rank": 0, "memory": {"peak_allocated_mb": 10, "peak_reserved_mb": 20, "process_reserved_mb": None,
                                   "footprint_mb": 20, "headroom_gb": 1.5, "capacity_gb": 2, "share": 0.3}},
            {"rank": 3, "memory": {"peak_allocated_mb": 30, "peak_reserved_mb": 15, "process_reserved_mb": None,
                                   "footprint_mb": 15, "headroom_gb": 0.5, "capacity_gb": 2, "share": 0.75}},
            {"rank": 4, "memory": None, "memory_reason": "no memory data: x"}]
    c = cluster_memory(docs)
    assert (c["peak_allocated_rank"], c["peak_reserved_rank"], c["headroom_rank"]) == (3, 0, 3)
    assert c["process_reserved_mb"] is None and c["reasons"] == ["no memory data: x"]


def test_prediction_fits_or_not(tmp_path):
    result = analyze_paths([mf.ascend_memory_rank(tmp_path)], AnalysisOptions(chip="Ascend 910B2"), use_cache=False)
    cat = default_catalog()
    targets = [cat.find("NVIDIA H100 SXM"), cat.find("NVIDIA RTX 4090"), cat.find("Huawei Ascend 910C")]
    p = predict(rank_inputs(result), cat.find("Ascend 910B2"), targets)
    out = prediction_json(p)
    assert out["memory"]["footprint_mb"] == pytest.approx(mf.PROCESS_MB)
    assert out["memory"]["assumption"] == SAME_ALLOCATOR
    fits = {t["device"]: (t["memory_fits"], t["memory_headroom_gb"]) for t in out["targets"]}
    assert fits["NVIDIA H100 SXM"] == (True, pytest.approx(80 - mf.PROCESS_MB / 1024))
    assert fits["Huawei Ascend 910C"] == (True, pytest.approx(64 - mf.PROCESS_MB / 1024))  # one die per rank
    assert out["baseline"]["memory_fits"] is True
    rows = prediction_rows(p)
    assert rows["memory_headroom_gb"].dtype == np.float64
    text = "\n".join(target_lines(p))
    assert "memory: fits" in text and "the same allocator on another chip is assumed" in text
    # a footprint larger than the target's memory does not fit
    big = Footprint(30 * 1024.0, 0, "process reserved (APP)", 1)
    fit = fit_on(cat.find("NVIDIA RTX 4090"), big)
    assert fit.fits is False and fit.headroom_gb == pytest.approx(-6.0)
    assert fit_on(cat.find("NVIDIA RTX 4090"), footprint([(0, None, "no memory data: y")])).fits is None


def test_prediction_without_memory_data_is_unknown(tmp_path):
    result = analyze_paths([mf.ascend_rank(tmp_path)], use_cache=False)
    cat = default_catalog()
    p = predict(rank_inputs(result), cat.find("Ascend 910B2"), [cat.find("NVIDIA H100 SXM")])
    out = prediction_json(p)
    assert out["targets"][0]["memory_fits"] is None and out["targets"][0]["memory_headroom_gb"] is None
    assert out["memory"]["footprint_mb"] is None and "profile_memory=True" in out["memory"]["reason"]


def test_compare_peaks_base_to_new(tmp_path):
    base = analyze_paths([mf.ascend_memory_rank(tmp_path / "a")], use_cache=False)
    path = mf.ascend_memory_rank(tmp_path / "b")
    rows = [r.replace("420.0,540.0,420.0", "630.0,810.0,630.0") for r in mf.RECORD_ROWS]
    mf.write_csv(path / "ASCEND_PROFILER_OUTPUT" / "memory_record.csv", mf.RECORD_HEADER, rows)
    new = analyze_paths([path], use_cache=False)
    c = compare(base, new)
    out = comparison_json(c)["memory"]
    assert out["peak_allocated_mb"] == {"base": 420.0, "new": 630.0, "delta": 210.0, "ratio": 1.5}
    assert out["peak_reserved_mb"]["delta"] == 270.0
    assert "peak allocated" in console_text(c) and "+210.0 (1.5×)" in console_text(c)


def test_summaries_carry_the_memory_object(tmp_path):
    from mfu_desktop.core.pipeline.runners import Runner
    from mfu_desktop.core.pipeline.summarize import summarize
    from mfu_desktop.core.store.summaries import read_summary

    mf.ascend_memory_rank(tmp_path / "job", "rank0_ascend_pt", 0)
    out = tmp_path / "summary"
    summarize([tmp_path / "job"], out, AnalysisOptions(chip="Ascend 910B2"), default_catalog(), Runner())
    doc = read_summary(out).documents[0]
    assert doc["memory"]["peak_allocated_mb"] == mf.PEAK_ALLOCATED_MB
    from mfu_desktop.core.pipeline.from_summary import analysis_from_summary

    folder = analysis_from_summary(read_summary(out))
    assert folder.to_json()["ranks"][0]["memory"]["peak_reserved_mb"] == mf.PEAK_RESERVED_MB
    p = predict(rank_inputs(folder), default_catalog().find("Ascend 910B2"), [default_catalog().find("H100 SXM")])
    assert prediction_json(p)["targets"][0]["memory_fits"] is True


def run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "mfu_desktop", *args], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **_user_dirs()}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _user_dirs():
    import os

    return {k: v for k, v in os.environ.items() if k.startswith("MFU_DESKTOP_")}


def test_cli_analyze_and_predict(tmp_path):
    path = mf.ascend_memory_rank(tmp_path)
    text = run_cli("analyze", str(path), "--no-cache", "--chip", "Ascend 910B2")
    assert "   memory       peak 420.0 MB allocated, 540.0 MB reserved (PTA+GE), 250.0 µs into step 1" in text
    assert "live at the peak: aten::mm 200.0 MB, aten::empty_strided 100.0 MB, aten::gelu 10.0 MB" in text
    assert "210.0 MB not released within the capture" in text
    out = json.loads(run_cli("predict", str(path), "--no-cache", "--json", "--targets", "H100 SXM,RTX 4090"))
    assert [t["memory_fits"] for t in out["targets"]] == [True, True]
    empty = run_cli("analyze", str(mf.ascend_rank(tmp_path / "none")), "--no-cache")
    assert "memory       n/a — no memory data" in empty
