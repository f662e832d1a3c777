"""The prediction's defaults the command line needs without importing the predictor (source chip, formats)."""

from __future__ import annotations

#: The seed predictor's default baseline (prediction source chip when the profile does not say).
DEFAULT_SOURCE = "Huawei Ascend 910B"
#: File formats of ``mfu predict --out``: CSV is the seed script's layout; Parquet is typed, ~8× smaller and faster.
OUTPUT_FORMATS = ("csv", "parquet", "both")
#: The default per-kernel model and basis: the most accurate on the accuracy report's held-out rows
#: (docs/accuracy.md, "Which model and basis"); ``--model seed --basis advertised`` is the original script.
DEFAULT_MODEL = "roofline"
DEFAULT_BASIS = "fitted"
