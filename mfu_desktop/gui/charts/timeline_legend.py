"""The timeline's legend: what each colour means for the colouring shown (one line of rich text)."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QCoreApplication

from mfu_desktop.core.formulas.mfu import BAND_ORDER
from mfu_desktop.gui.bands import BAND_RGB, UNKNOWN_RGB
from mfu_desktop.gui.charts.common import SEGMENT_COLORS
from mfu_desktop.gui.charts.timeline_raster import HOST_RGB, category_palette
from mfu_desktop.gui.charts.timeline_scene import COUNTER, HOST, Scene
from mfu_desktop.gui.core_text import ct

translate = QCoreApplication.translate  # the "Timeline" context

#: Categories listed at most (the rest are summed up as "…").
MAX_ENTRIES = 14


def _swatch(rgb: tuple[int, int, int], text: str) -> str:
    r, g, b = rgb
    return f'<span style="color: rgb({r},{g},{b}); font-size: 13pt;">■</span>&nbsp;{escape(text)}'


def _band_entries(mode: str) -> list[tuple[tuple[int, int, int], str]]:
    """The MFU bands, labelled as kept-time shares (lost) or as MFU / bandwidth utilisation."""
    if mode == "lost":
        texts = [translate("Timeline", "≥ 80 % of its time lost"), translate("Timeline", "70–80 % lost"),
                 translate("Timeline", "40–70 % lost"), translate("Timeline", "30–40 % lost"),
                 translate("Timeline", "< 30 % lost")]
        none = translate("Timeline", "not judged (communication, AI CPU …)")
    else:
        texts = [translate("Timeline", "MFU / BW < 20 %"), "20–30 %", "30–60 %", "60–70 %", "≥ 70 %",
                 translate("Timeline", "> 100 % (impossible)")]
        none = translate("Timeline", "no MFU or bandwidth figure")
    return [*((BAND_RGB[b], t) for b, t in zip(BAND_ORDER, texts)), (UNKNOWN_RGB, none)]


def legend_html(scene: Scene) -> str:
    """The legend of ``scene``: the kernel colours, the breakdown colours, host operators and memory."""
    if scene.mode in ("lost", "mfu"):
        entries = _band_entries(scene.mode)
    else:
        palette = category_palette(scene.mode, len(scene.labels))
        names = [ct(n) for n in scene.labels[:MAX_ENTRIES]]
        entries = [(tuple(int(v) for v in palette[i]), n) for i, n in enumerate(names)]
        if len(scene.labels) > MAX_ENTRIES:
            entries.append((UNKNOWN_RGB, "…"))
    parts = [_swatch(rgb, text) for rgb, text in entries]
    parts.append("&nbsp;|&nbsp;" + _swatch(SEGMENT_COLORS[0], translate("Timeline", "computing")))
    parts.append(_swatch(SEGMENT_COLORS[1], translate("Timeline", "communication (not overlapped)")))
    parts.append(_swatch(SEGMENT_COLORS[2], translate("Timeline", "free")))
    if any(t.kind == HOST for t in scene.tracks):
        parts.append(_swatch(HOST_RGB, translate("Timeline", "host operators")))
    counter = next((t for t in scene.tracks if t.kind == COUNTER), None)
    if counter is not None:
        parts.append(escape(translate("Timeline", "memory ({0}): allocated (solid), reserved (dashed)").format(
            counter.detail)))
    return "&nbsp;&nbsp;".join(parts)
