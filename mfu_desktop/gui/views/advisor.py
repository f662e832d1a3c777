"""The Advisor view of the Profiler tab: what to fix first, how much time it is worth, and how.

A ranked list of the advisor's findings (:mod:`mfu_desktop.core.advisor`) for the selected rank —
or for the cluster, mean per rank — with the selected finding's summary, advice and evidence.
Selecting a finding (or one of its evidence rows) highlights its kernels through the tab's
:class:`~mfu_desktop.gui.views.base.SelectionBus`: the Kernels table shows only them, the charts
ring them. Double-clicking asks for its longest kernel (the Kernels table and the derivation
follow); in the cluster, *Open rank N* selects the rank with the most at stake.

The advice of a whole folder is computed once, on the worker pool, and kept for that folder.
"""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.advisor.advice import TIME_AT_STAKE, Advice, advise
from mfu_desktop.core.advisor.finding import Evidence, Finding
from mfu_desktop.core.advisor.render import CONFIDENCE, figures_text, word
from mfu_desktop.core.advisor.rule import share, us
from mfu_desktop.core.analysis.rank import RankAnalysis
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.numbers import calls
from mfu_desktop.gui.i18n import current_language
from mfu_desktop.gui.views.base import ProfilerView, ViewContext

CHANNEL = "advisor"


class AdvisorView(ProfilerView):
    """Findings ranked by time at stake; the selected one's summary, advice and evidence."""

    name = "advisor"

    def __init__(self, context: ViewContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self._advice: dict[int, tuple[tuple[int, ...], Advice]] = {}
        self._findings: list[Finding] = []
        self._rank: RankAnalysis | None = None
        self._result: FolderAnalysis | None = None
        self._computing: int | None = None  # id() of the folder whose advice is being computed
        self._build()

    def title(self) -> str:
        return self.tr("Advisor")

    # --- layout ---------------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        self.scope = QLabel("")
        self.scope.setWordWrap(True)
        self.scope.setToolTip(TIME_AT_STAKE.get(current_language()))
        layout.addWidget(self.scope)
        split = QSplitter(Qt.Orientation.Vertical)
        self.table = _table([self.tr("#"), self.tr("Finding"), self.tr("At stake / step"),
                             self.tr("Share of step"), self.tr("Confidence"), self.tr("Ranks")], stretch=1)
        self.table.setToolTip(TIME_AT_STAKE.get(current_language()))
        self.table.itemSelectionChanged.connect(self._finding_selected)
        self.table.cellDoubleClicked.connect(lambda _row, _col: self._finding_activated())
        split.addWidget(self.table)
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        split.addWidget(self.text)
        split.addWidget(self._build_evidence())
        for i, stretch in enumerate((2, 4, 3)):
            split.setStretchFactor(i, stretch)
        self.split = split
        layout.addWidget(split, 1)

    def _build_evidence(self) -> QWidget:
        """The selected finding's evidence table, and *Open rank N* in the cluster."""
        right = QWidget()
        box = QVBoxLayout(right)
        box.setContentsMargins(0, 0, 0, 0)
        self.evidence = _table([self.tr("Evidence"), self.tr("Calls / step"), self.tr("Time / step"),
                                self.tr("At stake / step"), self.tr("Figures")], stretch=4)
        self.evidence.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.evidence.horizontalHeader().resizeSection(0, 280)
        self.evidence.itemSelectionChanged.connect(self._evidence_selected)
        self.evidence.cellDoubleClicked.connect(self._evidence_activated)
        box.addWidget(self.evidence, 1)
        buttons = QHBoxLayout()
        self.open_rank = QPushButton("")
        self.open_rank.setVisible(False)
        self.open_rank.clicked.connect(self._open_rank)
        buttons.addWidget(self.open_rank)
        buttons.addStretch(1)
        box.addLayout(buttons)
        return right

    # --- what the tab shows -----------------------------------------------------------------------

    def render_rank(self, rank: RankAnalysis, result: FolderAnalysis) -> None:
        self._show(result, rank)

    def render_cluster(self, result: FolderAnalysis) -> None:
        self._show(result, None)

    def render_empty(self) -> None:
        self._rank = self._result = None
        self._fill([], "")
        self.scope.setText(self.tr("Open a profile: the advisor lists what to fix first, with the time each fix "
                                   "is worth per step."))

    def _show(self, result: FolderAnalysis, rank: RankAnalysis | None) -> None:
        """Show the findings of ``rank`` (``None``: the cluster's), computing the folder's advice first if needed."""
        self._result, self._rank = result, rank
        advice = self.advice_for(result)
        if advice is None:
            self._fill([], "")
            self.scope.setText(self.tr("Looking for what to fix first…"))
            if self._computing != id(result) or not self.context.runner.busy(CHANNEL):
                self._computing = id(result)
                self.context.runner.start(CHANNEL, lambda progress: advise(result, progress=progress),
                                          lambda done: self._advised(result, done), self._failed,
                                          label=self.tr("Advising"))
            return
        findings = advice.findings if rank is None else advice.for_rank(rank.rank)
        if rank is None:
            scope = self.tr("Cluster of {0} ranks: findings as means per rank, largest time at stake first.").format(
                advice.ranks) if advice.ranks > 1 else self.tr("Largest time at stake first.")
        else:
            scope = self.tr("Rank {0}: largest time at stake first.").format(rank.rank)
        sep = "" if current_language().startswith("zh") else " "
        if rank is not None and rank.lite:
            scope += sep + self.tr("This rank comes from a cluster summary: only its step and memory figures are "
                                   "advised on.")
        self._fill(findings, scope + sep + self.tr("Time at stake is an upper bound per step; findings can "
                                                   "overlap."))

    def advice_for(self, result: FolderAnalysis) -> Advice | None:
        """The advice of ``result`` when it has been computed for its current ranks."""
        cached = self._advice.get(id(result))
        if cached is None or cached[0] != tuple(id(r) for r in result.ranks):
            return None
        return cached[1]

    def _advised(self, result: FolderAnalysis, advice: Advice) -> None:
        self._computing = None
        self._advice = {id(result): (tuple(id(r) for r in result.ranks), advice)}  # one folder at a time
        if result is self._result:
            self._show(result, self._rank)

    def _failed(self, message: str) -> None:
        self._computing = None
        self.scope.setText(self.tr("The advisor could not run: {0}").format(message))

    # --- the list --------------------------------------------------------------------------------

    def _fill(self, findings: list[Finding], scope: str) -> None:
        lang = current_language()
        self._findings = findings
        self.scope.setText(scope)
        table = self.table
        table.blockSignals(True)
        table.setRowCount(len(findings))
        for i, f in enumerate(findings):
            cells = [str(i + 1), f.title.get(lang), us(f.time_at_stake_us), share(f.share_of_step),
                     CONFIDENCE[f.confidence].get(lang), ranks_text(f.ranks)]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f.summary.get(lang) if col == 1 else text)
                if col in (0, 2, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(i, col, item)
        if findings:
            table.selectRow(0)
        table.blockSignals(False)
        if findings:
            self._finding_selected()  # the list changed: the first finding is shown whatever was selected before
        else:
            self._show_finding(None)
            if scope:
                self.text.setPlainText(self.tr("No findings: none of the advisor's rules found a problem worth the "
                                               "time in what is shown."))

    def selected_finding(self) -> Finding | None:
        """The finding selected in the list."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self._findings[rows[0].row()] if rows and rows[0].row() < len(self._findings) else None

    def _finding_selected(self) -> None:
        f = self.selected_finding()
        self._show_finding(f)
        self._highlight_finding(f)

    def _highlight_finding(self, f: Finding | None) -> None:
        """Highlight the finding's kernels (none in the cluster: its kernels belong to several ranks)."""
        if self._rank is not None and f is not None and len(f.rows):
            self.context.bus.highlight(f.rows, f.title.get(current_language()))
        else:
            self.context.bus.highlight(None)

    def _finding_activated(self) -> None:
        """Double click on a finding: highlight its kernels and ask for the longest of them."""
        f = self.selected_finding()
        if f is not None:
            self._highlight_finding(f)
            self._request_kernel(f.rows)

    def _show_finding(self, f: Finding | None) -> None:
        lang = current_language()
        self.evidence.blockSignals(True)
        self.evidence.setRowCount(0)
        if f is None:
            self.text.clear()
            self.open_rank.setVisible(False)
            self.evidence.blockSignals(False)
            return
        self.text.setHtml(_finding_html(f, lang))
        self.evidence.setRowCount(len(f.evidence))
        for i, e in enumerate(f.evidence):
            for col, text in enumerate(_evidence_cells(e, lang)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if col in (1, 2, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.evidence.setItem(i, col, item)
        self.evidence.blockSignals(False)
        worst = self._worst_rank(f)
        self.open_rank.setVisible(self._rank is None and worst is not None)
        if worst is not None:
            self.open_rank.setText(self.tr("Open rank {0}").format(worst))

    # --- linking -----------------------------------------------------------------------------------

    def _evidence_selected(self) -> None:
        rows = self.evidence.selectionModel().selectedRows()
        if rows:
            self._highlight_evidence(rows[0].row())

    def _highlight_evidence(self, row: int) -> Evidence | None:
        """Highlight an evidence row's kernels (the finding's when the row has none); returns the row."""
        f = self.selected_finding()
        if f is None or self._rank is None or not 0 <= row < len(f.evidence):
            return None
        e = f.evidence[row]
        if len(e.rows):
            self.context.bus.highlight(e.rows, e.label.get(current_language()))
        else:
            self._highlight_finding(f)
        return e

    def _evidence_activated(self, row: int, _column: int) -> None:
        """Double click on an evidence row: highlight its kernels and ask for the longest of them."""
        e = self._highlight_evidence(row)
        if e is not None:
            self._request_kernel(e.rows)

    def _request_kernel(self, rows: np.ndarray) -> None:
        """Ask for the longest of ``rows`` (the Kernels table selects it and shows its derivation)."""
        if self._rank is None or not len(rows):
            return
        durations = self._rank.kernels["duration_us"].to_numpy(dtype=np.float64)[rows]
        self.context.bus.kernel_requested.emit(int(rows[int(np.nanargmax(durations))]))

    def _worst_rank(self, f: Finding) -> int | None:
        """The rank with the most at stake for this finding's rule (cluster view)."""
        result = self._result
        advice = self.advice_for(result) if result is not None else None
        if advice is None or self._rank is not None:
            return None
        best = None
        for rank, findings in advice.by_rank.items():
            for g in findings:
                if g.rule == f.rule and (best is None or g.time_at_stake_us > best[1]):
                    best = (rank, g.time_at_stake_us)
        return best[0] if best is not None else None

    def _open_rank(self) -> None:
        f = self.selected_finding()
        worst = self._worst_rank(f) if f is not None else None
        if worst is not None:
            self.context.bus.rank_requested.emit(worst)


def ranks_text(ranks: list[int], limit: int = 6) -> str:
    """Ranks as runs: ``0–7``, ``0, 2, 5–6``; more than ``limit`` runs end with ``…``."""
    runs: list[list[int]] = []
    for r in sorted(ranks):
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    parts = [f"{a}" if a == b else f"{a}, {b}" if b == a + 1 else f"{a}–{b}" for a, b in runs[:limit]]
    return ", ".join(parts) + (", …" if len(runs) > limit else "")


def _table(headers: list[str], stretch: int) -> QTableWidget:
    """A read-only, row-selecting table with ``headers``; column ``stretch`` takes the spare width."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(22)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return table


def _finding_html(f: Finding, lang: str) -> str:
    """A finding's title, headline figures, summary, advice and guide link as HTML."""
    esc = html.escape
    colon = "：" if lang.startswith("zh") else ": "
    head = (f"{us(f.time_at_stake_us)} · {share(f.share_of_step)} · {word('confidence', lang)} "
            f"{CONFIDENCE[f.confidence].get(lang)}")
    return (f"<p><b>{esc(f.title.get(lang))}</b><br><span style='color:#666'>{esc(head)}</span></p>"
            f"<p>{esc(f.summary.get(lang))}</p>"
            f"<p><b>{esc(word('advice', lang))}</b>{colon}{esc(f.advice.get(lang))}</p>"
            f"<p style='color:#666'>{esc(word('guide', lang))}{colon}{esc(f.guide)} ({esc(f.rule)})</p>")


def _evidence_cells(e: Evidence, lang: str) -> list[str]:
    """An evidence row's cells: label, calls, time, time at stake, figures."""
    return [e.label.get(lang), calls(round(e.count, 2)) if e.count is not None else "",
            us(e.time_us) if e.time_us is not None else "",
            us(e.time_at_stake_us) if e.time_at_stake_us is not None else "", figures_text(e, lang)]
