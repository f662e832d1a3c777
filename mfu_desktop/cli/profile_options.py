"""What the profile commands share: the analysis options, the paths (``--demo``), progress, "nothing analysed"."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mfu_desktop.cli.common import EXIT_NOTHING
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.paths import demo_profile_dir


class ConsoleProgress:
    """Progress on stderr (only when it is a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._last = 0.0

    def set_progress(self, fraction: float, text: str = "") -> None:
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.2 or fraction >= 1.0):
            self._last = now
            print(f"\r{fraction * 100:5.1f} % {text[:60]:<60}", end="", file=sys.stderr, flush=True)

    def was_cancelled(self) -> bool:
        return False


def analysis_options(args: argparse.Namespace) -> AnalysisOptions:
    """The analysis options given on the command line."""
    mode = args.fa_sparse_mode
    return AnalysisOptions(
        chip=args.chip,
        hf32=args.hf32,
        flops=FlopOptions(fa_sparse_mode=mode if mode == "auto" else int(mode), fa_layout=args.fa_layout,
                          fa_backward=args.fa_backward),
        top_n=args.top,
    )


def nothing_analysed(command: str, warnings: list[str]) -> int:
    """Every reason nothing could be analysed, as ``error:`` lines (``mfu analyze`` and ``mfu predict`` alike)."""
    reasons = warnings or ["no profiler rank could be read"]
    for reason in reasons:
        print(f"mfu {command}: error: {reason}", file=sys.stderr)
    return EXIT_NOTHING


def profile_paths(args: argparse.Namespace, paths: list[Path]) -> list[Path]:
    """The paths given, plus the bundled demo profile with ``--demo``.

    Raises:
        NoPath: When neither a path nor ``--demo`` was given.
    """
    out = list(paths)
    if getattr(args, "demo", False):
        out.append(demo_profile_dir())
    if not out:
        raise NoPath("give a profiler folder (PATH) or --demo for the bundled demo profile")
    return out


def split_sources(given: list[str], rank_paths: list[str]) -> tuple[list[str], list[str]]:
    """The paths given that yielded ranks (the sources a header names), and those that yielded none (skipped).

    A path yielded a rank when the rank's folder or file is the path or lies under it.
    """
    ranks = [Path(p) for p in rank_paths]
    sources, skipped = [], []
    for text in given:
        root = Path(text).expanduser()
        found = any(r == root or root in r.parents for r in ranks)
        if not found and root.exists():  # the same place spelt differently (a symlink, ..)
            resolved = root.resolve()
            found = any(r.resolve() == resolved or resolved in r.resolve().parents for r in ranks)
        (sources if found else skipped).append(text)
    return sources, skipped


class NoPath(Exception):
    """Neither a PATH nor ``--demo`` was given."""


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    """The options that change an analysis (shared by ``analyze`` and ``summarize``)."""
    p.add_argument("--chip", help="chip that ran the profile (overrides detection)")
    p.add_argument("--hf32", action="store_true", help="FP32 matmuls ran with HF32 (uses the HF32 peak)")
    p.add_argument("--fa-sparse-mode", choices=["auto", "0", "2", "3"], default="auto",
                         help="FlashAttention sparse_mode for every FA kernel (default: inferred from the mask)")
    p.add_argument("--fa-layout", choices=["auto", "BNSD", "BSND", "BSH", "SBH"], default="auto",
                         help="FlashAttention input_layout (default: inferred from softmax_max)")
    p.add_argument("--fa-backward", choices=["model", "executed"], default="model",
                         help="FlashAttention backward FLOPs: model (2×, default) or executed (2.5×, HFU view)")
    p.add_argument("--catalog", type=Path, action="append", default=[], help="extra chip catalog CSV")
    p.add_argument("--top", type=int, default=10, metavar="N", help="rows in the hot-operator lists")
