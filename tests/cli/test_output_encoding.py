"""Output a console cannot encode is spelled in what it can: ``µs`` → ``us`` on a GBK console, never a crash.

Before: ``PYTHONIOENCODING=gbk`` (a Chinese Windows console redirected to a file) ended every
command that prints a time with ``UnicodeEncodeError: 'gbk' codec can't encode character 'µ'``.
"""

from __future__ import annotations

import io
import sys

import pytest

from mfu_desktop.cli.main import main as mfu


@pytest.mark.parametrize("encoding", ["gbk", "ascii"])
def test_a_console_that_cannot_hold_mu(monkeypatch, encoding):
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, newline="\n")
    monkeypatch.setattr(sys, "stdout", out)
    code = mfu(["calc", "gemm", "--m", "4096", "--n", "1024", "--k", "6144", "--time-us", "200", "--chip", "910B2"])
    out.flush()
    text = out.buffer.getvalue().decode(encoding)
    assert code == 0
    # 2·4096·1024·6144 = 51,539,607,552 FLOPs in 200 µs = 257.7 TFLOP/s
    assert "time per call: 200 us" in text and "51,539,607,552" in text


def test_gbk_keeps_chinese_and_replaces_only_what_it_lacks(monkeypatch, tmp_path):
    from tests.helpers import kernel_row, make_rank

    make_rank(tmp_path, "r_ascend_pt", 0, [kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.000", 800.0,
                                                       "4096,4096;4096,4096", "DT_BF16;DT_BF16", "4096,4096",
                                                       "DT_BF16")])
    out = io.TextIOWrapper(io.BytesIO(), encoding="gbk", newline="\n")
    monkeypatch.setattr(sys, "stdout", out)
    assert mfu(["analyze", str(tmp_path), "--chip", "910B2"]) == 0
    out.flush()
    text = out.buffer.getvalue().decode("gbk")
    assert "算子达成率" in text and "us per step" in text and "µ" not in text
