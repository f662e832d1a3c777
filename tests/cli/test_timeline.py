"""``mfu timeline``: a rank's Chrome trace from the command line; exit codes and messages."""

from __future__ import annotations

import json

from mfu_desktop.cli.main import main
from mfu_desktop.demo import write_kineto_trace
from tests.helpers import check_trace_event_format, kernel_row, make_rank, snapshot

T0 = 1736000000000000


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def two_ranks(tmp_path):
    root = tmp_path / "job"
    for rank in (0, 1):
        rows = [kernel_row(f"Add_{i}", "Add", "AI_VECTOR_CORE", f"{T0 + 10 * i}.000", 4.0 + rank, step=1 + i // 3)
                for i in range(6)]
        make_rank(root, f"r{rank}_ascend_pt", rank, rows)
    return root


def test_one_rank_one_step_as_json(capsys, tmp_path):
    root = two_ranks(tmp_path)
    out = tmp_path / "traces" / "r1s2.json"
    before = snapshot(root)
    code, text, err = run(capsys, "timeline", str(root), "--rank", "1", "--step", "2", "--out", str(out), "--json")
    assert code == 0, err
    payload = json.loads(text)
    # step 2 of rank 1: kernels 3, 4, 5 of 5 µs each
    assert payload["schema"] == 2 and payload["rank"] == 1 and payload["step"] == "2"
    assert payload["kernels"] == 3 and payload["kernel_time_us"] == 15.0
    assert payload["origin_unix_ns"] == (T0 + 30) * 1000
    data = json.loads(out.read_text(encoding="utf-8"))
    check_trace_event_format(data)
    assert [e["ts"] for e in data["traceEvents"] if e.get("cat") == "kernel"] == [0, 10, 20]
    assert snapshot(root) == before


def test_arguments_that_cannot_work_are_one_error_line(capsys, tmp_path):
    root = two_ranks(tmp_path)
    out = str(tmp_path / "t.json")
    code, _, err = run(capsys, "timeline", str(root), "--out", out)
    assert code == 2 and "argument --rank: the profile has 2 ranks (0, 1): name one" in err
    code, _, err = run(capsys, "timeline", str(root), "--rank", "4", "--out", out)
    assert code == 2 and "no rank 4 in the profile (its ranks: 0, 1)" in err
    code, _, err = run(capsys, "timeline", str(root), "--rank", "0", "--step", "9", "--out", out)
    assert code == 2 and "argument --step: rank 0 has no step 9 (its steps: 1, 2)" in err
    code, _, err = run(capsys, "timeline", str(root), "--rank", "0", "--out", str(root / "inside.json"))
    assert code == 2 and "argument --out: refusing to write into the profiler folder" in err
    assert not (root / "inside.json").exists()
    code, _, err = run(capsys, "timeline", str(tmp_path / "nothing-here"), "--out", out)
    assert code == 1 and err.startswith("mfu timeline: error:")
    code, _, err = run(capsys, "timeline", "--rank", "0", "--out", out)
    assert code == 2 and "give a profiler folder" in err


def test_a_trace_exports_its_host_ops_unless_told_not_to(capsys, tmp_path):
    trace = tmp_path / "gpu" / "w.pt.trace.json"
    trace.parent.mkdir()
    write_kineto_trace(trace, steps=2, layers=1)
    out = tmp_path / "gpu.json"
    code, text, _ = run(capsys, "timeline", str(trace), "--out", str(out))
    assert code == 0 and "host operators" in text and "Perfetto" in text
    counts = check_trace_event_format(json.loads(out.read_text(encoding="utf-8")))
    assert counts["s"] == counts["f"] > 0
    code, text, _ = run(capsys, "timeline", str(trace), "--out", str(out), "--no-host", "--json")
    assert code == 0 and json.loads(text)["host_ops"] == 0
