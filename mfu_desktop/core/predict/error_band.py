"""The error to expect on *this* profile: the report's held-out error bands weighted by its kernel mix.

``resources/accuracy_bands.csv`` (written by ``tools/accuracy.py`` with ``docs/accuracy.md``) gives,
per model, basis, pair class (same / cross vendor) and report category, the 10 %, 50 % and 90 %
quantiles of the signed per-kernel error on the held-out pairs. A profile's band on one target is
the time-weighted mix of its categories' quantiles::

    band_q = Σ_c share_c · q_c(model, basis, pair class)      q ∈ {p10, median, p90}

That is the band of one kernel drawn from the profile's mix; the error of the profile's total is
usually narrower (the errors of different kernels partly cancel), so the band is a cautious one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.chips.catalog import Chip
from mfu_desktop.core.paths import shipped_file
from mfu_desktop.core.predict.basis import ROOFLINE
from mfu_desktop.core.predict.error_categories import BASE_CATEGORIES, ERROR_CATEGORIES
from mfu_desktop.core.predict.kernel_model import group_times
from mfu_desktop.core.predict.kernels import KernelInputs
from mfu_desktop.core.predict.peaks import advertised_peak


def bands_path() -> Path:
    """The shipped band table."""
    return shipped_file("resources/accuracy_bands.csv")


@functools.lru_cache(maxsize=1)
def shipped_bands() -> pd.DataFrame:
    """The shipped band table (read once per process); empty when it is missing or unreadable."""
    try:
        return pd.read_csv(bands_path())
    except (OSError, ValueError):
        return pd.DataFrame()


@dataclass(frozen=True)
class ErrorBand:
    """The expected error of a target's prediction for the profile's kernel mix (signed fractions)."""

    p10: float
    median: float
    p90: float
    pair_class: str
    pairs: int

    @property
    def text(self) -> str:
        """``−12 % … +9 % (median −2 %)``."""
        def pct(v: float) -> str:
            return f"{v * 100:+.0f} %".replace("-", "−")
        return f"{pct(self.p10)} … {pct(self.p90)} (median {pct(self.median)})"

    def to_json(self) -> dict[str, object]:
        """The band in the JSON contract (``predict --json``: each target's ``error_band``)."""
        return {"p10": self.p10, "median": self.median, "p90": self.p90, "pair_class": self.pair_class,
                "pairs": self.pairs}


def _gemm_split(inputs: KernelInputs, source: Chip) -> tuple[np.ndarray, np.ndarray]:
    """Per group: the roofline time of its GEMM kernels that are compute-bound, and memory-bound, on the source."""
    n = len(inputs.groups)
    shapes = inputs.shapes
    if shapes.empty:
        return np.zeros(n), np.zeros(n)
    g = inputs.groups
    peak = np.array([advertised_peak(source, u, p) or np.nan for u, p in zip(g["unit"], g["precision"])])
    group = shapes["group"].to_numpy()
    bw = source.value("hbm_bandwidth_gbs") or np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        t_c = shapes["flops"].to_numpy() * 1e-6 / peak[group]
        t_m = shapes["bytes"].to_numpy() * 1e-3 / bw
    memory_bound = np.where(np.isnan(t_c), np.isfinite(t_m), t_m >= t_c)
    dur = shapes["duration_us"].to_numpy()
    return (np.bincount(group, weights=np.where(memory_bound, 0.0, dur), minlength=n),
            np.bincount(group, weights=np.where(memory_bound, dur, 0.0), minlength=n))


def rank_mix(inputs: KernelInputs, source: Chip) -> np.ndarray:
    """Compute-class time (µs) of one rank per report category (:data:`ERROR_CATEGORIES` order)."""
    out = np.zeros(len(ERROR_CATEGORIES))
    g = inputs.groups
    if g.empty:
        return out
    compute, memory, _ = group_times(g, ROOFLINE)  # the GEMM roofline time is split by bound below
    roof_compute, roof_memory = _gemm_split(inputs, source)
    category = g["category"].to_numpy(dtype=object) if "category" in g.columns else np.full(len(g), "other")
    duration = g["duration_us"].to_numpy(dtype=np.float64)
    gemm = category == "gemm"
    out[0] = float((compute + roof_compute)[gemm].sum())
    out[1] = float((memory + roof_memory)[gemm].sum())
    for i, name in enumerate(BASE_CATEGORIES[1:], start=2):
        out[i] = float(duration[category == name].sum())
    return out


def profile_mix(inputs: dict[int, KernelInputs], steps: dict[int, int], source: Chip) -> np.ndarray:
    """Per report category: compute-class time per step, mean per rank."""
    if not inputs:
        return np.zeros(len(ERROR_CATEGORIES))
    return np.mean([rank_mix(inp, source) / steps[rank] for rank, inp in inputs.items()], axis=0)


#: One band: 10 %, 50 % and 90 % quantiles of the signed error, and how many pairs they rest on.
Quantiles = tuple[float, float, float, int]


def band_index(bands: pd.DataFrame) -> dict[tuple[str, str, str, str], Quantiles]:
    """The band table by (model, basis, pair class, category)."""
    if bands.empty:
        return {}
    return {(r.model, r.basis, r.pair_class, r.category): (float(r.p10), float(r.median), float(r.p90), int(r.pairs))
            for r in bands.itertuples(index=False)}


@functools.lru_cache(maxsize=1)
def _shipped_index() -> dict[tuple[str, str, str, str], Quantiles]:
    return band_index(shipped_bands())


def error_band(mix: np.ndarray, model: str, basis: str, source: Chip, target: Chip,
               bands: pd.DataFrame | None = None) -> ErrorBand | None:
    """The band of ``target`` for a kernel mix, or ``None`` when the report measured nothing that applies."""
    index = _shipped_index() if bands is None else band_index(bands)
    total = float(np.sum(mix))
    if not index or total <= 0:
        return None
    pair = "same vendor" if source.vendor.lower() == target.vendor.lower() else "cross vendor"
    q = np.zeros(3)
    pairs = 0
    for share, category in zip(mix / total, ERROR_CATEGORIES):
        if share <= 0:
            continue
        row = _band_row(index, model, basis, pair, category)
        if row is None:
            return None
        q += share * np.array(row[:3])
        pairs += row[3]
    return ErrorBand(float(q[0]), float(q[1]), float(q[2]), pair, pairs)


def _band_row(index: dict, model: str, basis: str, pair: str, category: str) -> Quantiles | None:
    """The most specific band measured: this class and category, else this class overall, else any class."""
    for p, c in ((pair, category), (pair, "all"), ("any", category), ("any", "all")):
        hit = index.get((model, basis, p, c))
        if hit is not None:
            return hit
    return None
