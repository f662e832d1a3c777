"""``mfu advise``: what to fix first in a profile, how much time each fix is worth, and how.

Every advisor rule (:mod:`mfu_desktop.core.advisor`) on every rank of what was given — profiler
folders, traces, a cluster summary (its ranks' step and memory figures only) — printed as a
ranked list, or as one JSON object (``--json``, schema 2). ``--lang zh_CN`` prints the findings
in Chinese.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.cli.common import EXIT_NOTHING, EXIT_OK, EXIT_USAGE, json_default
from mfu_desktop.cli.profile_options import (
    ConsoleProgress,
    NoPath,
    add_analysis_options,
    analysis_options,
    nothing_analysed,
    profile_paths,
)
from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError
from mfu_desktop.core.report.json_contract import stamped

if TYPE_CHECKING:
    from mfu_desktop.core.advisor.advice import Advice
    from mfu_desktop.core.advisor.finding import Finding
    from mfu_desktop.core.cluster.folder import FolderAnalysis

#: Evidence rows printed per finding (``--json`` has them all).
EVIDENCE_SHOWN = 5


def cmd_advise(args: argparse.Namespace) -> int:
    """``mfu advise PATH``: analyse (from the cache when it can), run the advisor, print the findings."""
    try:
        paths = profile_paths(args, args.paths)
    except NoPath as exc:
        print(f"mfu advise: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    catalog = ChipCatalog.load(extra_files=list(args.catalog or []))
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    result = _analysed(paths, args, catalog)
    if isinstance(result, int):
        return result
    if not result.ranks:
        return nothing_analysed("advise", result.warnings)
    if args.rank is not None and args.rank not in {r.rank for r in result.ranks}:
        print(f"mfu advise: error: argument --rank: no rank {args.rank} (ranks: "
              f"{', '.join(str(r.rank) for r in result.ranks)})", file=sys.stderr)
        return EXIT_USAGE
    from mfu_desktop.core.advisor.advice import advise

    advice = advise(result)
    if args.json:
        print(json.dumps(_json(advice, result, args), ensure_ascii=False, default=json_default))
    else:
        _print(advice, result, args)
    return EXIT_OK


def _analysed(paths: list[Path], args: argparse.Namespace, catalog: ChipCatalog) -> FolderAnalysis | int:
    """The analysis of ``paths`` (a summary folder read back), or the exit code when it cannot be made."""
    from mfu_desktop.core.store.summaries import SummaryError, is_summary, read_summary

    if any(is_summary(p) for p in paths):
        if len(paths) > 1:
            print("mfu advise: error: a summary folder is advised on alone (no other PATH)", file=sys.stderr)
            return EXIT_USAGE
        from mfu_desktop.core.pipeline.from_summary import analysis_from_summary

        try:
            return analysis_from_summary(read_summary(paths[0]), catalog)
        except SummaryError as exc:
            print(f"mfu advise: error: {exc}", file=sys.stderr)
            return EXIT_NOTHING
    from mfu_desktop.core.pipeline.analyze import analyze_paths

    progress = ConsoleProgress(sys.stderr.isatty() and not args.json)
    try:
        result = analyze_paths(paths, analysis_options(args), catalog, progress, use_cache=not args.no_cache)
    except UnknownChipError as exc:
        print(f"mfu advise: error: argument --chip: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if progress.enabled:
        print(file=sys.stderr)
    return result


def _json(advice: Advice, result: FolderAnalysis, args: argparse.Namespace) -> dict[str, object]:
    """The ``--json`` object: the advice (one rank's findings with ``--rank``), warnings, failures."""
    from mfu_desktop.core.advisor.advice import advice_json, finding_json

    payload = advice_json(advice, args.lang)
    if args.rank is not None:
        payload["rank"] = args.rank
        payload["findings"] = [finding_json(f, args.lang) for f in advice.for_rank(args.rank)]
    payload["roots"] = [str(p) for p in result.discovery.roots]
    payload["warnings"] = list(result.warnings)
    payload["failed"] = [{"path": str(f.folder.path), "rank": f.folder.rank, "reason": f.reason}
                         for f in result.failures]
    return stamped(payload)


def _print(advice: Advice, result: FolderAnalysis, args: argparse.Namespace) -> None:
    """The findings as a ranked list: headline, summary, advice, evidence, guide."""
    from mfu_desktop.core.advisor.advice import TIME_AT_STAKE
    from mfu_desktop.core.advisor.render import word

    lang = args.lang
    zh = lang.startswith("zh")
    roots = ", ".join(str(p) for p in result.discovery.roots)
    count = f"共 {len(result.ranks)} 个 rank，来自 {roots}" if zh else f"{len(result.ranks)} rank(s) from {roots}"
    print(f"{word('title', lang)} — {count}")
    print(TIME_AT_STAKE.get(lang))
    findings = advice.findings if args.rank is None else advice.for_rank(args.rank)
    scope = (f"rank {args.rank}" if args.rank is not None else
             ("cluster, mean per rank" if not zh else "集群，每 rank 平均") if advice.ranks > 1 else "")
    if scope:
        print(f"({scope})")
    print()
    if not findings:
        print(word("none", lang))
    for i, f in enumerate(findings, start=1):
        _print_finding(i, f, lang)
    for note in advice.notes:
        print(f"note: {note}")
    for w in result.warnings:
        print(f"warning: {w}")


def _print_finding(i: int, f: Finding, lang: str) -> None:
    """One finding: ``1. title — 12.3 ms (15 % of the step), confidence high [rule]`` and its parts."""
    from mfu_desktop.core.advisor.render import evidence_text, headline, word

    print(f"{i}. {f.title.get(lang)} — {headline(f, lang)}  [{f.rule}]")
    print(f"   {f.summary.get(lang)}")
    colon = "：" if lang.startswith("zh") else ": "
    print(f"   {word('advice', lang)}{colon}{f.advice.get(lang)}")
    if f.evidence:
        print(f"   {word('evidence', lang)}{colon.strip()}")
        for e in f.evidence[:EVIDENCE_SHOWN]:
            print(f"     · {evidence_text(e, lang)}")
        if len(f.evidence) > EVIDENCE_SHOWN:
            print(f"     · … {len(f.evidence) - EVIDENCE_SHOWN} more (--json)")
    print(f"   {word('guide', lang)}{colon}{f.guide}")
    print()


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``advise`` on the ``mfu`` parser."""
    p = sub.add_parser("advise", help="what to fix first: findings ranked by the time at stake, with advice")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="profiler folder(s) or file(s), or a cluster summary folder")
    p.add_argument("--demo", action="store_true", help="advise on the demo profile shipped with MFU Desktop")
    p.add_argument("--rank", type=int, metavar="N", help="one rank's findings (default: the cluster's, mean per rank)")
    p.add_argument("--lang", choices=("en", "zh_CN"), default="en", help="language of the findings (default: en)")
    add_analysis_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-cache", action="store_true", help="parse again even when a cached copy exists")
    p.set_defaults(func=cmd_advise)
