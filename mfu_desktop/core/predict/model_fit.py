"""Fit the roofline model's per-chip parameters on the corpus's training measurements.

For each chip, on its training rows only (:mod:`~mfu_desktop.core.predict.accuracy_split`), find
the latency floor per kernel category, the host floor of host-timed rows, and the efficiencies
(compute per unit and precision, memory) that make ``T̂`` closest to the measured times::

    minimise  mean_w |log(T̂ / t)|  +  Σ (n₀ / n) · |log(η / η₀)|

by coordinate descent over fixed grids (deterministic; every grid is searched at once, as one
array per parameter). The penalty is a prior worth ``n₀`` measurements against the ``n`` rows that
inform an efficiency: a chip with few rows (one small workload, all floor) keeps its efficiency
near ``η₀``, its prior (:mod:`~mfu_desktop.core.predict.priors`: the chip's own measured MAMF / peak
and HBM ratio where published, else the catalog's median). The mean is weighted by each row's calls
per step (``w``): a measurement that stands for 48 launches of a kernel counts 48 times, as the
profiles ``mfu predict`` rescales spend their time.
``p`` is chosen among :data:`POWERS` by the same objective on the training rows. The floors of the
advertised and achievable bases are fitted with every efficiency 1 (their rates are the catalog's);
the fitted basis fits floors and efficiencies together. Chips without training rows get the ``*``
rows: the prior efficiencies and the median of the fitted floors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.predict.attainable import combine
from mfu_desktop.core.predict.error_categories import BASE_CATEGORIES
from mfu_desktop.core.predict.model_table import ANY_CHIP, Fitted, ModelTable, die_key
from mfu_desktop.core.predict.peaks import advertised_peak
from mfu_desktop.core.predict.priors import catalog_priors, chip_priors

#: The smooth forms tried (``inf``: the roofline max).
POWERS = (1.0, 2.0, 4.0, math.inf)
#: Weight of the efficiency prior, in training rows.
PRIOR_ROWS = 5.0
ETA_GRID = np.geomspace(0.05, 1.3, 64)
FLOOR_GRID = np.concatenate([[0.0], np.geomspace(0.1, 60.0, 72)])
SWEEPS = 3
#: Starting efficiencies of the fitted basis's descent, as multiples of the prior.
STARTS = (1.0, 0.5, 0.25)
#: Datasets whose times are host-timed per call (launch included): fitted to the host floor.
HOST_TIMED = ("neusight",)


@dataclass
class _ChipRows:
    """One chip's training rows, with its terms at efficiency 1."""

    base_c: np.ndarray
    base_m: np.ndarray
    measured: np.ndarray
    compute_key: np.ndarray  # index into keys ("cube fp16" …), -1 for no FLOPs term
    keys: list[str]
    category: np.ndarray  # index into BASE_CATEGORIES
    host: np.ndarray
    weight: np.ndarray  # calls per step the row stands for


def _chip_rows(rows: pd.DataFrame, catalog: ChipCatalog) -> _ChipRows:
    chip = catalog.find(str(rows["chip"].iloc[0]))
    units, precisions = rows["unit"].to_numpy(dtype=object), rows["dtype"].to_numpy(dtype=object)
    peaks = np.array([advertised_peak(chip, u, p) or np.nan for u, p in zip(units, precisions)], dtype=np.float64)
    bw = chip.value("hbm_bandwidth_gbs") or np.nan
    flops, nbytes = rows["flops"].to_numpy(dtype=np.float64), rows["bytes"].to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        base_c = np.where(flops > 0, flops * 1e-6 / peaks, np.nan)
        base_m = np.where(nbytes > 0, nbytes * 1e-3 / bw, np.nan)
    labels = np.array([f"{u} {p}" for u, p in zip(units, precisions)], dtype=object)
    keys = sorted(set(labels[np.isfinite(base_c)]))
    compute_key = np.array([keys.index(k) if k in keys else -1 for k in labels], dtype=np.int64)
    compute_key[~np.isfinite(base_c)] = -1
    category = np.array([BASE_CATEGORIES.index(c) if c in BASE_CATEGORIES else 4 for c in rows["category"]])
    weight = np.nan_to_num(rows["calls"].to_numpy(dtype=np.float64), nan=1.0) if "calls" in rows else None
    weight = np.ones(len(rows)) if weight is None else np.where(weight > 0, weight, 1.0)
    return _ChipRows(base_c, base_m, rows["measured_us"].to_numpy(dtype=np.float64), compute_key, keys, category,
                     rows["dataset"].isin(HOST_TIMED).to_numpy(), weight)


@dataclass
class _Params:
    eta_c: np.ndarray  # per key
    eta_m: float  # the chip's memory efficiency
    floors: np.ndarray  # per base category
    host_floor: float
    eta_m_category: np.ndarray | None = None  # per base category, once refined (None: eta_m for every one)

    def memory_rows(self, r: _ChipRows) -> np.ndarray | float:
        """Each row's memory efficiency: its category's once refined, else the chip's."""
        return self.eta_m if self.eta_m_category is None else self.eta_m_category[r.category]


def _predicted(r: _ChipRows, p: _Params, power: float, eta_c_rows: np.ndarray | None = None,
               eta_m: np.ndarray | float | None = None, floor_rows: np.ndarray | None = None) -> np.ndarray:
    """T̂ of the chip's rows; any argument given as a 2-D column grid evaluates every grid value at once."""
    if eta_c_rows is None:  # rows without a FLOPs term (compute_key −1) have a NaN t_c: any efficiency will do
        eta_c_rows = p.eta_c[np.maximum(r.compute_key, 0)] if len(p.eta_c) else np.ones(len(r.measured))
    eta_m = p.memory_rows(r) if eta_m is None else eta_m
    if floor_rows is None:
        floor_rows = np.where(r.host, p.host_floor, p.floors[r.category])
    t_c = r.base_c / eta_c_rows
    t_m = r.base_m / eta_m
    t_c, t_m = np.broadcast_arrays(t_c, t_m)
    return combine(t_c, t_m, power) + floor_rows


def _objective(r: _ChipRows, predicted: np.ndarray, penalty: np.ndarray | float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.abs(np.log(predicted / r.measured))
    err = np.where(np.isfinite(err), err, 0.0)
    return (err * r.weight).sum(axis=-1) / r.weight.sum() + penalty


def _best(values: np.ndarray, objective: np.ndarray) -> float:
    return float(values[int(np.argmin(objective))])


def _sweep(r: _ChipRows, p: _Params, power: float, priors: tuple[float, float], efficiencies: bool) -> None:
    """One coordinate-descent pass over every parameter of one chip (the other parameters held)."""
    if efficiencies:
        _sweep_efficiencies(r, p, power, priors)
    _sweep_floors(r, p, power)


def _sweep_efficiencies(r: _ChipRows, p: _Params, power: float, priors: tuple[float, float]) -> None:
    grid = ETA_GRID[:, None]
    for k, key in enumerate(r.keys):
        prior = priors[0] if key.startswith("cube") else 1.0
        rows_eta = np.broadcast_to(p.eta_c[np.maximum(r.compute_key, 0)], (len(ETA_GRID), len(r.measured))).copy()
        rows_eta[:, r.compute_key == k] = grid
        penalty = PRIOR_ROWS / max(int((r.compute_key == k).sum()), 1) * np.abs(np.log(ETA_GRID / prior))
        p.eta_c[k] = _best(ETA_GRID, _objective(r, _predicted(r, p, power, eta_c_rows=rows_eta), penalty))
    penalty = PRIOR_ROWS / max(int(np.isfinite(r.base_m).sum()), 1) * np.abs(np.log(ETA_GRID / priors[1]))
    p.eta_m = _best(ETA_GRID, _objective(r, _predicted(r, p, power, eta_m=grid), penalty))


def _sweep_floors(r: _ChipRows, p: _Params, power: float) -> None:
    for c in np.unique(r.category[~r.host]):
        current = np.where(r.host, p.host_floor, p.floors[r.category])
        rows_floor = np.broadcast_to(current, (len(FLOOR_GRID), len(current))).copy()
        rows_floor[:, (~r.host) & (r.category == c)] = FLOOR_GRID[:, None]
        p.floors[c] = _best(FLOOR_GRID, _objective(r, _predicted(r, p, power, floor_rows=rows_floor), 0.0))
    if r.host.any():
        current = np.where(r.host, p.host_floor, p.floors[r.category])
        rows_floor = np.broadcast_to(current, (len(FLOOR_GRID), len(current))).copy()
        rows_floor[:, r.host] = FLOOR_GRID[:, None]
        p.host_floor = _best(FLOOR_GRID, _objective(r, _predicted(r, p, power, floor_rows=rows_floor), 0.0))


def fit_chip(r: _ChipRows, power: float, priors: tuple[float, float], efficiencies: bool) -> tuple[_Params, float]:
    """A chip's parameters and its training objective (mean |log error| without the penalty).

    Without ``efficiencies`` only the floors are fitted, the efficiencies staying 1 (the advertised
    and achievable bases, whose rates are the catalog's); with them, floors and efficiencies together
    (the fitted basis).
    """
    if not efficiencies:
        p = _Params(np.ones(len(r.keys)), 1.0, np.full(len(BASE_CATEGORIES), 1.0), 5.0)
        for _ in range(SWEEPS):
            _sweep(r, p, power, priors, False)
        return p, float(_objective(r, _predicted(r, p, power), 0.0))
    best: tuple[float, _Params] | None = None
    for scale in STARTS:  # coordinate descent from several efficiencies: floors and efficiencies trade off
        start = np.array([(priors[0] if k.startswith("cube") else 1.0) * scale for k in r.keys])
        p = _Params(start, priors[1] * scale, np.full(len(BASE_CATEGORIES), 1.0), 5.0)
        for _ in range(SWEEPS):
            _sweep(r, p, power, priors, True)
        score = float(_objective(r, _predicted(r, p, power), _penalty(r, p, priors)))
        if best is None or score < best[0]:
            best = (score, p)
    p = best[1]
    _refine_memory_by_category(r, p, power)
    return p, float(_objective(r, _predicted(r, p, power), 0.0))


def _refine_memory_by_category(r: _ChipRows, p: _Params, power: float) -> None:
    """Per kernel category, the memory efficiency, pulled towards the chip's by a prior of :data:`PRIOR_ROWS`.

    A streaming element-wise kernel, a norm and a weight-bound GEMM reach different fractions of the HBM
    bandwidth (access pattern, cache reuse). The floors are refitted with them.
    """
    p.eta_m_category = np.full(len(BASE_CATEGORIES), p.eta_m)
    grid = ETA_GRID[:, None]
    for _ in range(SWEEPS):
        for c in range(len(BASE_CATEGORIES)):
            rows = (r.category == c) & np.isfinite(r.base_m)
            if not rows.any():
                continue
            eta_rows = np.broadcast_to(p.memory_rows(r), (len(ETA_GRID), len(r.measured))).copy()
            eta_rows[:, rows] = grid
            penalty = PRIOR_ROWS / int(rows.sum()) * np.abs(np.log(ETA_GRID / p.eta_m))
            p.eta_m_category[c] = _best(ETA_GRID, _objective(r, _predicted(r, p, power, eta_m=eta_rows), penalty))
        _sweep_floors(r, p, power)


def _penalty(r: _ChipRows, p: _Params, priors: tuple[float, float]) -> float:
    """The prior's term of the objective for a chip's efficiencies."""
    total = 0.0
    for k, key in enumerate(r.keys):
        prior = priors[0] if key.startswith("cube") else 1.0
        total += PRIOR_ROWS / max(int((r.compute_key == k).sum()), 1) * abs(math.log(p.eta_c[k] / prior))
    return total + PRIOR_ROWS / max(int(np.isfinite(r.base_m).sum()), 1) * abs(math.log(p.eta_m / priors[1]))


def fit_model(train: pd.DataFrame, catalog: ChipCatalog) -> ModelTable:
    """The model table fitted on ``train`` (corpus rows), ``p`` chosen among :data:`POWERS`.

    ``p`` is chosen on the floors-only fit (the advertised basis); the fitted basis's floors and
    efficiencies are then fitted with that ``p``.
    """
    priors = catalog_priors(catalog)
    rows = {chip: _chip_rows(part, catalog) for chip, part in train.groupby("chip", sort=True)}
    fits = {power: {chip: fit_chip(r, power, priors, False) for chip, r in rows.items()} for power in POWERS}
    totals = {power: sum(obj * len(rows[chip].measured) for chip, (_, obj) in per.items()) / max(len(train), 1)
              for power, per in fits.items()}
    power = min(POWERS, key=lambda x: totals[x])
    note = "chosen on the training rows (floors only): mean |log error| " + ", ".join(
        f"p={'inf' if math.isinf(x) else f'{x:g}'} {totals[x]:.4f}" for x in POWERS)
    fitted = {chip: fit_chip(r, power, chip_priors(catalog.find(chip), priors), True) for chip, r in rows.items()}
    table = _table(fits[power], fitted, rows, power, note, priors)
    return with_die_rows(table, {chip: catalog.find(chip).die for chip in rows})


def _die_values(values: dict, dies: dict[str, str]) -> dict:
    """Per die with a fitted chip, per parameter key: the median of its chips' values (keys ``(chip, key)`` or chip)."""
    members: dict = {}
    for owner, fitted in values.items():
        chip, key = owner if isinstance(owner, tuple) else (owner, None)
        if dies.get(chip):
            members.setdefault((dies[chip], key), []).append((chip, fitted))
    out = dict(values)
    for (die, key), found in sorted(members.items(), key=lambda item: (item[0][0], str(item[0][1]))):
        names = ", ".join(sorted(chip for chip, _ in found))
        row = Fitted(float(np.median([f.value for _, f in found])), sum(f.rows for _, f in found),
                     f"die {die}: median of {names}")
        out[(die_key(die), key) if key is not None else die_key(die)] = row
    return out


def with_die_rows(table: ModelTable, dies: dict[str, str]) -> ModelTable:
    """``table`` with each die's shared rows added (``dies``: fitted chip → its die; blank: none)."""
    return ModelTable(table.power, _die_values(table.floors, dies), _die_values(table.host_floors, dies),
                      _die_values({k: v for k, v in table.efficiency.items() if k[0] != ANY_CHIP}, dies)
                      | {k: v for k, v in table.efficiency.items() if k[0] == ANY_CHIP},
                      table.power_note, _die_values(table.fitted_floors, dies),
                      _die_values(table.fitted_host_floors, dies))


def _floors(per_chip: dict[str, tuple[_Params, float]], rows: dict[str, _ChipRows]
            ) -> tuple[dict[tuple[str, str], Fitted], dict[str, Fitted]]:
    """Kernel floors per (chip, category) and host floors per chip, with the ``*`` defaults (medians)."""
    floors: dict[tuple[str, str], Fitted] = {}
    host: dict[str, Fitted] = {}
    for chip, (p, _) in per_chip.items():
        r = rows[chip]
        for c, name in enumerate(BASE_CATEGORIES):
            n = int(((~r.host) & (r.category == c)).sum())
            if n:
                floors[(chip, name)] = Fitted(p.floors[c], n, "kernel-timed training rows")
        if r.host.any():
            host[chip] = Fitted(p.host_floor, int(r.host.sum()), "host-timed rows (NeuSight): the report only")
    for name in BASE_CATEGORIES:
        values = [f.value for (chip, cat), f in floors.items() if cat == name]
        if values:
            floors[(ANY_CHIP, name)] = Fitted(float(np.median(values)), 0, "default: median of the fitted chips")
    every = [f.value for (chip, _), f in floors.items() if chip != ANY_CHIP]
    if every:
        floors[(ANY_CHIP, ANY_CHIP)] = Fitted(float(np.median(every)), 0, "default: median of every fitted floor")
    if host:
        host[ANY_CHIP] = Fitted(float(np.median([f.value for f in host.values()])), 0,
                                "default: median of the fitted chips")
    return floors, host


def _table(floors_only: dict[str, tuple[_Params, float]], fitted: dict[str, tuple[_Params, float]],
           rows: dict[str, _ChipRows], power: float, note: str, priors: tuple[float, float]) -> ModelTable:
    floors, host = _floors(floors_only, rows)
    fitted_floors, fitted_host = _floors(fitted, rows)
    efficiency: dict[tuple[str, str], Fitted] = {}
    for chip, (p, _) in fitted.items():
        r = rows[chip]
        for k, key in enumerate(r.keys):
            efficiency[(chip, key)] = Fitted(p.eta_c[k], int((r.compute_key == k).sum()),
                                             "fraction of the advertised peak")
        efficiency[(chip, "memory")] = Fitted(p.eta_m, int(np.isfinite(r.base_m).sum()),
                                              "fraction of the advertised bandwidth")
        for c, name in enumerate(BASE_CATEGORIES):
            n = int(((r.category == c) & np.isfinite(r.base_m)).sum())
            if n and p.eta_m_category is not None:
                efficiency[(chip, f"memory {name}")] = Fitted(float(p.eta_m_category[c]), n,
                                                              f"fraction of the advertised bandwidth, {name} kernels")
    prior_note = "prior: median measured / advertised value of the catalog"
    efficiency[(ANY_CHIP, "cube")] = Fitted(priors[0], 0, prior_note + " (MAMF / peak)")
    efficiency[(ANY_CHIP, "vector")] = Fitted(1.0, 0, "vector peaks: no public measurement, taken as advertised")
    efficiency[(ANY_CHIP, "memory")] = Fitted(priors[1], 0, prior_note + " (HBM)")
    return ModelTable(power, floors, host, efficiency, note, fitted_floors, fitted_host)
