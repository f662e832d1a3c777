"""``mfu predict``: the prediction run (imported only when the command runs: it needs pandas)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.cli.common import EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from mfu_desktop.cli.profile_options import NoPath, nothing_analysed, profile_paths, split_sources
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.steps import PER_STEP_CONVENTION
from mfu_desktop.core.chips.catalog import Chip, ChipCatalog, UnknownChipError
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.numbers import pct
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.predict.basis import Basis
from mfu_desktop.core.predict.calibrate import calibrate
from mfu_desktop.core.predict.calibration_store import read_factors, save_factors
from mfu_desktop.core.predict.inputs import choose_source, rank_inputs, summary_inputs
from mfu_desktop.core.predict.predictor import Prediction, predict, resolve_targets
from mfu_desktop.core.predict.rules import DEFAULT_RULES, rules_from_csv, with_rules_disabled
from mfu_desktop.core.report.json_contract import stamped
from mfu_desktop.core.report.prediction_rows import console_table, prediction_json, target_lines, write_outputs
from mfu_desktop.core.writing import ExportError, forbid_inside

if TYPE_CHECKING:
    from mfu_desktop.core.store.summaries import Summary


class _Usage(Exception):
    pass


class _Nothing(Exception):
    """Nothing could be analysed: the analysis says why (printed as error lines)."""

    def __init__(self, result: FolderAnalysis) -> None:
        super().__init__("nothing analysed")
        self.result = result


def _load(args: argparse.Namespace, paths: list[Path], catalog: ChipCatalog) -> FolderAnalysis:
    result = analyze_paths(paths, AnalysisOptions(), catalog, use_cache=not args.no_cache)
    if not result.ranks:
        raise _Nothing(result)
    return result


def _summary(paths: list[Path]):
    """The cluster summary when PATH is one (prediction then works from its documents), else ``None``."""
    from mfu_desktop.core.store.summaries import SummaryError, is_summary, read_summary

    if len(paths) != 1 or not is_summary(paths[0]):
        return None
    try:
        return read_summary(paths[0])
    except SummaryError as exc:
        raise _Usage(str(exc)) from None


def _rules(args: argparse.Namespace) -> tuple[list, list[str]]:
    if args.rules:
        try:
            text = Path(args.rules).read_text(encoding="utf-8")
        except OSError as exc:
            raise _Usage(f"argument --rules: cannot read {args.rules} ({exc.strerror or exc})") from None
        rules, problems = rules_from_csv(text)
    else:
        rules, problems = list(DEFAULT_RULES), []
    if args.no_rules:
        rules = with_rules_disabled(rules)
    return rules, problems


def _print_prediction(p: Prediction, source_why: str, lang: str) -> None:
    print(console_table(p, lang))
    print(f"source: {p.source.display_name} ({source_why}); ranks: {', '.join(map(str, p.ranks))}; "
          f"{PER_STEP_CONVENTION}")
    print(f"model: {p.basis.label} (docs/accuracy.md; --model seed --basis advertised is the original script)")
    if p.assumed_cpu:
        print(f"assumed: cpu coefficient {p.assumed_cpu:g} for chips without one (--assume-cpu)")
    print()
    for line in target_lines(p, lang):
        print(line)
    for w in p.warnings:
        print(f"warning: {w}")


def _basis(args: argparse.Namespace) -> Basis:
    """The model and basis asked for, with the saved calibrations unless ``--no-calibration``."""
    if args.no_calibration:
        return Basis(args.basis, model=args.model)
    factors, problems = read_factors()
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    return Basis(args.basis, factors, args.model)


def _run_calibration(args: argparse.Namespace, result: FolderAnalysis, source: Chip, rules: list,
                     catalog: ChipCatalog) -> int:
    """``--calibrate``: predict on ``--target``, compare with the measured profile, optionally save the factors."""
    if not args.target:
        raise _Usage("argument --target: required with --calibrate")
    try:
        target = catalog.find(args.target)
    except UnknownChipError as exc:
        raise _Usage(f"argument --target: {exc}") from None
    measured = _load(args, [args.calibrate], catalog)
    _check_measured_chip(args.calibrate, measured, target)
    cal = calibrate(rank_inputs(result), rank_inputs(measured), source, target, rules, args.assume_cpu, args.basis,
                    args.model)
    saved = None
    if args.save_calibration:
        base = args.path.name if args.path else "the demo profile"
        fitted_on = f"{base} vs {args.calibrate.name}, {date.today().isoformat()}"
        try:
            saved = save_factors(cal.factors(fitted_on))
        except ExportError as exc:
            raise _Usage(f"argument --save-calibration: {exc}") from None
    if args.json:
        print(json.dumps(stamped({**cal.to_json(), "saved_to": str(saved) if saved else None}), ensure_ascii=False))
        return EXIT_OK
    print(f"calibration: {cal.source} → {cal.target} ({cal.model} model, {cal.basis} basis)")
    print(f"{'type':<34} {'predicted µs':>14} {'measured µs':>14} {'error':>9}")
    for row in cal.by_type.itertuples(index=False):
        err = f"{row.error * 100:+.1f} %" if row.error == row.error else "–"
        print(f"{row.type[:34]:<34} {row.predicted_us:14.1f} {row.measured_us:14.1f} {err:>9}")
    print(f"MAPE over operator types: {pct(cal.mape)}; time-weighted: {pct(cal.weighted_mape)}")
    print(f"compute-class total error: {pct(cal.compute_error)}; step error: {pct(cal.step_error)}")
    for row in cal.by_category.itertuples(index=False):
        print(f"{row.category}: predicted {row.predicted_us:,.1f} µs, measured {row.measured_us:,.1f} µs, "
              f"error {pct(row.error)}, factor ×{row.factor:.3g}")
    for note in cal.notes:
        print(f"note: {note}")
    if saved:
        print(f"saved {len(cal.factors(''))} factor(s) for {cal.source_id} → {cal.target_id} ({cal.model}, "
              f"{cal.basis}) to "
              f"{saved}: later predictions of this pair use and name them (--no-calibration ignores them)")
    elif cal.factors(""):
        print("add --save-calibration to keep these factors for later predictions of this pair")
    return EXIT_OK


def cmd_predict(args: argparse.Namespace) -> int:
    """``mfu predict``."""
    catalog = ChipCatalog.load(extra_files=list(args.catalog or []))
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    try:
        return _run_prediction(args, catalog)
    except _Nothing as exc:
        return nothing_analysed("predict", exc.result.warnings)
    except _Usage as exc:
        print(f"mfu predict: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _run_prediction(args: argparse.Namespace, catalog: ChipCatalog) -> int:
    """Predict the profile (or summary) on the targets, or calibrate on ``--calibrate``; print and write the result.

    Raises:
        _Usage: On a bad argument (the message names it).
        _Nothing: When no rank could be analysed.
    """
    _check_calibration_options(args)
    rules, rule_problems = _rules(args)
    for problem in rule_problems:
        print(f"warning: {problem}", file=sys.stderr)
    try:
        paths = profile_paths(args, [args.path] if args.path else [])
    except NoPath as exc:
        raise _Usage(str(exc)) from None
    summary = _summary(paths)
    result = None if summary is not None else _load(args, paths, catalog)
    inputs, detected = summary_inputs(summary.documents) if summary is not None else (rank_inputs(result), None)
    if not inputs:
        raise _Usage(f"{paths[0]}: no summarised rank carries the prediction's inputs (summarise it again)")
    try:
        source, why = choose_source(catalog, args.source, result, detected)
    except UnknownChipError as exc:
        raise _Usage(f"argument --source: {exc}") from None
    if args.calibrate:
        if result is None:
            raise _Usage("argument --calibrate: calibration needs the profiles, not a summary")
        return _run_calibration(args, result, source, rules, catalog)
    targets = _targets(catalog, args.targets)
    if args.out:
        try:
            forbid_inside(args.out, paths)
        except ExportError as exc:
            raise _Usage(f"argument --out: {exc}") from None
    prediction = predict(inputs, source, targets, rules, args.assume_cpu, keep_details=bool(args.out),
                         basis=_basis(args))
    prediction.warnings[0:0] = _analysis_warnings(summary, result, bool(args.out))
    if args.out:
        _write_prediction(prediction, args)
    if args.json:
        print(json.dumps(prediction_json(prediction), ensure_ascii=False))
    else:
        _print_prediction(prediction, why, args.lang)
    return _skipped_code(paths, result)


def _skipped_code(paths: list[Path], result: FolderAnalysis | None) -> int:
    """:data:`EXIT_PARTIAL` (each path skipped named on stderr) when a path held no profile or a rank failed."""
    if result is None:
        return EXIT_OK
    _, skipped = split_sources([str(p) for p in paths], [str(r.folder.path) for r in result.ranks])
    for warning in result.discovery.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return EXIT_PARTIAL if skipped or result.failures else EXIT_OK


def _check_measured_chip(path: Path, measured: FolderAnalysis, target: Chip) -> None:
    """The profile ``--calibrate`` measured must have run on ``--target``: factors saved for a wrong pair mislead.

    Raises:
        _Usage: Naming both chips, when the profile identifies another chip.
    """
    ran_on = sorted({str(d["chip_id"]) for d in measured.documents if d.get("confirmed") and d.get("chip_id")})
    if ran_on and ran_on != [target.identifier]:
        raise _Usage(f"argument --target: {path.name} ran on {', '.join(ran_on)}, not {target.identifier}: calibrate "
                     f"against a profile measured on {target.identifier}, or pass --target {ran_on[0]!r}")
    if not ran_on:
        print(f"warning: {path.name} does not identify its chip: it is taken to be {target.identifier} (--target)",
              file=sys.stderr)


def _check_calibration_options(args: argparse.Namespace) -> None:
    """Options of ``--calibrate`` given without it are an error, never silently ignored.

    Raises:
        _Usage: Naming the option (``--target`` is not ``--targets``).
    """
    if args.calibrate:
        return
    if args.target:
        raise _Usage("argument --target: only with --calibrate OTHER_PATH (the chips to predict are --targets)")
    if args.save_calibration:
        raise _Usage("argument --save-calibration: only with --calibrate OTHER_PATH --target NAME")


def _targets(catalog: ChipCatalog, names: list[str] | None) -> list[Chip]:
    """The chips ``--targets`` names (``all``: every catalog row; not given: the defaults).

    Raises:
        _Usage: When a name matches no catalog row.
    """
    names = names or []
    try:
        return list(catalog.chips) if names == ["all"] else resolve_targets(catalog, names)
    except UnknownChipError as exc:
        raise _Usage(f"argument --targets: {exc}") from None


def _analysis_warnings(summary: Summary | None, result: FolderAnalysis | None, detail: bool) -> list[str]:
    """The warnings of what was predicted from, listed before the prediction's own.

    Args:
        summary: The cluster summary predicted from, or ``None``.
        result: The analysis predicted from (when not a summary).
        detail: Whether the per-kernel detail was asked for (a summary has none).
    """
    if summary is None:  # the paths' own warnings go to stderr (_skipped_code)
        return [w for w in result.warnings if w not in result.discovery.warnings]
    return [*summary.folder_document()["warnings"],
            *(["per-kernel detail needs the profiles: a summary carries kernel groups "
               "only (kernel_prediction_detail is empty)"] if detail else [])]


def _write_prediction(prediction: Prediction, args: argparse.Namespace) -> None:
    """Write the prediction's files to ``--out`` (and say so, unless ``--json``).

    Raises:
        _Usage: When they cannot be written.
    """
    try:
        written = write_outputs(prediction, args.out, args.format)
    except ExportError as exc:
        raise _Usage(f"argument --out: {exc}") from None
    if not args.json:
        print("wrote " + ", ".join(str(p) for p in written))
