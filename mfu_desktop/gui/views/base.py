"""What a plug-in view of the Profiler tab is, and what it can reach.

A view is a page of the Profiler tab's sub-view tabs (beside Charts, Kernels, Roofline …)
fed by the engine's results: the selected rank (:class:`RankAnalysis`) or the whole loaded
folder (:class:`FolderAnalysis`). The tab tells every registered view what is selected; a
view that is not on screen only remembers it and draws when it is shown, so a heavy view
(a timeline of a million kernels) costs nothing until the user opens it.

Views talk to the rest of the tab through the :class:`SelectionBus`: ask for a kernel or a
rank to be selected, or highlight a set of kernels in every view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QWidget

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.rank import RankAnalysis
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.gui.workers import JobRunner


class SelectionBus(QObject):
    """Selections shared by the Profiler tab and its views (all on the GUI thread).

    Positions are rows of the shown rank's kernel frame (``RankAnalysis.kernels``), the same
    numbering the Kernels table calls its source rows.
    """

    #: A view asks for one kernel to be selected: the Kernels table and the derivation follow.
    kernel_requested = Signal(int)
    #: A view asks for a rank (by its rank id) to be selected in the tree.
    rank_requested = Signal(int)
    #: The kernel selected in the Kernels table changed (−1: none).
    kernel_selected = Signal(int)
    #: Kernels to highlight in every view (an int64 array of frame rows; empty: none), and why.
    kernels_highlighted = Signal(object, str)

    def highlight(self, rows: np.ndarray | None, label: str = "") -> None:
        """Highlight ``rows`` of the shown rank's kernels in every view (``None`` clears)."""
        self.kernels_highlighted.emit(np.asarray(rows if rows is not None else [], dtype=np.int64), label)


@dataclass
class ViewContext:
    """What a view may use besides the results it is shown."""

    bus: SelectionBus
    runner: JobRunner
    #: The catalog in use (it changes when the user edits it).
    catalog: Callable[[], ChipCatalog]
    #: The analysis options the results were computed with.
    options: Callable[[], AnalysisOptions]


class ProfilerView(QWidget):
    """Base of a plug-in view: remembers what to show and draws it when visible.

    Subclasses set :attr:`name` (``mfu-desktop --view NAME``) and override :meth:`title`,
    :meth:`render_rank`, :meth:`render_cluster` (both fall back to the empty state) and
    :meth:`render_empty`.
    """

    #: The view's name on the command line (``--view NAME``); stable, lower-case, no spaces.
    name: ClassVar[str] = ""
    #: The outcome of something the user just did from here (an export): the window shows it at once,
    #: whichever page is in front (the File menu reaches a view that is not shown).
    action_message = Signal(str)

    def __init__(self, context: ViewContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self._pending: tuple[str, RankAnalysis | None, FolderAnalysis | None] | None = ("empty", None, None)
        self._shown: tuple[str, int, int] | None = None

    # --- what a subclass implements ---------------------------------------------------------

    def title(self) -> str:
        """The tab title (translated); the view's name unless a subclass says better."""
        return self.name

    def render_rank(self, rank: RankAnalysis, result: FolderAnalysis) -> None:
        """Draw one rank (called only while the view is visible); the empty state by default."""
        self.render_empty()

    def render_cluster(self, result: FolderAnalysis) -> None:
        """Draw the whole loaded folder (called only while visible); the empty state by default."""
        self.render_empty()

    def render_empty(self) -> None:
        """Draw the state with nothing loaded (a subclass clears its widgets here)."""

    # --- what the tab calls -----------------------------------------------------------------

    def show_rank(self, rank: RankAnalysis, result: FolderAnalysis) -> None:
        """Show ``rank`` of ``result`` (now when visible, else when next shown)."""
        self._request(("rank", rank, result))

    def show_cluster(self, result: FolderAnalysis) -> None:
        """Show the whole ``result`` (now when visible, else when next shown)."""
        self._request(("cluster", None, result))

    def clear(self) -> None:
        """Show nothing."""
        self._request(("empty", None, None))

    def refresh(self) -> None:
        """Draw again what is shown (e.g. after a setting of the view changed)."""
        self._shown = None
        if self._pending is None and self._last is not None:
            self._pending = self._last
        self._draw_if_visible()

    # --- mechanics --------------------------------------------------------------------------

    _last: tuple[str, RankAnalysis | None, FolderAnalysis | None] | None = None

    def _request(self, what: tuple[str, RankAnalysis | None, FolderAnalysis | None]) -> None:
        key = (what[0], id(what[1]), id(what[2]))
        if key == self._shown:
            return
        self._pending = what
        self._draw_if_visible()

    def _draw_if_visible(self) -> None:
        if self._pending is None or not self.isVisible():
            return
        kind, rank, result = self._pending
        self._pending = None
        self._last = (kind, rank, result)
        self._shown = (kind, id(rank), id(result))
        if kind == "rank" and rank is not None and result is not None:
            self.render_rank(rank, result)
        elif kind == "cluster" and result is not None:
            self.render_cluster(result)
        else:
            self.render_empty()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._draw_if_visible()
