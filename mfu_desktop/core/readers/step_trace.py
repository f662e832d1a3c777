"""Step trace readers (profiler-formats.md §6, §8.6, §10).

``step_trace_time.csv`` in all header variants, ``analysis.db`` StepTraceTime and
``cluster_step_trace_time.csv``.

Step time is the device span of the step: ``Computing + Communication(Not Overlapped) + Free``
(mfu.md §4.2); on the public sample 8873.756 + 101963.203 + 25744.05 = 136581.0 µs = Stage.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.readers.database import open_database

STEP_COLUMNS = ("computing", "comm_not_overlapped", "overlapped", "communication", "free", "stage", "bubble",
                "comm_not_overlapped_excl_receive", "preparing")

_ALIASES = {
    "step": "step",
    "device_id": "device_id",
    "type": "type",
    "index": "index",
    "computing": "computing",
    "communication(not overlapped)": "comm_not_overlapped",
    "overlapped": "overlapped",
    "communication": "communication",
    "free": "free",
    "stage": "stage",
    "bubble": "bubble",
    "communication(not overlapped and exclude receive)": "comm_not_overlapped_excl_receive",
    "preparing": "preparing",
    # analysis.db StepTraceTime
    "communication_not_overlapped": "comm_not_overlapped",
    "communication_not_overlapped_and_exclude_receive": "comm_not_overlapped_excl_receive",
}


@dataclass
class StepTrace:
    """Per-step breakdown in µs (one row per step; ``step`` is text, ``''`` without steps)."""

    frame: pd.DataFrame
    source: str
    problems: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when no step row could be read."""
        return self.frame.empty


def _normalise(frame: pd.DataFrame, source: str, problems: list[str]) -> pd.DataFrame:
    frame = frame.rename(columns={c: _ALIASES.get(" ".join(str(c).strip().lstrip("\ufeff").lower().split()), c)
                                  for c in frame.columns})
    frame = frame.loc[:, ~frame.columns.duplicated()]
    if "computing" not in frame.columns:  # quote only the step-trace columns it has: the file may be anything
        known = [str(c) for c in frame.columns if c in _ALIASES.values()]
        raise ValueError(f"{source} has no Computing column (its step-trace columns: {', '.join(known) or 'none'})")
    out = pd.DataFrame()
    out["step"] = frame["step"].astype(str).str.strip().str.replace(r"^step", "", regex=True) \
        if "step" in frame.columns else ""
    out["step"] = out["step"].replace({"nan": "", "None": "", "N/A": ""})
    for col in ("device_id", "type", "index"):
        if col in frame.columns:
            out[col] = frame[col].astype(str).str.strip()
    for col in STEP_COLUMNS:
        if col in frame.columns:
            values = pd.to_numeric(frame[col].astype(str).str.strip().replace({"N/A": ""}), errors="coerce")
            values = values.where(np.isfinite(values.astype(float)))  # "inf" is not a time
            bad = int(values.isna().sum() - frame[col].astype(str).str.strip().isin(["", "N/A", "nan"]).sum())
            if bad > 0:
                problems.append(f"{source}: {bad} cells in {col} are not numbers")
            out[col] = values.astype(float)
        else:
            out[col] = np.nan
    parts = out[["computing", "comm_not_overlapped", "free"]]
    out["step_time_us"] = parts.sum(axis=1, min_count=3)
    negative = (out[list(STEP_COLUMNS)] < 0).any(axis=1)
    if negative.any():
        problems.append(f"{source}: {int(negative.sum())} step row(s) have negative times; their step time is ignored")
        out.loc[negative, "step_time_us"] = np.nan
    return out


def read_step_trace_csv(path: Path) -> StepTrace:
    """Read ``step_trace_time.csv`` in any header variant (with/without Device_id, Preparing)."""
    problems: list[str] = []
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig", on_bad_lines="skip",
                          engine="python")
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        return StepTrace(pd.DataFrame(), path.name, [f"{path.name} cannot be read ({type(exc).__name__}: {exc})"])
    try:
        frame = _normalise(raw, path.name, problems)
    except ValueError as exc:
        return StepTrace(pd.DataFrame(), path.name, [str(exc)])
    return StepTrace(frame, path.name, problems)


def read_step_trace_db(path: Path) -> StepTrace:
    """Read ``analysis.db`` → ``StepTraceTime`` (µs in the samples although the docs say ms)."""
    try:
        conn = open_database(path)
        try:
            raw = pd.read_sql_query("SELECT * FROM StepTraceTime", conn)
        finally:
            conn.close()
    except (sqlite3.Error, pd.errors.DatabaseError) as exc:
        return StepTrace(pd.DataFrame(), path.name, [f"{path.name}: StepTraceTime cannot be read ({exc})"])
    problems: list[str] = []
    try:
        frame = _normalise(raw.astype(str), path.name, problems)
    except ValueError as exc:
        return StepTrace(pd.DataFrame(), path.name, [str(exc)])
    return StepTrace(frame, f"{path.name} StepTraceTime", problems)


def read_cluster_step_trace(path: Path) -> StepTrace:
    """Read ``cluster_step_trace_time.csv``; only ``Type == rank`` rows are kept (Index = rank)."""
    trace = read_step_trace_csv(path)
    if trace.empty or "type" not in trace.frame.columns:
        return trace
    frame = trace.frame[trace.frame["type"].str.lower() == "rank"].copy()
    frame["rank"] = pd.to_numeric(frame["index"], errors="coerce").astype("Int64")
    return StepTrace(frame.reset_index(drop=True), trace.source, trace.problems)
