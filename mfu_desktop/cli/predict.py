"""``mfu predict``: the command's arguments (light); the run is in :mod:`mfu_desktop.cli.predict_run`."""

from __future__ import annotations

import argparse
from pathlib import Path

from mfu_desktop.cli.common import name_list
from mfu_desktop.cli.model_options import add_model_options
from mfu_desktop.core.predict.options import DEFAULT_SOURCE, OUTPUT_FORMATS


def _run(args: argparse.Namespace) -> int:
    from mfu_desktop.cli.predict_run import cmd_predict

    return cmd_predict(args)


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``predict`` on the ``mfu`` parser."""
    p = sub.add_parser("predict", help="cross-chip prediction of a profile (and calibration)")
    p.add_argument("path", type=Path, nargs="?", metavar="PATH",
                   help="profiler folder or PyTorch profiler trace")
    p.add_argument("--demo", action="store_true", help="predict the demo profile shipped with MFU Desktop")
    p.add_argument("--source", help=f"chip that ran the profile (default: detected, else {DEFAULT_SOURCE!r})")
    p.add_argument("--targets", type=name_list, metavar="A,B,..|all",
                   help="comma-separated target chips, or 'all' (default: the seed's list + H100 SXM)")
    p.add_argument("--catalog", type=Path, action="append", default=[],
                   help="extra chip catalog (also the original predictor's devices_info.csv)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="write performance_prediction and kernel_prediction_detail (as --format says) and "
                        "architecture_rules.csv (the rules used) to DIR, never inside PATH; every file written is "
                        "listed")
    p.add_argument("--format", choices=OUTPUT_FORMATS, default="csv",
                   help="files of --out: csv (the original script's layout, default), parquet (typed, ~8× smaller) "
                        "or both")
    p.add_argument("--rules", type=Path, help="edited architecture-rules CSV (see README)")
    p.add_argument("--no-rules", action="store_true", help="switch every architecture rule off")
    p.add_argument("--assume-cpu", type=float, metavar="X",
                   help="cpu coefficient assumed for chips without one (default: their step is not predicted)")
    p.add_argument("--calibrate", type=Path, metavar="OTHER_PATH",
                   help="a measured profile of the same workload on --target: report the prediction error")
    p.add_argument("--target", metavar="NAME",
                   help="the chip the --calibrate profile ran on (only with --calibrate; the prediction's targets are "
                        "--targets)")
    p.add_argument("--save-calibration", action="store_true",
                   help="with --calibrate: save the per-category factors (measured / predicted) for this chip pair, "
                        "model and basis; later predictions use and name them")
    p.add_argument("--no-calibration", action="store_true", help="ignore the saved calibration factors")
    add_model_options(p)
    p.add_argument("--lang", choices=["en", "zh_CN"], default="en", help="console table language")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-cache", action="store_true", help="parse again even when a cached copy exists")
    p.set_defaults(func=_run)
