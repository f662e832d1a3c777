"""``--model`` and ``--basis``: the prediction's per-kernel model and the basis of its rates (predict, compare)."""

from __future__ import annotations

import argparse

from mfu_desktop.core.predict.basis import BASES, MODELS
from mfu_desktop.core.predict.options import DEFAULT_BASIS, DEFAULT_MODEL


def add_model_options(p: argparse.ArgumentParser) -> None:
    """Add ``--model`` and ``--basis`` (defaults: the most accurate on the accuracy report's held-out rows)."""
    p.add_argument("--model", choices=MODELS, default=DEFAULT_MODEL,
                   help=f"per-kernel model (default {DEFAULT_MODEL}): roofline predicts kernels without pipe "
                        "counters from their FLOPs and bytes on both chips with latency floors; seed is the original "
                        "script's model (one ratio per class) — docs/accuracy.md")
    p.add_argument("--basis", choices=BASES, default=DEFAULT_BASIS,
                   help=f"rates (default {DEFAULT_BASIS}): advertised catalog peaks (the original script); "
                        "achievable = measured matmul FLOP/s and HBM bandwidth where both chips have them; fitted = "
                        "advertised × each chip's efficiency fitted on public measurements (docs/accuracy.md)")
