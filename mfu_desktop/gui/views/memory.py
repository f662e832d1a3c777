"""The Memory view of the Profiler tab: the peak, when it happens, what holds it, and whether it fits.

For a rank: four cards (peak allocated, peak reserved, the process, fits on the chip), the
allocator's curve over the captured steps with the peak and the chip's capacity, the runtime
components' reserved memory on the same time axis, and the allocations live at the peak with the
operator that made them. For the cluster: every rank's peaks against its chip's capacity (click
a rank to open it) and the cluster's highest rank. A rank without memory data says why and how
to capture it. All figures come from the engine (:mod:`mfu_desktop.core.analysis.memory`, the
rank documents' ``memory`` objects); this module only lays them out.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from mfu_desktop.core.analysis.memory import memory_json, memory_of
from mfu_desktop.core.analysis.memory_text import gb, mb
from mfu_desktop.core.analysis.rank import RankAnalysis
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.numbers import pct
from mfu_desktop.gui.charts.memory_charts import ComponentChart, MemoryCurveChart, RankPeaksChart
from mfu_desktop.gui.core_text import ct
from mfu_desktop.gui.models.dataframe_model import ColumnSpec, DataFrameModel, fmt_tenths
from mfu_desktop.gui.table_view import TableView
from mfu_desktop.gui.views.base import ProfilerView, ViewContext
from mfu_desktop.gui.widgets import Card

#: A footprint above this share of the chip's memory is shown as tight (amber), above 1 as not fitting (red).
TIGHT_SHARE = 0.9
_GREEN, _AMBER, _RED = "#2e7d32", "#b26a00", "#c62828"


def fit_colour(share: float | None) -> str:
    """Colour of the "fits" card: green, amber above :data:`TIGHT_SHARE`, red when it does not fit."""
    if share is None:
        return ""
    return _RED if share > 1.0 else _AMBER if share > TIGHT_SHARE else _GREEN


class MemoryView(ProfilerView):
    """Peak memory, its curve and what holds it (rank); peaks per rank (cluster)."""

    name = "memory"

    def __init__(self, context: ViewContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.pages = QStackedWidget()
        layout.addWidget(self.pages)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setStyleSheet("color: palette(placeholder-text); font-size: 10pt; padding: 24px;")
        self.pages.addWidget(self.message)
        self.pages.addWidget(self._build_rank_page())
        self.pages.addWidget(self._build_cluster_page())

    def title(self) -> str:
        """The tab title."""
        return self.tr("Memory")

    # --- layout -----------------------------------------------------------------------------

    def _build_cards(self) -> QGridLayout:
        cards = QGridLayout()
        self.card_allocated = Card(self.tr("Peak allocated"))
        self.card_reserved = Card(self.tr("Peak reserved"))
        self.card_process = Card(self.tr("Process reserved (APP)"))
        self.card_fit = Card(self.tr("Fits on the chip?"))
        for i, card in enumerate((self.card_allocated, self.card_reserved, self.card_process, self.card_fit)):
            cards.addWidget(card, 0, i)
        return cards

    def _build_rank_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._build_cards())
        self.curve = MemoryCurveChart()
        self.components = ComponentChart()
        self.live_model = DataFrameModel(parent=self)
        self.live_view = TableView()
        self.live_view.setModel(self.live_model)
        side = QTabWidget()  # beside the curve: laptop screens keep the curve tall
        side.addTab(self.live_view, self.tr("Live at the peak"))
        side.addTab(self.components, self.tr("Runtime components"))
        self.side = side
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.curve)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([3000, 2000])
        layout.addWidget(split, 1)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("font-size: 8pt; color: palette(placeholder-text);")
        layout.addWidget(self.notes)
        return page

    def _build_cluster_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        self.cluster_line = QLabel("")
        self.cluster_line.setWordWrap(True)
        layout.addWidget(self.cluster_line)
        self.peaks = RankPeaksChart()
        self.peaks.rank_clicked.connect(self.context.bus.rank_requested)
        layout.addWidget(self.peaks, 1)
        return page

    # --- drawing ----------------------------------------------------------------------------

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.pages.setCurrentWidget(self.message)

    def render_empty(self) -> None:
        """Nothing loaded."""
        self._show_message(self.tr("Memory: open a profile captured with profile_memory=True."))

    def render_rank(self, rank: RankAnalysis, result: FolderAnalysis) -> None:
        """One rank: its cards, curves and live allocations (or why it has none)."""
        memory = memory_of(rank)
        doc = memory_json(memory) if memory is not None else (rank.document or {}).get("memory")
        if not doc:
            reason = memory.reason if memory is not None else (rank.document or {}).get("memory_reason")
            self._show_message(self.tr("Rank {0} has no memory figures: {1}").format(
                rank.rank, ct(reason or "no memory data (capture with profile_memory=True)")))
            return
        self.pages.setCurrentIndex(1)
        self._fill_cards(doc)
        self.curve.set_memory(memory, self.tr("This rank was read from a cluster summary: its memory curve is "
                                              "in its profile folder, not in the summary."))
        self.components.set_memory(memory)
        self._fill_live(doc)
        notes = [ct(n) for n in doc.get("notes") or []]
        notes.append(self.tr("Source: {0}.").format(doc.get("source") or "–"))
        self.notes.setText(" ".join(notes))

    def _fill_cards(self, doc: dict[str, Any]) -> None:
        when = ""
        if doc.get("peak_at_us") is not None:
            step = doc.get("peak_step")
            when = (self.tr("{0} ms into step {1}").format(f"{doc['peak_at_us'] / 1000:,.1f}", step) if step
                    else self.tr("{0} ms into the capture").format(f"{doc['peak_at_us'] / 1000:,.1f}"))
        allocator = doc.get("allocator") or self.tr("allocator")
        self.card_allocated.set(mb(doc.get("peak_allocated_mb")), f"{allocator} · {when}" if when else allocator)
        self.card_reserved.set(mb(doc.get("peak_reserved_mb")),
                               self.tr("{0} not released within the capture").format(mb(doc.get("not_released_mb"))))
        components = ", ".join(f"{k} {mb(v)}" for k, v in (doc.get("components_mb") or {}).items())
        self.card_process.set(mb(doc.get("process_reserved_mb")), components)
        self._fill_fit(doc)

    def _fill_fit(self, doc: dict[str, Any]) -> None:
        share, capacity, room = doc.get("share"), doc.get("capacity_gb"), doc.get("headroom_gb")
        if capacity is None:
            self.card_fit.set("–", self.tr("the chip's memory is unknown (no memory_gb in the catalog for it)"))
            return
        if room is not None and room < 0:
            value, detail = self.tr("no"), self.tr("{0} short of {1}").format(gb(-room), gb(capacity))
        else:
            value = self.tr("yes, {0}").format(pct(share)) if share is not None else self.tr("yes")
            detail = self.tr("{0} free of {1}").format(gb(room), gb(capacity))
        self.card_fit.set(value, f"{detail} · {self._basis(doc)}", _css(fit_colour(share)))

    def _basis(self, doc: dict[str, Any]) -> str:
        """Which figure is set against the chip (the engine's footprint basis, in the UI's language)."""
        allocator = doc.get("allocator") or self.tr("allocator")
        if doc.get("process_reserved_mb") is not None:
            return self.tr("the process's reserved memory (APP)")
        if doc.get("peak_reserved_mb") is not None:
            return self.tr("{0} reserved").format(allocator)
        return self.tr("{0} allocated").format(allocator)

    def _fill_live(self, doc: dict[str, Any]) -> None:
        rows = [{"name": a.get("name"), "mb": a.get("mb"),
                 "allocated_at_ms": None if a.get("allocated_at_us") is None else a["allocated_at_us"] / 1000}
                for a in doc.get("top_live") or []]
        specs = [ColumnSpec("name", self.tr("Allocated by"), None, self.tr("the operator that allocated the tensor")),
                 ColumnSpec("mb", self.tr("MB"), fmt_tenths),
                 ColumnSpec("allocated_at_ms", self.tr("Allocated (ms)"), fmt_tenths,
                            self.tr("when it was allocated, from the start of the peak's step; negative: before it "
                                    "(e.g. weights allocated before the capture)"))]
        self.live_model.set_frame(pd.DataFrame(rows, columns=["name", "mb", "allocated_at_ms"]), specs)
        self.live_view.resizeColumnsToContents()

    def render_cluster(self, result: FolderAnalysis) -> None:
        """Every rank's peaks; the cluster's highest rank and its headroom in one line."""
        table = result.cluster.table
        self.pages.setCurrentIndex(2)
        self.peaks.set_data(table)
        self.cluster_line.setText(self._cluster_text(table))

    def _cluster_text(self, table: pd.DataFrame) -> str:
        if "peak_allocated_mb" not in table or table["peak_allocated_mb"].isna().all():
            return self.tr("No rank has memory data: capture with profile_memory=True.")
        footprint = table[[c for c in ("process_reserved_mb", "peak_reserved_mb", "peak_allocated_mb")
                           if c in table]].bfill(axis=1).iloc[:, 0]
        worst = int(footprint.idxmax())
        row = table.loc[worst]
        room = row.get("memory_headroom_gb")
        text = self.tr("Highest rank {0}: {1} allocated, {2} reserved, process {3}.").format(
            int(row["rank"]), mb(row.get("peak_allocated_mb")), mb(row.get("peak_reserved_mb")),
            mb(row.get("process_reserved_mb")))
        if room is not None and not pd.isna(room):
            text += " " + (self.tr("{0} free of {1} on its chip.").format(gb(room), gb(row.get("memory_capacity_gb")))
                           if room >= 0 else self.tr("It does NOT fit on its chip: {0} short.").format(gb(-room)))
        without = int(table["peak_allocated_mb"].isna().sum())
        if without:
            text += " " + self.tr("{0} rank(s) without memory data.").format(without)
        return text


def _css(colour: str) -> str:
    return f"color: {colour};" if colour else ""
