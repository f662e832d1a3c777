"""What a timeline colours each kernel by: one figure (or category) per kernel, per colouring.

* ``lost`` (default): the share of the kernel's time it keeps, ``1 − lost / duration`` — its
  roofline utilisation where it has bytes, ``MFU`` for a counted kernel without (the analysis'
  lost time, mfu.md §6). Coloured with the MFU bands, so red is a kernel that loses most of its
  time; a column of tiny kernels shows ``1 − Σ lost / Σ time`` of what it covers.
* ``mfu``: the figure the hot-operator chart colours by — MFU, or bandwidth utilisation for a
  memory-bound kernel (:func:`~mfu_desktop.core.analysis.kernel_roofline.judged_values`).
* ``family``: the operator family (:mod:`mfu_desktop.core.analysis.families`).
* ``stream``: the stream the kernel ran on.

Kernels the roofline does not judge (communication, AI CPU …) have no figure (NaN) and are
drawn neutral.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.families import family_codes, family_names
from mfu_desktop.core.analysis.kernel_roofline import judged_values
from mfu_desktop.core.readers import columns as C

#: The colourings, in the order the window lists them.
COLOR_MODES = ("lost", "mfu", "family", "stream")
#: Colourings by a figure (the MFU band table); the others are by category.
BAND_MODES = ("lost", "mfu")


@dataclass(frozen=True)
class KernelColors:
    """One colouring of a rank's kernels.

    Attributes:
        mode: One of :data:`COLOR_MODES`.
        value: The figure per kernel (band colourings; NaN: none), else ``None``.
        category: The category per kernel (−1: none), else ``None``.
        labels: The categories' names (``category`` indexes them).
    """

    mode: str
    value: np.ndarray | None
    category: np.ndarray | None
    labels: tuple[str, ...] = ()


def kept_share(frame: pd.DataFrame) -> np.ndarray:
    """``1 − lost / duration`` per kernel: the share of its time a kernel keeps (NaN when it is not judged)."""
    dur = frame[C.DURATION_US].to_numpy(dtype=np.float64)
    if "lost_us" not in frame.columns:
        return np.full(len(frame), np.nan)
    lost = frame["lost_us"].to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(dur > 0, np.clip(1.0 - lost / dur, 0.0, 1.0), np.nan)


def stream_codes(frame: pd.DataFrame) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each kernel's stream as an index into the distinct streams (−1: none), and their labels."""
    if C.STREAM_ID not in frame.columns:
        return np.full(len(frame), -1, dtype=np.int64), ()
    ids = pd.to_numeric(frame[C.STREAM_ID], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    ok = np.isfinite(ids) & (ids >= 0)
    uniques, codes = np.unique(ids[ok], return_inverse=True)
    out = np.full(len(frame), -1, dtype=np.int64)
    out[ok] = codes
    return out, tuple(f"stream {int(u)}" for u in uniques)


def kernel_colors(frame: pd.DataFrame, mode: str) -> KernelColors:
    """The colouring ``mode`` of an annotated kernel frame (see the module docstring).

    Raises:
        ValueError: When ``mode`` is not one of :data:`COLOR_MODES`.
    """
    if mode == "lost":
        return KernelColors(mode, kept_share(frame), None)
    if mode == "mfu":
        return KernelColors(mode, judged_values(frame), None)
    if mode == "family":
        types = frame[C.OP_TYPE] if C.OP_TYPE in frame.columns else pd.Series([None] * len(frame))
        names = frame[C.NAME] if C.NAME in frame.columns else None
        return KernelColors(mode, None, family_codes(types, names), family_names())
    if mode == "stream":
        codes, labels = stream_codes(frame)
        return KernelColors(mode, None, codes, labels)
    raise ValueError(f"unknown colouring {mode!r} (one of {', '.join(COLOR_MODES)})")
