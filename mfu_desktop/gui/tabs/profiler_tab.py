"""Profiler tab: tree of ranks, summary cards, charts, kernel/type/shape/exclusion/step tables.

Loading and recomputing run on the worker pool (``analyze_paths`` from the core); this tab
only shows the results. Selecting a kernel shows the engine's derivation for it; "Open in
calculator" hands the calculator the inputs that reproduce it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from PySide6.QtCore import QByteArray, QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
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
from mfu_desktop.core.analysis.time_sinks import OPERATOR, mean_breakdown, ranked_time
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.numbers import pct, pct_range, sig
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.pipeline.from_summary import analysis_from_summary, fill_summary_tables, summary_rank
from mfu_desktop.core.progress import check
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.store.summaries import claims_summary, read_summary
from mfu_desktop.gui.bands import band_css
from mfu_desktop.gui.charts.heat_map import RankHeatMap
from mfu_desktop.gui.charts.profile_charts import (
    HotOpsChart,
    MfuScatter,
    StepBreakdownChart,
    group_label,
    scatter_points,
)
from mfu_desktop.gui.charts.roofline_chart import RooflineChart, cluster_view, rank_view
from mfu_desktop.gui.core_text import ct, derivation_markdown, rank_count, sentences, tl
from mfu_desktop.gui.messages import MessageChannel
from mfu_desktop.gui.models.dataframe_model import DataFrameModel, prepare_table
from mfu_desktop.gui.models.profile_columns import (
    AGGREGATE_PRESETS,
    KERNEL_PRESETS,
    aggregate_columns,
    catalog_names,
    cluster_columns,
    kernel_columns,
)
from mfu_desktop.gui.models.rank_tree import (
    CHIP_COLUMN,
    ROLE_INDEX,
    ROLE_KIND,
    WARNINGS_COLUMN,
    RankTreeModel,
    short_chip,
)
from mfu_desktop.gui.staging import Stager
from mfu_desktop.gui.start_page import StartPage
from mfu_desktop.gui.table_view import TableView
from mfu_desktop.gui.views.base import ProfilerView, SelectionBus, ViewContext
from mfu_desktop.gui.views.registry import view_classes
from mfu_desktop.gui.widgets import Card, ElidedLabel, scroll_page
from mfu_desktop.gui.workers import JobRunner

CHANNEL = "profile"
VIEW_CHANNEL = "rank-view"
FULL_CHANNEL = "summary-rank"
#: Ranks of a cluster summary whose full kernel data is kept in memory at once (least recently used dropped).
MAX_FULL_RANKS = 4
#: Below this tab height the summary cards drop their detail lines (it stays in their tooltips).
COMPACT_BELOW_PX = 660


#: The rank names' column never gets narrower than this when the tree fits its columns.
TREE_NAME_MIN_PX = 100


def default_tree_width(total: int) -> int:
    """The rank tree's first width: about a quarter of the tab (200–380 px), the rest for the charts."""
    return int(min(max(total * 0.24, 200), 380))


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
        self._kept_paths: list[Path] = []  # the paths of the profile shown (restored when a new load fails)
        self._reselect: tuple[str, int] | None = None  # the tree selection a recomputation restores
        self._views: dict[int, object] = {}  # prepared kernel tables by id(RankAnalysis), for this result
        self._full: list[int] = []  # summary mode: indices of ranks whose full data is loaded, oldest first
        self._build()

    # --- layout ---------------------------------------------------------------------------

    def _build(self) -> None:
        """The tab: an info bar over the rank tree and the detail pane, then the detail pane's pages."""
        layout = QVBoxLayout(self)
        self.info = MessageChannel(self.tr("Profiler"), self)  # shown in the window's message area
        self.pages = QStackedWidget()  # the start page until a profile is loaded, then the profile
        layout.addWidget(self.pages, 1)
        self.start_page = StartPage()
        self.pages.addWidget(self.start_page)
        self.splitter = splitter = QSplitter(Qt.Orientation.Horizontal)
        self.pages.addWidget(splitter)
        splitter.addWidget(self._build_tree_pane())
        splitter.addWidget(self._build_detail_pane())
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(0, True)  # the tree gives its width up (View → Rank tree, Ctrl+B brings it back)
        splitter.setCollapsible(1, False)
        self._tree_width: int | None = None  # the tree's width before it was collapsed
        self._split_set = False  # the user dragged the split (or it was restored): the tree keeps its width
        splitter.splitterMoved.connect(self._split_moved)

        charts = scroll_page(self._build_charts())  # a short screen scrolls the charts, never squeezes them
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
        self.assumptions_page = scroll_page(self._build_assumptions())
        self.tabs.addTab(self.assumptions_page, self.tr("Assumptions"))

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
            view.action_message.connect(self.action_message)
            self.views.append(view)
            self.tabs.addTab(view, view.title())
            self.view_pages[view.name] = view

    def _build_tree_pane(self) -> QWidget:
        """The left pane: the tree of loaded ranks (the start page says what to drop before there is one)."""
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.tree_model = RankTreeModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.tree_model)
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(14)  # ranks sit two levels deep: the names keep the width
        # a long name never pushes MFU off-screen; shortened at its end, a rank keeps its id ("rank 5 (sl…")
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.selectionModel().currentChanged.connect(self._tree_selected)
        self.tree.clicked.connect(self._tree_clicked)
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

    def cards(self) -> tuple[Card, ...]:
        """The summary cards, left to right."""
        return (self.card_ops, self.card_step, self.card_cube, self.card_tier, self.card_chip)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        compact = self.height() < COMPACT_BELOW_PX  # a laptop screen: the charts need the height more
        for card in self.cards():
            card.set_compact(compact)
        if not self._split_set and self.width() > 100 and self.tree_visible_or_unsized():
            # until the user drags it, the tree is a quarter of the width at every window size
            width = default_tree_width(self.width())
            self.splitter.setSizes([width, max(self.width() - width, 100)])
            self._refit_tree()

    def tree_visible_or_unsized(self) -> bool:
        """True unless the user collapsed the tree."""
        sizes = self.splitter.sizes()
        return sizes[0] > 0 or sum(sizes) == 0

    def _split_moved(self, *_args) -> None:
        self._split_set = True
        self._refit_tree()

    def _refit_tree(self) -> None:
        """The tree changed width: its columns are fitted again (when it shows ranks)."""
        if getattr(self, "result", None) is not None and self.tree.width() > 0:
            self.fit_tree_columns()

    # --- the rank tree's width ------------------------------------------------------------

    def tree_visible(self) -> bool:
        """True while the rank tree has width (it can be collapsed to give the charts the screen)."""
        return self.splitter.sizes()[0] > 0

    def set_tree_visible(self, visible: bool) -> None:
        """Collapse the rank tree or bring it back at its last (or default) width."""
        sizes = self.splitter.sizes()
        total = sum(sizes)
        self._split_set = True  # the user decided: remembered, no longer resized with the window
        if visible and sizes[0] == 0:
            width = self._tree_width or default_tree_width(total)
            self.splitter.setSizes([width, max(total - width, 100)])
        elif not visible and sizes[0] > 0:
            self._tree_width = sizes[0]
            self.splitter.setSizes([0, total])

    def splitter_state(self) -> str:
        """The tree/detail split the user chose, for the settings (base64); ``""`` while it is the default."""
        if not self._split_set:
            return ""
        return bytes(self.splitter.saveState().toBase64()).decode("ascii")

    def restore_splitter(self, state: str) -> None:
        """Restore a split saved by :meth:`splitter_state` (an unreadable one is ignored)."""
        if state and self.splitter.restoreState(QByteArray.fromBase64(state.encode("ascii"))):
            self._split_set = True

    def _build_charts(self) -> QWidget:
        """The Charts page: hot operators (with their ordering) beside the MFU scatter and the step breakdown."""
        charts = QWidget()
        grid = QGridLayout(charts)
        self.hot_mode = QComboBox()
        self.hot_mode.addItem(self.tr("Hot operators by lost time = measured − roofline-attainable"), "lost_us")
        self.hot_mode.addItem(self.tr("Hot operators by total time"), "time_us")
        self.hot_mode.currentIndexChanged.connect(self._update_hot)
        self.hot_chart = HotOpsChart()
        self.hot_chart.group_clicked.connect(self.open_group)
        self.scatter = MfuScatter()
        self.scatter.kernel_clicked.connect(self.select_kernel)
        self.steps_chart = StepBreakdownChart()
        self.steps_chart.rank_clicked.connect(self.select_rank_at)
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
        self.kernel_view.configure("kernels", KERNEL_PRESETS, "Essentials", frozen=C.NAME)
        self.kernel_view.row_menu.connect(self._kernel_menu)
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
        self._pending_group: tuple[str, str | None, str | None] | None = None  # shown once the rank's kernels are ready
        self._shown_kernel: int | None = None  # the kernel whose derivation is shown (frame position)
        self._find = ""  # Ctrl+F's text: kernels whose name or type contains it
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
        self.kernel_derivation.setPlaceholderText(self.tr(
            "Select a kernel: how its FLOPs, bytes, MFU and lost time were worked out shows here."))
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
        self.table_views: dict[str, TableView] = {}
        for key, model, title, frozen in (
            ("by-type", self.type_model, self.tr("By type"), "type"),
            ("by-shape", self.shape_model, self.tr("By type and shape"), "type"),
            ("exclusions", self.excl_model, self.tr("Exclusions"), "type"),
            ("steps", self.steps_model, self.tr("Steps"), "step"),
            ("ranks", self.ranks_model, self.tr("Ranks"), "label"),
        ):
            view = TableView()
            view.setModel(model)
            view.configure(key, AGGREGATE_PRESETS if key in ("by-type", "by-shape") else None, frozen=frozen)
            self.tabs.addTab(view, title)
            if model in (self.type_model, self.shape_model):  # a group chosen here is highlighted in the views
                view.selectionModel().currentRowChanged.connect(
                    lambda current, _previous, m=model: self._table_group_selected(m, current))
            self.table_views[key] = view
        for key in ("by-type", "by-shape"):
            self.table_views[key].row_menu.connect(
                lambda menu, rows, k=key: self._group_menu(menu, rows, self.type_model if k == "by-type"
                                                           else self.shape_model))
        self.steps_view, self.ranks_view = self.table_views["steps"], self.table_views["ranks"]
        self.heat_map = RankHeatMap()
        self.heat_map.rank_clicked.connect(self.select_rank_at)
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
        if self.has_profile():
            self._kept_paths = list(self.paths)  # what comes back if the new paths give nothing
        self.paths = [Path(p) for p in paths]
        self.runner.cancel(CHANNEL)  # a load in progress is superseded at once
        self._load_token += 1
        token = self._load_token
        self.status_message.emit(self.tr("Loading {0}…").format(", ".join(p.name for p in self.paths)))
        self._later(lambda: self._run_analysis(keep_selection=False) if token == self._load_token else None)

    def cancel_pending(self) -> None:
        """Drop a load that was requested but has not started yet."""
        self._load_token += 1

    def reload(self, *_args) -> None:
        """Re-run the analysis of the current paths with the current assumptions; the tree's selection stays."""
        self._run_analysis(keep_selection=True)

    def _selection_key(self) -> tuple[str, int] | None:
        """What the tree has selected: ``("rank", position)``, ``("cluster", 0)``, or ``None``."""
        index = self.tree.currentIndex().siblingAtColumn(0)
        kind = index.data(ROLE_KIND) if index.isValid() else None
        if kind == "rank":
            return "rank", int(index.data(ROLE_INDEX))
        return ("cluster", 0) if kind in ("cluster", "root") else None

    def _run_analysis(self, keep_selection: bool) -> None:
        """Analyse the current paths in the background (``keep_selection``: the same rank is shown after)."""
        if not self.paths:
            return
        self._reselect = self._selection_key() if keep_selection and self.has_profile() else None
        paths, options, catalog = list(self.paths), self.options(), self.catalog
        self.info.hide()
        self.status_message.emit(self.tr("Loading {0}…").format(", ".join(p.name for p in paths)))
        if len(paths) == 1 and claims_summary(paths[0]):
            job = lambda progress: analysis_from_summary(read_summary(paths[0]), catalog)  # noqa: E731
        else:
            job = lambda progress: analyze_paths(paths, options, catalog, progress)  # noqa: E731
        self.runner.start(CHANNEL, job, self._loaded, self._failed, label=self.tr("Analysing profile"))

    def has_profile(self) -> bool:
        """True while a profile with at least one rank is shown."""
        return self.result is not None and bool(self.result.ranks)

    def _failed(self, message: str) -> None:
        self._keep_session(self.tr("The analysis failed: {0}").format(message))

    def _keep_session(self, problem: str) -> None:
        """A load gave nothing: say why, and keep the profile that was open (never lose the user's work)."""
        if self.has_profile():
            self.paths = list(self._kept_paths)
            self.info.show_message(problem + " " + self.tr("The profile already open is kept."))
        else:
            self.pages.setCurrentWidget(self.start_page)
            self.info.show_message(problem)
        self.status_message.emit("")

    def _loaded(self, result: FolderAnalysis) -> None:
        if not result.ranks and (self.has_profile() or self.result is None):
            names = ", ".join(p.name for p in self.paths)
            self._keep_session(self.tr("Nothing could be loaded from {0}. {1}").format(
                names, sentences(result.warnings[:3])))
            return
        self._kept_paths = list(self.paths)
        self.pages.setCurrentWidget(self.splitter)
        self.result = result
        self._views = {}
        self._full = []
        self.runner.cancel(FULL_CHANNEL)
        self.current = None
        self._stage += 1  # whatever was being shown belongs to the previous result
        self.tree_model.set_analysis(result)
        self.tree.expandAll()
        self.loaded.emit(result)
        self.status_message.emit(self.tr("Loaded {0}").format(rank_count(len(result.ranks))))
        self._later(lambda: self._show_loaded(result))

    def _show_loaded(self, result: FolderAnalysis) -> None:
        """Second step of a new result: column widths, messages, then the first view."""
        if result is not self.result:
            return
        self.fit_tree_columns()
        self.heat_map.set_data(result.cluster.table if result.ranks else None, self.rank_names())
        if not result.ranks:
            self.info.show_message(self.tr("No rank could be loaded. {0}").format(sentences(result.warnings)))
            self._show_rank(None)
        else:
            unconfirmed = [r for r in result.ranks if not r.chip.confirmed]
            if unconfirmed:
                self.info.show_message(self.unconfirmed_text(unconfirmed), (self.tr("Set the chip…"), self.ask_chip))
            else:
                problems = list(result.warnings)
                self.info.show_message(sentences(problems[:3]) + (" …" if len(problems) > 3 else ""))
            self._later(lambda: self._select_initial(result))

    def unconfirmed_text(self, ranks: list[RankAnalysis]) -> str:
        """The one message for ranks whose chip the profile does not confirm: what it means and what to do."""
        candidates = sorted({c.identifier for r in ranks for c in r.chip.candidates})
        which = rank_count(len(ranks)) if self.result is not None and len(ranks) < len(self.result.ranks) \
            else self.tr("every rank")
        text = self.tr("The profile does not confirm the chip of {0}: every MFU is a range over the chips it could "
                       "be{1}. Set the chip in Assumptions for one figure.").format(
            which, f" ({', '.join(short_chip(c) for c in candidates[:4])})" if candidates else "")
        return text

    def ask_chip(self) -> None:
        """"Set the chip…": the Assumptions page with its chip picker open."""
        self.tabs.setCurrentWidget(self.assumptions_page)
        self.chip_choice.setFocus()
        self.chip_choice.showPopup()

    def fit_tree_columns(self) -> None:
        """Columns to their contents; then the names and the warnings give way so MFU, Tier and ⚠ N stay in sight.

        The warnings column keeps the width of "⚠ 99" (the cluster's "slow: …" and a failure's reason
        are shortened, whole in their tooltips); the rank names take what is left of the tree (at least
        ``TREE_NAME_MIN_PX``), shortened at their end. When that is too narrow and every
        rank ran on one chip (the Chip card names it), the chip column is hidden. The source column
        follows, reached by scrolling.
        """
        self.tree.setColumnHidden(CHIP_COLUMN, False)
        for col in range(self.tree_model.columnCount()):
            self.tree.resizeColumnToContents(col)
        metrics = self.tree.fontMetrics()
        warn_cap = max(metrics.horizontalAdvance("⚠ 99") + 12, self.tree.header().sectionSizeHint(WARNINGS_COLUMN))
        if self.tree.columnWidth(WARNINGS_COLUMN) > warn_cap:
            self.tree.setColumnWidth(WARNINGS_COLUMN, warn_cap)
        width = self.tree.viewport().width()
        others = sum(self.tree.columnWidth(col) for col in range(1, WARNINGS_COLUMN + 1))
        if width - others < TREE_NAME_MIN_PX and self.tree_model.one_chip():
            # every rank ran on one chip (the Chip card names it): its column gives the names their room
            others -= self.tree.columnWidth(CHIP_COLUMN)
            self.tree.setColumnHidden(CHIP_COLUMN, True)
        cap = max(width - others, TREE_NAME_MIN_PX)
        if self.tree.columnWidth(0) > cap:
            self.tree.setColumnWidth(0, cap)

    def _tree_clicked(self, index: QModelIndex) -> None:
        """A click on a rank's "⚠ N": its warnings, every one, on the Assumptions page."""
        if index.column() == WARNINGS_COLUMN and index.siblingAtColumn(0).data(ROLE_KIND) == "rank" and index.data():
            self.tabs.setCurrentWidget(self.assumptions_page)
            self.assumptions_page.ensureWidgetVisible(self.warnings)  # the box of warnings in sight, from its top
            self.warnings.moveCursor(QTextCursor.MoveOperation.Start)

    def _later(self, fn) -> None:
        """One step of the staged display (see :mod:`mfu_desktop.gui.staging`)."""
        self._stager.later(fn)

    def settling(self) -> bool:
        """True while steps of the staged display are still to come."""
        return self._stager.settling()

    def _select_initial(self, result: FolderAnalysis) -> None:
        if result is not self.result:
            return
        again, self._reselect = self._reselect, None
        # a recomputation (a chip set in Assumptions) keeps the rank that was shown
        if again is not None and again[0] == "rank" and again[1] < len(result.ranks) and self.select_rank_at(again[1]):
            return
        if again is not None and again[0] == "cluster":
            self._select_first()
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
        self._set_title(self.tr("Cluster: {0} — {1}").format(rank_count(len(self.result.ranks)),
                                                                  ", ".join(p.name for p in roots)),
                        "\n".join(str(p) for p in roots))
        mfu = (
            pct(rate.mfu)
            if rate.mfu is not None
            else (pct_range(*rate.mfu_range) if rate.mfu_range else "–")
        )
        self.card_ops.set(
            mfu,
            self.tr("all ranks, {0} TFLOP/s").format(sig(rate.achieved_tflops, group=True))
            if rate.achieved_tflops else "",
            band_css(rate.mfu),
        )
        table = cluster.table
        span = cluster.mfu_step_range
        step = cluster.step_time
        caption = self.tr("range over ranks")
        if step.mean is not None:
            caption += "\n" + self.tr("step {0} ms (mean per rank); slowest rank {1}: {2} ms").format(
                sig(step.mean / 1000, group=True), step.slowest_rank, sig(step.slowest_value / 1000, group=True))
        self.card_step.set(pct_range(*span) if span else "–", caption)
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
        self._hot_context = (mean_breakdown(d.get("step_breakdown") for d in self.result.documents),
                             cluster.step_time.mean)
        self._update_hot()
        self._later(lambda: self._show_cluster_steps(stage))

    def _show_cluster_steps(self, stage: int) -> None:
        if stage != self._stage or self.current is not None or self.result is None:
            return
        self.steps_chart.set_data(self.result.cluster.table, self.result.cluster.slow, self.rank_names("axis"))
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
        self._set_title(self.rank_title(r), str(r.folder.path))
        if s.mfu_ops is not None:
            self.card_ops.set(
                pct(s.mfu_ops),
                self.tr("{0} TFLOP/s over {1} counted kernels").format(
                    sig(s.achieved_tflops, group=True), f"{s.countable_kernels:,}"
                ),
                band_css(s.mfu_ops),
            )
        elif s.mfu_ops_range is not None:
            self.card_ops.set(pct_range(*s.mfu_ops_range), self.tr("chip not confirmed — set it in Assumptions"))
        else:
            self.card_ops.set("–", self.tr("no FLOPs-based MFU"))
        if s.mfu_step is not None:
            self.card_step.set(
                pct(s.mfu_step),
                self.tr("step {0} ms, mean of {1} step(s)").format(sig(s.step_time_us / 1000, group=True), s.steps),
                band_css(s.mfu_step),
            )
        elif s.mfu_step_range is not None:
            self.card_step.set(pct_range(*s.mfu_step_range), self.tr("chip not confirmed — set it in Assumptions"))
        else:
            self.card_step.set("–", self.tr("no step trace") if s.step_time_us is None else "")
        self.card_cube.caption.setText(self._matrix_unit_caption(r.folder.vendor))
        self.card_cube.set(
            pct(s.cube_utilization) if s.cube_utilization is not None else "–",
            self.tr("duration-weighted over cube/mix kernels") if r.folder.vendor == "Huawei"
            else self.tr("a PyTorch profiler trace has no hardware counters"),
        )
        value = pct(s.tier.value) if s.tier.value is not None else (
            pct_range(*s.mfu_ops_range) if s.tier.tier == 1 and s.mfu_ops_range is not None else "–")
        self.card_tier.caption.setText(self.tr("Fallback tier"))
        self.card_tier.set(
            f"T{s.tier.tier}: {value}", ct(s.tier.label) + ("\n" + "\n".join(s.tier.why) if s.tier.why else "")
        )
        self.card_chip.set(short_chip(s.chip) if s.chip else self.tr("not confirmed — set it in Assumptions"),
                           f"{s.chip} · {tl(s.peak_source)}" if s.chip else tl(s.peak_source), small=True)
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
        by_time = ("time_us", Qt.SortOrder.DescendingOrder)  # the engine's order: the longest first
        self.type_model.set_frame(r.by_type, aggregate_columns(r.by_type), by_time)
        self.shape_model.set_frame(r.by_shape, aggregate_columns(r.by_shape), by_time)
        self.excl_model.set_frame(r.excluded, aggregate_columns(r.excluded), by_time)
        self.steps_model.set_frame(r.steps, aggregate_columns(r.steps))
        if self.result is not None:
            self.ranks_model.set_frame(self.result.cluster.table, cluster_columns())
        self._later(lambda: self._show_rank_charts(r, stage))

    def _show_rank_charts(self, r: RankAnalysis, stage: int) -> None:
        if stage != self._stage or self.current is not r:
            return
        self._hot_tables = {"lost_us": r.hot_by_lost, "time_us": r.hot_by_time}
        document = self._document_of(r)
        self._hot_context = (document.get("step_breakdown") if document else None, r.summary.step_time_us)
        self._update_hot()
        self._later(lambda: self._show_rank_steps(r, stage))

    def _show_rank_steps(self, r: RankAnalysis, stage: int) -> None:
        if stage != self._stage or self.current is not r:
            return
        if self.result is not None:
            self.steps_chart.set_data(self.result.cluster.table, self.result.cluster.slow, self.rank_names("axis"))
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
        if self._pending_group is not None:  # a group chosen in the cluster view: this rank is where it loses most
            group, self._pending_group = self._pending_group, None
            self.show_group(*group)
        stage = self._stage

        def scatter() -> None:
            if stage == self._stage and self.current is r:
                unconfirmed = self.tr("MFU per kernel needs the chip, which the profile does not confirm: set it in "
                                      "Assumptions (the cards show the range over the chips it could be).")
                self.scatter.set_points(points, "" if r.chip.confirmed else unconfirmed)
                self.roofline.set_view(roofline)
                self.kernels_shown.emit()

        self._later(scatter)

    def _fill_assumptions(self, r: RankAnalysis | None) -> None:
        if self.result is None:
            return
        lines = []
        names = self.rank_names()
        for i, rank in enumerate(self.result.ranks):
            s = rank.summary
            lines.append(
                self.tr("{0}: {1} — {2}").format(names[i], s.chip or self.tr("not confirmed"), tl(s.peak_source))
            )
        self.rank_chips.setText("\n".join(lines[:64]))
        # the warnings first (a click on "⚠ N" lands here), then how the rank was captured and the conventions
        text = [*(tl(w) for w in r.warnings)] if r is not None else []
        text += [*self.result.warnings, ""]
        if r is not None:
            text += [self.tr("Capture: {0}").format(r.folder.config.describe()), *(tl(n) for n in r.notes)]
        self.warnings.setPlainText("\n".join(text).strip())

    def _update_hot(self) -> None:
        """The hot-operator chart: operator groups and the step's non-operator time, ranked together."""
        by = self.hot_mode.currentData()
        table = getattr(self, "_hot_tables", {}).get(by)
        breakdown, step_us = getattr(self, "_hot_context", (None, None))
        title = self.tr("Hot operators by lost time") if by == "lost_us" else self.tr("Hot operators by time")
        rows = None
        if table is not None:
            rows = pd.DataFrame(ranked_time(table.to_dict("records"), breakdown, by, self.top_n))
        self.hot_chart.set_data(rows, by, title, step_us)

    def _document_of(self, r: RankAnalysis) -> dict | None:
        """The rank document of a shown rank (``None`` when the result has none for it)."""
        if self.result is None:
            return None
        for rank, document in zip(self.result.ranks, self.result.documents):
            if rank is r:
                return document
        return r.document

    def rank_title(self, r: RankAnalysis) -> str:
        """The header of a rank: its label and its folder or file ("Rank 5 — node0_…", "bert_h100 · trace")."""
        names = self.result.labels() if self.result is not None else []
        position = next((i for i, other in enumerate(self.result.ranks) if other is r), -1) if self.result else -1
        if 0 <= position < len(names):
            name = names[position]
            if name.label.startswith("rank "):
                return self.tr("Rank {0} — {1}").format(name.label[5:], r.folder.path.name)
            return f"{name.label} — {name.format}" + (f" · {name.level}" if name.level else "")
        return self.tr("Rank {0} — {1}").format(r.rank, r.folder.path.name)

    def rank_names(self, kind: str = "label") -> list[str]:
        """Every loaded rank's display label (``label``) or short axis label (``axis``), in ``ranks`` order."""
        if self.result is None:
            return []
        return [getattr(name, kind) for name in self.result.labels()]

    def select_rank_at(self, position: int) -> bool:
        """Select the rank at ``position`` of the loaded ranks (tells apart ranks that share an id)."""
        for r in range(self.tree_model.rowCount()):
            root = self.tree_model.index(r, 0)
            for c in range(self.tree_model.rowCount(root)):
                index = self.tree_model.index(c, 0, root)
                if index.data(ROLE_KIND) == "rank" and int(index.data(ROLE_INDEX)) == position:
                    self._set_tree_current(index)
                    return True
        return False

    # --- a group of kernels: from a chart or a table to the Kernels view ----------------------

    def open_group(self, row: dict) -> None:
        """A hot-operator bar was clicked: its kernels (filtered, the first selected) or the step breakdown.

        In the cluster view the rank where the group loses most is opened. The kernels are also
        highlighted in every view (:meth:`SelectionBus.highlight`).
        """
        if row.get("kind", OPERATOR) != OPERATOR:
            self.tabs.setCurrentWidget(self.steps_view if self.current is not None else self.ranks_view)
            return
        klass = row.get("klass") if isinstance(row.get("klass"), str) and row.get("klass") else None
        group = (str(row.get("type")), row.get("input_shapes") if isinstance(row.get("input_shapes"), str) else None,
                 klass)
        if self.current is None and self.result is not None:
            position = self._rank_losing_most(row)
            if position is not None:
                self._pending_group = group  # highlighted once that rank's kernels are ready
                self.select_rank_at(position)
        else:
            self.show_group(*group)
        self.tabs.setCurrentWidget(self.view_pages["kernels"])

    def _rank_losing_most(self, row: dict) -> int | None:
        """The position of the rank whose hot table has the group with the most lost (else total) time."""
        best, best_value = None, -1.0
        for i, r in enumerate(self.result.ranks if self.result is not None else []):
            for table, key in ((r.hot_by_lost, "lost_us"), (r.hot_by_time, "time_us")):
                if table is None or table.empty:
                    continue
                match = (table["type"].astype(str) == str(row.get("type"))) \
                    & (table["input_shapes"].astype(str) == str(row.get("input_shapes") or ""))
                if row.get("klass") and "klass" in table.columns:
                    match &= table["klass"].astype(str) == str(row.get("klass"))
                hit = table[match]
                value = float(hit[key].max()) if len(hit) else -1.0
                if value > best_value:
                    best, best_value = i, value
                break
        return best

    def show_group(self, op_type: str, input_shapes: str | None = None, klass: str | None = None) -> None:
        """Highlight one (type, input shapes[, class]) group on the bus and select its first kernel (its derivation).

        The Kernels table then shows only its kernels, the scatter and the roofline ring them.
        """
        if self.current is None or self.current.lite:
            return
        rows = group_rows(self.current.kernels, op_type, input_shapes, klass)
        self.bus.highlight(rows, group_label({"type": op_type, "input_shapes": input_shapes}))
        if self.kernel_model.rowCount():
            self.kernel_view.selectRow(0)

    def _highlight_group(self, op_type: str, shapes: str | None, klass: str | None) -> None:
        """Highlight the shown rank's kernels of one operator group in every view (a group of a table or chart)."""
        if self.current is None or self.current.lite:
            return
        rows = group_rows(self.current.kernels, op_type, shapes, klass)
        label = f"{op_type} [{shapes}]" if shapes else op_type
        self.bus.highlight(rows, label)

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
        if self._find:
            mask &= model.find_mask(self._find, (C.NAME, C.OP_TYPE))
        if self._highlighted is not None:
            keep = np.zeros(len(model.frame), dtype=bool)
            rows = self._highlighted[(self._highlighted >= 0) & (self._highlighted < len(keep))]
            keep[rows] = True
            mask &= keep
        shown = self._shown_kernel
        model.set_mask(None if mask.all() else mask)
        self.kernel_count.setText(
            self.tr("{0} of {1} kernels").format(f"{model.rowCount():,}", f"{len(model.frame):,}")
        )
        self._follow_selection(shown)

    def find_kernels(self, text: str) -> int | None:
        """Ctrl+F: the kernels whose name or type contains ``text``; how many (``None``: no kernel table)."""
        self._find = text
        if self.kernel_model.frame.empty:
            return None
        self._apply_filters()
        return self.kernel_model.rowCount()

    def _follow_selection(self, source_row: int | None) -> None:
        """After a filter: the kernel the derivation shows stays selected when visible, else the pane is cleared."""
        row = self.kernel_model.view_row(source_row) if source_row is not None else -1
        if row >= 0:
            index = self.kernel_model.index(row, 0)
            self.kernel_view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            self.kernel_view.scrollTo(index)
        elif source_row is not None:
            self._clear_derivation(self.tr("The kernel shown before is filtered out: select a kernel."))

    def _clear_derivation(self, text: str = "") -> None:
        self._shown_kernel = None
        self.kernel_derivation.setPlainText(text)
        self.calc_button.setEnabled(False)
        self._prefill = None
        self.bus.kernel_selected.emit(-1)

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
        if row == self._shown_kernel and self._prefill is not None:
            return  # the same kernel (a sort or a filter moved it): its derivation is on screen
        self._shown_kernel = int(row)
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
        self.tabs.setCurrentWidget(self.view_pages["kernels"])

    def _open_in_calculator(self) -> None:
        if self._prefill is not None:
            self.open_in_calculator.emit(self._prefill)

    # --- right-click menus of the tables --------------------------------------------------------

    def _kernel_menu(self, menu: QMenu, rows: list[int]) -> None:
        """The kernel table's row menu: open in the calculator, show only its type or group, show in the timeline."""
        if not rows or self.current is None:
            return
        record = self.current.kernels.iloc[rows[0]]
        op_type, shapes = str(record.get(C.OP_TYPE, "")), record.get(C.INPUT_SHAPES)
        shapes = shapes if isinstance(shapes, str) else None
        calc = menu.addAction(self.tr("Open in calculator"), self._open_in_calculator)
        calc.setEnabled(self._prefill is not None and self._prefill.kind is not None)
        menu.addAction(self.tr("Show only this type ({0})").format(op_type),
                       lambda: self.show_group(op_type, None))
        menu.addAction(self.tr("Show only this type and shape"), lambda: self.show_group(op_type, shapes))
        self._add_reveal(menu, np.asarray(rows, dtype=np.int64), group_label({"type": op_type}))

    def _group_menu(self, menu: QMenu, rows: list[int], model: DataFrameModel) -> None:
        """A By type / By type and shape row: its kernels in the Kernels view, or in the timeline."""
        if not rows:
            return
        frame = model.frame
        op_type = str(frame["type"].iloc[rows[0]])
        shapes = str(frame["input_shapes"].iloc[rows[0]]) if "input_shapes" in frame else None
        row = {"kind": OPERATOR, "type": op_type, "input_shapes": shapes}
        menu.addAction(self.tr("Show its kernels"), lambda: self.open_group(row))
        if self.current is not None and not self.current.lite:
            self._add_reveal(menu, group_rows(self.current.kernels, op_type, shapes), group_label(row))

    def _add_reveal(self, menu: QMenu, rows: np.ndarray, label: str) -> None:
        """"Show in timeline" when a timeline view is registered: highlight the kernels on the bus, bring it up."""
        timeline = self.view_pages.get("timeline")
        if timeline is None:
            return

        def reveal() -> None:
            self.bus.highlight(rows, label)
            self.tabs.setCurrentWidget(timeline)

        menu.addAction(self.tr("Show in timeline"), reveal)
