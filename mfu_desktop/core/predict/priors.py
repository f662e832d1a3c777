"""The efficiencies a chip is expected to reach before any fit: its own measurements, else the catalog's median.

The fitted basis (:mod:`~mfu_desktop.core.predict.model_fit`) pulls a chip's fitted efficiencies towards
these priors (strongly when the chip has few training rows), and a chip without fitted values of its own
or of its die uses them directly:

* **compute** — the chip's measured maximum achievable matmul rate over its advertised peak (MAMF / peak,
  the median over the precisions measured; an MI300X's 668 of 1307 TFLOP/s BF16 → 0.51); without a
  measurement, the median of that ratio over the catalog's measured chips;
* **memory** — its measured HBM bandwidth over the advertised one; else the catalog's median.
"""

from __future__ import annotations

import numpy as np

from mfu_desktop.core.chips.catalog import ACHIEVABLE_BW_COLUMN, MAMF_COLUMNS, Chip, ChipCatalog
from mfu_desktop.core.predict.peaks import advertised_peak


def _compute_ratios(chip: Chip) -> list[float]:
    ratios = []
    for precision, column in MAMF_COLUMNS.items():
        measured, peak = chip.value(column), advertised_peak(chip, "cube", precision)
        if measured and peak:
            ratios.append(measured / peak)
    return ratios


def _memory_ratio(chip: Chip) -> float | None:
    measured, advertised = chip.value(ACHIEVABLE_BW_COLUMN), chip.value("hbm_bandwidth_gbs")
    return measured / advertised if measured and advertised else None


def catalog_priors(catalog: ChipCatalog) -> tuple[float, float]:
    """Median measured/advertised matmul rate and HBM bandwidth over the catalog's chips that have them."""
    compute = [r for chip in catalog.chips for r in _compute_ratios(chip)]
    memory = [r for chip in catalog.chips if (r := _memory_ratio(chip)) is not None]
    return (float(np.median(compute)) if compute else 1.0), (float(np.median(memory)) if memory else 1.0)


def chip_priors(chip: Chip, default: tuple[float, float]) -> tuple[float, float]:
    """The chip's own compute and memory priors where it was measured, else ``default`` (:func:`catalog_priors`)."""
    compute = _compute_ratios(chip)
    memory = _memory_ratio(chip)
    return (float(np.median(compute)) if compute else default[0]), (memory if memory is not None else default[1])
