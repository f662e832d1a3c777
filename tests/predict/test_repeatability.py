"""How well the corpus's measurements repeat (the noise floor the accuracy report states), on generated rows."""

from __future__ import annotations

import pandas as pd
import pytest

from mfu_desktop.core.predict.repeatability import repeat_spread, repeatable_chips


def _rows(chip: str, dataset: str, groups: list[list[float]], category: str = "gemm") -> list[dict]:
    """One row per time; each inner list is one operator (same shapes, layer, run) repeated."""
    out = []
    for g, times in enumerate(groups):
        for t in times:
            out.append({"dataset": dataset, "model": "m", "workload": "w", "op_type": "aten::mm", "dtype": "fp32",
                        "shapes": f"{g},64;64,64", "chip": chip, "category": category, "measured_us": t})
    return out


def test_spread_per_chip_and_the_repeatable_rule():
    corpus = pd.DataFrame([
        *_rows("steady", "neusight", [[100, 100.5], [200, 201, 200], [50, 50.2], [80]]),  # spreads 0.5 %, 0.5 %, 0.4 %
        *_rows("noisy", "neusight", [[100, 130], [200, 210], [50, 60]]),  # 30 %, 5 %, 20 %
        *_rows("few", "neusight", [[100, 100], [10, 10]]),  # two groups: too few to call
        *_rows("medians", "vidur", [[40], [60]]),  # vidur: medians over runs, no repeats of its own
        *_rows("steady", "neusight", [[5, 9]], category="element-wise"),  # not a GEMM: not counted
    ])
    spread = repeat_spread(corpus)
    assert spread.loc["steady", "groups"] == 3
    assert spread.loc["steady", "median_spread"] == pytest.approx(0.005)
    assert spread.loc["noisy", "median_spread"] == pytest.approx(0.20)
    assert spread.loc["noisy", "over_10pct"] == pytest.approx(2 / 3)
    assert "medians" not in spread.index
    assert repeatable_chips(corpus) == {"steady", "medians"}


def test_no_repeats_anywhere():
    corpus = pd.DataFrame(_rows("a", "neusight", [[1.0], [2.0]]))
    assert repeat_spread(corpus).empty
    assert repeatable_chips(corpus) == set()
