"""The roofline model for kernels without pipe counters: ``measured × T̂_target / T̂_source`` (issue 23).

``T̂`` on each chip is the kernel's attainable time from its FLOPs and bytes on that chip's
effective peak and bandwidth (the basis), plus the chip's latency floor for the kernel's category
(:mod:`~mfu_desktop.core.predict.attainable`, :mod:`~mfu_desktop.core.predict.model_table`). A GEMM that
is compute-bound on one chip and memory-bound on the other is handled by construction: each chip's
``T̂`` takes its own bound. Computed once per distinct (group, FLOPs, bytes), never per kernel.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfu_desktop.core.chips.catalog import Chip
from mfu_desktop.core.predict.attainable import attainable_us
from mfu_desktop.core.predict.error_categories import BASE_CATEGORIES
from mfu_desktop.core.predict.model_table import ModelTable


def category_floors(table: ModelTable, chip: Chip, fitted: bool = False) -> np.ndarray:
    """The chip's latency floor (µs) per base category, in :data:`BASE_CATEGORIES` order (``fitted``: that basis's)."""
    floors = [table.floor_us(chip.identifier, c, fitted, chip.die)[0] for c in BASE_CATEGORIES]
    return np.array(floors, dtype=np.float64)


def category_memory_factors(table: ModelTable, chip: Chip, fitted: bool) -> np.ndarray:
    """Per base category, the fitted basis's memory efficiency relative to the chip's (ones on the other bases)."""
    if not fitted:
        return np.ones(len(BASE_CATEGORIES))
    return np.array([table.memory_factor(chip.identifier, c, chip.die) for c in BASE_CATEGORIES], dtype=np.float64)


def shape_ratios(shapes: pd.DataFrame, source_peak: np.ndarray, target_peak: np.ndarray,
                 bandwidths: tuple[float | None, float | None], floors: tuple[np.ndarray, np.ndarray],
                 power: float, memory_factors: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """``T̂_target / T̂_source`` per distinct shape; NaN where a rate the shape needs is unknown.

    Args:
        shapes: :attr:`~mfu_desktop.core.predict.kernels.KernelInputs.shapes`.
        source_peak: Per group, the source chip's effective peak (TFLOP/s; NaN: unknown).
        target_peak: Per group, the target chip's.
        bandwidths: Source and target effective HBM bandwidth (GB/s; ``None``: unknown).
        floors: Source and target floors per base category (:func:`category_floors`).
        power: ``p`` of the smooth roofline.
        memory_factors: Source and target bandwidth factors per base category (:func:`category_memory_factors`;
            ``None``: 1).
    """
    if shapes.empty:
        return np.array([], dtype=np.float64)
    group = shapes["group"].to_numpy()
    category = shapes["category"].to_numpy().astype(np.intp)
    flops, nbytes = shapes["flops"].to_numpy(dtype=np.float64), shapes["bytes"].to_numpy(dtype=np.float64)
    p_s, p_t = np.asarray(source_peak, dtype=np.float64)[group], np.asarray(target_peak, dtype=np.float64)[group]
    bw_s, bw_t = (np.nan if b is None else float(b) for b in bandwidths)
    if memory_factors is not None:
        bw_s, bw_t = bw_s * memory_factors[0][category], bw_t * memory_factors[1][category]
    t_s = attainable_us(flops, nbytes, p_s, bw_s, floors[0][category], power)
    t_t = attainable_us(flops, nbytes, p_t, bw_t, floors[1][category], power)
    needs_peak, needs_bw = flops > 0, nbytes > 0
    known = (~needs_peak | (np.isfinite(p_s) & np.isfinite(p_t))) & \
        (~needs_bw | (np.isfinite(bw_s) & np.isfinite(bw_t)))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = t_t / t_s
    return np.where(known & np.isfinite(ratio), ratio, np.nan)


def group_sums(shapes: pd.DataFrame, ratio: np.ndarray, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group: predicted time of its roofline kernels, and whether any of them is unpredictable."""
    if shapes.empty:
        return np.zeros(groups), np.zeros(groups, dtype=bool)
    group = shapes["group"].to_numpy()
    predicted = shapes["duration_us"].to_numpy(dtype=np.float64) * ratio
    bad = np.bincount(group, weights=(~np.isfinite(predicted)).astype(np.float64), minlength=groups) > 0
    return np.bincount(group, weights=np.nan_to_num(predicted), minlength=groups), bad
