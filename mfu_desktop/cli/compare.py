"""``mfu compare BASE NEW``: what changed between two profiles, where, and by how much."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mfu_desktop.cli.common import EXIT_NOTHING, EXIT_OK, EXIT_USAGE
from mfu_desktop.cli.model_options import add_model_options
from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``compare`` on the ``mfu`` parser."""
    p = sub.add_parser("compare", help="compare two profiles: before/after a change, or chip vs chip")
    p.add_argument("base", type=Path, metavar="BASE", help="the reference profile (folder, trace or summary)")
    p.add_argument("new", type=Path, metavar="NEW", help="the profile compared with it")
    p.add_argument("--chip-base", metavar="NAME", help="the chip BASE ran on (overrides detection)")
    p.add_argument("--chip-new", metavar="NAME", help="the chip NEW ran on (overrides detection)")
    p.add_argument("--families", type=Path, metavar="FILE", help="edited operator-family mapping CSV (see README)")
    p.add_argument("--catalog", type=Path, action="append", default=[], help="extra chip catalog CSV")
    p.add_argument("--top", type=int, default=20, metavar="N", help="rows printed (default 20; --json: all)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--export", type=Path, metavar="DIR",
                   help="write comparison.csv, comparison.xlsx, comparison.json and comparison.md (the charts: "
                        "the window's Compare tab → Export…); every file written is listed")
    p.add_argument("--no-cache", action="store_true", help="parse again even when a cached copy exists")
    add_model_options(p)  # chip vs chip: the prediction beside the measurement is mfu predict's
    p.set_defaults(func=cmd_compare)


class _Refused(Exception):
    """A side cannot be shown as asked (the message names the option)."""


def _load(path: Path, chip: str | None, catalog: ChipCatalog, use_cache: bool, option: str):
    """One side: a summary read back (refused when ``--chip-*`` names another chip), else the profile analysed.

    Raises:
        _Refused: When a summary side was made for another chip than ``chip``.
    """
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.analyze import analyze_paths
    from mfu_desktop.core.pipeline.from_summary import analysis_from_summary, summary_conflict
    from mfu_desktop.core.store.summaries import is_summary, read_summary

    options = AnalysisOptions(chip=chip)
    if is_summary(path):
        summary = read_summary(path)
        conflict = summary_conflict(summary, options, catalog, option)
        if conflict:
            raise _Refused(conflict)
        return analysis_from_summary(summary, catalog)
    return analyze_paths([path], options, catalog, use_cache=use_cache)


def cmd_compare(args: argparse.Namespace) -> int:
    """Run ``mfu compare``."""
    from mfu_desktop.core.analysis.families import DEFAULT_FAMILIES, families_from_csv
    from mfu_desktop.core.compare.comparison import compare, comparison_json
    from mfu_desktop.core.predict.basis import Basis
    from mfu_desktop.core.report.json_contract import stamped
    from mfu_desktop.core.store.summaries import SummaryError

    catalog = ChipCatalog.load(extra_files=list(args.catalog or []))
    families = list(DEFAULT_FAMILIES)
    if args.families:
        try:
            families, problems = families_from_csv(args.families.read_text(encoding="utf-8"))
        except OSError as exc:
            print(f"mfu compare: error: argument --families: cannot read {args.families} ({exc.strerror or exc})",
                  file=sys.stderr)
            return EXIT_USAGE
        for problem in problems:
            print(f"warning: {problem}", file=sys.stderr)
    try:
        chips = [catalog.find(c).identifier if c else None for c in (args.chip_base, args.chip_new)]
    except UnknownChipError as exc:
        print(f"mfu compare: error: argument --chip-base/--chip-new: {exc}", file=sys.stderr)
        return EXIT_USAGE
    sides = []
    for label, path, chip in (("BASE", args.base, chips[0]), ("NEW", args.new, chips[1])):
        try:
            result = _load(path, chip, catalog, not args.no_cache, f"--chip-{label.lower()}")
        except _Refused as exc:
            print(f"mfu compare: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except (SummaryError, UnknownChipError) as exc:
            print(f"mfu compare: error: {label} {path}: {exc}", file=sys.stderr)
            return EXIT_NOTHING
        if not result.ranks:
            for reason in result.warnings or ["no profiler rank could be read"]:
                print(f"mfu compare: error: {label} {path}: {reason}", file=sys.stderr)
            return EXIT_NOTHING
        sides.append(result)
    comparison = compare(sides[0], sides[1], catalog, families, f"BASE ({args.base.name})",
                         f"NEW ({args.new.name})", chips[0], chips[1], Basis(args.basis, model=args.model))
    if args.export:
        from mfu_desktop.core.compare.report import export_comparison
        from mfu_desktop.core.writing import ExportError

        try:
            written = export_comparison(comparison, args.export, [args.base, args.new])
        except ExportError as exc:
            print(f"mfu compare: error: argument --export: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if not args.json:
            print("wrote " + ", ".join(str(p) for p in written))
    if args.json:
        print(json.dumps(stamped(comparison_json(comparison)), ensure_ascii=False))
    else:
        from mfu_desktop.core.compare.report import console_text

        print(console_text(comparison, args.top))
    return EXIT_OK
