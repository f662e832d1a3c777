"""The timeline's pixels: each visible track reduced to pixel columns and coloured, as one RGBA image.

Colours are the app's: the MFU bands of the hot-operator chart (:data:`mfu_desktop.gui.bands.BAND_RGB`)
for the ``lost`` and ``mfu`` colourings, the roofline's family colours, the step-breakdown
colours of the breakdown chart. A column's opacity says how busy it is (a column a kernel fills
is opaque, one with a few tiny kernels faint), so gaps stay visible at every zoom. A kernel at
least four pixels wide gets a darker first column: neighbouring kernels stay apart.

Highlighted kernels (an operator group chosen elsewhere) keep their colour and get a marker
line above and below; everything else on the kernel rows fades. No Qt: plain numpy, so the
same code is timed by the benchmark.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from mfu_desktop.core.analysis.timeline_colors import BAND_MODES
from mfu_desktop.core.analysis.timeline_lod import LaneColumns, mark_columns, reduce_lane
from mfu_desktop.core.formulas.mfu import BAND_ORDER, mfu_band_codes
from mfu_desktop.gui.bands import BAND_RGB, UNKNOWN_RGB
from mfu_desktop.gui.charts.common import FAMILY_COLORS, SEGMENT_COLORS
from mfu_desktop.gui.charts.timeline_scene import BREAKDOWN, HOST, KERNELS, STEPS, Scene, Track

#: Image rows per track: the first and the last are the gap between tracks (and the highlight marker).
SUB_ROWS = 8
#: Colours of what is not a kernel.
HOST_RGB = (112, 124, 150)
STEP_RGB = ((196, 198, 210), (158, 162, 182))
HIGHLIGHT_RGB = (20, 100, 230)
#: Streams cycle through these (a categorical palette distinct from the band colours).
STREAM_COLORS = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189), (140, 86, 75), (227, 119, 194),
                 (23, 190, 207), (188, 189, 34))
#: Opacity of a column its items barely touch, and of a full one.
MIN_ALPHA, MAX_ALPHA = 90, 255
#: How much a non-highlighted kernel column keeps of its opacity while a highlight is shown.
FADED = 0.22


@cache
def band_palette() -> np.ndarray:
    """The MFU band colours in :data:`BAND_ORDER`, then grey for "no figure"."""
    return np.array([BAND_RGB[b] for b in BAND_ORDER] + [UNKNOWN_RGB], dtype=np.uint8)


def category_palette(mode: str, count: int) -> np.ndarray:
    """Colours of a categorical colouring's ``count`` categories (cycled), then grey for "none"."""
    base = FAMILY_COLORS if mode == "family" else STREAM_COLORS
    return np.array([base[i % len(base)] for i in range(max(count, 1))] + [UNKNOWN_RGB], dtype=np.uint8)


def _codes(values: np.ndarray, palette_size: int) -> np.ndarray:
    """Category codes → palette rows (−1 → the last row, grey)."""
    return np.where((values < 0) | (values >= palette_size - 1), palette_size - 1, values)


def track_colors(track: Track, cols: LaneColumns, mode: str, labels: tuple[str, ...]) -> np.ndarray:
    """The RGB of each column of one track (``(width, 3)`` uint8)."""
    width = len(cols.coverage)
    if track.kind == KERNELS and mode in BAND_MODES and cols.value is not None:
        palette = band_palette()
        codes = mfu_band_codes(cols.value)
        return palette[np.where(codes < 0, len(palette) - 1, codes)]
    if track.kind == KERNELS and cols.category is not None:
        palette = category_palette(mode, len(labels))
        return palette[_codes(cols.category, len(palette))]
    if track.kind == BREAKDOWN and cols.category is not None:
        palette = np.array([*SEGMENT_COLORS[:3], UNKNOWN_RGB], dtype=np.uint8)
        return palette[_codes(cols.category, len(palette))]
    if track.kind == STEPS and cols.category is not None:
        palette = np.array([*STEP_RGB, UNKNOWN_RGB], dtype=np.uint8)
        return palette[_codes(cols.category, len(palette))]
    return np.broadcast_to(np.array(HOST_RGB if track.kind == HOST else UNKNOWN_RGB, dtype=np.uint8), (width, 3))


def _alpha(cols: LaneColumns) -> np.ndarray:
    busy = cols.coverage > 0
    return np.where(busy, MIN_ALPHA + (MAX_ALPHA - MIN_ALPHA) * cols.coverage, 0.0)


def track_pixels(track: Track, scene: Scene, t0: float, t1: float, width: int,
                 highlight: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """One track's rows of the image: ``(SUB_ROWS, width, 4)`` uint8.

    Args:
        track: The track.
        scene: The scene (its colouring).
        t0: View start (µs).
        t1: View end (µs).
        width: Columns.
        highlight: Start and end (µs) of the track's highlighted items, when a highlight is shown.
    """
    out = np.zeros((SUB_ROWS, width, 4), dtype=np.uint8)
    if track.index is None:
        return out
    cols = reduce_lane(track.index, t0, t1, width)
    rgb = track_colors(track, cols, scene.mode, scene.labels).astype(np.float32)
    alpha = _alpha(cols)
    if track.kind in (KERNELS, HOST):
        rgb[cols.edges] *= 0.55
    marked = None
    if highlight is not None and track.kind == KERNELS:
        marked = mark_columns(highlight[0], highlight[1], t0, t1, width)
        alpha = np.where(marked, MAX_ALPHA, alpha * FADED)
    out[1:-1, :, :3] = rgb.astype(np.uint8)[None]
    out[1:-1, :, 3] = alpha.astype(np.uint8)[None]
    if marked is not None and marked.any():
        out[0, marked] = (*HIGHLIGHT_RGB, 255)
        out[-1, marked] = (*HIGHLIGHT_RGB, 255)
    return out


def scene_image(scene: Scene, first: int, last: int, t0: float, t1: float, width: int,
                highlights: dict[int, tuple[np.ndarray, np.ndarray]] | None = None) -> np.ndarray:
    """Tracks ``first`` to ``last − 1`` as one image, ``((last − first) · SUB_ROWS, width, 4)`` uint8.

    Args:
        scene: What to draw.
        first: First track drawn.
        last: One past the last track drawn.
        t0: View start (µs).
        t1: View end (µs).
        width: Columns (the view's width in pixels).
        highlights: Per track, the highlighted items' starts and ends (``None``: no highlight shown).
    """
    width = max(int(width), 1)
    parts = []
    for i in range(first, last):
        hl = None
        if highlights is not None:
            empty = (np.zeros(0), np.zeros(0))
            hl = highlights.get(i, empty)
        parts.append(track_pixels(scene.tracks[i], scene, t0, t1, width, hl))
    if not parts:
        return np.zeros((SUB_ROWS, width, 4), dtype=np.uint8)
    return np.concatenate(parts, axis=0)
