"""Damaged and crafted summary folders: one bad document fails its rank, a damaged manifest says which file.

Before (issue 22 §2): 27 of 43 damaged or crafted summaries crashed ``mfu analyze SUMMARY``
with a traceback (a missing field, a string for a number, a list for an object, deep
nesting), the window dropped the whole summary, and an absolute ``key`` in the manifest read
a JSON file outside the summary folder. Each mutation below is applied to a real summary of
three generated ranks; the command line (``analyze``, ``predict``) and the window's reader
must give a value or a reason, never a traceback, and never read outside the folder.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mfu_desktop.cli.common import EXIT_OK, EXIT_PARTIAL
from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.pipeline.from_summary import analysis_from_summary
from mfu_desktop.core.pipeline.runners import Runner
from mfu_desktop.core.pipeline.summarize import summarize
from mfu_desktop.core.store.summaries import SummaryError, read_summary
from mfu_desktop.demo import generate
from tests.hardening.conftest import CASES


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("crafted")
    profile = generate(base / "job", ranks=3, steps=1, kernels=120)
    out = base / "summary"
    summarize([profile], out, AnalysisOptions(), default_catalog(), Runner(workers=1))
    return out


@pytest.fixture
def summary(pristine, tmp_path) -> Path:
    copy = tmp_path / "summary"
    shutil.copytree(pristine, copy)
    return copy


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def _document(folder: Path) -> tuple[Path, dict]:
    key = _manifest(folder)["ranks"][1]["key"]
    path = folder / "ranks" / f"{key}.json"
    return path, json.loads(path.read_text(encoding="utf-8"))


def _strict(text: str) -> dict:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the JSON output")

    return json.loads(text, parse_constant=refuse)


def _check(folder: Path, capsys, damaged_ranks: int) -> None:
    """Every reader gives a value or a reason: the damaged rank fails alone, the others are shown."""
    code = mfu(["analyze", str(folder), "--json"])
    out = capsys.readouterr()
    assert code == (EXIT_PARTIAL if damaged_ranks else EXIT_OK), out.err  # a failed rank is a partial result
    shown = _strict(out.out)["ranks"] if out.out.strip() else []
    assert len(shown) == 3 - damaged_ranks
    if damaged_ranks:
        failed = _strict(out.out)["failed"] if out.out.strip() else []
        assert len(failed) == damaged_ranks and all(f["reason"] for f in failed)
    assert mfu(["analyze", str(folder)]) == code  # the text view reads every field too
    result = analysis_from_summary(read_summary(folder))  # the window's reader
    assert len(result.ranks) == 3 - damaged_ranks and len(result.failures) == damaged_ranks
    capsys.readouterr()


#: Field of the document → a value of the wrong kind (each one crashed a reader, or could).
WRONG = {
    "rank": "three", "path": 42, "kernels": "many", "steps": -1, "tier": [1], "mfu_ops": "63 %", "flops": {},
    "step_time_us": float("inf"), "by_type": {"type": "MatMul"}, "excluded": ["row"], "hot_by_lost": [[1, 2]],
    "hot_by_time": [{"time_us": "slow"}], "step_breakdown": [], "mfu_ops_range": [0.1], "tier_why": "why",
    "warnings": [{"w": 1}], "confirmed": "yes", "memory": {"top_live": "none"}, "roofline": {"bytes": "x"},
    "capture": 3, "prediction": {"groups": "g", "excluded": [], "flags": [], "steps": 1, "measured": None},
    "step_rows": "rows", "collectives": [{"transit_time_ms": "slow"}], "document_version": 2,
}
#: Fields every reader relies on: removed.
REQUIRED = ["rank", "path", "kernels", "steps", "tier", "by_type", "hot_by_lost", "step_breakdown", "warnings",
            "confirmed", "capture", "mfu_ops", "memory"]


@pytest.mark.parametrize("field", sorted(WRONG))
def test_a_document_field_of_the_wrong_kind_fails_its_rank(summary, capsys, field):
    path, doc = _document(summary)
    doc[field] = WRONG[field]
    path.write_text(json.dumps(doc), encoding="utf-8")
    CASES["crafted summary documents"] += 1
    _check(summary, capsys, 1)


@pytest.mark.parametrize("field", REQUIRED)
def test_a_document_without_a_field_fails_its_rank(summary, capsys, field):
    path, doc = _document(summary)
    del doc[field]
    path.write_text(json.dumps(doc), encoding="utf-8")
    CASES["crafted summary documents"] += 1
    _check(summary, capsys, 1)


@pytest.mark.parametrize("content", [b"", b"\x00\xff junk", b"[1, 2]", b"[" * 100_000 + b"]" * 100_000,
                                     b'{"rank": 1e400}', b'{"rank": NaN}', b"null"])
def test_a_document_that_is_not_one_fails_its_rank(summary, capsys, content):
    path, _ = _document(summary)
    path.write_bytes(content)
    CASES["crafted summary documents"] += 1
    _check(summary, capsys, 1)


def test_deep_nesting_inside_a_field_fails_its_rank(summary, capsys):
    path, doc = _document(summary)
    text = json.dumps(doc).replace('"notes": [', '"notes": [' + "[" * 50_000 + "]" * 50_000 + ", ", 1)
    path.write_text(text, encoding="utf-8")
    CASES["crafted summary documents"] += 1
    _check(summary, capsys, 1)


@pytest.mark.parametrize("row", [
    "not a row", {"rank": 1}, {"rank": 2**70, "path": "p", "key": "0" * 32, "status": "ok"},
    {"rank": "two", "path": "p", "key": "0" * 32, "status": "ok"},
    {"rank": 1, "path": ["p"], "key": "0" * 32, "status": "done"},
    {"rank": 1, "path": "p", "key": "../../outside", "status": "ok"},
    {"rank": 1, "path": "p", "key": "/etc/hostname", "status": "ok"},
])
def test_a_damaged_manifest_line_fails_its_rank_only(summary, capsys, row):
    manifest = _manifest(summary)
    manifest["ranks"][1] = row
    (summary / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    CASES["crafted summary manifests"] += 1
    _check(summary, capsys, 1)


def test_a_manifest_key_never_reads_outside_the_summary(summary, tmp_path, capsys):
    _, doc = _document(summary)
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({**doc, "path": "READ FROM OUTSIDE"}), encoding="utf-8")
    manifest = _manifest(summary)
    manifest["ranks"][1]["key"] = str(outside.with_suffix(""))  # before: ranks/ / "/abs/outside" + ".json" read it
    (summary / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert mfu(["analyze", str(summary), "--json"]) == EXIT_PARTIAL  # the rank whose key is not one fails alone
    out = capsys.readouterr().out
    assert "READ FROM OUTSIDE" not in out and "document key is not one" in out


@pytest.mark.parametrize(("content", "says"), [
    (b"{ not json", "manifest.json is not valid JSON"), (b"[" * 100_000, "manifest.json is not valid JSON"),
    (json.dumps({"format": "mfu-desktop-summary", "version": 1, "ranks": "all"}).encode(),
     "manifest.json is damaged: its ranks are not a list"),
])
def test_a_broken_manifest_names_the_file(summary, capsys, content, says):
    (summary / "manifest.json").write_bytes(content)
    CASES["crafted summary manifests"] += 1
    with pytest.raises(SummaryError, match=says.replace(".", r"\.")):
        read_summary(summary)
    capsys.readouterr()
    for command in (["analyze", str(summary)], ["predict", str(summary), "--targets", "910C"]):
        assert mfu(command) in (1, 2)
        err = capsys.readouterr().err
        assert says in err and "no profiler ranks found" not in err  # before: only "no profiler ranks found"


@pytest.mark.parametrize("options", [[1], {"analysis": [1]}, {"analysis": {"flops": "fast", "hf32": "yes"}}])
def test_damaged_manifest_extras_are_ignored(summary, capsys, options):
    # before (after the merge of main's summary option checks): options=[1] crashed mfu analyze SUMMARY with
    # AttributeError: 'list' object has no attribute 'get'
    manifest = _manifest(summary)
    manifest.update(warnings="w", conventions=[1, {"x": 2}], top_n="ten", options=options)
    (summary / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    CASES["crafted summary manifests"] += 1
    _check(summary, capsys, 0)
    assert mfu(["predict", str(summary), "--targets", "910C", "--json"]) == 0
    _strict(capsys.readouterr().out)


def test_predict_from_a_summary_with_a_damaged_rank(summary, capsys):
    path, doc = _document(summary)
    doc["prediction"]["measured"] = {"steps": 1, "surprise": 2}  # before: TypeError from MeasuredStep(**…)
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert mfu(["predict", str(summary), "--targets", "910C", "--json"]) == 0
    assert _strict(capsys.readouterr().out)["ranks"] == [0, 2]  # rank 1 failed alone


#: The roofline model's additions to a summarised rank's prediction inputs (main, issue 23), damaged.
PREDICTION_DAMAGE = {
    "shapes is text": ("shapes", "junk"),  # before: AttributeError ('str' object has no attribute 'get')
    "a shape's group is text": ("shapes", [{"group": "x", "category": 0, "flops": 1.0, "bytes": 1.0,
                                            "duration_us": 1.0, "count": 1}]),  # before: ValueError from numpy
    "a shape's group is null": ("shapes", [{"group": None, "category": 0, "flops": 1.0, "bytes": 1.0,
                                             "duration_us": 1.0, "count": 1}]),  # before: NaN cast to int64
    "fallback flags are a list": ("fallback_flags", [1]),  # before: TypeError from dict([1])
    "a group's roofline time is text": ("groups", [{"unit": "cube", "type": "MatMul", "roofline_us": "slow"}]),
}


@pytest.mark.parametrize("case", sorted(PREDICTION_DAMAGE))
def test_damaged_roofline_inputs_fail_their_rank_alone(summary, capsys, case):
    key, value = PREDICTION_DAMAGE[case]
    path, doc = _document(summary)
    assert "shapes" in doc["prediction"] and "fallback_flags" in doc["prediction"]  # the summary has them
    doc["prediction"][key] = value
    path.write_text(json.dumps(doc), encoding="utf-8")
    CASES["crafted summary documents"] += 1
    _check(summary, capsys, 1)
    assert mfu(["predict", str(summary), "--targets", "910C", "--json"]) == 0
    assert _strict(capsys.readouterr().out)["ranks"] == [0, 2]  # rank 1 failed alone


def test_a_summary_from_before_the_roofline_model_is_still_read(summary, capsys):
    for path in (summary / "ranks").glob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for key in ("shapes", "fallback_flags"):
            doc["prediction"].pop(key)
        path.write_text(json.dumps(doc), encoding="utf-8")
    _check(summary, capsys, 0)
    assert mfu(["predict", str(summary), "--targets", "910C", "--json"]) == 0
    assert _strict(capsys.readouterr().out)["ranks"] == [0, 1, 2]
