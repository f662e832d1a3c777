"""What a rule reads: one analysed rank, its document, the cluster around it — and figures computed once.

Rules never open files: they read the annotated kernels (:class:`RankAnalysis`), the rank's
document (step breakdown, communication split, memory — the same figures ``mfu analyze``
prints) and the cluster document (slow ranks). What several rules need is computed here once
per rank, lazily and vectorised: per-kernel families, device idle gaps, the FLOP rules' dims of
every shape group, and the grouping of kernels into evidence rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from mfu_desktop.core.advisor.finding import Evidence, EvidenceKind, Text
from mfu_desktop.core.analysis.annotate import shape_estimates
from mfu_desktop.core.analysis.classify import CLASSES, KernelClass
from mfu_desktop.core.analysis.families import family_codes, family_names
from mfu_desktop.core.analysis.grouping import codes_of, group_ids, lookup, sums
from mfu_desktop.core.analysis.idle import DeviceTime, device_time
from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.rank import RankAnalysis
from mfu_desktop.core.chips.catalog import CatalogError, chip_peak
from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.formulas.registry import FlopEstimate
from mfu_desktop.core.numbers import finite_number
from mfu_desktop.core.readers import columns as C

#: Evidence rows a finding keeps (largest first); the rest stay in its kernel rows.
EVIDENCE_ROWS = 8
#: Candidate chips agree on a peak ratio when they differ by less than this (published peaks are rounded).
RATIO_AGREEMENT = 0.01


@dataclass
class RankContext:
    """One rank as the rules see it.

    Attributes:
        rank: The analysed rank (a rank read from a cluster summary has no kernels).
        document: Its rank document (:func:`~mfu_desktop.core.cluster.rank_document.rank_document`).
        cluster: The cluster document of the folder it belongs to (``None``: analysed alone).
        options: The analysis options (the FLOP conventions the shape groups were made with).
    """

    rank: RankAnalysis
    document: dict[str, Any]
    cluster: dict[str, Any] | None = None
    options: AnalysisOptions | None = None

    # --- the step ---------------------------------------------------------------------------------

    @property
    def steps(self) -> int:
        """Captured steps: every total over the kernels is divided by it."""
        return max(int(self.rank.summary.steps or 1), 1)

    def per_step(self, total: float) -> float:
        """A total over the capture as a mean per step."""
        return float(total) / self.steps

    @cached_property
    def step_us(self) -> float | None:
        """The mean step time: the step trace's, else the kernels' (busy + idle between them) per step.

        Without a step trace the step is rebuilt from the kernels — the time the device was busy
        plus the idle gaps between kernels (each at most the kernel's recorded wait) — rather than
        the span from the first to the last kernel, which a cut-out kernel list stretches.
        ``None`` when neither is known.
        """
        value = finite_number(self.rank.summary.step_time_us)
        if value:
            return value
        device = self.device
        total = device.busy_us + device.idle_total_us
        return self.per_step(total) if total > 0 else None

    def breakdown(self, part: str) -> float | None:
        """A part of the step trace's breakdown (``computing``, ``comm_not_overlapped``, ``free``), per step."""
        return finite_number((self.document.get("step_breakdown") or {}).get(part))

    # --- the chip ---------------------------------------------------------------------------------

    def chip_value(self, column: str) -> float | None:
        """A catalog value of the rank's chip: the confirmed row's, else the candidates' when they all agree."""
        chip = self.rank.chip
        if chip.chip is not None and chip.confirmed:
            return finite_number(chip.chip.value(column))
        values = {finite_number(c.value(column)) for c in chip.candidates}
        return values.pop() if len(values) == 1 else None

    def peak_ratio(self, faster: ComputeDtype, slower: ComputeDtype) -> float | None:
        """Peak of ``faster`` / peak of ``slower`` on the rank's chip.

        Without a confirmed chip, the candidates' lowest ratio when they agree within
        :data:`RATIO_AGREEMENT` (their published peaks are rounded), else ``None``.
        """
        chip = self.rank.chip
        if chip.confirmed:
            high, _ = chip.peak(faster)
            low, _ = chip.peak(slower)
            return high.tflops / low.tflops if high is not None and low is not None and low.tflops > 0 else None
        ratios = []
        for candidate in chip.candidates:
            try:
                ratios.append(chip_peak(candidate, faster).tflops / chip_peak(candidate, slower).tflops)
            except CatalogError:
                return None
        if not ratios or max(ratios) > min(ratios) * (1 + RATIO_AGREEMENT):
            return None
        return min(ratios)

    # --- the kernels ------------------------------------------------------------------------------

    @property
    def kernels(self) -> pd.DataFrame:
        """The annotated kernels (empty for a rank read from a summary)."""
        return self.rank.kernels if self.rank.kernels is not None else pd.DataFrame()

    @cached_property
    def durations(self) -> np.ndarray:
        """Duration per kernel (µs; NaN-free: a missing duration counts 0)."""
        if C.DURATION_US not in self.kernels.columns:
            return np.zeros(len(self.kernels))
        return np.nan_to_num(self.kernels[C.DURATION_US].to_numpy(dtype=np.float64))

    def column(self, name: str) -> np.ndarray:
        """A numeric column as float64 (NaN where missing or absent)."""
        if name not in self.kernels.columns:
            return np.full(len(self.kernels), np.nan)
        values = self.kernels[name]
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        return pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)

    def of_class(self, *classes: KernelClass) -> np.ndarray:
        """Rows whose kernel class is one of ``classes``."""
        if "klass" not in self.kernels.columns:
            return np.zeros(len(self.kernels), dtype=bool)
        codes = self.kernels["klass"].cat.codes.to_numpy()
        return np.isin(codes, [CLASSES.index(k.value) for k in classes])

    def category_is(self, name: str, *values: str) -> np.ndarray:
        """Rows whose categorical/text column ``name`` is one of ``values`` (all False when absent)."""
        if name not in self.kernels.columns:
            return np.zeros(len(self.kernels), dtype=bool)
        codes, cats = codes_of(self.kernels[name])
        table = np.array([str(c) in values for c in cats] + [False])
        return lookup(table, codes)

    def cores(self, *labels: str) -> np.ndarray:
        """Rows whose accelerator core (``Accelerator Core`` / ``Task Type``) is one of ``labels``."""
        return self.category_is(C.CORE_TYPE, *labels)

    @cached_property
    def _labels(self) -> tuple[np.ndarray, list[str], np.ndarray]:
        """Per row the display type's code, the display types, and per row the input shapes' code."""
        k = self.kernels
        n = len(k)
        if C.OP_TYPE in k.columns:
            t_codes, t_cats = codes_of(k[C.OP_TYPE])
            names = [str(c) for c in t_cats]
        else:
            t_codes, names = np.full(n, -1, dtype=np.int64), []
        t_codes = np.asarray(t_codes, dtype=np.int64)
        missing = (t_codes < 0) | np.isin(t_codes, [i for i, c in enumerate(names) if c in ("N/A", "")])
        if missing.any() and C.NAME in k.columns:  # Level0: the kernel name stands in for the type
            n_codes, n_cats = codes_of(k[C.NAME])
            n_codes = np.asarray(n_codes, dtype=np.int64)
            t_codes = np.where(missing & (n_codes >= 0), n_codes + len(names), t_codes)
            names = names + [str(c) for c in n_cats]
        shapes = np.asarray(codes_of(k[C.INPUT_SHAPES])[0], dtype=np.int64) if C.INPUT_SHAPES in k.columns \
            else np.full(n, -1, dtype=np.int64)
        return t_codes, names, shapes

    @property
    def type_codes(self) -> np.ndarray:
        """Per row: the display type's index into :attr:`type_names` (−1: none)."""
        return self._labels[0]

    @property
    def type_names(self) -> list[str]:
        """The display types (operator type; the kernel name where the type is missing, as at Level0)."""
        return self._labels[1]

    def types_matching(self, predicate) -> np.ndarray:
        """Rows whose display type satisfies ``predicate(type) -> bool`` (evaluated once per distinct type)."""
        table = np.array([bool(predicate(t)) for t in self.type_names] + [False])
        return lookup(table, self.type_codes)

    @cached_property
    def families(self) -> np.ndarray:
        """Operator family per row: its launching op's, else its own name's (:func:`family_codes`)."""
        k = self.kernels
        if k.empty:
            return np.empty(0, dtype=object)
        types = k[C.OP_TYPE] if C.OP_TYPE in k.columns else pd.Series([None] * len(k))
        names = k[C.NAME] if C.NAME in k.columns else None
        return np.array(family_names(), dtype=object)[family_codes(types, names)]

    @cached_property
    def device(self) -> DeviceTime:
        """The device's busy time and the idle time before each kernel (:func:`device_time`)."""
        return device_time(self.kernels)

    @property
    def idle_us(self) -> np.ndarray:
        """Device idle time just before each kernel (µs; NaN where undefined)."""
        return self.device.idle_us

    @cached_property
    def estimates(self) -> tuple[np.ndarray, list[FlopEstimate | None]]:
        """Shape group per row and the FLOP rule's estimate of each (their dims: M/N/K, FlashAttention's mask)."""
        if self.kernels.empty or "shape_group" not in self.kernels.columns:
            return np.full(len(self.kernels), -1, dtype=np.int64), []
        options = (self.options or AnalysisOptions()).flops
        return shape_estimates(self.kernels, options)

    def group_dims(self) -> list[dict[str, object]]:
        """The dims of every shape group's estimate (empty dict where there is none)."""
        return [dict(e.dims) if e is not None else {} for e in self.estimates[1]]

    # --- evidence ----------------------------------------------------------------------------------

    def kernel_facts(self, rows: np.ndarray) -> dict[str, float]:
        """``kernels_n`` (calls per step) and ``time_us`` (their time per step) of the ``rows`` mask."""
        return {"kernels_n": self.per_step(float(rows.sum())),
                "time_us": self.per_step(float(self.durations[rows].sum()))}

    def kernel_evidence(self, mask: np.ndarray, stake: np.ndarray | None,
                        figures: dict[str, np.ndarray] | None = None,
                        extra_key: np.ndarray | None = None) -> list[Evidence]:
        """The kernels of ``mask`` grouped by (type, input shapes), largest time at stake first.

        Args:
            mask: Rows that belong to the finding.
            stake: Time at stake per row (µs over the capture; summed and divided by the steps); ``None``
                when the kernels are shown for what they are (no time at stake of their own; largest time first).
            figures: Per-row figures shown per group as their time-weighted mean (``mfu``, ``bw_util`` …).
            extra_key: Another code column to split groups by (a dtype, a reference).

        Returns:
            At most :data:`EVIDENCE_ROWS` rows, each with its kernels' positions.
        """
        rows = np.flatnonzero(mask)
        if len(rows) == 0:
            return []
        types, shapes = self.type_codes[rows], self._labels[2][rows]
        keys = [types, shapes] + ([np.asarray(extra_key)[rows]] if extra_key is not None else [])
        ids, first = group_ids(keys)
        g = len(first)
        dur = self.durations[rows]
        time_us = sums(ids, g, dur)
        at_stake = sums(ids, g, stake[rows]) if stake is not None else None
        order = np.argsort(-(at_stake if at_stake is not None else time_us), kind="stable")[:EVIDENCE_ROWS]
        members = _members(ids, g)
        calls = np.bincount(ids, minlength=g)
        weighted = {name: _weighted(ids, g, np.asarray(values, dtype=np.float64)[rows], dur)
                    for name, values in (figures or {}).items()}
        out = []
        for gi in order:
            label = self._label(rows[first[gi]])
            key = label if extra_key is None else f"{label}|{int(np.asarray(extra_key)[rows[first[gi]]])}"
            out.append(Evidence(
                key=key, label=Text(label), kind=EvidenceKind.KERNELS, count=self.per_step(calls[gi]),
                time_us=self.per_step(time_us[gi]),
                time_at_stake_us=self.per_step(at_stake[gi]) if at_stake is not None else None,
                figures={name: finite_number(values[gi]) for name, values in weighted.items()},
                rows=rows[members[gi]]))
        return out

    def _label(self, row: int) -> str:
        """``type [input shapes]`` of one kernel (the display type alone when it has no shapes), names shortened."""
        code = self.type_codes[row]
        name = short_name(self.type_names[code]) if code >= 0 else "N/A"
        if C.INPUT_SHAPES in self.kernels.columns:
            shapes = self.kernels[C.INPUT_SHAPES].iloc[row]
            if isinstance(shapes, str) and shapes.strip('"') not in ("", "N/A"):
                return f"{name} [{shapes.strip(chr(34))}]"
        return name


def _members(ids: np.ndarray, groups: int) -> list[np.ndarray]:
    """For every group, the positions (into ``ids``) of its members, in order."""
    order = np.argsort(ids, kind="stable")
    bounds = np.searchsorted(ids[order], np.arange(groups + 1))
    return [order[bounds[i]:bounds[i + 1]] for i in range(groups)]


def _weighted(ids: np.ndarray, groups: int, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per group: Σ value·weight / Σ weight over the members with a finite value (NaN when none)."""
    ok = np.isfinite(values)
    num = np.bincount(ids[ok], weights=values[ok] * weights[ok], minlength=groups)
    den = np.bincount(ids[ok], weights=weights[ok], minlength=groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.nan)
