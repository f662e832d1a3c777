"""Time a step spends outside operators, ranked with the hot operators: "what do I fix first".

The hot-operator list ranks operators by the time they lose (t − t*). A step also loses time
where no operator runs: the device idles (host gaps: dispatch, data loading, synchronisation),
communication the computation did not hide, and pipeline bubbles. None of it has a roofline
time, so all of it is lost. On the public H100 BERT trace 3.6 of 3.9 ms per step are free, yet
the operator list alone started at an 80 µs addmm.

Pure Python over the step breakdown (means per step, as in a rank document's
``step_breakdown``): the window's hot-operator chart and the advisor use the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mfu_desktop.core.numbers import finite_number


@dataclass(frozen=True)
class TimeSink:
    """A kind of time outside operators.

    Attributes:
        key: The step-breakdown column (``free``, ``comm_not_overlapped``, ``bubble``).
        label: How a list of operators names it.
        meaning: What the time is and what shrinks it.
    """

    key: str
    label: str
    meaning: str


#: Every kind of non-operator time, in the order a tie is listed.
TIME_SINKS = (
    TimeSink("free", "free: device idle (host gaps)",
             "time in the step when the device runs no kernel: the host did not launch work fast enough "
             "(operator dispatch, data loading, synchronisation)"),
    TimeSink("comm_not_overlapped", "communication not overlapped",
             "communication the computation did not hide: the step waits for it"),
    TimeSink("bubble", "pipeline bubble", "pipeline stages waiting for each other"),
)
#: The ``kind`` of a row that is an operator group.
OPERATOR = "operator"


def sink(key: str) -> TimeSink | None:
    """The :class:`TimeSink` of a breakdown column, or ``None``."""
    return next((s for s in TIME_SINKS if s.key == key), None)


def non_operator_rows(breakdown: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """One row per kind of non-operator time with a positive time per step; all of it is lost.

    Args:
        breakdown: Means per step (µs) by breakdown column, e.g. a rank document's ``step_breakdown``.

    Returns:
        Rows shaped like hot-operator rows (``type`` is the label; no shapes, calls or MFU),
        with ``kind`` the breakdown column.
    """
    rows = []
    for s in TIME_SINKS:
        time_us = finite_number((breakdown or {}).get(s.key))
        if time_us is not None and time_us > 0:
            rows.append({"kind": s.key, "type": s.label, "input_shapes": "", "count": None, "time_us": time_us,
                         "lost_us": time_us, "mfu": None, "bw_util": None, "bound": None})
    return rows


def mean_breakdown(breakdowns: Iterable[Mapping[str, Any] | None]) -> dict[str, float | None]:
    """The breakdown of several ranks: each column's mean over the ranks that have it (mean per rank)."""
    sums: dict[str, list[float]] = {s.key: [] for s in TIME_SINKS}
    for breakdown in breakdowns:
        for key, values in sums.items():
            value = finite_number((breakdown or {}).get(key))
            if value is not None:
                values.append(value)
    return {key: (sum(values) / len(values) if values else None) for key, values in sums.items()}


def ranked_time(operators: Iterable[Mapping[str, Any]], breakdown: Mapping[str, Any] | None, by: str,
                top_n: int) -> list[dict[str, Any]]:
    """Operator groups and non-operator time in one list, largest ``by`` first; rows of zero are dropped.

    Args:
        operators: Hot-operator rows (type, input_shapes, count, time_us, lost_us, mfu, …), per step.
        breakdown: The step breakdown the non-operator rows come from (means per step, µs).
        by: ``lost_us`` or ``time_us``.
        top_n: Rows kept.

    Returns:
        Rows with ``kind`` (:data:`OPERATOR` or a breakdown column), sorted by ``by`` descending
        (stable: an operator before an equal non-operator row).
    """
    rows = [{**row, "kind": OPERATOR} for row in operators if (finite_number(row.get(by)) or 0.0) > 0]
    rows += non_operator_rows(breakdown)
    rows.sort(key=lambda r: -(finite_number(r.get(by)) or 0.0))
    return rows[:top_n]
