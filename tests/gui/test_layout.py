"""Every tab and every Profiler view, at 1024×700, 1280×800 and 1920×1080, in English and 简体中文.

The test fails when a card's title, a chart's title, an axis title or a legend entry is cut, when
two tick labels of an axis overlap, or when the window cannot be as small as asked. The views are
taken from the Profiler tab itself, so a view registered in ``gui/views/registry.py`` is checked
the day it lands. Set ``MFU_LAYOUT_SHOTS=/some/folder`` to also write every rendering as a PNG.
"""

from __future__ import annotations

import os
from itertools import combinations
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QLabel, QWidget

from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.gui.charts.axes import FittedAxis
from mfu_desktop.gui.charts.common import ChartPage
from mfu_desktop.gui.charts.legend import ChartLegend
from mfu_desktop.gui.widgets import Card
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui

SIZES = ((1024, 700), (1280, 800), (1920, 1080))


def wrapped_label_fits(label: QLabel) -> bool:
    """A word-wrapped label shows every line (and no word is wider than the label)."""
    width = label.contentsRect().width()
    metrics = QFontMetrics(label.font())
    words_fit = all(metrics.horizontalAdvance(word) <= width + 1 for word in label.text().split())
    return words_fit and label.heightForWidth(label.width()) <= label.height() + 1


def one_line_fits(label: QLabel) -> bool:
    """A label shows its whole text on one line."""
    return QFontMetrics(label.font()).horizontalAdvance(label.text()) <= label.contentsRect().width() + 1


def tick_rects(axis: pg.AxisItem) -> list[tuple[QRectF, str]]:
    """The tick labels the axis draws: what was painted (a fitted axis), else its draw specs now."""
    if isinstance(axis, FittedAxis):
        return [(rect, text) for rect, _, text in axis.drawn]
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect, text) for rect, _, text in (specs[2] if specs else [])]


def axis_problems(where: str, plot: pg.PlotWidget) -> list[str]:
    """Axis titles longer than their axis, tick labels that overlap."""
    problems = []
    for name in ("left", "bottom"):
        axis = plot.getPlotItem().getAxis(name)
        if not axis.isVisible():
            continue
        length = axis.height() if name == "left" else axis.width()
        if axis.label.isVisible() and axis.labelText:
            margin = axis.label.document().documentMargin()  # the text item's own blank border
            box = axis.label.mapRectToParent(axis.label.boundingRect()).adjusted(margin, margin, -margin, -margin)
            across = box.bottom() > axis.height() + 1 if name == "bottom" else box.left() < -1.5
            if axis.label.boundingRect().width() > length + 1 or across:
                problems.append(f"{where}: {name} axis title cut: {axis.labelText!r}")
        rects = tick_rects(axis)
        for (a, ta), (b, tb) in combinations(rects, 2):
            if a.intersects(b):
                problems.append(f"{where}: {name} tick labels overlap: {ta!r} / {tb!r}")
                break
    return problems


def page_problems(where: str, root: QWidget) -> list[str]:
    """Every visible card, chart title, legend and plot under ``root``."""
    problems = []
    for card in root.findChildren(Card):
        if card.isVisible() and not wrapped_label_fits(card.caption):
            problems.append(f"{where}: card title cut: {card.caption.text()!r}")
    for label in root.findChildren(QLabel, "chartTitle"):
        if label.isVisible() and not wrapped_label_fits(label):
            problems.append(f"{where}: chart title cut: {label.text()!r}")
    for legend in root.findChildren(ChartLegend):
        if not legend.isVisible():
            continue
        for entry in legend.entries.values():
            if entry.isVisible() and (not one_line_fits(entry.label) or
                                      not legend.rect().contains(entry.geometry())):
                problems.append(f"{where}: legend entry cut: {entry.text!r}")
    for chart in root.findChildren(QWidget):
        page = getattr(chart, "page", None)
        if isinstance(page, ChartPage) and chart.isVisible() and not page.showing_message and \
                chart.height() < chart.minimumSizeHint().height() - 1:  # its plot hangs out of it: clipped
            problems.append(f"{where}: {type(chart).__name__} squeezed to {chart.height()} px "
                            f"(needs {chart.minimumSizeHint().height()})")
    for plot in root.findChildren(pg.PlotWidget):
        if plot.isVisible():
            if plot.height() < plot.minimumHeight() - 1:  # squeezed: its axes and titles are clipped
                problems.append(f"{where}: a chart squeezed to {plot.height()} px (needs {plot.minimumHeight()})")
            problems += axis_problems(where, plot)
    return problems


def pages(window) -> list[tuple[str, callable]]:
    """Every tab and every Profiler view (the registered plug-ins included), as (name, show)."""
    out = [(window.tabs.tabText(i), lambda i=i: window.tabs.setCurrentIndex(i))
           for i in range(window.tabs.count()) if window.tabs.widget(i) is not window.profiler]
    profiler = window.profiler
    for i in range(profiler.tabs.count()):
        out.append((f"Profiler/{profiler.tabs.tabText(i)}",
                    lambda i=i: (window.tabs.setCurrentWidget(profiler), profiler.tabs.setCurrentIndex(i))))
    return out


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_every_tab_and_view_fits_the_three_screen_sizes(make_window, qtbot, lang):
    shots = os.environ.get("MFU_LAYOUT_SHOTS")
    window = make_window("--demo", "--lang", lang, "--tab", "profiler", "--rank", "5",
                         "--compare", str(demo_profile_dir()))
    wait_idle(qtbot, window, timeout=180000)
    problems: list[str] = []
    for width, height in SIZES:
        window.resize(width, height)
        qtbot.wait(30)
        if (window.width(), window.height()) != (width, height):
            problems.append(f"{width}×{height}: the window cannot be that small ({window.width()}×{window.height()})")
        for name, show in pages(window):
            show()
            wait_idle(qtbot, window, timeout=60000)
            image = window.grab()  # paints every visible chart: what the axes drew is what is checked
            problems += page_problems(f"{lang} {width}×{height} {name}", window)
            if shots:
                folder = Path(shots)
                folder.mkdir(parents=True, exist_ok=True)
                image.save(str(folder / f"{lang}-{width}x{height}-{name.replace('/', '-')}.png"))
    assert not problems, "\n".join(problems)
