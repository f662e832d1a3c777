"""The cache: a rank written once (Arrow), analyses as added columns + a document, and the command line's
cached path that prints from documents without importing numpy/pandas/pyarrow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.store import cache
from tests.conftest import ROOT

#: Runs the CLI and reports which heavy modules it imported (stdout: the CLI's, stderr: the list).
PROBE = ("import sys\nfrom mfu_desktop.cli.main import main\ncode = main(sys.argv[1:])\nsys.stdout.flush()\n"
         "sys.stderr.write('HEAVY=' + ','.join(sorted(m for m in ('numpy', 'pandas', 'pyarrow') if m in sys.modules)))")


def run_cli(*args: str) -> tuple[str, str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    heavy = proc.stderr.rsplit("HEAVY=", 1)[1].strip()
    return proc.stdout, heavy


@pytest.fixture
def profile(tmp_path) -> Path:
    shutil.copytree(demo_profile_dir(), tmp_path / "demo")
    return tmp_path / "demo"


def test_cached_cli_prints_the_same_without_numpy_pandas_pyarrow(profile):
    fresh_text, heavy = run_cli("analyze", str(profile))
    assert heavy == "numpy,pandas,pyarrow"  # the first run analyses
    cached_text, heavy = run_cli("analyze", str(profile))
    assert heavy == "" and cached_text == fresh_text
    cached_json, heavy = run_cli("analyze", str(profile), "--json")
    assert heavy == ""
    fresh_json, _ = run_cli("analyze", str(profile), "--json", "--no-cache")
    assert json.loads(cached_json) == json.loads(fresh_json)
    # other options are another analysis: analysed, then cached in turn
    _, heavy = run_cli("analyze", str(profile), "--hf32", "--json")
    assert heavy == "numpy,pandas,pyarrow"
    _, heavy = run_cli("analyze", str(profile), "--hf32", "--json")
    assert heavy == ""


def test_a_changed_file_is_analysed_again(profile):
    run_cli("analyze", str(profile))
    csv = next(profile.rglob("kernel_details.csv"))
    lines = csv.read_text(encoding="utf-8").splitlines(keepends=True)
    csv.write_text("".join(lines[:-5]), encoding="utf-8")  # 5 kernels fewer: new size and mtime
    text, heavy = run_cli("analyze", str(profile), "--json")
    assert heavy == "numpy,pandas,pyarrow"
    rank = next(r for r in json.loads(text)["ranks"] if str(r["path"]) == str(csv.parents[1]))
    fresh = analyze_paths([profile], AnalysisOptions(), use_cache=False)
    assert rank["kernels"] == next(r.summary.kernels for r in fresh.ranks if r.summary.path == str(csv.parents[1]))


def test_cache_is_small_written_once_per_rank_and_reopens_identically(profile):
    first = analyze_paths([profile], AnalysisOptions(), use_cache=True)
    again = analyze_paths([profile], AnalysisOptions(), use_cache=True)
    assert all(r.data.from_cache for r in again.ranks)
    for a, b in zip(first.ranks, again.ranks):
        assert list(a.kernels.columns) == list(b.kernels.columns)
        for column in a.kernels.columns:
            left, right = a.kernels[column], b.kernels[column]
            assert left.dtype == right.dtype, column
            assert left.equals(right), column


def test_cache_of_a_real_sized_rank_is_under_half_the_csv(tmp_path):
    """100,000 kernels: the rank's frame once, and per option set only the columns the analysis added."""
    from mfu_desktop.demo import generate

    root = generate(tmp_path / "big", ranks=1, steps=2, kernels=100_000)
    analyze_paths([root], AnalysisOptions(), use_cache=True)
    analyze_paths([root], AnalysisOptions(hf32=True), use_cache=True)
    folder = discover([root]).ranks[0]
    catalog = default_catalog()
    csv_size = sum(p.stat().st_size for p in folder.kernel_csvs)
    rank_bytes = cache.size_of(cache.cache_key(folder), "ranks")
    first = cache.size_of(cache.analysis_key(folder, AnalysisOptions(), catalog), "analysis")
    second = cache.size_of(cache.analysis_key(folder, AnalysisOptions(hf32=True), catalog), "analysis")
    assert 0 < rank_bytes + first <= 0.5 * csv_size, (rank_bytes, first, csv_size)
    # no second copy of the kernels: the second option set holds only the columns its analysis added
    from mfu_desktop.core.store.frames import read_frame

    raw = read_frame(cache.entry(cache.cache_key(folder), "ranks", ".arrow"))
    added = read_frame(cache.entry(cache.analysis_key(folder, AnalysisOptions(hf32=True), catalog), "analysis",
                                   ".arrow"))
    assert not set(raw.columns) & set(added.columns) and len(added) == len(raw)
    assert second < rank_bytes


def test_stale_or_damaged_entries_are_rebuilt_never_misread(profile):
    analyze_paths([profile], AnalysisOptions(), use_cache=True)
    folder = discover([profile]).ranks[0]
    key = cache.analysis_key(folder, AnalysisOptions(), default_catalog())
    doc_path = cache.entry(key, "analysis", ".json")
    doc = json.loads(doc_path.read_text(encoding="utf-8"))
    doc["cache_version"] = "0.0.0-old"
    doc_path.write_text(json.dumps(doc), encoding="utf-8")
    assert cache.read_document(key) is None
    frame_path = cache.entry(cache.cache_key(folder), "ranks", ".arrow")
    frame_path.write_bytes(frame_path.read_bytes()[:1000])  # a truncated Arrow file
    again = analyze_paths([profile], AnalysisOptions(), use_cache=True)
    rank = next(r for r in again.ranks if r.folder.path == folder.path)
    assert not rank.data.from_cache  # parsed again
    assert len(rank.kernels) > 0 and cache.read_document(key) is not None


def test_prune_drops_whole_entries_least_recently_used(tmp_path):
    folder = tmp_path / "kind"
    folder.mkdir()
    for i, name in enumerate(("old", "new")):
        for suffix, size in ((".pkl", 100), (".arrow", 900)):
            path = folder / f"{name}{suffix}"
            path.write_bytes(b"x" * size)
            os.utime(path, (1_000_000 + i * 10, 1_000_000 + i * 10))
    cache.prune(folder, limit=1500)
    assert sorted(p.name for p in folder.iterdir()) == ["new.arrow", "new.pkl"]
