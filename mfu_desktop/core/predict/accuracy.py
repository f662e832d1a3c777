"""How wrong the prediction is on the validation corpus: every pair predicted by every model and basis.

Each corpus pair (the same operator measured on two chips, :mod:`~mfu_desktop.core.predict.corpus`)
is predicted from its source measurement with the engine's own rates
(:mod:`~mfu_desktop.core.predict.rates`) and models, vectorised over all pairs:

* **seed** — cube kernels by the compute ratio, vector kernels by the bandwidth ratio (by the
  vector peak ratio when their roofline bound on the source chip is compute), as ``mfu predict
  --model seed`` does for kernels without pipe counters;
* **roofline** — ``measured × T̂_target / T̂_source`` (:mod:`~mfu_desktop.core.predict.attainable`),
  with the floors of :mod:`~mfu_desktop.core.predict.model_table`; a host-timed pair (NeuSight)
  takes both chips' host floors instead of their kernel floors.

The error is ``(predicted − measured) / measured`` on the target. Honesty rules: a chip's
achievable value measured by the row's own source is held out on that row (it becomes
advertised), and only pairs the split holds out (:mod:`~mfu_desktop.core.predict.accuracy_split`)
are evidence.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.grouping import group_ids
from mfu_desktop.core.chips.catalog import ACHIEVABLE_COLUMNS, Chip, ChipCatalog
from mfu_desktop.core.predict.accuracy_split import held_out_pairs
from mfu_desktop.core.predict.attainable import attainable_us, roofline_terms
from mfu_desktop.core.predict.basis import ACHIEVABLE, ADVERTISED, FITTED, ROOFLINE, SEED, Basis
from mfu_desktop.core.predict.corpus import corpus_pairs
from mfu_desktop.core.predict.error_categories import ERROR_CATEGORIES, error_categories
from mfu_desktop.core.predict.model_fit import HOST_TIMED
from mfu_desktop.core.predict.model_table import ModelTable
from mfu_desktop.core.predict.peaks import advertised_peak
from mfu_desktop.core.predict.rates import pair_bandwidths, pair_peaks
from mfu_desktop.core.predict.rules import DEFAULT_RULES, Rule

#: The (model, basis) combinations the report measures.
COMBINATIONS = ((SEED, ADVERTISED), (SEED, ACHIEVABLE), (SEED, FITTED), (ROOFLINE, ADVERTISED),
                (ROOFLINE, ACHIEVABLE), (ROOFLINE, FITTED))


def combination(model: str, basis: str) -> str:
    """``roofline/fitted``: the column prefix of a (model, basis) in :func:`accuracy_table`."""
    return f"{model}/{basis}"


def held_out(chip: Chip, source_ref: str) -> Chip:
    """``chip`` without the achievable values its catalog row took from ``source_ref``'s repository."""
    repository = source_ref.split("@", 1)[0]
    if repository.lower() not in chip.text.get("achievable_source", "").lower():
        return chip
    values = dict(chip.values)
    for column in ACHIEVABLE_COLUMNS:
        values[column] = None
    return replace(chip, values=values)


def pair_class(source_vendor: str, target_vendor: str) -> str:
    """``same vendor`` or ``cross vendor``: the class of a chip pair the report quotes bands for."""
    return "same vendor" if source_vendor.lower() == target_vendor.lower() else "cross vendor"


def _rates(pairs: pd.DataFrame, chips: dict[str, Chip], rules: list[Rule], basis: Basis) -> dict[str, np.ndarray]:
    """Per pair: both chips' effective peaks and bandwidths on ``basis`` (one lookup per distinct key)."""
    codes, uniques = _key_rows(pairs, ["source_chip", "target_chip", "unit", "dtype", "op_type", "source_ref"])
    out = np.full((len(uniques), 4), np.nan)
    for i, (src, tgt, unit, dtype, op_type, ref) in enumerate(uniques):
        source, target = held_out(chips[src], ref), held_out(chips[tgt], ref)
        peaks = pair_peaks(unit, dtype, op_type, source, target, rules, basis)
        bw = pair_bandwidths(source, target, rules, basis)
        out[i] = [peaks.source or np.nan, peaks.target or np.nan, bw.source or np.nan, bw.target or np.nan]
    values = out[codes]
    return {"source_peak": values[:, 0], "target_peak": values[:, 1], "source_bw": values[:, 2],
            "target_bw": values[:, 3]}


def _key_rows(frame: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, list[tuple]]:
    """Per row, the index of its distinct key, and the distinct keys (as tuples, in order of first appearance)."""
    columns = [frame[k].to_numpy(dtype=object) for k in keys]
    ids, first = group_ids([pd.factorize(c)[0] for c in columns])
    return ids, [tuple(c[i] for c in columns) for i in first]


def _per_key(frame: pd.DataFrame, keys: list[str], value) -> np.ndarray:
    """``value(*key)`` for every row, computed once per distinct key."""
    ids, uniques = _key_rows(frame, keys)
    table = np.array([value(*key) for key in uniques], dtype=np.float64)
    return table[ids] if len(table) else np.full(len(frame), np.nan)


def _floors(pairs: pd.DataFrame, chips: dict[str, Chip], table: ModelTable, fitted: bool
            ) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: the source's and the target's floor (kernel floor by category; host floor for host-timed rows)."""
    host = pairs["dataset"].isin(HOST_TIMED).to_numpy()
    out = []
    for column in ("source_chip", "target_chip"):
        kernel = _per_key(pairs, [column, "category"],
                          lambda chip, cat: table.floor_us(chip, cat, fitted, chips[chip].die)[0])
        host_floor = _per_key(pairs, [column], lambda chip: table.host_floor_us(chip, fitted, chips[chip].die))
        out.append(np.where(host, host_floor, kernel))
    return out[0], out[1]


def _class_ratio(pairs: pd.DataFrame, r: dict[str, np.ndarray], terms: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The seed's ratio per pair: cube → compute ratio; vector → bandwidth ratio unless compute-bound on the source."""
    with np.errstate(divide="ignore", invalid="ignore"):
        compute = r["source_peak"] / r["target_peak"]
        memory = r["source_bw"] / r["target_bw"]
    t_c, t_m = terms
    compute_bound = np.isfinite(t_c) & ((t_c > t_m) | np.isnan(t_m))  # the analysis's bound (roofline.py)
    vector = pairs["unit"].to_numpy() == "vector"
    return np.where(vector & ~compute_bound, memory, compute)


def _source_terms(pairs: pd.DataFrame, chips: dict[str, Chip]) -> tuple[np.ndarray, np.ndarray]:
    """``F / P`` and ``B / BW`` on the source chip's advertised values (the bound the analysis gives a kernel)."""
    peak = _per_key(pairs, ["source_chip", "unit", "dtype"], lambda c, u, d: advertised_peak(chips[c], u, d) or np.nan)
    bw = _per_key(pairs, ["source_chip"], lambda c: chips[c].value("hbm_bandwidth_gbs") or np.nan)
    return roofline_terms(pairs["flops"].to_numpy(), pairs["bytes"].to_numpy(), peak, bw)


def predict_pairs(pairs: pd.DataFrame, chips: dict[str, Chip], table: ModelTable, model: str, basis: str,
                  rules: list[Rule] | None = None, terms: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Each pair's predicted target time (µs) by ``model`` on ``basis`` (NaN: a rate it needs is not published).

    ``terms`` (``F / P`` and ``B / BW`` on the source's advertised values) are worked out when not given.
    """
    rules = list(DEFAULT_RULES if rules is None else rules)
    r = _rates(pairs, chips, rules, Basis(basis, model=model, parameters=table))
    ratio = _class_ratio(pairs, r, terms if terms is not None else _source_terms(pairs, chips))
    if model == ROOFLINE:
        flops, nbytes = pairs["flops"].to_numpy(), pairs["bytes"].to_numpy()
        floor_s, floor_t = _floors(pairs, chips, table, basis == FITTED)
        bw_s, bw_t = r["source_bw"], r["target_bw"]
        if basis == FITTED:  # each kernel category's own memory efficiency (roofline_model.category_memory_factors)
            bw_s, bw_t = (bw * _per_key(pairs, [column, "category"],
                                        lambda chip, cat: table.memory_factor(chip, cat, chips[chip].die))
                          for bw, column in ((bw_s, "source_chip"), (bw_t, "target_chip")))
        t_s = attainable_us(flops, nbytes, r["source_peak"], bw_s, floor_s, table.power)
        t_t = attainable_us(flops, nbytes, r["target_peak"], bw_t, floor_t, table.power)
        has_work = (flops > 0) | (nbytes > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(has_work, t_t / t_s, ratio)
    return pairs["source_us"].to_numpy() * ratio


def accuracy_table(corpus: pd.DataFrame, catalog: ChipCatalog, table: ModelTable) -> pd.DataFrame:
    """Every corpus pair with its split, report category, direction and, per combination, predicted time and error.

    Columns beyond :data:`~mfu_desktop.core.predict.corpus.PAIR_COLUMNS`: ``held_out``,
    ``error_category`` (GEMM split by its bound on the source chip), ``pair_class``, ``upward``
    (the target has more HBM bandwidth: each unordered pair counted once in the headline), and
    ``<model>/<basis>_us`` / ``_error`` per :data:`COMBINATIONS`.
    """
    pairs = corpus_pairs(corpus)
    chips = {name: catalog.find(name) for name in pd.unique(pd.concat([pairs["source_chip"], pairs["target_chip"]]))}
    out = pairs.copy()
    out["held_out"] = held_out_pairs(pairs)
    t_c, t_m = _source_terms(pairs, chips)
    codes = error_categories(pairs["category"].to_numpy(), t_c, t_m)
    out["error_category"] = pd.Categorical.from_codes(codes, categories=list(ERROR_CATEGORIES))
    classes = _per_key(pairs, ["source_chip", "target_chip"],
                       lambda s, t: float(pair_class(chips[s].vendor, chips[t].vendor) == "same vendor"))
    out["pair_class"] = np.where(classes > 0, "same vendor", "cross vendor")
    bandwidth = {name: chip.value("hbm_bandwidth_gbs") or 0.0 for name, chip in chips.items()}
    src_bw, tgt_bw = pairs["source_chip"].map(bandwidth), pairs["target_chip"].map(bandwidth)
    tie = (tgt_bw == src_bw) & (pairs["target_chip"] > pairs["source_chip"])
    out["upward"] = ((tgt_bw > src_bw) | tie).to_numpy()
    measured = pairs["target_us"].to_numpy()
    for model, basis in COMBINATIONS:
        name = combination(model, basis)
        predicted = predict_pairs(pairs, chips, table, model, basis, terms=(t_c, t_m))
        out[f"{name}_us"] = predicted
        out[f"{name}_error"] = predicted / measured - 1.0
    return out

