"""The command line says what it means: errors end commands, both profile commands speak alike, files are readable."""

from __future__ import annotations

import json
import os
import stat

import pytest

from mfu_desktop.cli.main import main
from tests.helpers import kernel_row, make_rank


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["analyze", "predict"])
def test_conditions_that_end_the_command_are_errors(capsys, tmp_path, command):
    empty = tmp_path / "empty"
    empty.mkdir()
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a profile")
    cases = {
        tmp_path / "missing": f"mfu {command}: error: {tmp_path / 'missing'} does not exist",
        a_file: f"mfu {command}: error: notes.txt is a file, not a profiler folder: open the folder",
        empty: f"mfu {command}: error: no profiler ranks found in {empty}",
    }
    for path, expected in cases.items():
        code, out, err = run(capsys, command, path)
        assert code == 1, path
        assert err.startswith(expected), err
        assert "warning:" not in err and "drop" not in err.lower()
        assert out == ""


def test_both_profile_commands_say_the_same_thing(capsys, tmp_path):
    code_a, _, err_a = run(capsys, "analyze", tmp_path / "nowhere")
    code_p, _, err_p = run(capsys, "predict", tmp_path / "nowhere")
    assert code_a == code_p == 1
    assert err_a.replace("mfu analyze", "mfu predict") == err_p


def test_a_path_or_demo_is_required(capsys):
    for command in ("analyze", "predict"):
        code, _, err = run(capsys, command)
        assert code == 2 and "give a profiler folder (PATH) or --demo" in err


def test_demo_profile_is_shipped_in_the_package(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not the clone root: the demo must come from the package
    code, out, _ = run(capsys, "analyze", "--demo")
    assert code == 0 and "MFU Desktop — 8 rank(s)" in out
    code, out, _ = run(capsys, "predict", "--demo", "--targets", "910C")
    assert code == 0 and "Huawei Ascend 910C" in out


def test_analyze_text_leads_with_the_cluster_and_heads_every_column(capsys):
    code, out, _ = run(capsys, "analyze", "--demo")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("MFU Desktop — 8 rank(s)") and "per step" in lines[1]
    cluster = out.index("== cluster")
    assert cluster < out.index("== rank")
    for heading in ("step time    ", "slow ranks   rank 5 (+", "operator MFU ", "step MFU     "):
        assert heading in out[cluster:out.index("== rank")]
    assert "   rank steps      step µs  computing µs     comm µs    free µs  operator MFU   step MFU tier" in out
    assert "lost µs/step   share   MFU / BW kernels/step  type [input shapes]" in out
    assert "   roofline     memory-bound " in out
    # many ranks: a few blocks (the slowest, the fastest, the slow ones) and how to get all
    assert out.count("== rank ") == 2 and "--ranks all prints every rank" in out
    assert " us" not in out.replace("µs", "")  # one spelling: µs
    code, out, _ = run(capsys, "analyze", "--demo", "--ranks", "all")
    assert out.count("== rank ") == 8 and "more rank blocks" not in out
    code, out, _ = run(capsys, "analyze", "--demo", "--ranks", "3")
    assert out.count("== rank ") == 1 and "== rank 3 " in out


def test_one_failing_path_among_good_ones_is_a_warning_and_exit_3(capsys, tmp_path):
    """Issue 21 §3: the missing path is a stderr warning, not a source in the header, and the exit code says so."""
    rows = [kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "64,64;64,64", "DT_BF16;DT_BF16",
                       "64,64", "DT_BF16")]
    make_rank(tmp_path / "good", "r_ascend_pt", 0, rows)
    code, out, err = run(capsys, "analyze", tmp_path / "good", tmp_path / "missing")
    assert code == 3  # the analysis is printed, something given was skipped
    assert f"warning: {tmp_path / 'missing'} does not exist" in err and "missing" not in out
    assert out.splitlines()[0] == f"MFU Desktop — 1 rank(s) from {tmp_path / 'good'}"
    assert "error" not in err
    code, out, err = run(capsys, "analyze", tmp_path / "good", tmp_path / "missing", "--json")
    assert code == 3 and json.loads(out)["ranks"] and "does not exist" in err


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_written_files_get_the_umask_permissions(capsys, tmp_path):
    old = os.umask(0o022)
    try:
        out_dir = tmp_path / "pred"
        export = tmp_path / "export"
        assert run(capsys, "predict", "--demo", "--targets", "910C", "--out", out_dir, "--format", "both")[0] == 0
        assert run(capsys, "analyze", "--demo", "--export", export)[0] == 0
    finally:
        os.umask(old)
    files = [*out_dir.iterdir(), *export.iterdir()]
    assert len(files) > 5
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
