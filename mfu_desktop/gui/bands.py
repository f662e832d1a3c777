"""The colours of the MFU bands (core.mfu.mfu_band): the one table every card, cell and chart uses."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor

from mfu_desktop.core.formulas.mfu import BAND_ORDER, MfuBand, mfu_band, mfu_band_codes

translate = QCoreApplication.translate

#: Red far from peak … green near the limit; magenta for the impossible (> 100 %).
BAND_RGB: dict[MfuBand, tuple[int, int, int]] = {
    MfuBand.FAR: (210, 60, 50),
    MfuBand.LOW: (235, 130, 40),
    MfuBand.MEDIUM: (215, 175, 30),
    MfuBand.GOOD: (60, 170, 90),
    MfuBand.NEAR_LIMIT: (30, 135, 65),
    MfuBand.IMPOSSIBLE: (190, 60, 190),
}
#: Bars and points whose MFU is unknown.
UNKNOWN_RGB = (150, 150, 160)
#: Table cells are tinted, not filled: the text stays readable in both themes.
CELL_ALPHA = 80


def _known(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not math.isnan(float(value))


def band_qcolor(value: object, alpha: int = 255) -> QColor | None:
    """Colour of the band of ``value`` (None when unknown)."""
    if not _known(value):
        return None
    return QColor(*BAND_RGB[mfu_band(float(value))], alpha)  # type: ignore[arg-type]


def band_css(value: float | None) -> str | None:
    """CSS colour of the band of ``value`` (None when unknown)."""
    color = band_qcolor(value)
    return color.name() if color is not None else None


def band_brushes(values: np.ndarray) -> list:
    """One brush per value, vectorised (seven shared brushes, no Python call per value)."""
    palette = [pg.mkBrush(*BAND_RGB[band]) for band in BAND_ORDER] + [pg.mkBrush(*UNKNOWN_RGB)]
    codes = mfu_band_codes(values)
    return list(np.array(palette, dtype=object)[np.where(codes < 0, len(BAND_ORDER), codes)])


def band_brush(value: float | None) -> QColor:
    """Bar colour of one value (grey when unknown)."""
    color = band_qcolor(value)
    return color if color is not None else QColor(*UNKNOWN_RGB)


def band_legend_labels() -> list[tuple[tuple[int, int, int], str]]:
    """(colour, text) of each band and of "no figure", for chart legends (texts translated)."""
    texts = {MfuBand.FAR: translate("Bands", "< 20 %"), MfuBand.LOW: translate("Bands", "20–30 %"),
             MfuBand.MEDIUM: translate("Bands", "30–60 %"), MfuBand.GOOD: translate("Bands", "60–70 %"),
             MfuBand.NEAR_LIMIT: translate("Bands", "≥ 70 %"),
             MfuBand.IMPOSSIBLE: translate("Bands", "> 100 % (impossible)")}
    return [(BAND_RGB[band], texts[band]) for band in BAND_ORDER] + [(UNKNOWN_RGB, translate("Bands", "no figure"))]
