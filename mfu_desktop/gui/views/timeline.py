"""The Timeline view of the Profiler tab: a rank's kernels over time, coloured by what they lose.

One rank: its steps, the step breakdown, its device lanes (core type + stream, or GPU stream),
its host operators when its files have them, its memory curve. The cluster: the same step of
every rank aligned on the step's start (a click on a rank opens its lanes); a summary's ranks
show their breakdown alone. Everything heavy (reading host operators, lanes, colours, prefix
sums) runs on the worker pool; the chart then draws from prefix sums.

Linked through the tab's :class:`~mfu_desktop.gui.views.base.SelectionBus`: a click on a kernel
selects it in the Kernels table (its derivation follows), a click on a host operator highlights
the kernels it launched, an operator group chosen elsewhere is highlighted here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.analysis.families import family_names
from mfu_desktop.core.analysis.memory import memory_of
from mfu_desktop.core.analysis.rank import RankAnalysis
from mfu_desktop.core.analysis.timeline import RankTimeline, build_timeline
from mfu_desktop.core.analysis.timeline_colors import COLOR_MODES, kernel_colors
from mfu_desktop.core.analysis.timeline_ranks import cluster_timeline
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.progress import check
from mfu_desktop.core.readers.host_ops import read_host_ops
from mfu_desktop.gui.charts.timeline_chart import TimelineChart
from mfu_desktop.gui.charts.timeline_legend import legend_html
from mfu_desktop.gui.charts.timeline_scene import Scene, cluster_scene, rank_scene
from mfu_desktop.gui.views.base import ProfilerView, ViewContext

translate = QCoreApplication.translate  # the "Timeline" context, shared with the chart
CHANNEL = "timeline-view"
EXPORT_CHANNEL = "timeline-export"
#: Ranks whose timeline is kept for a quick return (the least recently shown is dropped).
MAX_BUILT = 3


class TimelineView(ProfilerView):
    """See the module docstring."""

    name = "timeline"

    def __init__(self, context: ViewContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.rank: RankAnalysis | None = None
        self.result: FolderAnalysis | None = None
        self.scene: Scene | None = None
        self._built: dict[int, RankTimeline] = {}  # timelines by id(RankAnalysis), for the loaded result
        self._token = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._build_toolbar())
        self.legend = QLabel("")
        self.legend.setWordWrap(True)
        layout.addWidget(self.legend)
        self.chart = TimelineChart()
        layout.addWidget(self.chart, 1)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        layout.addWidget(self.notes)
        self.keys_hint = QLabel(self.tr("W/S zoom · A/D pan · Ctrl+wheel zoom · wheel scrolls the rows · drag pans · "
                                        "click a kernel for its derivation, a host operator for its kernels"))
        self.keys_hint.setWordWrap(True)
        self.keys_hint.setStyleSheet("color: palette(placeholder-text);")
        layout.addWidget(self.keys_hint)
        self._connect()

    def title(self) -> str:
        """The tab's title."""
        return self.tr("Timeline")

    def _build_toolbar(self) -> QHBoxLayout:
        """Colour by, step, zoom to step, fit, export."""
        row = QHBoxLayout()
        self.color_by = QComboBox()
        labels = {"lost": self.tr("Colour: lost time"), "mfu": self.tr("Colour: MFU / BW band"),
                  "family": self.tr("Colour: operator family"), "stream": self.tr("Colour: stream")}
        for mode in COLOR_MODES:
            self.color_by.addItem(labels[mode], mode)
        self.step_choice = QComboBox()
        self.step_choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.zoom_step = QPushButton(self.tr("Zoom to step"))
        self.fit_button = QPushButton(self.tr("Fit"))
        self.export_button = QPushButton(self.tr("Export Chrome trace…"))
        self.export_button.setToolTip(self.tr("A trace file for Perfetto and MindStudio Insight: kernels with their "
                                              "MFU, bandwidth and lost time, host operators, steps, memory"))
        for widget in (self.color_by, self.step_choice, self.zoom_step, self.fit_button, self.export_button):
            row.addWidget(widget)
        row.addStretch(1)
        return row

    def _connect(self) -> None:
        bus = self.context.bus
        self.chart.kernel_clicked.connect(bus.kernel_requested.emit)
        self.chart.rank_clicked.connect(bus.rank_requested.emit)
        self.chart.host_op_clicked.connect(self._host_op_clicked)
        bus.kernels_highlighted.connect(self._highlighted)
        bus.kernel_selected.connect(self.chart.select)
        self.color_by.currentIndexChanged.connect(lambda _i: self.refresh())
        self.step_choice.activated.connect(self._step_chosen)
        self.zoom_step.clicked.connect(self._zoom_to_step)
        self.fit_button.clicked.connect(self.chart.fit)
        self.export_button.clicked.connect(self.export_dialog)

    # --- what the tab shows ---------------------------------------------------------------

    def render_empty(self) -> None:
        self.rank = self.result = self.scene = None
        self._built = {}
        self.chart.show_message(self.tr("Timeline: open a profile, then select a rank (or the cluster) in the tree."))
        self.legend.setText("")
        self.notes.setText("")
        self.export_button.setEnabled(False)

    def render_rank(self, rank: RankAnalysis, result: FolderAnalysis) -> None:
        if result is not self.result:
            self._built = {}
        self.rank, self.result = rank, result
        self.export_button.setEnabled(not rank.lite)
        mode = self.color_by.currentData()
        if rank.lite:
            self._prepare(lambda progress: cluster_scene(cluster_timeline([rank], None, None), mode),
                          self.tr("Rank {0} comes from a cluster summary: its step breakdown alone (no kernels on "
                                  "this machine).").format(rank.rank))
            return
        built = self._built.get(id(rank))
        if built is None or self.scene is None or self.scene.cluster:  # a new colouring keeps the picture meanwhile
            self.chart.show_message(self.tr("Preparing the timeline of rank {0} ({1} kernels)…").format(
                rank.rank, f"{len(rank.kernels):,}"))

        def job(progress):
            tl = built
            if tl is None:
                host = read_host_ops(rank.folder, rank.kernels)
                check(progress)
                tl = build_timeline(rank.kernels, rank.rank, host)
            check(progress)
            colors = kernel_colors(rank.kernels, mode)
            return tl, rank_scene(tl, colors, rank.kernels, memory_of(rank))

        def ready(out) -> None:
            tl, scene = out
            same = self._built.get(id(rank)) is tl and self.scene is not None and not self.scene.cluster
            self._built.pop(id(rank), None)
            self._built[id(rank)] = tl
            while len(self._built) > MAX_BUILT:  # a million-kernel timeline weighs ~100 MB: keep the last few
                self._built.pop(next(iter(self._built)))
            self._show(scene, keep_view=same)  # a new colouring keeps the zoom

        self._start(job, ready)

    def render_cluster(self, result: FolderAnalysis) -> None:
        if result is not self.result:
            self._built = {}
        self.rank, self.result = None, result
        self.export_button.setEnabled(False)
        mode = self.color_by.currentData()
        step = self.step_choice.currentData() if self.scene is not None and self.scene.cluster else None
        labels = family_names() if mode == "family" else ()
        ranks = list(result.ranks)
        self.chart.show_message(self.tr("Aligning the step of {0} rank(s)…").format(len(ranks)))
        self._prepare(lambda progress: cluster_scene(cluster_timeline(ranks, step, mode), mode, labels))

    def _prepare(self, fn, note: str = "") -> None:
        self._start(fn, lambda scene: self._show(scene, note))

    def _start(self, fn, ready) -> None:
        self._token += 1
        token = self._token

        def finished(out) -> None:
            if token == self._token:
                ready(out)

        self.context.runner.start(CHANNEL, fn, finished, self._failed, label=self.tr("Preparing the timeline"))

    def _failed(self, message: str) -> None:
        self.chart.show_message(self.tr("The timeline could not be prepared: {0}").format(message))

    def _show(self, scene: Scene, note: str = "", keep_view: bool = False) -> None:
        step = self.step_choice.currentData() if keep_view else None
        self.scene = scene
        self.chart.set_scene(scene, keep_view)
        self._fill_steps(scene)
        if step is not None:
            self.step_choice.setCurrentIndex(max(self.step_choice.findData(step), 0))
        self.legend.setText(legend_html(scene))
        self.notes.setText(" ".join(filter(None, [note, *scene.notes])))

    def _fill_steps(self, scene: Scene) -> None:
        self.step_choice.blockSignals(True)
        self.step_choice.clear()
        if scene.cluster:
            steps = [s for s in scene.steps_all if s] if scene.steps_all else []
            for step in steps:
                self.step_choice.addItem(self.tr("step {0}").format(step), step)
            self.step_choice.setCurrentIndex(max(self.step_choice.findData(scene.steps["step"].iloc[0]), 0))
        else:
            self.step_choice.addItem(self.tr("whole capture"), None)
            for step in scene.steps["step"]:
                if step:
                    self.step_choice.addItem(self.tr("step {0}").format(step), step)
        self.step_choice.blockSignals(False)
        self.zoom_step.setEnabled(not scene.cluster)

    # --- interaction ----------------------------------------------------------------------

    def _step_chosen(self, _index: int) -> None:
        if self.scene is not None and self.scene.cluster and self.result is not None:
            self.render_cluster(self.result)
        else:
            self._zoom_to_step()

    def _zoom_to_step(self) -> None:
        scene = self.scene
        step = self.step_choice.currentData()
        if scene is None or scene.cluster:
            return
        if step is None:
            self.chart.fit()
            return
        hit = scene.steps[scene.steps["step"] == step]
        if len(hit):
            self.chart.zoom_to(float(hit["start_us"].iloc[0]), float(hit["end_us"].iloc[0]))

    def _host_op_clicked(self, op: int) -> None:
        tl = self._built.get(id(self.rank)) if self.rank is not None else None
        if tl is None or tl.host is None:
            return
        rows = tl.host.kernels_of(op)
        self.context.bus.highlight(rows, str(tl.host.name[op]))

    def _highlighted(self, rows: np.ndarray, label: str) -> None:
        self.chart.set_highlight(np.asarray(rows, dtype=np.int64))
        if len(rows) and label:
            self.notes.setText(self.tr("Highlighted: {0} ({1} kernels)").format(label, f"{len(rows):,}"))

    # --- export ---------------------------------------------------------------------------

    def _selected(self) -> tuple[RankAnalysis | None, FolderAnalysis | None]:
        """The rank the tab has selected (drawn here or not yet) and its result."""
        kind, rank, result = self._pending or self._last or ("empty", None, None)
        return (rank, result) if kind == "rank" else (None, result)

    def export_dialog(self) -> None:
        """Ask where, then write the selected rank's Chrome trace in the background (File menu or the button)."""
        rank, _ = self._selected()
        if rank is None or rank.lite:
            self.notes.setText(self.tr("Select a rank with its kernels (not the cluster or a summary) to export its "
                                       "Chrome trace."))
            return
        default = str(Path.home() / f"rank{rank.rank}.trace.json")
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export Chrome trace"), default,
                                              self.tr("Chrome trace (*.json)"))
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path, step: str | None = None) -> None:
        """Write the shown rank's Chrome trace to ``path`` (never inside a profile) on the worker pool."""
        from mfu_desktop.core.report.chrome_trace import write_chrome_trace
        from mfu_desktop.core.writing import forbid_inside

        rank, result = self._selected()
        if rank is None or rank.lite:
            return
        tl = self._built.get(id(rank))
        roots = [*(result.discovery.roots if result is not None else []), *(r.folder.path for r in
                                                                             (result.ranks if result else []))]

        def job(progress):
            forbid_inside(path, roots)
            host = tl.host if tl is not None else read_host_ops(rank.folder, rank.kernels)
            return write_chrome_trace(rank, path, step, host, memory_of(rank), tl)

        def done(export) -> None:
            self.notes.setText(self.tr("Wrote {0}: {1} kernels, {2} host operators — open it in Perfetto or "
                                       "MindStudio Insight").format(export.path, f"{export.kernels:,}",
                                                                    f"{export.host_ops:,}"))

        self.context.runner.start(EXPORT_CHANNEL, job, done,
                                  lambda message: self.notes.setText(self.tr("Export failed: {0}").format(message)),
                                  label=self.tr("Exporting the Chrome trace"))
