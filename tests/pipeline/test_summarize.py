"""Cluster summaries: ranks summarised on a Dask LocalCluster (2 workers) equal the in-process analysis,
a corrupt rank is reported while the rest are summarised, and a re-run analyses only what changed."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.cluster import documents as summary
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.pipeline.summarize import Runner, summarize
from mfu_desktop.core.store.summaries import SummaryError, is_summary, read_summary
from mfu_desktop.demo import generate

distributed = pytest.importorskip("distributed", reason="Dask is the optional extra mfu-desktop[cluster]")

RANKS = 64


@pytest.fixture(scope="module")
def cluster_profile(tmp_path_factory) -> Path:
    root = generate(tmp_path_factory.mktemp("cluster") / "job", ranks=RANKS, steps=2, kernels=1_500)
    bad = root / "node9_99999_20260101000000000_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    bad.mkdir(parents=True)
    (bad / "kernel_details.csv").write_bytes(b"\x00\x01garbage, not a csv\xff" * 50)
    (bad.parent / "profiler_info_99.json").write_text('{"rank_id": 99}', encoding="utf-8")
    return root


def contract_ranks(folder: dict) -> list[dict]:
    return summary.analysis_json(folder)["ranks"]


def test_local_cluster_summary_equals_the_in_process_analysis(cluster_profile, tmp_path):
    from mfu_desktop.core.pipeline.summarize import DaskRunner

    out = tmp_path / "summary"
    options, catalog = AnalysisOptions(), default_catalog()
    runner = DaskRunner(workers=2)
    try:
        result = summarize([cluster_profile], out, options, catalog, runner)
    finally:
        runner.close()
    assert result.ranks == RANKS + 1 and result.summarised == RANKS and result.reused == 0
    assert [e.rank for e in result.failed] == [99] and "kernel_details.csv" in result.failed[0].reason
    assert is_summary(out)
    summarised = read_summary(out).folder_document()
    local = analyze_paths([cluster_profile], options, catalog, use_cache=False)
    assert contract_ranks(summarised) == json.loads(json.dumps(contract_ranks(local.document())))
    assert summary.analysis_json(summarised)["cluster"] == summary.analysis_json(local.document())["cluster"]
    assert any("rank 99" in w and "not summarised" in w for w in summarised["warnings"])
    # the Parquet tables hold the same ranks; every document is small
    import pandas as pd

    ranks = pd.read_parquet(out / "ranks.parquet")
    assert sorted(ranks["rank"].tolist()) == list(range(RANKS))
    steps = pd.read_parquet(out / "steps.parquet")
    assert len(steps) == RANKS * 2
    assert max(p.stat().st_size for p in (out / "ranks").glob("*.json")) < 200_000


def test_a_rerun_analyses_only_the_changed_rank(cluster_profile, tmp_path):
    profile = tmp_path / "job"
    shutil.copytree(cluster_profile, profile)
    out = tmp_path / "summary"
    options, catalog = AnalysisOptions(), default_catalog()
    first = summarize([profile], out, options, catalog, Runner(workers=2))
    assert first.summarised == RANKS
    changed = sorted(profile.glob("*_ascend_pt"))[3]
    csv = changed / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    csv.write_text("".join(csv.read_text(encoding="utf-8").splitlines(keepends=True)[:-10]), encoding="utf-8")
    second = summarize([profile], out, options, catalog, Runner(workers=2))
    # the changed rank and the corrupt one (failed ranks are always retried); the 63 others reused
    corrupt = "node9_99999_20260101000000000_ascend_pt"
    assert sorted(Path(p).name for p in second.analysed) == sorted([changed.name, corrupt])
    assert second.reused == RANKS - 1 and second.summarised == 1
    doc = next(d for d in read_summary(out).documents if d["path"] == str(changed))
    assert doc["kernels"] == 1_500 - 10
    assert len(list((out / "ranks").glob("*.json"))) == RANKS  # the changed rank's old document is gone


def test_damaged_summaries_are_reported(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": "mfu-desktop-summary", "version": 99}', encoding="utf-8")
    with pytest.raises(SummaryError, match="version 99"):
        read_summary(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json", encoding="utf-8")
    assert not is_summary(tmp_path)
    with pytest.raises(SummaryError, match="not valid JSON"):
        read_summary(tmp_path)


def test_cli_summarize_then_analyze_and_predict_the_summary(tmp_path, capsys, monkeypatch):
    from mfu_desktop.cli.main import main
    from mfu_desktop.core.paths import demo_profile_dir

    out = tmp_path / "summary"
    assert main(["summarize", str(demo_profile_dir()), "--out", str(out)]) == 0
    assert "8 rank(s): 8 summarised" in capsys.readouterr().out
    assert main(["analyze", str(out), "--json"]) == 0
    from_summary = json.loads(capsys.readouterr().out)
    assert main(["analyze", "--demo", "--json", "--no-cache"]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert from_summary["cluster"] == direct["cluster"] and from_summary["ranks"] == direct["ranks"]
    assert main(["predict", str(out), "--targets", "910C", "--json"]) == 0
    predicted = json.loads(capsys.readouterr().out)
    assert main(["predict", "--demo", "--targets", "910C", "--json"]) == 0
    assert predicted["targets"] == json.loads(capsys.readouterr().out)["targets"]
    # never into a profiler folder; a missing Dask says how to install it
    inside = demo_profile_dir() / "summary"
    assert main(["summarize", str(demo_profile_dir()), "--out", str(inside)]) == 2
    assert "refusing to write into the profiler folder" in capsys.readouterr().err
    import builtins

    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    assert main(["summarize", str(demo_profile_dir()), "--out", str(tmp_path / "s2"), "--workers", "2"]) == 2
    err = capsys.readouterr().err
    # the command that works from here: this interpreter, this checkout's cluster extra (no package index has it)
    checkout = Path(__file__).resolve().parents[2]
    assert f'{sys.executable} -m pip install -e "{checkout}[cluster]"' in err and "mfu-desktop[cluster]" not in err
