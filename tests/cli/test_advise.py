"""``mfu advise``: the ranked console list, Chinese without Qt, the schema-2 JSON, exit codes, summaries, exports."""

from __future__ import annotations

import csv
import json

import pytest

from mfu_desktop.cli.main import main
from tests.advisor.profiles import CLEAN_COMPUTING, Trace, two_rank_profile, write_profile

FINDING_KEYS = {"rule", "title", "summary", "advice", "time_at_stake_us", "share_of_step", "step_time_us",
                "confidence", "guide", "ranks", "evidence", "facts"}
EVIDENCE_KEYS = {"key", "label", "kind", "count", "time_us", "time_at_stake_us", "figures"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def demo_json():
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(["advise", "--demo", "--json", "--no-cache"]) == 0
    return json.loads(buffer.getvalue())


def test_json_contract(demo_json):
    data = demo_json
    assert data["schema"] == 2 and data["ranks"] == 8 and data["lang"] == "en"
    assert "per step" in data["convention"] and "upper bound" in data["time_at_stake"]
    stakes = [f["time_at_stake_us"] for f in data["findings"]]
    assert stakes == sorted(stakes, reverse=True)  # sorted by time at stake
    for f in data["findings"]:
        assert set(f) == FINDING_KEYS and f["guide"] == f"docs/user-guide.md#advisor-{f['rule']}"
        assert f["share_of_step"] == pytest.approx(f["time_at_stake_us"] / data["step_time_us"])
        for e in f["evidence"]:
            assert set(e) == EVIDENCE_KEYS
    assert [r["rank"] for r in data["by_rank"]] == list(range(8))
    comm = data["findings"][0]
    assert comm["rule"] == "comm-not-overlapped" and comm["ranks"] == list(range(8))
    # the cluster's time at stake is the mean of the ranks'
    per_rank = [next(f["time_at_stake_us"] for f in r["findings"] if f["rule"] == comm["rule"])
                for r in data["by_rank"]]
    assert comm["time_at_stake_us"] == pytest.approx(sum(per_rank) / 8)


@pytest.fixture
def two_ranks(tmp_path):
    """Per rank: 300 µs of exposed communication, AI CPU operators, an Add at 25 % of HBM; rank 1: slower."""
    return str(two_rank_profile(tmp_path / "profile"))


def test_console_lists_findings_in_order_with_advice_and_guide(capsys, two_ranks):
    code, out, _ = run(capsys, "advise", two_ranks, "--chip", "910B2", "--no-cache")
    assert code == 0
    assert out.index("1. Communication is not hidden") < out.index("2. Memory-bound kernels") < \
        out.index("3. Operators fall back to the AI CPU")
    assert "What to do:" in out and "Guide: docs/user-guide.md#advisor-aicpu-fallback" in out
    assert "upper bound" in out and "(cluster, mean per rank)" in out and "The slow ranks, waited for: rank 1" in out


def test_chinese_without_qt(two_ranks):
    """A fresh interpreter prints the findings in Chinese and never imports Qt."""
    import subprocess
    import sys

    argv = ["advise", two_ranks, "--chip", "910B2", "--lang", "zh_CN", "--rank", "1", "--no-cache"]
    script = (f"import sys; from mfu_desktop.cli.main import main; code = main({argv!r}); "
              "print('QT-LOADED' if 'PySide6' in sys.modules else 'NO-QT'); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, encoding="utf-8", timeout=300)
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "通信未被计算掩盖" in out and "涉及时间" in out and "怎么做：" in out and "该 rank 本身就是慢 rank" in out
    assert "算子回退到 AI CPU 执行" in out and "访存受限的算子远低于 HBM 带宽" in out
    assert out.rstrip().endswith("NO-QT")


def test_one_rank_and_exit_codes(capsys, tmp_path):
    profile = str(write_profile(tmp_path, traces=[Trace(CLEAN_COMPUTING, 300.0, 4.0)]))
    code, out, _ = run(capsys, "advise", profile, "--rank", "0", "--json", "--no-cache")
    data = json.loads(out)
    assert code == 0 and data["rank"] == 0 and data["findings"] == data["by_rank"][0]["findings"]
    code, _, err = run(capsys, "advise")
    assert code == 2 and "--demo" in err
    code, _, err = run(capsys, "advise", str(tmp_path / "missing"))
    assert code == 1 and "mfu advise: error:" in err
    code, _, err = run(capsys, "advise", profile, "--rank", "99", "--no-cache")
    assert code == 2 and "no rank 99" in err
    code, _, err = run(capsys, "advise", profile, "--chip", "nonesuch")
    assert code == 2 and "--chip" in err


def test_clean_profile_says_so(capsys, tmp_path):
    code, out, _ = run(capsys, "advise", str(write_profile(tmp_path)), "--chip", "910B2")
    assert code == 0 and "No findings" in out


def test_summary_folder_advises_on_its_step_figures(capsys, tmp_path):
    profile = write_profile(tmp_path / "p", traces=[Trace(CLEAN_COMPUTING, 300.0, 4.0)])
    assert main(["summarize", str(profile), "--out", str(tmp_path / "s"), "--chip", "910B2"]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "advise", str(tmp_path / "s"), "--json")
    data = json.loads(out)
    assert code == 0 and [f["rule"] for f in data["findings"]] == ["comm-not-overlapped"]
    assert data["findings"][0]["time_at_stake_us"] == pytest.approx(300.0)
    assert any("cluster summary" in n for n in data["notes"])


def test_export_writes_the_findings(capsys, tmp_path, two_ranks):
    code, out, _ = run(capsys, "advise", two_ranks, "--chip", "910B2", "--json", "--no-cache")
    expected = json.loads(out)
    code, _, _ = run(capsys, "analyze", two_ranks, "--chip", "910B2", "--export", str(tmp_path / "out"), "--no-cache")
    assert code == 0
    advice = json.loads((tmp_path / "out" / "advice.json").read_text(encoding="utf-8"))
    assert advice["schema"] == 2 and advice["findings"] == expected["findings"]
    md = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "## MFU Desktop advisor — what to fix first" in md and "### 1. Communication is not hidden" in md
    with (tmp_path / "out" / "findings.csv").open(encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    cluster = [r for r in rows if r["rank"] == ""]
    assert [r["rule"] for r in cluster] == [f["rule"] for f in expected["findings"]]
    assert [float(r["time_at_stake_us"]) for r in cluster] == pytest.approx(
        [f["time_at_stake_us"] for f in expected["findings"]])
    assert len([r for r in rows if r["rank"] == "1"]) == len(expected["by_rank"][1]["findings"])
