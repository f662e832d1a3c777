"""kernel_details.csv as users' files really are: other encodings, padding, bad cells — skipped, counted, located.

Each case failed before (issue 22): GBK operator names became U+FFFD because only the header
chose the encoding; a header-only file without its newline failed; a 26-digit start time
failed the rank with "ArrowInvalid"; a NUL-padded file failed with "straddling object … try to
increase block size" after taking twice its size in memory; skipped rows got the line of an
earlier identical row and quoted the file's text; a file without a duration column quoted its
first 12 fields (whatever a link pointed at).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.ascend.kernels_csv import KernelFileError, read_kernel_csv
from tests.helpers import HEADER_B, kernel_row


def _row(name: str = "mm", start: str = "1767225600000001.500", dur: float = 10.0) -> str:
    return kernel_row(name, "MatMulV2", "AI_CORE", start, dur, "128,256;256,512", "DT_BF16;DT_BF16", "128,512",
                      "DT_BF16")


def _write(tmp_path, rows: list[str], header: str = HEADER_B, end: str = "\n"):
    path = tmp_path / "kernel_details.csv"
    path.write_text(header + "\n" + "\n".join(rows) + end, encoding="utf-8")
    return path


def test_gbk_operator_names_under_an_ascii_header(tmp_path):
    path = _write(tmp_path, [_row("mm"), _row("矩阵乘法"), _row("注意力")])
    path.write_bytes(path.read_text(encoding="utf-8").encode("gbk"))
    table = read_kernel_csv(path)
    assert list(table.frame[C.NAME]) == ["mm", "矩阵乘法", "注意力"]  # before: "\ufffd\ufffd…"
    assert table.problems == ["kernel_details.csv decoded as GB18030 (GBK)"]


def test_utf8_with_one_damaged_byte_stays_utf8(tmp_path):
    path = _write(tmp_path, [_row("矩阵乘法"), _row("x")])
    raw = path.read_bytes().replace(b",x,", b",\xff,")  # one byte that is neither UTF-8 nor the start of GBK
    path.write_bytes(raw)
    table = read_kernel_csv(path)
    assert list(table.frame[C.NAME]) == ["矩阵乘法", "\ufffd"]
    assert any("not UTF-8 (replaced)" in p for p in table.problems)


def test_decode_table_bytes_decides_per_file():
    from mfu_desktop.core.readers.text_source import decode_table_bytes

    assert decode_table_bytes("a,性能\n".encode()) == ("a,性能\n", "utf-8")
    assert decode_table_bytes("a,性能\n".encode("gbk")) == ("a,性能\n", "gb18030")
    # mostly UTF-8 text with one GBK-encoded cell: UTF-8, damaged (never the whole file misread as GBK)
    mixed = "a,性能分析,矩阵乘法\n".encode() + "b,性能\n".encode("gbk")
    assert decode_table_bytes(mixed)[1] == "utf-8 (bad bytes replaced)"


@pytest.mark.parametrize("end", ["", "\n", "\r\n"])
def test_a_header_and_no_row(tmp_path, end):
    path = tmp_path / "kernel_details.csv"
    path.write_text(HEADER_B + end, encoding="utf-8")
    table = read_kernel_csv(path)  # before ("" end): "Could not skip initial 1 rows from CSV file"
    assert table.frame.empty and C.DURATION_US in table.frame.columns and not table.problems


def test_a_26_digit_start_time_is_one_missing_cell(tmp_path):
    path = _write(tmp_path, [_row(start="1767225600000001.500"), _row(start="17672256000000000000000001.500"),
                             _row(start="1767225600000101.250")])
    table = read_kernel_csv(path)  # before: pyarrow.ArrowInvalid out of the reader: the rank failed
    starts = list(table.frame[C.START_NS])
    assert starts == [1767225600000001500, -1, 1767225600000101250]  # exact ns around the bad cell
    assert table.problems == ["1 cells in Start Time(us) are not times (kept as missing; data row 2)"]


def test_bad_cells_say_where(tmp_path):
    path = _write(tmp_path, [_row(), _row(), _row(dur="abc"), _row(), _row(dur="N/A"), _row(dur="1.2.3")])
    table = read_kernel_csv(path)
    assert "2 cells in Duration(us) are not numbers (kept as missing; data row 3, 6)" in table.problems
    assert table.frame[C.DURATION_US].isna().sum() == 3  # abc, N/A (missing, not bad) and 1.2.3


def test_skipped_rows_get_their_own_line_numbers_and_no_text(tmp_path):
    short = ",".join(_row().split(",")[:10])
    rows = [_row(), short, _row(), _row(), short, _row('"two\nlines"'), short]
    path = _write(tmp_path, rows)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    table = read_kernel_csv(path)
    # lines: 1 header, 2 row, 3 short, 4-5 rows, 6 short, 7-8 the two-line row, 9 short
    message = table.problems[-1]
    assert message == ("3 row(s) skipped, never shifted: line 3 has 10 of 46 fields; line 6 has 10 of 46 fields; "
                       "line 9 has 10 of 46 fields")
    assert len(table.frame) == 4


SECRET = "aws_secret_access_key=AKIAEXAMPLESECRET"


def test_a_header_is_never_quoted_only_profiler_columns(tmp_path):
    """Before: "has no Duration(us) column (columns: <the first 12 fields of the file>)"."""
    path = tmp_path / "kernel_details.csv"
    path.write_text(f"{SECRET},Name,Type\n1,2,3\n")
    with pytest.raises(KernelFileError) as err:
        read_kernel_csv(path)
    assert "AKIA" not in str(err.value) and "its profiler columns: Name, Type" in str(err.value)
    path.write_text(f"{SECRET},token\n1,2\n")
    with pytest.raises(KernelFileError, match="none of its columns is a profiler column") as err:
        read_kernel_csv(path)
    assert "AKIA" not in str(err.value)


def test_nul_padding_is_cut_in_bounded_memory(tmp_path):
    """A file preallocated and never filled: 96 MiB of NUL bytes after the rows (a sparse file: quick to make)."""
    path = _write(tmp_path, [_row(), _row()])
    padding = 96 << 20
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size + padding)
    probe = (
        "import resource, sys\n"
        "from mfu_desktop.core.readers.ascend.kernels_csv import read_kernel_csv\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"t = read_kernel_csv(__import__('pathlib').Path({str(path)!r}))\n"
        "grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base\n"
        "print(len(t.frame), grew // 1024, t.problems[0])\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows, grew_mb, note = out.stdout.strip().split(" ", 2)
    assert int(rows) == 2  # before: "straddling object straddles two block boundaries"
    assert note == f"kernel_details.csv ends with {padding:,} NUL bytes (preallocated, or cut while it was written): " \
                   "ignored"
    assert int(grew_mb) < 48  # before: about twice the padding


def test_a_line_over_a_mebibyte_is_read(tmp_path):
    """Before: "straddling object straddles two block boundaries (try to increase block size?)" failed the rank."""
    path = _write(tmp_path, [_row(), _row("x" * (2 << 20)), _row()])
    table = read_kernel_csv(path)
    assert len(table.frame) == 3 and len(table.frame[C.NAME].iloc[1]) == 2 << 20
    assert table.problems == ["kernel_details.csv has a line longer than 1 MiB: read with 64 MiB blocks"]


def test_a_step_trace_without_its_columns_quotes_none_of_the_file(tmp_path):
    from mfu_desktop.core.readers.step_trace import read_step_trace_csv

    path = tmp_path / "step_trace_time.csv"
    path.write_text(f"{SECRET},Step,Free\n1,2,3\n")
    problems = read_step_trace_csv(path).problems
    assert problems == ["step_trace_time.csv has no Computing column (its step-trace columns: step, free)"]
