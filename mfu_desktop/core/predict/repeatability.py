"""How well the corpus's measurements repeat: the noise under every error the accuracy report quotes.

Within one measured run, a layer often runs the same GEMM several times (NeuSight's query, key and
value projections of one attention block: same shapes, same chip, same run). Those repeats should take
the same time; the spread of each group of repeats (``max / min − 1``) is the measurement's own noise
on that chip — power and clock throttling on small PCIe cards, sequential host timing. No model that
sees only the operator and the chip can predict one repeat better than that spread.

A chip is **repeatable** when its GEMM repeats spread by at most :data:`REPEATABLE_SPREAD` (median over
at least :data:`MIN_GROUPS` groups). Datasets that publish medians over many runs of each operator
(:data:`MEDIAN_DATASETS`) count as repeatable for their chips. The rule uses the measurements only,
never a prediction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Median spread of a chip's GEMM repeats up to which its measurements count as repeatable.
REPEATABLE_SPREAD = 0.02
#: Fewest groups of repeats that can call a chip repeatable or not.
MIN_GROUPS = 3
#: Datasets whose times are medians over repeated runs (vidur's ``time_stats``): repeatable by construction.
MEDIAN_DATASETS = ("vidur",)
_SAME_OPERATOR = ("dataset", "model", "workload", "op_type", "dtype", "shapes", "chip")


def repeat_spread(corpus: pd.DataFrame) -> pd.DataFrame:
    """Per chip with GEMM repeats: ``groups``, ``median_spread`` and ``over_10pct`` (share of groups over 10 %)."""
    gemm = corpus[corpus["category"] == "gemm"]
    times = gemm.groupby(list(_SAME_OPERATOR), sort=False, dropna=False)["measured_us"]
    groups = pd.DataFrame({"n": times.size(), "spread": times.max() / times.min() - 1.0}).reset_index()
    groups = groups[groups["n"] > 1]
    by_chip = groups.groupby("chip")["spread"]
    return pd.DataFrame({"groups": by_chip.size(), "median_spread": by_chip.median(),
                         "over_10pct": by_chip.apply(lambda s: float(np.mean(s > 0.10)))})


def repeatable_chips(corpus: pd.DataFrame) -> set[str]:
    """Chips whose measurements repeat (see the module docstring)."""
    spread = repeat_spread(corpus)
    measured = spread[spread["groups"] >= MIN_GROUPS]
    chips = set(measured.index[measured["median_spread"] <= REPEATABLE_SPREAD])
    unknown = set(corpus.loc[corpus["dataset"].isin(MEDIAN_DATASETS), "chip"]) - set(measured.index)
    return chips | unknown
