"""What every ``mfu`` command shares: exit codes, one-line argument errors, argument types, peaks, output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import NoReturn

from mfu_desktop.core.chips.catalog import CatalogError, ChipCatalog, Peak, UnknownChipError
from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.formulas.shapes import ShapeError, parse_dims
from mfu_desktop.core.report.json_contract import stamped

#: Exit codes of every ``mfu`` command (README, "Command line").
EXIT_OK = 0
#: Nothing could be analysed (each reason on its own ``error:`` line).
EXIT_NOTHING = 1
#: A bad argument (one ``error:`` line naming it).
EXIT_USAGE = 2
#: The result is printed, but something given was skipped: a path that is not a profile, a rank that failed.
EXIT_PARTIAL = 3
EXIT_CANCELLED = 130

#: Parsers of commands that have sub-commands (their help is printed when the sub-command is missing).
SUBPARSERS: dict[str, argparse.ArgumentParser] = {}


class UsageError(Exception):
    """A bad or missing argument; printed as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``mfu calc gemm: error: argument --m: ...``) and no abbreviations.

    ``--target`` never stands for ``--targets`` (nor ``--tar`` for either): an option is spelt in full
    or it is an error.
    """

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def positive_int(text: str) -> int:
    """An integer > 0 (``1_000`` allowed)."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive integer")
    return value


def nonneg_int(text: str) -> int:
    """An integer ≥ 0 (``1_000`` allowed)."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be zero or a positive integer")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (``1e9`` and ``1_000`` allowed)."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def nonneg_float(text: str) -> float:
    """A finite number ≥ 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be zero or positive")
    return value


def shape_arg(text: str) -> tuple[int, ...]:
    """A shape: comma-separated positive integers (``2,4096,32,128``)."""
    try:
        return parse_dims(text)
    except ShapeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def int_list(text: str) -> list[int]:
    """Comma-separated non-negative integers (cumulative sequence lengths)."""
    try:
        values = [int(p) for p in text.replace(" ", "").split(",") if p]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r} must list non-negative integers")
    return values


def name_list(text: str) -> list[str]:
    """Comma-separated names (chips): at least one, none empty after trimming."""
    names = [n.strip() for n in text.split(",")]
    if not any(names):
        raise argparse.ArgumentTypeError("is empty: give one or more comma-separated names")
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r} has an empty name between commas")
    return names


DTYPE_CHOICES = [d.value for d in ComputeDtype]


def add_peak_args(p: argparse.ArgumentParser, dtype_default: str | None = "bf16") -> None:
    """``--chip``/``--dtype`` or ``--peak-tflops``, and ``--catalog``."""
    group = p.add_argument_group("peak (one of --chip or --peak-tflops)")
    group.add_argument("--chip", help="chip name from the catalog (910B2, 'Ascend 910B2', H100 SXM; NAME@ALTERNATIVE)")
    group.add_argument("--dtype", choices=DTYPE_CHOICES, default=dtype_default,
                       help="compute dtype selecting the peak column (default: %(default)s)")
    group.add_argument("--peak-tflops", type=positive_float, help="peak TFLOP/s entered directly")
    group.add_argument("--catalog", type=Path, action="append", default=[],
                       help="extra chip catalog CSV (devices_info.csv layouts); may repeat")


def catalog_from_args(args: argparse.Namespace) -> ChipCatalog:
    """The chip catalog plus every ``--catalog`` file (its problems printed as warnings)."""
    catalog = ChipCatalog.load(extra_files=list(getattr(args, "catalog", []) or []))
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return catalog


def resolve_peak(args: argparse.Namespace, required: bool = True) -> Peak | None:
    """The peak of ``--chip``/``--dtype`` or ``--peak-tflops``."""
    if args.chip and args.peak_tflops:
        raise UsageError("argument --peak-tflops: not allowed with --chip (give one)")
    dtype = ComputeDtype(args.dtype or "bf16")
    if args.peak_tflops:
        return Peak(args.peak_tflops, dtype, source="entered with --peak-tflops")
    if args.chip:
        catalog = catalog_from_args(args)
        try:
            return catalog.peak(args.chip, dtype)
        except UnknownChipError as exc:
            raise UsageError(f"argument --chip: {exc}") from None
        except CatalogError as exc:
            raise UsageError(f"argument --dtype: {exc}") from None
    if required:
        return None
    return None


def emit(args: argparse.Namespace, payload: dict[str, object], text: str) -> None:
    """Print ``payload`` as one JSON object with ``--json``, else ``text``."""
    if args.json:
        print(json.dumps(stamped(payload), ensure_ascii=False, indent=None, default=json_default))
    else:
        print(text)


def json_default(value: object) -> object:
    """JSON for values ``json`` does not know (enums, paths, numpy scalars)."""
    if hasattr(value, "item"):
        return value.item()  # numpy scalars
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


#: The option that supplies each input the engine may ask for.
INPUT_OPTIONS = {"M": "--m", "N": "--n", "K": "--k", "time": "--time-us", "peak": "--chip or --peak-tflops",
                 "layout": "--layout", "Q/K shapes": "--q-shape and --k-shape", "sparse_mode": "--sparse-mode",
                 "actual_seq_qlen / actual_seq_kvlen": "--actual-seq-qlen and --actual-seq-kvlen"}


def missing_exit(result_missing: list, command: str) -> int:
    """One ``error:`` line per missing input: its option and where to find the value."""
    for m in result_missing:
        option = INPUT_OPTIONS.get(m.name)
        named = f"{m.name} ({option})" if option else m.name
        print(f"mfu {command}: error: missing {named}: {m.where}", file=sys.stderr)
    return EXIT_USAGE


def time_s(args: argparse.Namespace) -> float | None:
    """``--time-us`` in seconds, or ``None``."""
    return None if args.time_us is None else args.time_us * 1e-6
