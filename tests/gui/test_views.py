"""Plug-in views of the Profiler tab: registered by one line, drawn only when shown, linked by the bus."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from mfu_desktop.gui.views import registry
from mfu_desktop.gui.views.base import ProfilerView
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


class RecordingView(ProfilerView):
    """A view that records what it was asked to draw."""

    name = "recording"
    drawn: ClassVar[list] = []

    def title(self) -> str:
        return "Recording"

    def render_rank(self, rank, result) -> None:
        self.drawn.append(("rank", rank.rank))

    def render_cluster(self, result) -> None:
        self.drawn.append(("cluster", len(result.ranks)))

    def render_empty(self) -> None:
        self.drawn.append(("empty",))


@pytest.fixture
def recording_view(monkeypatch):
    RecordingView.drawn = []
    monkeypatch.setattr(registry, "PROFILER_VIEWS", [("recording", f"{__name__}:RecordingView")])
    return RecordingView


def test_names_come_from_the_registry_without_qt(monkeypatch):
    monkeypatch.setattr(registry, "PROFILER_VIEWS", [("timeline", "x:Y")])
    assert registry.profiler_view_names() == ("charts", "kernels", "roofline", "heat-map", "timeline")


def test_a_registered_view_is_a_tab_drawn_only_when_shown(make_window, qtbot, recording_view):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "0")
    wait_idle(qtbot, window)
    profiler = window.profiler
    view = profiler.view_pages["recording"]
    assert isinstance(view, RecordingView) and profiler.tabs.indexOf(view) > 0
    assert profiler.tabs.tabText(profiler.tabs.indexOf(view)) == "Recording"
    assert recording_view.drawn == []  # never on screen, never drawn
    assert profiler.show_view("recording")
    qtbot.waitUntil(lambda: recording_view.drawn == [("rank", 0)])
    # the same rank again draws nothing; another rank draws at once while the view is on screen
    profiler.select_rank(0)
    wait_idle(qtbot, window)
    assert recording_view.drawn == [("rank", 0)]
    assert profiler.select_rank(3)
    wait_idle(qtbot, window)
    assert recording_view.drawn[-1] == ("rank", 3)
    # off screen: the cluster is remembered and drawn when the view comes back
    profiler.show_view("charts")
    profiler._set_tree_current(profiler.tree_model.index(0, 0))
    wait_idle(qtbot, window)
    assert recording_view.drawn[-1] == ("rank", 3)
    profiler.show_view("recording")
    qtbot.waitUntil(lambda: recording_view.drawn[-1] == ("cluster", 8))


def test_the_bus_selects_kernels_and_ranks(make_window, qtbot, recording_view):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "0", "--view", "recording")
    wait_idle(qtbot, window)
    profiler = window.profiler
    selected = []
    profiler.bus.kernel_selected.connect(selected.append)
    profiler.bus.kernel_requested.emit(5)  # a view asks for kernel 5: the Kernels table selects it
    wait_idle(qtbot, window)
    assert profiler.tabs.currentWidget() is profiler.view_pages["kernels"]
    assert profiler.kernel_model.source_row(profiler.kernel_view.currentIndex().row()) == 5
    assert selected[-1] == 5
    highlighted = []
    profiler.bus.kernels_highlighted.connect(lambda rows, label: highlighted.append((rows, label)))
    profiler.bus.highlight([1, 2, 3], "MatMul")
    assert highlighted[-1][1] == "MatMul" and highlighted[-1][0].dtype == np.int64
    profiler.bus.rank_requested.emit(2)
    wait_idle(qtbot, window)
    assert profiler.current is not None and profiler.current.rank == 2
