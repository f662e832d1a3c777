"""The validation corpus: public per-operator measurements of the same work on several chips.

``resources/accuracy_corpus.csv`` (built by ``tools/build_accuracy_corpus.py`` from
``../shared/validation`` and ``../shared/samples``) holds one row per (operator call, chip):
its FLOPs and bytes per call, the measured device time, and where it comes from. Two rows with
one ``op_id`` on different chips are a **pair**: the accuracy report predicts the target's row
from the source's and compares.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.paths import shipped_file

#: Columns of the corpus file, in order.
CORPUS_COLUMNS = ("op_id", "dataset", "source_ref", "source_file", "model", "workload", "op", "op_type", "category",
                  "unit", "dtype", "shapes", "flops", "bytes", "calls", "chip", "measured_us", "raw_us", "note")
_NUMBERS = ("flops", "bytes", "calls", "measured_us", "raw_us")
#: What a pair carries from its rows (the target's time is the answer; the rest is the source's).
PAIR_COLUMNS = ("op_id", "dataset", "source_ref", "model", "workload", "op", "op_type", "category", "unit", "dtype",
                "flops", "bytes", "calls", "source_chip", "target_chip", "source_us", "target_us")


def corpus_path() -> Path:
    """The shipped corpus file."""
    return shipped_file("resources/accuracy_corpus.csv")


def read_corpus(path: Path | None = None) -> pd.DataFrame:
    """The corpus as a frame (numbers as floats, blank → NaN); raises ``ValueError`` when a column is missing."""
    path = path or corpus_path()
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in CORPUS_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {', '.join(missing)}")
    for column in _NUMBERS:
        frame[column] = pd.to_numeric(frame[column].replace("", np.nan), errors="coerce")
    bad = ~(frame["measured_us"] > 0)
    if bad.any():
        raise ValueError(f"{path}: line {int(np.flatnonzero(bad)[0]) + 2}: measured_us must be a positive number")
    return frame


def corpus_pairs(corpus: pd.DataFrame) -> pd.DataFrame:
    """Every ordered (source chip, target chip) pair of rows that measured the same ``op_id``."""
    left = corpus.rename(columns={"chip": "source_chip", "measured_us": "source_us"})
    right = corpus[["op_id", "chip", "measured_us"]].rename(columns={"chip": "target_chip",
                                                                     "measured_us": "target_us"})
    pairs = left.merge(right, on="op_id")
    pairs = pairs[pairs["source_chip"] != pairs["target_chip"]]
    return pairs[list(PAIR_COLUMNS)].reset_index(drop=True)
