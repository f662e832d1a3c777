"""Bad input gives a per-rank reason and the rest still loads (issue: profiler analysis)."""

from __future__ import annotations

import shutil

import pytest

from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.pipeline.analyze import analyze_paths
from tests.helpers import HEADER_B, kernel_row, make_rank

GOOD = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512", "DT_BF16;DT_BF16",
                  "128,512", "DT_BF16")


def analyze(path):
    return analyze_paths([path], use_cache=False)


def test_empty_folder_and_folder_without_ranks(tmp_path):
    result = analyze(tmp_path)
    assert not result.ranks and any("no profiler ranks found" in w for w in result.warnings)


def test_zero_byte_csv_fails_that_rank_only(tmp_path):
    make_rank(tmp_path, "good_ascend_pt", 0, [GOOD])
    bad = make_rank(tmp_path, "bad_ascend_pt", 1, [GOOD])
    (bad / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").write_bytes(b"")
    result = analyze(tmp_path)
    assert [r.rank for r in result.ranks] == [0]
    assert result.failures[0].folder.rank == 1 and "empty" in result.failures[0].reason


def test_unreadable_file(tmp_path):
    make_rank(tmp_path, "good_ascend_pt", 0, [GOOD])
    bad = make_rank(tmp_path, "bad_ascend_pt", 1, [GOOD])
    csv = bad / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    csv.unlink()
    csv.mkdir()  # a folder where the file should be: unreadable whatever the user's rights
    result = analyze(tmp_path)
    assert len(result.ranks) == 1 and "kernel_details.csv is not a regular file (a folder)" in result.failures[0].reason


def test_renamed_columns(tmp_path):
    header = HEADER_B.replace("Duration(us)", "Dur")
    make_rank(tmp_path, "a_ascend_pt", 0, [GOOD], header=header)
    result = analyze(tmp_path)
    assert "no Duration" in result.failures[0].reason
    shutil.rmtree(tmp_path / "a_ascend_pt")
    make_rank(tmp_path, "b_ascend_pt", 0, [GOOD], header=HEADER_B.replace("Input Shapes", "Shapes In"))
    r = analyze(tmp_path).ranks[0]
    assert r.summary.tier.tier in (2, 3)
    assert any("no shape columns" in w for w in r.summary.tier.why)


def test_na_everywhere(tmp_path):
    row = ",".join(["N/A"] * len(HEADER_B.split(",")))
    make_rank(tmp_path, "a_ascend_pt", 0, [row, GOOD])
    r = analyze(tmp_path).ranks[0]
    assert r.summary.kernels == 2 and r.summary.countable_kernels in (0, 1)


def test_malformed_shapes_and_zero_duration(tmp_path):
    rows = [GOOD.replace("128,256;256,512", "128,abc;256,512"),
            kernel_row("z", "MatMulV2", "AI_CORE", "1767225600000009.500", 0.0, "128,256;256,512", "DT_BF16;DT_BF16",
                       "128,512", "DT_BF16"),
            GOOD]
    make_rank(tmp_path, "a_ascend_pt", 0, rows)
    r = analyze(tmp_path).ranks[0]
    reasons = set(r.kernels["reason"].astype(str))
    assert any(x.startswith("malformed shapes") for x in reasons)
    assert "duration ≤ 0 or missing" in reasons
    assert (r.kernels["status"] == Status.COUNTED.value).sum() == 1


def test_corrupt_db_fails_that_rank(tmp_path, samples):
    make_rank(tmp_path, "good_ascend_pt", 0, [GOOD])
    out = tmp_path / "db_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "ascend_pytorch_profiler_3.db").write_bytes(b"\x00" * 4096)
    result = analyze(tmp_path)
    assert len(result.ranks) == 1
    assert result.failures and result.failures[0].folder.rank == 3


@pytest.mark.parametrize("text", ["\x00\x01\x02", "a,b\n\"unterminated", "Duration(us)\n1\n2\n"])
def test_garbage_files_never_raise(tmp_path, text):
    make_rank(tmp_path, "a_ascend_pt", 0, [GOOD])
    (tmp_path / "a_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").write_text(text)
    (tmp_path / "a_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").write_text(text)
    result = analyze(tmp_path)
    assert len(result.ranks) + len(result.failures) == 1


def test_malformed_row_with_bytes_that_are_not_utf8(tmp_path, recwarn):
    """Found by the fuzzer: a short row holding invalid UTF-8 used to print 'Exception ignored'."""
    rank = make_rank(tmp_path, "a_ascend_pt", 0, [GOOD, GOOD])
    csv_path = rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    csv_path.write_bytes(csv_path.read_bytes() + b"1,2,\xc3(,short row\n")
    r = analyze(tmp_path).ranks[0]
    assert (r.kernels["status"] == Status.COUNTED.value).sum() == 2
    assert any("not UTF-8" in w for w in r.warnings) or any("not UTF-8" in p for p in r.data.problems)
