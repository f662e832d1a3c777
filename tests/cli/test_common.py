"""Argument types every ``mfu`` command shares: what they accept and the one-line error otherwise."""

from __future__ import annotations

import argparse

import pytest

from mfu_desktop.cli.common import int_list, nonneg_float, nonneg_int, positive_float, positive_int, shape_arg
from mfu_desktop.cli.main import main


@pytest.mark.parametrize(("parse", "text", "value"), [
    (positive_int, "4096", 4096), (positive_int, "1_000", 1000),
    (nonneg_int, "0", 0), (nonneg_int, "2_048", 2048),
    (positive_float, "1e9", 1e9), (positive_float, "0.5", 0.5), (positive_float, "1_000.5", 1000.5),
    (nonneg_float, "0", 0.0), (nonneg_float, "0.75", 0.75),
    (shape_arg, "2,4096,32,128", (2, 4096, 32, 128)),
    (int_list, "0,128, 512", [0, 128, 512]),
])
def test_accepted(parse, text, value):
    assert parse(text) == value


@pytest.mark.parametrize(("parse", "text", "says"), [
    (positive_int, "0", "positive"), (positive_int, "-3", "positive"), (positive_int, "4.5", "not an integer"),
    (nonneg_int, "-1", "zero or a positive"), (nonneg_int, "x", "not an integer"),
    (positive_float, "0", "positive"), (positive_float, "inf", "positive"), (positive_float, "nan", "positive"),
    (positive_float, "fast", "not a number"),
    (nonneg_float, "-0.1", "zero or positive"), (nonneg_float, "inf", "zero or positive"),
    (int_list, "", "non-negative"), (int_list, "1,-2", "non-negative"), (int_list, "1,a", "comma-separated"),
])
def test_refused_with_a_reason(parse, text, says):
    with pytest.raises(argparse.ArgumentTypeError, match=says):
        parse(text)


def test_a_negative_window_is_an_argument_error_naming_the_option(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["calc", "fa", "--layout", "BNSD", "--q-shape", "1,8,4096,128", "--k-shape", "1,8,4096,128",
              "--sparse-mode", "4", "--pre-tokens", "-5", "--next-tokens", "0", "--time-us", "100",
              "--peak-tflops", "300"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--pre-tokens" in err[0] and "zero or a positive integer" in err[0]
