"""Profiler tab: tree of ranks, summary cards, charts, kernel/type/shape/exclusion/step tables.

Loading and recomputing run on the worker pool (``analyze_paths`` from the core); this tab
only shows the results. Selecting a kernel shows the engine's derivation for it; "Open in
calculator" hands the calculator the inputs that reproduce it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.analysis.classify import KernelClass
from mfu_desktop.core.analysis.explain import CalculatorPrefill, explain_kernel
from mfu_desktop.core.analysis.grouping import group_rows
from mfu_desktop.core.analysis.kernel_roofline import chip_bandwidth
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.rank import RankAnalysis
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.numbers import pct, sig
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.pipeline.from_summary import analysis_from_summary, fill_summary_tables, summary_rank
from mfu_desktop.core.progress import check
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.store.summaries import is_summary, read_summary
from mfu_desktop.gui.bands import band_css
from mfu_desktop.gui.charts.heat_map import RankHeatMap
from mfu_desktop.gui.charts.profile_charts import HotOpsChart, MfuScatter, StepBreakdownChart, scatter_points
from mfu_desktop.gui.charts.roofline_chart import RooflineChart, cluster_view, rank_view
from mfu_desktop.gui.core_text import ct, derivation_markdown, sentences
from mfu_desktop.gui.models.dataframe_model import DataFrameModel, prepare_table
from mfu_desktop.gui.models.profile_columns import aggregate_columns, catalog_names, cluster_columns, kernel_columns
from mfu_desktop.gui.models.rank_tree import ROLE_INDEX, ROLE_KIND, RankTreeModel, short_chip
from mfu_desktop.gui.staging import Stager
from mfu_desktop.gui.table_view import TableView
from mfu_desktop.gui.views.base import ProfilerView, SelectionBus, ViewContext
from mfu_desktop.gui.views.registry import view_classes
from mfu_desktop.gui.widgets import Card, ElidedLabel, InfoBar
from mfu_desktop.gui.workers import JobRunner

CHANNEL = "profile"
VIEW_CHANNEL = "rank-view"
FULL_CHANNEL = "summary-rank"
#: Ranks of a cluster summary whose full kernel data is kept in memory at once (least recently used dropped).
MAX_FULL_RANKS = 4


class ProfilerTab(QWidget):
    """Browse a loaded profile; reload it with other assumptions in the background."""

    open_in_calculator = Signal(object)  # CalculatorPrefill
    kernels_shown = Signal()  # the kernel table of the selected rank is on screen
    loaded = Signal(object)  # FolderAnalysis
    status_message = Signal(str)  # about this tab's results: shown while the tab is current
    action_message = Signal(str)  # the outcome of something the user just did: shown at once

    def __init__(self, catalog: ChipCatalog, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.runner = runner
        self.result: FolderAnalysis | None = None
        self.paths: list[Path] = []
        self.current: RankAnalysis | None = None
        self.top_n = 15
        self.pending_rank: int | None = None
        self._stage = 0  # generation of the staged rank display
        self._stager = Stager(self)
        self._load_token = 0  # the latest requested load; an older scheduled start is dropped
        self._views: dict[int, object] = {}  # prepared kernel tables by id(RankAnalysis), for this result
        self._full: list[int] = []  # summary mode: indices of ranks whose full data is loaded, oldest first
        self._build()

    # --- layout ---------------------------------------------------------------------------

    def _build(self) -> None:
        """The tab: an info bar over the rank tree and the detail pane, then the detail pane's pages."""
        layout = QVBoxLayout(self)
        self.info = InfoBar()
        layout.addWidget(self.info)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        layout.addWidget(splitter, 1)
        splitter.addWidget(self._build_tree_pane())
        splitter.addWidget(self._build_detail_pane())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([400, 1040])

        charts = self._build_charts()
        self.tabs.addTab(charts, self.tr("Charts"))
        kernels = self._build_kernels()
        self.tabs.addTab(kernels, self.tr("Kernels"))
        self._prefill: CalculatorPrefill | None = None
        self.roofline = RooflineChart()
        self.roofline.kernel_clicked.connect(self.select_kernel)
        self.tabs.addTab(self.roofline, self.tr("Roofline"))
        #: Sub-views by name (``mfu-desktop --view NAME``).
        self.view_pages: dict[str, QWidget] = {"charts": charts, "kernels": kernels, "roofline": self.roofline}
        self._build_views()
        self._build_tables()
        self.view_pages["heat-map"] = self.heat_map
        self.tabs.addTab(self._build_assumptions(), self.tr("Assumptions"))

    def _build_views(self) -> None:
        """The registered plug-in views (:mod:`mfu_desktop.gui.views.registry`), each told what is selected."""
        self.bus = SelectionBus(self)
        self.bus.kernel_requested.connect(self.select_kernel)
        self.bus.rank_requested.connect(self.select_rank)
        self.bus.kernels_highlighted.connect(self._highlight_kernels)
        context = ViewContext(self.bus, self.runner, lambda: self.catalog,
                              lambda: self.result.options if self.result is not None else self.options())
        self.views: list[ProfilerView] = []
        for view_class in view_classes():
            view = view_class(context)
            self.views.append(view)
            self.tabs.addTab(view, view.title())
            self.view_pages[view.name] = view

    def _build_tree_pane(self) -> QWidget:
        """The left pane: the drop hint over the tree of loaded ranks."""
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.hint = QLabel(
            self.tr(
                "Drag a profiler folder here (a cluster root, *_ascend_pt rank folders, "
                "ASCEND_PROFILER_OUTPUT, or PyTorch profiler traces *.pt.trace.json), or use File → Open folder."
            )
        )
        self.hint.setWordWrap(True)
        left_layout.addWidget(self.hint)
        self.tree_model = RankTreeModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.tree_model)
        self.tree.setUniformRowHeights(True)
        self.tree.selectionModel().currentChanged.connect(self._tree_selected)
        left_layout.addWidget(self.tree, 1)
        return left

    def _build_detail_pane(self) -> QWidget:
        """The right pane: the header, the summary cards and the (still empty) sub-view tabs."""
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(self._build_header())
        right_layout.addLayout(self._build_cards())
        self.tabs = QTabWidget()
        right_layout.addWidget(self.tabs, 1)
        return right

    def _build_header(self) -> QHBoxLayout:
        """The title row: the name of what is shown and "Copy path" for its full path."""
        self.title = QLabel("")
        self.title.setStyleSheet("font-size: 11pt; font-weight: 600;")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)  # long paths never resize
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_path = QPushButton(self.tr("Copy path"))
        self.copy_path.setToolTip(self.tr("Copy the full path of the folder shown"))
        self.copy_path.clicked.connect(self._copy_path)
        self.copy_path.setVisible(False)
        self.shown_path = ""
        title_row = QHBoxLayout()
        title_row.addWidget(self.title, 1)
        title_row.addWidget(self.copy_path)
        return title_row

    def _build_cards(self) -> QGridLayout:
        """The five summary cards in one row."""
        cards = QGridLayout()
        self.card_ops = Card(self.tr("Operator MFU (算子达成率)"))
        self.card_step = Card(self.tr("End-to-end step MFU"))
        self.card_cube = Card(self.tr("Cube utilisation (not MFU)"))
        self.card_tier = Card(self.tr("Fallback tier"))
        self.card_chip = Card(self.tr("Chip and peak"))
        for i, card in enumerate((self.card_ops, self.card_step, self.card_cube, self.card_tier, self.card_chip)):
            cards.addWidget(card, 0, i)
        return cards

    def _build_charts(self) -> QWidget:
        """The Charts page: hot operators (with their ordering) beside the MFU scatter and the step breakdown."""
        charts = QWidget()
        grid = QGridLayout(charts)
        self.hot_mode = QComboBox()
        self.hot_mode.addItem(self.tr("Hot operators by lost time = measured − roofline-attainable"), "lost_us")
        self.hot_mode.addItem(self.tr("Hot operators by total time"), "time_us")
        self.hot_mode.currentIndexChanged.connect(self._update_hot)
        self.hot_chart = HotOpsChart()
        self.hot_chart.group_clicked.connect(self._hot_group_clicked)
        self.scatter = MfuScatter()
        self.scatter.kernel_clicked.connect(self.select_kernel)
        self.steps_chart = StepBreakdownChart()
        grid.addWidget(self.hot_mode, 0, 0)
        grid.addWidget(self.hot_chart, 1, 0, 2, 1)
        grid.addWidget(self.scatter, 1, 1)
        grid.addWidget(self.steps_chart, 2, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        return charts

    def _build_kernels(self) -> QWidget:
        """The Kernels page: the filters over the kernel table and the selected kernel's derivation."""
        kernels = QWidget()
        k_layout = QVBoxLayout(kernels)
        k_layout.addLayout(self._build_kernel_filters())
        k_split = QSplitter(Qt.Orientation.Vertical)
        self.kernel_model = DataFrameModel(parent=self)
        self.kernel_view = TableView()
        self.kernel_view.setModel(self.kernel_model)
        self.kernel_view.selectionModel().currentRowChanged.connect(self._kernel_selected)
        k_split.addWidget(self.kernel_view)
        k_split.addWidget(self._build_kernel_explain())
        k_split.setSizes([500, 220])
        k_layout.addWidget(k_split)
        return kernels

    def _build_kernel_filters(self) -> QHBoxLayout:
        """The filter row of the kernel table (type, name, status, class) and its row count."""
        filters = QHBoxLayout()
        self.filter_type = QLineEdit()
        self.filter_type.setPlaceholderText(self.tr("type contains…"))
        self.filter_name = QLineEdit()
        self.filter_name.setPlaceholderText(self.tr("name contains…"))
        self.filter_status = QComboBox()
        self.filter_status.addItem(self.tr("all statuses"), "")
        for status in Status:
            self.filter_status.addItem(ct(status.value), status.value)
        self.filter_class = QComboBox()
        self.filter_class.addItem(self.tr("all classes"), "")
        for klass in KernelClass:
            self.filter_class.addItem(ct(klass.value), klass.value)
        for w in (self.filter_type, self.filter_name):
            w.textChanged.connect(self._apply_filters)
            filters.addWidget(w)
        for w in (self.filter_status, self.filter_class):
            w.currentIndexChanged.connect(self._apply_filters)
            filters.addWidget(w)
        self.kernel_count = QLabel("")
        filters.addWidget(self.kernel_count)
        self.highlight_label = ElidedLabel("")
        self.highlight_label.setStyleSheet("color: #c62828;")
        self.highlight_clear = QPushButton(self.tr("Show all kernels"))
        self.highlight_clear.setToolTip(self.tr("Stop showing only the highlighted kernels"))
        self.highlight_clear.clicked.connect(lambda: self.bus.highlight(None))
        self.highlight_label.setVisible(False)
        filters.addWidget(self.highlight_label, 1)
        self.highlight_clear.setVisible(False)
        filters.addWidget(self.highlight_clear)
        self._highlighted: np.ndarray | None = None
        return filters

    def _build_kernel_explain(self) -> QWidget:
        """Under the kernel table: the selected kernel's derivation and "Open in calculator"."""
        explain = QWidget()
        e_layout = QVBoxLayout(explain)
        e_layout.setContentsMargins(0, 0, 0, 0)
        self.kernel_derivation = QTextBrowser()
        e_layout.addWidget(self.kernel_derivation)
        self.calc_button = QPushButton(self.tr("Open in calculator"))
        self.calc_button.setEnabled(False)
        self.calc_button.clicked.connect(self._open_in_calculator)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.calc_button)
        e_layout.addLayout(row)
        return explain

    def _build_tables(self) -> None:
        """The aggregate table pages (by type, by shape, exclusions, steps, ranks) and the rank heat map."""
        self.type_model, self.shape_model, self.excl_model, self.steps_model, self.ranks_model = (
            DataFrameModel(parent=self) for _ in range(5)
        )
        for model, title in (
            (self.type_model, self.tr("By type")),
            (self.shape_model, self.tr("By type and shape")),
            (self.excl_model, self.tr("Exclusions")),
            (self.steps_model, self.tr("Steps")),
            (self.ranks_model, self.tr("Ranks")),
        ):
            view = TableView()
            view.setModel(model)
            self.tabs.addTab(view, title)
            if model in (self.type_model, self.shape_model):  # a group chosen here is highlighted in the views
                view.selectionModel().currentRowChanged.connect(
                    lambda current, _previous, m=model: self._table_group_selected(m, current))
        self.heat_map = RankHeatMap()
        self.heat_map.rank_clicked.connect(self.select_rank)
        self.tabs.addTab(self.heat_map, self.tr("Heat map"))

    def _build_assumptions(self) -> QWidget:
        """The Assumptions page: the assumption pickers, each rank's chip, then warnings and notes."""
        assumptions = QWidget()
        a_layout = QVBoxLayout(assumptions)
        a_layout.addWidget(self._build_assumption_form())
        self.rank_chips = QLabel("")
        self.rank_chips.setWordWrap(True)
        self.rank_chips.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        a_layout.addWidget(self.rank_chips)
        self.warnings = QPlainTextEdit()
        self.warnings.setReadOnly(True)
        a_layout.addWidget(QLabel(self.tr("Warnings, capture configuration and conventions")))
        a_layout.addWidget(self.warnings, 1)
        return assumptions

    def _build_assumption_form(self) -> QGroupBox:
        """Chip, FlashAttention and mask conventions, HF32: changing any of them reloads in the background."""
        box = QGroupBox(self.tr("Assumptions (changing one recomputes in the background)"))
        form = QFormLayout(box)
        self.chip_choice = QComboBox()
        self.chip_choice.addItem(self.tr("Detected from the profile"), "")
        for chip in catalog_names(self.catalog):
            self.chip_choice.addItem(chip, chip)
        self.fa_mode = QComboBox()
        for value, label in (
            ("auto", self.tr("inferred from the mask")),
            (0, self.tr("0 — full")),
            (2, self.tr("2 — leftUpCausal")),
            (3, self.tr("3 — rightDownCausal")),
        ):
            self.fa_mode.addItem(label, value)
        self.fa_layout = QComboBox()
        for value in ("auto", "BNSD", "BSND", "BSH", "SBH"):
            self.fa_layout.addItem(self.tr("inferred from softmax_max") if value == "auto" else value, value)
        self.fa_backward = QComboBox()
        self.fa_backward.addItem(self.tr("model FLOPs (2× forward)"), "model")
        self.fa_backward.addItem(self.tr("executed FLOPs (2.5×, HFU view)"), "executed")
        self.convention = QComboBox()
        self.convention.addItem(self.tr("exact geometry"), "exact")
        self.convention.addItem(self.tr("seed (continuous)"), "seed")
        self.hf32 = QCheckBox(self.tr("FP32 matmuls ran with HF32/TF32"))
        form.addRow(self.tr("Chip (all ranks)"), self.chip_choice)
        form.addRow(self.tr("FlashAttention sparse_mode"), self.fa_mode)
        form.addRow(self.tr("FlashAttention layout"), self.fa_layout)
        form.addRow(self.tr("FlashAttention backward"), self.fa_backward)
        form.addRow(self.tr("Mask geometry"), self.convention)
        form.addRow("", self.hf32)
        for combo in (self.chip_choice, self.fa_mode, self.fa_layout, self.fa_backward, self.convention):
            combo.currentIndexChanged.connect(self.reload)
        self.hf32.toggled.connect(self.reload)
        return box

    def show_view(self, name: str) -> bool:
        """Bring a sub-view to the front by name (charts, kernels, roofline, heat-map); False when unknown."""
        page = self.view_pages.get(name)
        if page is None:
            return False
        self.tabs.setCurrentWidget(page)
        return True

    def set_catalog(self, catalog: ChipCatalog) -> None:
        """Use an edited catalog (the chip picker is refilled; a loaded profile is re-analysed)."""
        self.catalog = catalog
        current = self.chip_choice.currentData()
        self.chip_choice.blockSignals(True)
        self.chip_choice.clear()
        self.chip_choice.addItem(self.tr("Detected from the profile"), "")
        for chip in catalog_names(catalog):
            self.chip_choice.addItem(chip, chip)
        self.chip_choice.setCurrentIndex(max(self.chip_choice.findData(current), 0))
        self.chip_choice.blockSignals(False)
        self.reload()

    # --- loading ----------------------------------------------------------------------------

    def options(self) -> AnalysisOptions:
        """Analysis options from the assumptions panel."""
        mode = self.fa_mode.currentData()
        return AnalysisOptions(
            chip=self.chip_choice.currentData() or None,
            hf32=self.hf32.isChecked(),
            flops=FlopOptions(
                fa_sparse_mode=mode,
                fa_layout=self.fa_layout.currentData(),
                fa_backward=self.fa_backward.currentData(),
                mask_convention=self.convention.currentData(),
            ),
            top_n=self.top_n,
        )

    def set_conventions(self, fa_backward: str, mask_convention: str, hf32: bool, chip: str | None = None) -> None:
        """Apply remembered conventions without triggering a reload."""
        for combo, value in (
            (self.fa_backward, fa_backward),
            (self.convention, mask_convention),
            (self.chip_choice, chip or ""),
        ):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(combo.findData(value), 0))
            combo.blockSignals(False)
        self.hf32.blockSignals(True)
        self.hf32.setChecked(hf32)
        self.hf32.blockSignals(False)

    def load(self, paths: list[Path]) -> None:
        """Analyse ``paths`` in the background (replacing any load in progress).

        The job starts one display step later, so the tab (often shown for the first time
        right now) paints before the parser threads take the CPU.
        """
        self.paths = [Path(p) for p in paths]
        self.runner.cancel(CHANNEL)  # a load in progress is superseded at once
        self._load_token += 1
        token = self._load_token
        self.status_message.emit(self.tr("Loading {0}…").format(", ".join(p.name for p in self.paths)))
        self._later(lambda: self.reload() if token == self._load_token else None)

    def cancel_pending(self) -> None:
        """Drop a load that was requested but has not started yet."""
        self._load_token += 1

    def reload(self) -> None:
        """Re-run the analysis of the current paths with the current assumptions."""
        if not self.paths:
            return
        paths, options, catalog = list(self.paths), self.options(), self.catalog
        self.info.hide()
        self.status_message.emit(self.tr("Loading {0}…").format(", ".join(p.name for p in paths)))
        if len(paths) == 1 and is_summary(paths[0]):
            job = lambda progress: analysis_from_summary(read_summary(paths[0]), catalog)  # noqa: E731
        else:
            job = lambda progress: analyze_paths(paths, options, catalog, progress)  # noqa: E731
        self.runner.start(CHANNEL, job, self._loaded, self._failed, label=self.tr("Analysing profile"))

    def _failed(self, message: str) -> None:
        self.info.show_message(self.tr("The analysis failed: {0}").format(message))

    def _loaded(self, result: FolderAnalysis) -> None:
        self.result = result
        self._views = {}
        self._full = []
        self.runner.cancel(FULL_CHANNEL)
        self.current = None
        self._stage += 1  # whatever was being shown belongs to the previous result
        self.tree_model.set_analysis(result)
        self.tree.expandAll()
        self.loaded.emit(result)
        self.status_message.emit(self.tr("Loaded {0} rank(s)").format(len(result.ranks)))
        self._later(lambda: self._show_loaded(result))

    def _show_loaded(self, result: FolderAnalysis) -> None:
        """Second step of a new result: column widths, messages, then the first view."""
        if result is not self.result:
            return
        for col in range(self.tree_model.columnCount()):
            self.tree.resizeColumnToContents(col)
        self.heat_map.set_data(result.cluster.table if result.ranks else None)
        self.hint.setVisible(not result.ranks)
        if not result.ranks:
            self.info.show_message(self.tr("No rank could be loaded. {0}").format(sentences(result.warnings)))
            self._show_rank(None)
        else:
            problems = list(result.warnings)
            self.info.show_message(sentences(problems[:3]) + (" …" if len(problems) > 3 else ""))
            self._later(lambda: self._select_initial(result))

    def _later(self, fn) -> None:
        """One step of the staged display (see :mod:`mfu_desktop.gui.staging`)."""
        self._stager.later(fn)

    def settling(self) -> bool:
        """True while steps of the staged display are still to come."""
        return self._stager.settling()

    def _select_initial(self, result: FolderAnalysis) -> None:
        if result is not self.result:
            return
        if self.pending_rank is None or not self.select_rank(self.pending_rank):
            self._select_first()

    def _select_first(self) -> None:
        root = self.tree_model.index(0, 0)
        if root.data(ROLE_KIND) == "cluster":
            target = root
        else:
            target = self.tree_model.index(0, 0, root) if self.tree_model.rowCount(root) else root
        self._set_tree_current(target)

    def _set_tree_current(self, index: QModelIndex) -> None:
        """Make ``index`` current and show it exactly once (with or without a currentChanged signal)."""
        selection = self.tree.selectionModel()
        selection.blockSignals(True)
        self.tree.setCurrentIndex(index)
        selection.blockSignals(False)
        self.tree.viewport().update()
        self._tree_selected(index, QModelIndex())

    def select_rank(self, rank: int) -> bool:
        """Select a rank (by its rank id) in the tree; ``False`` when it is not loaded."""
        for r in range(self.tree_model.rowCount()):
            root = self.tree_model.index(r, 0)
            for c in range(self.tree_model.rowCount(root)):
                index = self.tree_model.index(c, 0, root)
                if (
                    index.data(ROLE_KIND) == "rank"
                    and self.result is not None
                    and self.result.ranks[int(index.data(ROLE_INDEX))].summary.rank == rank
                ):
                    self._set_tree_current(index)
                    return True
        return False

    # --- showing ----------------------------------------------------------------------------

    def _tree_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self.result is None or not current.isValid():
            return
        first = current.siblingAtColumn(0)
        kind = first.data(ROLE_KIND)
        if kind == "rank":
            self._show_rank(self.result.ranks[int(first.data(ROLE_INDEX))])
        elif kind in ("cluster", "root"):
            self._show_cluster()
        elif kind == "failed":
            failure = self.result.failures[int(first.data(ROLE_INDEX))]
            self.info.show_message(self.tr("{0} was not loaded: {1}").format(failure.folder.path, failure.reason))

    def _show_cluster(self) -> None:
        assert self.result is not None
        if self._highlighted is not None:
            self.bus.highlight(None)
        self.current = None
        cluster = self.result.cluster
        rate = cluster.rate
        roots = self.result.discovery.roots
        self._set_title(self.tr("Cluster: {0} ranks — {1}").format(len(self.result.ranks),
                                                                  ", ".join(p.name for p in roots)),
                        "\n".join(str(p) for p in roots))
        mfu = (
            pct(rate.mfu)
            if rate.mfu is not None
            else (f"{pct(rate.mfu_range[0])}–{pct(rate.mfu_range[1])}" if rate.mfu_range else "–")
        )
        self.card_ops.set(
            mfu,
            self.tr("all ranks, {0} TFLOP/s").format(sig(rate.achieved_tflops)) if rate.achieved_tflops else "",
            band_css(rate.mfu),
        )
        table = cluster.table
        span = cluster.mfu_step_range
        step = cluster.step_time
        caption = self.tr("range over ranks")
        if step.mean is not None:
            caption += "\n" + self.tr("step {0} ms (mean per rank); slowest rank {1}: {2} ms").format(
                sig(step.mean / 1000), step.slowest_rank, sig(step.slowest_value / 1000))
        self.card_step.set(f"{pct(span[0])}–{pct(span[1])}" if span else "–", caption)
        self.card_cube.caption.setText(self.tr("Cube utilisation (not MFU)"))
        self.card_cube.set(
            pct(cluster.cube_utilization_mean) if cluster.cube_utilization_mean is not None else "–",
            self.tr("mean over ranks"),
        )
        self.card_tier.caption.setText(self.tr("Slow ranks"))
        self.card_tier.set(
            ", ".join(self.tr("rank {0}").format(r) for r in cluster.slow) or self.tr("none"),
            ", ".join(self.tr("rank {0} (+{1} % step time vs the fastest rank)").format(r, f"{e * 100:.2g}")
                      for r, e in cluster.slow_rank_excess()) or self.tr("step time above the fastest rank + 5 %"),
        )
        chips = sorted({str(c) for c in table.get("chip", pd.Series(dtype=object)).dropna()})
        self.card_chip.set(
            ", ".join(short_chip(c) for c in chips) or self.tr("not confirmed"), ", ".join(chips), small=True
        )
        if self.tabs.currentWidget() is self.view_pages["kernels"]:  # the cluster has no kernel table: its charts
            self.tabs.setCurrentIndex(0)
        self.kernel_count.setText(self.tr("select a rank to see its kernels"))
        # tables, then charts, then notes: in steps, like a rank (see _show_rank)
        self._stage += 1
        stage = self._stage
        self._later(lambda: self._show_cluster_tables(stage))

    def _show_cluster_tables(self, stage: int) -> None:
        if stage != self._stage or self.current is not None or self.result is None:
            return
        self.ranks_model.set_frame(self.result.cluster.table, cluster_columns())
        self.kernel_model.set_frame(pd.DataFrame())
        for model in (self.type_model, self.shape_model, self.excl_model, self.steps_model):
            model.set_frame(pd.DataFrame())
        self.scatter.set_data(None)
        self.roofline.set_view(cluster_view(self.result, self.catalog))
        self._later(lambda: self._show_cluster_charts(stage))

    def _show_cluster_charts(self, stage: int) -> None:
        if stage != self._stage or self.current is not None or self.result is None:
            return
        cluster = self.result.cluster
        self._hot_tables = {"lost_us": cluster.hot_by_lost, "time_us": cluster.hot_by_time}
        self._update_hot()
        self._later(lambda: self._show_cluster_steps(stage))

    def _show_cluster_steps(self, stage: int) -> None:
        if stage != self._stage or self.current is not None or self.result is None:
            return
        self.steps_chart.set_data(self.result.cluster.table, self.result.cluster.slow)
        for view in self.views:
            view.show_cluster(self.result)
        self._fill_assumptions(None)

    def _set_title(self, text: str, path: str) -> None:
        """The header: the folder's name; its full path in the tooltip and behind "Copy path"."""
        self.title.setText(text)
        self.title.setToolTip(path)
        self.shown_path = path
        self.copy_path.setVisible(bool(path))

    def _copy_path(self) -> None:
        QGuiApplication.clipboard().setText(self.shown_path)
        self.action_message.emit(self.tr("Copied {0}").format(self.shown_path))

    def _show_rank(self, r: RankAnalysis | None) -> None:
        if self._highlighted is not None and r is not self.current:  # highlighted rows belong to the rank shown
            self.bus.highlight(None)
        self.current = r
        if r is not None and r.lite:
            fill_summary_tables(r)
        if r is None:
            self._set_title("", "")
            for card in (self.card_ops, self.card_step, self.card_cube, self.card_tier, self.card_chip):
                card.set("–")
            self.hot_chart.set_data(None)
            self.scatter.set_data(None)
            self.roofline.set_view(None)
            self.steps_chart.set_data(None)
            self.kernel_model.set_frame(pd.DataFrame())
            for model in (self.type_model, self.shape_model, self.excl_model, self.steps_model, self.ranks_model):
                model.set_frame(pd.DataFrame())
            for view in self.views:
                view.clear()
            return
        s = r.summary
        self._set_title(self.tr("Rank {0} — {1}").format(s.rank, r.folder.path.name),
                        str(r.folder.path))
        if s.mfu_ops is not None:
            self.card_ops.set(
                pct(s.mfu_ops),
                self.tr("{0} TFLOP/s over {1} counted kernels").format(
                    sig(s.achieved_tflops), f"{s.countable_kernels:,}"
                ),
                band_css(s.mfu_ops),
            )
        elif s.mfu_ops_range is not None:
            self.card_ops.set(f"{pct(s.mfu_ops_range[0])}–{pct(s.mfu_ops_range[1])}", self.tr("chip not confirmed"))
        else:
            self.card_ops.set("–", self.tr("no FLOPs-based MFU"))
        if s.mfu_step is not None:
            self.card_step.set(
                pct(s.mfu_step),
                self.tr("step {0} ms, mean of {1} step(s)").format(sig(s.step_time_us / 1000), s.steps),
                band_css(s.mfu_step),
            )
        elif s.mfu_step_range is not None:
            self.card_step.set(f"{pct(s.mfu_step_range[0])}–{pct(s.mfu_step_range[1])}", self.tr("chip not confirmed"))
        else:
            self.card_step.set("–", self.tr("no step trace") if s.step_time_us is None else "")
        self.card_cube.caption.setText(self._matrix_unit_caption(r.folder.vendor))
        self.card_cube.set(
            pct(s.cube_utilization) if s.cube_utilization is not None else "–",
            self.tr("duration-weighted over cube/mix kernels") if r.folder.vendor == "Huawei"
            else self.tr("a PyTorch profiler trace has no hardware counters"),
        )
        value = pct(s.tier.value) if s.tier.value is not None else "–"
        self.card_tier.caption.setText(self.tr("Fallback tier"))
        self.card_tier.set(
            f"T{s.tier.tier}: {value}", ct(s.tier.label) + ("\n" + "\n".join(s.tier.why) if s.tier.why else "")
        )
        self.card_chip.set(short_chip(s.chip) if s.chip else self.tr("not confirmed"),
                           f"{s.chip} · {s.peak_source}" if s.chip else s.peak_source, small=True)
        self._show_kernels(r)
        # The tables and charts follow in the next event-loop turns, so that no single step keeps
        # the window busy long (a quick succession of selections only shows the last one).
        self._stage += 1
        stage = self._stage
        self._later(lambda: self._show_rank_tables(r, stage))

    def _matrix_unit_caption(self, vendor: str | None) -> str:
        """The utilisation card's title in the vendor's words (Cube, Tensor Core, Matrix Core)."""
        captions = {"NVIDIA": self.tr("Tensor Core util"), "AMD": self.tr("Matrix Core util"),
                    "GPU": self.tr("Matrix unit util")}
        return captions.get(vendor or "", self.tr("Cube utilisation (not MFU)"))

    def _show_rank_tables(self, r: RankAnalysis, stage: int) -> None:
        if stage != self._stage or self.current is not r:
            return
        self.type_model.set_frame(r.by_type, aggregate_columns(r.by_type))
        self.shape_model.set_frame(r.by_shape, aggregate_columns(r.by_shape))
        self.excl_model.set_frame(r.excluded, aggregate_columns(r.excluded))
        self.steps_model.set_frame(r.steps, aggregate_columns(r.steps))
        if self.result is not None:
            self.ranks_model.set_frame(self.result.cluster.table, cluster_columns())
        self._later(lambda: self._show_rank_charts(r, stage))

    def _show_rank_charts(self, r: RankAnalysis, stage: int) -> None:
        if stage != self._stage or self.current is not r:
            return
        self._hot_tables = {"lost_us": r.hot_by_lost, "time_us": r.hot_by_time}
        self._update_hot()
        self._later(lambda: self._show_rank_steps(r, stage))

    def _show_rank_steps(self, r: RankAnalysis, stage: int) -> None:
        if stage != self._stage or self.current is not r:
            return
        if self.result is not None:
            self.steps_chart.set_data(self.result.cluster.table, self.result.cluster.slow)
            for view in self.views:
                view.show_rank(r, self.result)
        self._fill_assumptions(r)

    def _show_kernels(self, r: RankAnalysis) -> None:
        """The kernel table and scatter: prepared on the worker pool (a million rows), shown when ready."""
        if r.lite:
            self._load_full(r)
            return
        cached = self._views.get(id(r))
        if cached is not None:
            self._kernels_ready(r, cached)
            return
        frame = r.kernels
        specs = kernel_columns(frame)
        self.kernel_model.set_frame(pd.DataFrame())
        self.scatter.set_points(None)
        self.roofline.set_view(None)
        self.kernel_count.setText(self.tr("preparing {0} kernels…").format(f"{len(frame):,}"))

        def job(progress):
            table = prepare_table(frame, specs)
            check(progress)
            points = scatter_points(frame[C.DURATION_US].to_numpy(), frame["mfu"].to_numpy(), frame.get(C.NAME))
            check(progress)
            return table, points, rank_view(r)

        self.runner.start(
            VIEW_CHANNEL,
            job,
            lambda prepared: self._kernels_ready(r, prepared),
            self._failed,
            label=self.tr("Preparing the kernel table"),
        )

    # --- cluster summaries: full data of the selected rank, a few at a time ------------------

    def _load_full(self, r: RankAnalysis) -> None:
        """A summarised rank is selected: read its kernels from its path (when reachable) in the background."""
        self.kernel_model.set_frame(pd.DataFrame())
        self.scatter.set_points(None)
        self.roofline.set_view(rank_view(r, self.catalog))  # its groups until its kernels arrive
        path = r.folder.path
        if not path.exists():
            self.kernel_count.setText(self.tr("kernels not reachable from this machine ({0}): the summary is shown")
                                      .format(path))
            return
        self.kernel_count.setText(self.tr("loading the kernels of rank {0} from {1}…").format(r.rank, path))
        index = self.result.ranks.index(r) if self.result is not None else -1
        result = self.result
        options, catalog = (result.options if result is not None else self.options()), self.catalog

        def job(progress):
            return analyze_paths([path], options, catalog, progress)

        self.runner.start(FULL_CHANNEL, job, lambda full: self._full_loaded(result, index, r, full), self._failed,
                          label=self.tr("Loading the rank's kernels"))

    def _full_loaded(self, result: FolderAnalysis | None, index: int, lite: RankAnalysis,
                     full: FolderAnalysis) -> None:
        if result is not self.result or index < 0 or not full.ranks:
            if full is not None and not full.ranks and result is self.result:
                self.kernel_count.setText(self.tr("the rank's kernels could not be read: {0}").format(
                    sentences(full.warnings[:2])))
            return
        rank = full.ranks[0]
        self.result.ranks[index] = rank
        self._full = [i for i in self._full if i != index] + [index]
        while len(self._full) > MAX_FULL_RANKS:  # memory stays bounded: the oldest full rank goes back to lite
            old = self._full.pop(0)
            doc = self.result.documents[old] if old < len(self.result.documents) else None
            if doc is not None:
                self._views.pop(id(self.result.ranks[old]), None)
                self.result.ranks[old] = summary_rank(doc, self.catalog, self.result.summary_root)
        if self.current is lite:
            self._show_rank(rank)

    def full_ranks(self) -> int:
        """How many ranks currently hold their full kernel data (summary mode)."""
        return sum(1 for r in (self.result.ranks if self.result else []) if not r.lite) \
            if self.result is not None and self.result.summary_root is not None else 0

    def _kernels_ready(self, r: RankAnalysis, prepared) -> None:
        self._views[id(r)] = prepared
        if self.current is not r:  # the user moved on; keep it for when they come back
            return
        table, points, roofline = prepared
        self.kernel_model.set_prepared(table)
        self._apply_filters()
        stage = self._stage

        def scatter() -> None:
            if stage == self._stage and self.current is r:
                self.scatter.set_points(points)
                self.roofline.set_view(roofline)
                self.kernels_shown.emit()

        self._later(scatter)

    def _fill_assumptions(self, r: RankAnalysis | None) -> None:
        if self.result is None:
            return
        lines = []
        for rank in self.result.ranks:
            s = rank.summary
            lines.append(
                self.tr("rank {0}: {1} — {2}").format(s.rank, s.chip or self.tr("not confirmed"), s.peak_source)
            )
        self.rank_chips.setText("\n".join(lines[:64]))
        text = []
        if r is not None:
            text += [self.tr("Capture: {0}").format(r.folder.config.describe()), *r.notes, "", *r.warnings]
        text += ["", *self.result.warnings]
        self.warnings.setPlainText("\n".join(text).strip())

    def _update_hot(self) -> None:
        by = self.hot_mode.currentData()
        table = getattr(self, "_hot_tables", {}).get(by)
        title = self.tr("Hot operators by lost time") if by == "lost_us" else self.tr("Hot operators by time")
        self.hot_chart.set_data(table, by, title)

    def _highlight_group(self, op_type: str, shapes: str | None, klass: str | None) -> None:
        """Highlight the shown rank's kernels of one operator group in every view (a group of a table or chart)."""
        if self.current is None or self.current.lite:
            return
        rows = group_rows(self.current.kernels, op_type, shapes, klass)
        label = f"{op_type} [{shapes}]" if shapes else op_type
        self.bus.highlight(rows, label)

    def _hot_group_clicked(self, index: int) -> None:
        table = getattr(self, "_hot_tables", {}).get(self.hot_mode.currentData())
        if table is None or not 0 <= index < len(table):
            return
        row = table.iloc[index]
        self._highlight_group(str(row["type"]), str(row.get("input_shapes") or ""), row.get("klass"))

    def _table_group_selected(self, model: DataFrameModel, current: QModelIndex) -> None:
        if not current.isValid() or model.frame.empty or "type" not in model.frame.columns:
            return
        row = model.frame.iloc[model.source_row(current.row())]
        shapes = str(row["input_shapes"]) if "input_shapes" in row and row["input_shapes"] == row["input_shapes"] \
            else None
        self._highlight_group(str(row["type"]), shapes, None)

    def _apply_filters(self) -> None:
        model = self.kernel_model
        if model.frame.empty:
            self.kernel_count.setText("")
            return
        keys = model.column_keys()
        mask = np.ones(len(model.frame), dtype=bool)
        if self.filter_type.text() and C.OP_TYPE in keys:
            mask &= model.text_mask(C.OP_TYPE, self.filter_type.text())
        if self.filter_name.text() and C.NAME in keys:
            mask &= model.text_mask(C.NAME, self.filter_name.text())
        if self.filter_status.currentData():
            mask &= model.values_mask("status", {self.filter_status.currentData()})
        if self.filter_class.currentData():
            mask &= model.values_mask("klass", {self.filter_class.currentData()})
        if self._highlighted is not None:
            shown = np.zeros(len(model.frame), dtype=bool)
            rows = self._highlighted[(self._highlighted >= 0) & (self._highlighted < len(shown))]
            shown[rows] = True
            mask &= shown
        model.set_mask(None if mask.all() else mask)
        self.kernel_count.setText(
            self.tr("{0} of {1} kernels").format(f"{model.rowCount():,}", f"{len(model.frame):,}")
        )

    def _highlight_kernels(self, rows: np.ndarray, label: str) -> None:
        """A view highlighted kernels: the Kernels table shows only them, the scatter and roofline ring them."""
        self._highlighted = np.asarray(rows, dtype=np.int64) if len(rows) else None
        on = self._highlighted is not None
        self.highlight_label.set_text(self.tr("Highlighted: {0} ({1} kernels)").format(label, f"{len(rows):,}")
                                      if on else "")
        for w in (self.highlight_label, self.highlight_clear):
            w.setVisible(on)
        self.scatter.set_highlight(self._highlighted)
        self.roofline.set_highlight(self._highlighted)
        self._apply_filters()

    def _kernel_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid() or self.current is None:
            self.calc_button.setEnabled(False)
            self.bus.kernel_selected.emit(-1)
            return
        row = self.kernel_model.source_row(current.row())
        self.bus.kernel_selected.emit(int(row))
        record = self.current.kernels.iloc[row].to_dict()
        derivation, prefill = explain_kernel(
            record, self.current.summary.chip, self.current.summary.peak_source, self.options().flops,
            chip_bandwidth(self.current.chip), self.current.folder.vendor,
        )
        self.kernel_derivation.setMarkdown(derivation_markdown(derivation))
        self._prefill = prefill
        self.calc_button.setEnabled(prefill.kind is not None)

    def select_kernel(self, source_row: int) -> None:
        """Select a kernel (frame position) in the kernel table, clearing filters that hide it."""
        row = self.kernel_model.view_row(source_row)
        if row < 0 and self._highlighted is not None and source_row not in self._highlighted:
            self.bus.highlight(None)
            row = self.kernel_model.view_row(source_row)
        if row < 0:
            for w in (self.filter_type, self.filter_name):
                w.blockSignals(True)
                w.clear()
                w.blockSignals(False)
            for w in (self.filter_status, self.filter_class):
                w.blockSignals(True)
                w.setCurrentIndex(0)
                w.blockSignals(False)
            self._apply_filters()
            row = self.kernel_model.view_row(source_row)
        if row < 0:
            return
        index = self.kernel_model.index(row, 0)
        self.kernel_view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.kernel_view.scrollTo(index)
        self.tabs.setCurrentIndex(1)

    def _open_in_calculator(self) -> None:
        if self._prefill is not None:
            self.open_in_calculator.emit(self._prefill)
