"""``mfu chips``: the chip catalog with its sources."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mfu_desktop.cli.common import EXIT_OK, UsageError, catalog_from_args
from mfu_desktop.core.chips.catalog import UnknownChipError
from mfu_desktop.core.paths import user_catalog_path
from mfu_desktop.core.report.json_contract import stamped


def cmd_chips(args: argparse.Namespace) -> int:
    """``mfu chips``: the catalog with source per value."""
    catalog = catalog_from_args(args)
    chips = catalog.chips
    if args.name:
        try:
            chips = [catalog.find(args.name)]
        except UnknownChipError as exc:
            raise UsageError(f"argument NAME: {exc}") from None
    from mfu_desktop.core.chips.catalog import ACHIEVABLE_COLUMNS, COLUMN_LABELS, NUMERIC_COLUMNS

    if args.json:
        out = []
        for chip in chips:
            out.append({
                "identifier": chip.identifier,
                "vendor": chip.vendor,
                "model": chip.model,
                "architecture": chip.architecture,
                "values": {
                    col: {"value": chip.value(col), "source": chip.value_source(col),
                          "confidence": None if col in ACHIEVABLE_COLUMNS else chip.confidence}
                    for col in NUMERIC_COLUMNS
                },
                "aliases": list(chip.aliases),
                "alternatives": chip.alternatives,
                "notes": chip.notes,
                "origin": chip.origin,
            })
        print(json.dumps(stamped({"chips": out, "problems": catalog.problems}), ensure_ascii=False))
        return EXIT_OK
    if args.name:
        chip = chips[0]
        print(f"{chip.identifier}  ({chip.architecture}, {chip.origin})")
        for col in NUMERIC_COLUMNS:
            print(f"  {COLUMN_LABELS.get(col, col):<32} {chip.describe_value(col)}")
        if chip.aliases:
            print(f"  aliases: {', '.join(chip.aliases)}")
        for name, values in chip.alternatives.items():
            print(f"  alternative '{name}': " + ", ".join(f"{k}={v:g}" for k, v in values.items()))
        print(f"  notes: {chip.notes}")
        _print_legend([chip])
        return EXIT_OK
    header = (f"{'chip':<48} {'FP16':>8} {'BF16':>8} {'FP32':>7} {'HBM':>7} {'link':>6}  sources · confidence\n"
              f"{'':<48} {'TFLOP/s':>8} {'TFLOP/s':>8} {'TFLOP/s':>7} {'GB/s':>7} {'GB/s':>6}")
    print(header)
    print("-" * 112)
    for chip in chips:
        def fmt(col: str, width: int, c=chip) -> str:
            v = c.value(col)
            return f"{'–' if v is None else f'{v:g}':>{width}}"
        print(f"{chip.identifier[:48]:<48} {fmt('cube_fp16_tflops', 8)} {fmt('cube_bf16_tflops', 8)} "
              f"{fmt('cube_fp32_tflops', 7)} {fmt('hbm_bandwidth_gbs', 7)} {fmt('interconnect_bandwidth', 6)}  "
              f"{chip.source} · {chip.confidence}")
    _print_legend(chips)
    print(f"\n{len(chips)} chips; '–' = not published. Details: mfu chips NAME. Add a chip: a row in "
          f"{user_catalog_path()} (or --catalog FILE), README section '{README_CHIP_SECTION}'.")
    return EXIT_OK


#: The README section on the catalog (the footer of ``mfu chips`` names it; a test keeps them in step).
README_CHIP_SECTION = "The chip catalog and how to add a chip"


def _print_legend(chips: list) -> None:
    """What the source codes and confidence letters of ``chips`` stand for."""
    import re

    from mfu_desktop.core.chips.catalog import CONFIDENCE_LEGEND, SOURCE_LEGEND

    codes = sorted({c for chip in chips for c in re.split(r"[;,\s]+", chip.source) if c})
    print("\nsources:")
    for code in codes:
        print(f"  {code:<6} {SOURCE_LEGEND.get(code, 'see shared/spec/chips.md, section g')}")
    letters = sorted({chip.confidence for chip in chips if chip.confidence})
    print("confidence:")
    for letter in letters:
        print(f"  {letter:<6} {CONFIDENCE_LEGEND.get(letter, '')}")


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``chips`` on the ``mfu`` parser."""
    chips = sub.add_parser("chips", help="the chip catalog with sources")
    chips.add_argument("name", nargs="?", help="show one chip in detail")
    chips.add_argument("--catalog", type=Path, action="append", default=[], help="extra catalog CSV")
    chips.add_argument("--json", action="store_true", help="print one JSON object")
    chips.set_defaults(func=cmd_chips)
