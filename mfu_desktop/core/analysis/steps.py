"""Per step, per rank: the one meaning of every time figure a user reads.

A time is the **mean per captured step** of one rank, and across ranks the **mean per rank**,
with the slowest rank (its number and its values) beside it where ranks differ. A figure that
is anything else says so in its label ("total", "rank 5"). The analysis tables, the cluster
view, the prediction and every front end (console, JSON, CSV, window) take their step count
from :func:`captured_steps`, so "per step" means the same everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mfu_desktop.core.readers import columns as C

if TYPE_CHECKING:  # a light module: the command line's cached path uses it without pandas
    import pandas as pd

    from mfu_desktop.core.readers.step_trace import StepTrace

#: The label every front end uses for the convention (user guide: "Reading the numbers").
PER_STEP_CONVENTION = ("times are per step (mean over the captured steps) and per rank (mean over ranks); "
                       "totals are labelled as totals")


@dataclass(frozen=True)
class CapturedSteps:
    """How many steps a rank's capture holds, and what says so.

    Attributes:
        count: Steps (≥ 1) that the rank's kernel totals are divided by.
        source: ``step trace``, ``Step Id`` or why the capture counts as one step.
    """

    count: int
    source: str

    def per_step(self, total: float) -> float:
        """A total over the capture as a mean per step."""
        return total / self.count


def captured_steps(trace: StepTrace | None, kernels: pd.DataFrame | None) -> CapturedSteps:
    """Steps of one rank: the step trace's complete rows, else distinct ``Step Id`` values, else one.

    Args:
        trace: The rank's step trace (may be ``None`` or empty).
        kernels: The rank's kernel frame (for ``Step Id``).
    """
    if trace is not None and not trace.empty and "step_time_us" in trace.frame.columns:
        valid = int(trace.frame["step_time_us"].notna().sum())
        if valid:
            return CapturedSteps(valid, "step trace")
    if kernels is not None and C.STEP_ID in kernels.columns:
        ids = kernels[C.STEP_ID].dropna()
        distinct = int(ids.nunique()) if len(ids) else 0
        if distinct:
            return CapturedSteps(distinct, "Step Id")
    return CapturedSteps(1, "no step information: the capture counts as one step")


@dataclass(frozen=True)
class AcrossRanks:
    """A per-step figure across ranks: mean per rank, and the slowest rank with its value."""

    mean: float | None
    slowest_rank: int | None
    slowest_value: float | None
    ranks: int

    @property
    def differs(self) -> bool:
        """True when several ranks have the figure (then the slowest rank is worth showing)."""
        return self.ranks > 1


def across_ranks(values: Iterable[tuple[int, float | None]]) -> AcrossRanks:
    """Mean per rank of ``(rank, value)`` pairs (missing values skipped) and the rank with the largest value."""
    pairs = [(r, float(v)) for r, v in values if v is not None and math.isfinite(v)]
    if not pairs:
        return AcrossRanks(None, None, None, 0)
    rank, value = max(pairs, key=lambda p: p[1])
    return AcrossRanks(math.fsum(v for _, v in pairs) / len(pairs), rank, value, len(pairs))


#: A rank whose step time exceeds the fastest rank's by more than this is "slow".
SLOW_RANK_MARGIN = 0.05


def slow_ranks(step_times: dict[int, float | None]) -> tuple[list[int], float | None]:
    """Ranks whose step time exceeds the fastest by more than :data:`SLOW_RANK_MARGIN`, and that threshold."""
    valid = {r: t for r, t in step_times.items() if t is not None and math.isfinite(t) and t > 0}
    if not valid:
        return [], None
    threshold = min(valid.values()) * (1.0 + SLOW_RANK_MARGIN)
    return sorted(r for r, t in valid.items() if t > threshold), threshold
