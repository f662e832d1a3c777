"""The ``mfu`` parser, built from each command's module, and the console script.

Human-readable output by default (the derivation, in the seed's answer structure); ``--json``
prints one JSON object. Bad arguments exit 2 with one line naming the argument; missing inputs
are listed with where to find them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from mfu_desktop import __version__
from mfu_desktop.cli import advise, analyze, calc, chips, compare, model, predict, summarize, timeline
from mfu_desktop.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    SUBPARSERS,
    Parser,
    UsageError,
)
from mfu_desktop.core.formulas.flops import FlopError
from mfu_desktop.core.formulas.shapes import ShapeError

#: Every command, in the order ``mfu --help`` lists them: one registration line each.
COMMANDS = (
    calc.add_command,
    model.add_command,
    chips.add_command,
    analyze.add_command,
    advise.add_command,
    summarize.add_command,
    compare.add_command,
    predict.add_command,
    timeline.add_command,
)


def build_parser() -> argparse.ArgumentParser:
    """Build the ``mfu`` argument parser."""
    parser = Parser(prog="mfu", description="MFU Desktop command line: MFU calculator, profiler analysis, "
                     "cross-chip prediction.")
    parser.add_argument("--version", action="version", version=f"mfu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser,
                                title="commands (mfu COMMAND --help for each)")

    for add_command in COMMANDS:
        add_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``mfu`` command; return the exit code.

    ``mfu`` or ``mfu calc`` alone prints the usage with the list of commands (exit 0).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        helper = parser if getattr(args, "command", None) is None else SUBPARSERS[args.command]
        helper.print_help()
        return EXIT_OK
    try:
        return int(args.func(args))
    except UsageError as exc:
        prog = "mfu " + " ".join(x for x in (getattr(args, "command", ""), getattr(args, "kind", "")) if x)
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (FlopError, ShapeError) as exc:
        prog = "mfu " + " ".join(x for x in (getattr(args, "command", ""), getattr(args, "kind", "")) if x)
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - `mfu ... | head`
        return EXIT_OK


def run() -> NoReturn:
    """The ``mfu`` console script: :func:`main`, then exit without the interpreter's teardown.

    Tearing down pandas/pyarrow after a million-row analysis costs 0.1–0.15 s and does nothing
    useful: output is flushed, files are closed, nothing runs at exit. Tests call :func:`main`.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # pragma: no cover - `mfu ... | head`
        pass
    os._exit(code)
