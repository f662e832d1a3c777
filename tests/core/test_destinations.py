"""Where an export may write: never inside or above a profile, never over what MFU Desktop did not write.

Before (issue 22 §1): the guard protected only the folder being analysed — ``--export`` /
``--out`` into another ``*_ascend_pt``, an ``ASCEND_PROFILER_OUTPUT``, a ``PROF_*``, a folder of
traces or the cluster root of the analysed rank all wrote there (11 files); ``--export DIR``
silently replaced the user's own ``summary.md``, ``summary.json`` and ``kernels.csv``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.writing import (
    OUTPUT_MARKER,
    ExportError,
    OverwriteRefused,
    check_output_file,
    check_output_folder,
    mark_output_folder,
    refuse_profile_destination,
)
from tests.helpers import kernel_row, make_rank

ROW = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512", "DT_BF16;DT_BF16",
                 "128,512", "DT_BF16")


@pytest.fixture
def cluster(tmp_path) -> Path:
    """``job/`` with two rank folders; beside it another job (a rank, a msprof capture) and a folder of traces."""
    job = tmp_path / "job"
    make_rank(job, "r0_ascend_pt", 0, [ROW])
    make_rank(job, "r1_ascend_pt", 1, [ROW])
    make_rank(tmp_path / "other", "r7_ascend_pt", 7, [ROW])
    (tmp_path / "other" / "PROF_000001_x" / "mindstudio_profiler_output").mkdir(parents=True)
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "gpu0.pt.trace.json").write_text('{"traceEvents": []}')
    return job


def _refusal(target: Path, sources: list[Path]) -> str:
    with pytest.raises(ExportError) as err:
        refuse_profile_destination(target, sources)
    return str(err.value)


def test_every_kind_of_profile_folder_is_refused(cluster):
    tmp = cluster.parent
    rank = cluster / "r0_ascend_pt"
    cases = {
        rank / "out": "is inside the profile",  # the analysed rank
        cluster: "is inside the profile",  # the analysed cluster root itself
        tmp: "is inside it",  # above it
        tmp / "other" / "r7_ascend_pt" / "x": "is a profiler folder",  # another rank, not analysed
        tmp / "other" / "r7_ascend_pt" / "ASCEND_PROFILER_OUTPUT": "is a profiler folder",
        tmp / "other" / "PROF_000001_x" / "mindstudio_profiler_output": "is a profiler folder",
        tmp / "other": "holds profiler rank folders",  # another cluster root itself
        tmp / "traces": "it holds profiler files",  # a folder of traces
    }
    for target, why in cases.items():
        message = _refusal(target, [cluster])
        assert why in message, (target, message)
        assert message.startswith(f"refusing to write into {target}: ")
    refuse_profile_destination(tmp / "reports" / "job", [cluster])  # a new folder beside: fine
    refuse_profile_destination(tmp / "traces-report", [cluster])
    refuse_profile_destination(tmp / "other" / "exports", [cluster])  # a new folder beside ranks not analysed


def test_the_refusal_says_where_to_write_instead(cluster):
    message = _refusal(cluster / "r0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "x", [cluster])
    instead = cluster.parent / "job-mfu-report"
    assert message.endswith(f"; write to {instead} instead")
    refuse_profile_destination(instead, [cluster])  # the suggestion itself is accepted


def test_a_trace_file_protects_its_folder(cluster):
    trace = cluster.parent / "traces" / "gpu0.pt.trace.json"
    assert "is inside the profile" in _refusal(trace.parent / "sub", [trace])


def test_only_new_empty_or_own_folders(tmp_path):
    names = ["summary.md", "kernels.csv"]
    check_output_folder(tmp_path / "new", names)
    (tmp_path / "empty").mkdir()
    check_output_folder(tmp_path / "empty", names)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "summary.md").write_text("my notes")
    with pytest.raises(ExportError, match="was not written by MFU Desktop"):
        check_output_folder(mine, names, force=True)  # never over what it did not write, even forced
    ours = tmp_path / "ours"
    ours.mkdir()
    (ours / "summary.md").write_text("an earlier export")
    mark_output_folder(ours, "analysis export", [ours / "summary.md"])
    assert json.loads((ours / OUTPUT_MARKER).read_text())["files"] == ["summary.md"]
    with pytest.raises(OverwriteRefused, match=r"holds an earlier export \(summary\.md\): add --force") as err:
        check_output_folder(ours, names)
    assert err.value.files == ["summary.md"]
    check_output_folder(ours, names, force=True)
    check_output_folder(ours, ["other.csv"])  # nothing of the earlier export replaced: fine


def _hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_analyze_export_never_replaces_the_users_files(cluster, tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    for name in ("summary.md", "summary.json", "kernels.csv"):
        (mine / name).write_text(f"my own {name}")
    before = _hashes(mine)
    assert mfu(["analyze", str(cluster), "--export", str(mine)]) == 2
    assert "was not written by MFU Desktop" in capsys.readouterr().err
    assert mfu(["analyze", str(cluster), "--export", str(mine), "--force"]) == 2
    assert _hashes(mine) == before  # before: all three replaced


def test_analyze_export_twice_needs_force(cluster, tmp_path, capsys):
    out = tmp_path / "export"
    assert mfu(["analyze", str(cluster), "--export", str(out)]) == 0
    first = _hashes(out)
    assert OUTPUT_MARKER in first and "kernels.csv" in first
    assert mfu(["analyze", str(cluster), "--export", str(out)]) == 2
    assert "holds an earlier export" in capsys.readouterr().err
    assert _hashes(out) == first
    (out / "my-notes.txt").write_text("kept")
    assert mfu(["analyze", str(cluster), "--export", str(out), "--force"]) == 0
    assert (out / "my-notes.txt").read_text() == "kept"  # replaced its own files, deleted nothing


@pytest.mark.parametrize("where", ["rank", "root", "above", "other rank", "prof", "traces"])
def test_every_export_of_the_command_line_is_refused_there(cluster, capsys, where):
    tmp = cluster.parent
    target = {"rank": cluster / "r0_ascend_pt" / "out", "root": cluster, "above": tmp,
              "other rank": tmp / "other" / "r7_ascend_pt" / "out", "prof": tmp / "other" / "PROF_000001_x" / "out",
              "traces": tmp / "traces"}[where]
    before = _hashes(tmp)
    assert mfu(["analyze", str(cluster), "--export", str(target)]) == 2
    assert mfu(["predict", str(cluster), "--targets", "910C", "--out", str(target)]) == 2
    assert mfu(["compare", str(cluster / "r0_ascend_pt"), str(cluster / "r1_ascend_pt"), "--export", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("refusing to write into") == 3
    assert _hashes(tmp) == before


def test_predict_and_compare_outputs_are_marked_and_need_force(cluster, tmp_path, capsys):
    pred, comp = tmp_path / "pred", tmp_path / "comp"
    assert mfu(["predict", str(cluster), "--targets", "910C", "--out", str(pred)]) == 0
    assert mfu(["compare", str(cluster / "r0_ascend_pt"), str(cluster / "r1_ascend_pt"), "--export", str(comp)]) == 0
    assert (pred / OUTPUT_MARKER).exists() and (comp / OUTPUT_MARKER).exists()
    assert mfu(["predict", str(cluster), "--targets", "910C", "--out", str(pred)]) == 2
    assert mfu(["compare", str(cluster / "r0_ascend_pt"), str(cluster / "r1_ascend_pt"), "--export", str(comp)]) == 2
    assert capsys.readouterr().err.count("add --force") == 2
    assert mfu(["predict", str(cluster), "--targets", "910C", "--out", str(pred), "--force"]) == 0
    assert mfu(["compare", str(cluster / "r0_ascend_pt"), str(cluster / "r1_ascend_pt"), "--export", str(comp),
                "--force"]) == 0


def test_a_one_file_export_is_refused_in_a_profile_not_far_above_it(cluster):
    """One file (a Chrome trace) must not land among a profile's files; a folder far above the profile is fine."""
    tmp = cluster.parent
    cases = {
        cluster / "r0_ascend_pt" / "t.json": "is inside the profile",
        cluster / "t.json": "is inside the profile",  # the analysed cluster root, among its ranks
        tmp / "other" / "r7_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "t.json": "is a profiler folder",
        tmp / "other" / "t.json": "holds profiler rank folders",  # another cluster root
        tmp / "traces" / "t.json": "it holds profiler files",  # among traces
    }
    for target, why in cases.items():
        with pytest.raises(ExportError) as err:
            refuse_profile_destination(target, [cluster], file=True)
        assert why in str(err.value) and str(err.value).startswith(f"refusing to write into {target}: ")
    # beside the cluster root (its parent holds no rank folder itself): one file there writes nothing into it
    refuse_profile_destination(tmp / "t.json", [cluster], file=True)
    refuse_profile_destination(tmp / "reports" / "t.json", [cluster], file=True)
    with pytest.raises(ExportError, match=r"is inside it"):
        refuse_profile_destination(tmp, [cluster])  # a whole export's files into that folder: refused
    with pytest.raises(ExportError) as err:
        refuse_profile_destination(cluster / "r0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "t.json", [cluster], file=True)
    assert str(err.value).endswith(f"; write to {tmp / 't.json'} instead")


def test_a_one_file_export_replaces_only_its_own_earlier_file(tmp_path):
    sig = b'{"generator": "MFU Desktop"'
    check_output_file(tmp_path / "new.json", sig)
    mine = tmp_path / "mine.json"
    mine.write_text('{"my": "notes"}')
    with pytest.raises(ExportError, match="was not written by MFU Desktop") as err:
        check_output_file(mine, sig, force=True)  # never over what it did not write, even forced
    assert not isinstance(err.value, OverwriteRefused)
    ours = tmp_path / "ours.json"
    ours.write_bytes(sig + b', "x": 1}')
    with pytest.raises(OverwriteRefused, match="holds an earlier export: add --force") as err:
        check_output_file(ours, sig)
    assert err.value.files == ["ours.json"]
    check_output_file(ours, sig, force=True)
    with pytest.raises(ExportError, match="is not a file"):
        check_output_file(tmp_path, sig, force=True)


@pytest.mark.parametrize("where", ["rank", "root", "other rank", "prof", "traces"])
def test_mfu_timeline_is_refused_in_every_profile_folder(cluster, capsys, where):
    tmp = cluster.parent
    target = {"rank": cluster / "r0_ascend_pt", "root": cluster, "other rank": tmp / "other" / "r7_ascend_pt",
              "prof": tmp / "other" / "PROF_000001_x", "traces": tmp / "traces"}[where] / "t.json"
    before = _hashes(tmp)
    assert mfu(["timeline", str(cluster), "--rank", "0", "--out", str(target)]) == 2
    assert "argument --out: refusing to write into" in capsys.readouterr().err
    assert _hashes(tmp) == before


def test_mfu_timeline_refuses_before_reading_the_profile(cluster, tmp_path, capsys, monkeypatch):
    import mfu_desktop.core.pipeline.analyze as pipeline

    def never(*args, **kwargs):
        raise AssertionError("the profile was analysed before --out was refused")

    monkeypatch.setattr(pipeline, "analyze_paths", never)
    mine = tmp_path / "notes.json"
    mine.write_text("mine")
    for out in (cluster / "r0_ascend_pt" / "t.json", mine):
        assert mfu(["timeline", str(cluster), "--rank", "0", "--out", str(out), "--force"]) == 2
    err = capsys.readouterr().err
    assert "refusing to write into" in err and "was not written by MFU Desktop" in err


def test_mfu_timeline_replaces_only_its_own_trace_and_only_with_force(cluster, tmp_path, capsys):
    out = tmp_path / "t.json"
    assert mfu(["timeline", str(cluster), "--rank", "0", "--out", str(out)]) == 0
    first = out.read_bytes()
    out.write_bytes(first.replace(b'"rank": 0', b'"rank": 0 ', 1))  # an edit the next write would undo
    edited = out.read_bytes()
    assert mfu(["timeline", str(cluster), "--rank", "0", "--out", str(out)]) == 2
    assert "holds an earlier export: add --force" in capsys.readouterr().err
    assert out.read_bytes() == edited  # before: replaced silently
    assert mfu(["timeline", str(cluster), "--rank", "0", "--out", str(out), "--force"]) == 0
    assert out.read_bytes() == first
    mine = tmp_path / "notes.json"
    mine.write_text('{"my": "notes"}')
    assert mfu(["timeline", str(cluster), "--rank", "0", "--out", str(mine), "--force"]) == 2
    assert "was not written by MFU Desktop" in capsys.readouterr().err
    assert mine.read_text() == '{"my": "notes"}'
