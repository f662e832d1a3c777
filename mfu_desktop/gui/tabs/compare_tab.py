"""The Compare tab: the loaded profile (BASE) against a second one (NEW) — before/after, or chip vs chip.

NEW is chosen with *Choose NEW…* or *File → Compare with…* (a folder, a trace or a cluster
summary); it is analysed and compared on the worker pool. Cards give the step and MFU figures
of both sides; the charts show where the step's change comes from (waterfall by operator
family), the top changes side by side, and every group's BASE vs NEW time (with the prediction
for NEW's chip when the chips differ); the table lists every matched group with why it changed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pandas as pd
from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.analysis.kernel_names import short_name
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.compare.comparison import Comparison, compare, table
from mfu_desktop.core.compare.report import memory_rows, side_mfu_text
from mfu_desktop.core.numbers import pct
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.pipeline.from_summary import analysis_from_summary, summary_conflict
from mfu_desktop.core.store.summaries import is_summary, read_summary
from mfu_desktop.gui.charts.compare_charts import GroupScatter, PairedBarsChart, WaterfallChart
from mfu_desktop.gui.core_text import sentences
from mfu_desktop.gui.models.dataframe_model import ColumnSpec, DataFrameModel, fmt_calls, fmt_number, fmt_pct, fmt_us
from mfu_desktop.gui.table_view import TableView
from mfu_desktop.gui.widgets import Card, InfoBar
from mfu_desktop.gui.workers import JobRunner

CHANNEL = "compare"
CALIBRATE_CHANNEL = "compare-calibrate"
translate = QCoreApplication.translate


def compare_columns() -> list[ColumnSpec]:
    """The matched table's columns (per step, mean per rank)."""
    return [
        ColumnSpec("delta_us", translate("Columns", "Δ time (µs/step)"), fmt_us, translate("Columns", "NEW − BASE")),
        ColumnSpec("level", translate("Columns", "Match")),
        ColumnSpec("family", translate("Columns", "Family")),
        ColumnSpec("type", translate("Columns", "Type"), display=short_name),
        ColumnSpec("input_shapes", translate("Columns", "Input shapes")),
        ColumnSpec("base_count", translate("Columns", "BASE calls/step"), fmt_calls,
                   translate("Columns", "op calls: an aten::mm is one call whatever the kernels it launched")),
        ColumnSpec("base_kernels", translate("Columns", "BASE kernels/step"), fmt_calls),
        ColumnSpec("base_time_us", translate("Columns", "BASE time (µs/step)"), fmt_us),
        ColumnSpec("base_mfu", translate("Columns", "BASE MFU"), fmt_pct, color_mfu=True),
        ColumnSpec("new_count", translate("Columns", "NEW calls/step"), fmt_calls,
                   translate("Columns", "op calls: an aten::mm is one call whatever the kernels it launched")),
        ColumnSpec("new_kernels", translate("Columns", "NEW kernels/step"), fmt_calls),
        ColumnSpec("new_time_us", translate("Columns", "NEW time (µs/step)"), fmt_us),
        ColumnSpec("new_mfu", translate("Columns", "NEW MFU"), fmt_pct, color_mfu=True),
        ColumnSpec("ratio", translate("Columns", "NEW ÷ BASE"), fmt_number),
        ColumnSpec("predicted_new_us", translate("Columns", "Predicted for NEW's chip (µs/step)"), fmt_us,
                   translate("Columns", "what mfu predict says BASE's kernels take on NEW's chip (chip vs chip)")),
        ColumnSpec("prediction_error", translate("Columns", "Prediction error"), fmt_pct,
                   translate("Columns", "predicted ÷ measured NEW time − 1")),
        ColumnSpec("why", translate("Columns", "Why it changed")),
    ]


class CompareTab(QWidget):
    """BASE (the loaded profile) against NEW (chosen here)."""

    status_message = Signal(str)
    compared = Signal(object)  # Comparison

    def __init__(self, catalog: ChipCatalog, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.runner = runner
        self.base: FolderAnalysis | None = None
        self.base_name = ""
        self.new_path: Path | None = None
        self.comparison: Comparison | None = None
        self.new: FolderAnalysis | None = None
        self._build()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        self.info = InfoBar()
        layout.addWidget(self.info)
        bar = QHBoxLayout()
        self.base_label = QLabel(self.tr("BASE: open a profile in the Profiler tab"))
        self.new_label = QLabel(self.tr("NEW: not chosen"))
        self.choose = QPushButton(self.tr("Choose NEW…"))
        self.choose.clicked.connect(self.choose_new)
        self.new_chip = QComboBox()
        self.new_chip.setToolTip(self.tr("The chip NEW ran on: detected from the profile, or chosen here when the "
                                         "profile does not say (BASE's chip: the Profiler tab's Assumptions)"))
        # sized by a short name, not the catalog's longest: the bar fits a 1024 px window
        self.new_chip.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.new_chip.setMinimumContentsLength(12)
        self._fill_chips()
        self.new_chip.currentIndexChanged.connect(self._new_chip_changed)
        self.export_button = QPushButton(self.tr("Export…"))
        self.export_button.clicked.connect(self.export_dialog)
        self.export_button.setEnabled(False)
        self.calibrate_button = QPushButton(self.tr("Save calibration"))
        self.calibrate_button.setToolTip(self.tr(
            "Chip vs chip: fit measured ÷ predicted per category (matmul, attention, element-wise) on both bases "
            "and keep the factors for this chip pair; later predictions use and name them"))
        self.calibrate_button.clicked.connect(self.save_calibration)
        self.calibrate_button.setEnabled(False)
        for label in (self.base_label, self.new_label):  # long folder names give way (the tooltip has them)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.base_label, 1)
        bar.addWidget(self.new_label, 1)
        bar.addWidget(QLabel(self.tr("NEW's chip:")))
        bar.addWidget(self.new_chip)
        bar.addWidget(self.choose)
        bar.addWidget(self.export_button)
        bar.addWidget(self.calibrate_button)
        layout.addLayout(bar)
        cards = QGridLayout()
        self.card_step = Card(self.tr("Step time (µs per step)"))
        self.card_ops = Card(self.tr("Operator MFU (算子达成率)"))
        self.card_mfu = Card(self.tr("End-to-end step MFU"))
        self.card_comm = Card(self.tr("Communication not overlapped"))
        self.card_pred = Card(self.tr("Chip vs chip"))
        for i, card in enumerate((self.card_step, self.card_ops, self.card_mfu, self.card_comm, self.card_pred)):
            cards.addWidget(card, 0, i)
        layout.addLayout(cards)
        self.tabs = QTabWidget()
        charts = QWidget()
        grid = QGridLayout(charts)
        self.waterfall = WaterfallChart()
        self.paired = PairedBarsChart()
        self.scatter = GroupScatter()
        for chart in (self.waterfall, self.paired, self.scatter):  # two rows of charts under the cards at 700 px
            chart.plot.setMinimumHeight(150)
        grid.addWidget(self.waterfall, 0, 0)
        grid.addWidget(self.scatter, 0, 1)
        grid.addWidget(self.paired, 1, 0, 1, 2)
        self.tabs.addTab(charts, self.tr("Charts"))
        self.model = DataFrameModel(parent=self)
        view = TableView()
        view.setModel(self.model)
        self.tabs.addTab(view, self.tr("Operator groups"))
        self.step_model = DataFrameModel(parent=self)
        step_view = TableView()
        step_view.setModel(self.step_model)
        self.tabs.addTab(step_view, self.tr("Step"))
        self.memory_model = DataFrameModel(parent=self)
        memory_view = TableView()
        memory_view.setModel(self.memory_model)
        self.tabs.addTab(memory_view, self.tr("Memory"))
        self.notes = QPlainTextEdit()
        self.notes.setReadOnly(True)
        self.tabs.addTab(self.notes, self.tr("Notes"))
        layout.addWidget(self.tabs, 1)
        self._clear()

    # --- inputs -----------------------------------------------------------------------------

    def _fill_chips(self) -> None:
        """"Detected" first, then every catalog chip (the current choice kept when it still exists)."""
        current = self.new_chip.currentData()
        self.new_chip.blockSignals(True)
        self.new_chip.clear()
        self.new_chip.addItem(self.tr("detected"), None)
        for name in self.catalog.names():
            self.new_chip.addItem(name, name)
        index = self.new_chip.findData(current) if current else 0
        self.new_chip.setCurrentIndex(max(index, 0))
        self.new_chip.blockSignals(False)

    def set_catalog(self, catalog: ChipCatalog) -> None:
        """A reloaded chip catalog (Tools → Chip catalog)."""
        self.catalog = catalog
        self._fill_chips()

    def new_chip_choice(self) -> str | None:
        """The chip chosen for NEW (``None``: detected from the profile)."""
        return self.new_chip.currentData()

    def _new_chip_changed(self) -> None:
        if self.new_path is not None and self.base is not None:
            self.run()

    def set_base(self, result: FolderAnalysis, name: str) -> None:
        """The Profiler tab loaded a profile: it is BASE (a chosen NEW is compared again)."""
        self.base, self.base_name = result, name
        self.base_label.setText(self.tr("BASE: {0} ({1} rank(s))").format(name, len(result.ranks)))
        self.base_label.setToolTip(self.base_label.text())
        if self.new_path is not None:
            self.run()

    def choose_new(self) -> None:
        """Ask for NEW (a profiler folder or a cluster summary), then compare."""
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose the profile to compare with"), str(Path.home()))
        if folder:
            self.set_new(Path(folder))

    def queue_new(self, path: Path) -> None:
        """Choose NEW without comparing yet (it is compared when BASE is loaded)."""
        self.new_path = Path(path)
        self.new_label.setText(self.tr("NEW: {0}").format(self.new_path.name))
        self.new_label.setToolTip(str(self.new_path))

    def set_new(self, path: Path) -> None:
        """Compare BASE with the profile at ``path``."""
        self.queue_new(path)
        self.run()

    # --- running ----------------------------------------------------------------------------

    def run(self) -> None:
        """Analyse NEW and compare, on the worker pool."""
        if self.base is None or not self.base.ranks:
            self.info.show_message(self.tr("Open the BASE profile in the Profiler tab first."))
            return
        if self.new_path is None:
            self.info.show_message(self.tr("Choose the NEW profile to compare with."))
            return
        base, path, catalog = self.base, self.new_path, self.catalog
        base_name = self.base_name
        # NEW's own chip (detected, or chosen here): never BASE's choice from the Assumptions
        options = replace(base.options, chip=self.new_chip_choice())
        option = self.tr("NEW's chip")

        def job(progress):
            if is_summary(path):
                summary = read_summary(path)
                conflict = summary_conflict(summary, AnalysisOptions(chip=options.chip), catalog, option)
                if conflict:
                    raise ValueError(conflict)
                new = analysis_from_summary(summary, catalog)
            else:
                new = analyze_paths([path], options, catalog, progress)
            if not new.ranks:
                raise ValueError(sentences(new.warnings[:3]) or f"no profiler rank in {path}")
            return compare(base, new, catalog, base_label=f"BASE ({base_name})", new_label=f"NEW ({path.name})"), new

        self.info.hide()
        self.status_message.emit(self.tr("Comparing with {0}…").format(path.name))
        self.runner.start(CHANNEL, job, self._compared, self._failed, label=self.tr("Comparing profiles"))

    def _failed(self, message: str) -> None:
        self.info.show_message(self.tr("The comparison failed: {0}").format(message))

    def export_dialog(self) -> None:
        """Ask for a folder, then :meth:`export_to` it."""
        folder = QFileDialog.getExistingDirectory(self, self.tr("Export the comparison to"), str(Path.home()))
        if folder:
            self.export_to(Path(folder))

    def export_to(self, folder: Path) -> list[Path]:
        """The matched table (CSV, XLSX), JSON, a Markdown summary and the three charts (PNG, SVG)."""
        from mfu_desktop.core.compare.report import export_comparison
        from mfu_desktop.core.writing import ExportError
        from mfu_desktop.gui.charts.profile_charts import export_plot

        if self.comparison is None:
            return []
        profiles = [p for p in (self.new_path, *(self.base.discovery.roots if self.base else [])) if p]
        try:
            written = export_comparison(self.comparison, folder, profiles)
            for name, chart in (("waterfall", self.waterfall), ("top_changes", self.paired),
                                ("base_vs_new", self.scatter)):
                for fmt in ("png", "svg"):
                    written.append(export_plot(chart.plot, folder / f"{name}.{fmt}"))
        except ExportError as exc:
            self.info.show_message(self.tr("Export refused: {0}").format(exc))
            return []
        self.status_message.emit(self.tr("Exported {0} files to {1}").format(len(written), folder))
        return written

    def _compared(self, result: tuple[Comparison, FolderAnalysis]) -> None:
        comparison, self.new = result
        self.comparison = comparison
        self.export_button.setEnabled(True)
        self.calibrate_button.setEnabled(comparison.chip_vs_chip and self.new.summary_root is None
                                         and self.base is not None and self.base.summary_root is None)
        self._show(comparison)
        self.status_message.emit(self.tr("Compared {0} with {1}").format(comparison.base.label, comparison.new.label))
        self.compared.emit(comparison)

    def save_calibration(self) -> None:
        """Chip vs chip: fit and save the per-category factors of this pair (background)."""
        from mfu_desktop.core.predict.calibrate import calibrate_and_save
        from mfu_desktop.core.predict.inputs import rank_inputs

        c, base, new = self.comparison, self.base, self.new
        if c is None or base is None or new is None or not c.chip_vs_chip:
            return
        try:
            source, target = self.catalog.find(c.chips[0] or ""), self.catalog.find(c.chips[1] or "")
        except LookupError as exc:
            self.info.show_message(str(exc))
            return
        fitted_on = f"{self.base_name} vs {self.new_path.name if self.new_path else 'NEW'}, {date.today().isoformat()}"

        def job(progress):
            return calibrate_and_save(rank_inputs(base), rank_inputs(new), source, target, fitted_on)

        def done(result) -> None:
            fits, path = result
            factors = ", ".join(f"{r.category} ×{r.factor:.3g}" for r in fits[0].by_category.itertuples(index=False))
            self.status_message.emit(self.tr("Saved calibration {0} → {1} ({2}) to {3}").format(
                source.identifier, target.identifier, factors or self.tr("no matched category"), path))

        self.runner.start(CALIBRATE_CHANNEL, job, done,
                          lambda msg: self.info.show_message(self.tr("Calibration failed: {0}").format(msg)),
                          label=self.tr("Saving calibration"))

    # --- showing ----------------------------------------------------------------------------

    def _clear(self) -> None:
        for card in (self.card_step, self.card_ops, self.card_mfu, self.card_comm, self.card_pred):
            card.set("–")
        self.waterfall.set_data(None, [], None)
        self.paired.set_data(None)
        self.scatter.set_data(None)

    def _mfu_note(self, c: Comparison) -> str:
        """The operator-MFU card's caption: BASE → NEW, and how to name a chip that is not confirmed."""
        notes = []
        if c.new.unconfirmed:
            notes.append(self.tr("NEW's chip is not confirmed: choose it in NEW's chip"))
        if c.base.unconfirmed:
            notes.append(self.tr("BASE's chip is not confirmed: set it in the Profiler tab's Assumptions"))
        return "\n".join(notes) or self.tr("BASE → NEW")

    def _show(self, c: Comparison) -> None:
        base_step, new_step = c.base.values.get("step_time_us"), c.new.values.get("step_time_us")
        delta = c.step_delta()
        if base_step and new_step:
            self.card_step.set(f"{base_step / new_step:.3g}×", self.tr("speed-up: {0} → {1} µs ({2:+,.1f})").format(
                f"{base_step:,.1f}", f"{new_step:,.1f}", delta["step_time_us"]))
        else:
            self.card_step.set("–", self.tr("no step trace on one side"))
        self.card_ops.set(f"{side_mfu_text(c.base)} → {side_mfu_text(c.new)}", self._mfu_note(c), small=True)
        self.card_mfu.set(f"{_p(c.base.mfu_step)} → {_p(c.new.mfu_step)}", self.tr("mean per rank"), small=True)
        comm = delta.get("comm_not_overlapped")
        wait = delta.get("comm_wait_us")
        self.card_comm.set("–" if comm is None else f"{comm:+,.1f} µs",
                           "" if wait is None else self.tr("of which waiting {0:+,.1f} µs").format(wait))
        if c.chip_vs_chip:
            predicted = c.predicted_step_us
            self.card_pred.set(f"{c.chips[0]} → {c.chips[1]}",
                               self.tr("step predicted {0} µs, measured {1} µs").format(
                                   f"{predicted:,.1f}" if predicted else "–",
                                   f"{new_step:,.1f}" if new_step else "–"), small=True)
        elif c.chips[0] is None or c.chips[1] is None:  # a side's chip is unknown: not "the same chip"
            self.card_pred.set(self.tr("chip not confirmed"), self._mfu_note(c), small=True)
        else:
            self.card_pred.set(self.tr("same chip"), c.chips[0] or "", small=True)
        rows = table(c)
        self.model.set_frame(rows, compare_columns())
        self.waterfall.set_data(base_step, c.waterfall(), new_step)
        self.paired.set_data(rows)
        self.scatter.set_data(rows)
        steps = pd.DataFrame([{"": label, "BASE": a, "NEW": b, "Δ": d} for label, a, b, d in _step_lines(c)])
        self.step_model.set_frame(steps)
        self.memory_model.set_frame(self._memory_frame(c))
        self.notes.setPlainText("\n".join(c.notes))

    def _memory_frame(self, c: Comparison) -> pd.DataFrame:
        """Peak allocated / reserved / process BASE → NEW (MB, the highest rank of each side), or why not."""
        labels = {"peak allocated": self.tr("peak allocated (MB)"), "peak reserved": self.tr("peak reserved (MB)"),
                  "process reserved (APP)": self.tr("process reserved, APP (MB)")}
        rows = [{self.tr("Memory, highest rank"): labels.get(label, label), "BASE": a, "NEW": b, "Δ": d}
                for label, a, b, d in memory_rows(c)]
        if not rows:
            rows = [{self.tr("Memory, highest rank"): self.tr("no memory data on either side (capture with "
                                                             "profile_memory=True)")}]
        return pd.DataFrame(rows)


def _p(value: float | None) -> str:
    return "–" if value is None else pct(value)


def _step_lines(c: Comparison) -> list[tuple[str, str, str, str]]:
    from mfu_desktop.core.compare.report import step_lines

    return step_lines(c)


__all__ = ["CHANNEL", "CompareTab", "compare_columns"]
