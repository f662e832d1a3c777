"""Prediction tab: how fast would the loaded profile run on other chips (core.predict)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.chips.catalog import ChipCatalog, UnknownChipError
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.predict.basis import ACHIEVABLE, ADVERTISED, FITTED, ROOFLINE, SEED, Basis
from mfu_desktop.core.predict.calibration_store import read_factors
from mfu_desktop.core.predict.inputs import choose_source, rank_inputs
from mfu_desktop.core.predict.kernel_model import predict_kernels
from mfu_desktop.core.predict.options import DEFAULT_BASIS, DEFAULT_MODEL
from mfu_desktop.core.predict.predictor import DEFAULT_TARGETS, Prediction, predict
from mfu_desktop.core.predict.rules import DEFAULT_RULES
from mfu_desktop.core.progress import check
from mfu_desktop.core.report.prediction_rows import (
    detail_frame,
    prediction_rows,
    relative_text,
    step_breakdown_frame,
    write_outputs,
)
from mfu_desktop.gui.charts.prediction_charts import PredictedStepChart, RelativePerformanceChart
from mfu_desktop.gui.core_text import basis_text
from mfu_desktop.gui.models.dataframe_model import (
    ColumnSpec,
    DataFrameModel,
    fmt_number,
    fmt_pct,
    fmt_us,
    prepare_table,
)
from mfu_desktop.gui.models.rules_model import RulesModel
from mfu_desktop.gui.settings import prediction_choice
from mfu_desktop.gui.staging import Stager
from mfu_desktop.gui.table_view import TableView
from mfu_desktop.gui.widgets import InfoBar
from mfu_desktop.gui.workers import JobRunner

translate = QCoreApplication.translate  # module-level helpers use the "Columns" context

CHANNEL = "predict"
DETAIL_CHANNEL = "predict-detail"
EXPORT_CHANNEL = "predict-export"


class PredictionTab(QWidget):
    """Source chip, target checklist, editable rules, results per chip, charts and per-kernel detail."""

    predicted = Signal(object)
    basis_changed = Signal(str)  # the user switched the basis (the window remembers it)
    status_message = Signal(str)  # about this tab's results: shown while the tab is current
    action_message = Signal(str)  # the outcome of something the user just did (an export): shown at once

    def __init__(self, catalog: ChipCatalog, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.runner = runner
        self.analysis: FolderAnalysis | None = None
        self.prediction: Prediction | None = None
        self._build()

    def _build(self) -> None:
        """The tab: an info bar over the inputs (source, targets, rules) and the results."""
        layout = QVBoxLayout(self)
        self.info = InfoBar()
        layout.addWidget(self.info)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        layout.addWidget(splitter, 1)
        splitter.addWidget(self._build_inputs())
        splitter.addWidget(self._build_results())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([360, 1000])
        self._build_rerun()

    def _build_inputs(self) -> QWidget:
        """The left pane: source and basis, the target chips, the editable rules, Predict and Export."""
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self._build_source_box())
        self.targets = QListWidget()
        for chip in self.catalog.chips:
            item = QListWidgetItem(chip.identifier)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if chip.identifier in DEFAULT_TARGETS else Qt.CheckState.Unchecked)
            item.setToolTip(f"{chip.source} · {chip.confidence}")
            self.targets.addItem(item)
        left_layout.addWidget(QLabel(self.tr("Target chips")))
        left_layout.addWidget(self.targets, 1)
        self.rules_model = RulesModel(list(DEFAULT_RULES), self)
        self.rules_view = QTableView()
        self.rules_view.setModel(self.rules_model)
        self.rules_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.rules_view.setMinimumHeight(120)
        left_layout.addWidget(
            QLabel(self.tr("Architecture rules (editable; every detail row names the rules that touched it)"))
        )
        left_layout.addWidget(self.rules_view)
        buttons = QHBoxLayout()
        self.run_button = QPushButton(self.tr("Predict"))
        self.run_button.clicked.connect(self.run)
        self.export_button = QPushButton(self.tr("Export CSV…"))
        self.export_button.clicked.connect(self.export_dialog)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.export_button)
        left_layout.addLayout(buttons)
        return left

    def _build_source_box(self) -> QGroupBox:
        """The "Source and targets" box: source chip, basis and the assumed cpu coefficient, with their notes."""
        box = QGroupBox(self.tr("Source and targets"))
        form = QFormLayout(box)
        self.source = QComboBox()
        self.source.addItem(self.tr("Detected from the profile"), "")
        for chip in self.catalog.chips:
            self.source.addItem(chip.identifier, chip.identifier)
        self.source_note = QLabel("")
        self.source_note.setWordWrap(True)
        self.source_note.setStyleSheet("font-size: 8pt;")
        self.assume_cpu = QDoubleSpinBox()
        self.assume_cpu.setRange(0.0, 10.0)
        self.assume_cpu.setSingleStep(0.1)
        self.assume_cpu.setSpecialValueText(self.tr("none"))
        self.assume_cpu.setToolTip(self.tr("cpu coefficient assumed for chips without one (an assumption; "
                                           "--assume-cpu on the command line)"))
        self.cpu_note = QLabel("")
        self.cpu_note.setWordWrap(True)
        self.cpu_note.setStyleSheet("font-size: 8pt;")
        self.basis = QComboBox()
        for (model, basis), text in model_choices().items():
            self.basis.addItem(text, f"{model}/{basis}")
        self.basis.setToolTip(self.tr(
            "Roofline model: kernels without pipe counters are predicted from their FLOPs and bytes on both chips, "
            "with latency floors; seed model: the original script's ratios. Advertised: catalog peaks and HBM "
            "bandwidths; achievable: measured matmul FLOP/s (MAMF) and HBM bandwidth where both chips have one; "
            "fitted: advertised × each chip's efficiency fitted on public measurements. The default is the most "
            "accurate on the held-out public pairs (docs/accuracy.md)"))
        form.addRow(self.tr("Source chip"), self.source)
        form.addRow("", self.source_note)
        form.addRow(self.tr("Model"), self.basis)
        form.addRow(self.tr("Assumed cpu coefficient"), self.assume_cpu)
        form.addRow("", self.cpu_note)
        return box

    def _build_results(self) -> QWidget:
        """The right pane: tabs of the results per chip, the per-kernel detail, and the notes."""
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        self.summary_model = DataFrameModel(parent=self)
        self.summary_view = TableView()
        self.summary_view.setModel(self.summary_model)
        self.summary_view.selectionModel().currentRowChanged.connect(self._target_selected)
        self.comm_lines = QLabel("")
        self.comm_lines.setWordWrap(True)
        self.comm_lines.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        tabs = QTabWidget()
        tabs.addTab(self._build_results_page(), self.tr("Results"))
        tabs.addTab(self._build_detail_page(), self.tr("Per-kernel detail"))
        tabs.addTab(self._build_notes_page(), self.tr("Assumptions and notes"))
        right_layout.addWidget(tabs, 1)
        self.tabs = tabs
        return right

    def _build_results_page(self) -> QWidget:
        """The Results page: the table per target chip and the comm lines over the two charts."""
        results = QWidget()
        r_layout = QVBoxLayout(results)
        r_layout.addWidget(self.summary_view, 2)
        r_layout.addWidget(self.comm_lines)
        charts = QGridLayout()
        self.rel_chart = RelativePerformanceChart()
        self.step_chart = PredictedStepChart()
        charts.addWidget(self.rel_chart, 0, 0)
        charts.addWidget(self.step_chart, 0, 1)
        r_layout.addLayout(charts, 3)
        return results

    def _build_detail_page(self) -> QWidget:
        """The Per-kernel detail page: each kernel's prediction on the chip selected in the results."""
        detail = QWidget()
        d_layout = QVBoxLayout(detail)
        self.detail_label = QLabel(self.tr("Select a chip in the results to see each kernel's prediction."))
        self.detail_model = DataFrameModel(parent=self)
        self.detail_view = TableView()
        self.detail_view.setModel(self.detail_model)
        d_layout.addWidget(self.detail_label)
        d_layout.addWidget(self.detail_view, 1)
        return detail

    def _build_notes_page(self) -> QWidget:
        """The Assumptions and notes page: one selectable text at the top."""
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        notes_host = QWidget()
        n_layout = QVBoxLayout(notes_host)
        n_layout.addWidget(self.notes)
        n_layout.addStretch(1)
        return notes_host

    def _build_rerun(self) -> None:
        """Any change of the inputs re-runs the prediction shortly after (coalesced); results are shown in steps."""
        self._rerun = QTimer(self)
        self._rerun.setSingleShot(True)
        self._rerun.setInterval(150)
        self._rerun.timeout.connect(self.run)
        self._deferred = False  # a summary waits for the tab to be shown
        self._stager = Stager(self)
        self.rules_model.dataChanged.connect(self._inputs_changed)
        self.rules_model.rejected.connect(self.info.show_message)
        self.targets.itemChanged.connect(self._inputs_changed)
        self.source.currentIndexChanged.connect(self._inputs_changed)
        self.assume_cpu.valueChanged.connect(self._inputs_changed)
        self.basis.currentIndexChanged.connect(self._basis_switched)

    def set_basis(self, name: str) -> None:
        """Select a model and basis (``roofline/fitted``, or an earlier version's plain basis), not announcing it."""
        model, basis = prediction_choice(name)
        self.basis.blockSignals(True)
        self.basis.setCurrentIndex(max(self.basis.findData(f"{model}/{basis}"), 0))
        self.basis.blockSignals(False)

    def chosen_basis(self, factors: tuple = ()) -> Basis:
        """The model and basis chosen in the switch, with the saved calibration factors."""
        model, basis = str(self.basis.currentData()).split("/", 1)
        return Basis(basis, factors, model)

    def _basis_switched(self, *_args) -> None:
        self.basis_changed.emit(self.basis.currentData())
        self._inputs_changed()

    def settling(self) -> bool:
        """True while a re-run is scheduled but not started, or results are still being shown."""
        return self._rerun.isActive() or self._stager.settling()

    def _inputs_changed(self, *_args) -> None:
        if self.analysis is not None and self.analysis.ranks:
            self._rerun.start()

    def set_catalog(self, catalog: ChipCatalog) -> None:
        """Use an edited catalog: refill the source picker and the target list, keeping choices."""
        self.catalog = catalog
        source = self.source.currentData()
        checked = set(self.selected_targets())
        self.source.blockSignals(True)
        self.source.clear()
        self.source.addItem(self.tr("Detected from the profile"), "")
        for chip in catalog.chips:
            self.source.addItem(chip.identifier, chip.identifier)
        self.source.setCurrentIndex(max(self.source.findData(source), 0))
        self.source.blockSignals(False)
        self.targets.blockSignals(True)
        self.targets.clear()
        for chip in catalog.chips:
            item = QListWidgetItem(chip.identifier)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if chip.identifier in checked else Qt.CheckState.Unchecked)
            item.setToolTip(f"{chip.source} · {chip.confidence}")
            self.targets.addItem(item)
        self.targets.blockSignals(False)
        self._inputs_changed()

    # --- running -----------------------------------------------------------------------------

    def set_analysis(self, analysis: FolderAnalysis) -> None:
        """A new profile was loaded: predict it with the current choices (shortly, after the profile is drawn).

        A cluster summary (hundreds of ranks) is predicted when this tab is first shown, not while
        the Profiler tab draws it.
        """
        self.analysis = analysis
        self.prediction = None
        self._deferred = analysis.summary_root is not None and not self.isVisible()
        if not self._deferred:
            self._rerun.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._deferred:
            self._deferred = False
            self._rerun.start()

    def _source(self):
        """The source chip and why (the engine's rule: chosen, else detected, else the seed default)."""
        chip, why = choose_source(self.catalog, self.source.currentData() or None, self.analysis)
        return chip, why

    def selected_targets(self) -> list[str]:
        """Checked target identifiers."""
        return [
            self.targets.item(i).text()
            for i in range(self.targets.count())
            if self.targets.item(i).checkState() == Qt.CheckState.Checked
        ]

    def run(self) -> None:
        """Predict in the background (latest request wins)."""
        if self.analysis is None or not self.analysis.ranks:
            self.info.show_message(self.tr("Load a profile first (Profiler tab or drag a folder onto the window)."))
            return
        try:
            source, why = self._source()
            targets = [self.catalog.find(n) for n in self.selected_targets()]
        except UnknownChipError as exc:
            self.info.show_message(str(exc))
            return
        if not targets:
            self.info.show_message(self.tr("Check at least one target chip."))
            return
        if self.info.isVisible():
            self.info.hide()
        self.source_note.setText(f"{source.display_name}: {why}")
        analysis = self.analysis
        rules = list(self.rules_model.rules)
        cpu = self.assume_cpu.value() or None
        specs = summary_columns()
        chosen = self.chosen_basis()

        def job(progress):
            # everything but the widgets: the prediction and its tables, on the pool
            factors, problems = read_factors()
            prediction = predict(rank_inputs(analysis), source, targets, rules, cpu,
                                 basis=Basis(chosen.name, factors, chosen.model))
            prediction.warnings.extend(problems)
            check(progress)
            rows = display_rows(prediction)
            return prediction, rows, prepare_table(rows, specs), step_breakdown_frame(prediction)

        self.runner.start(CHANNEL, job, self._predicted, self._failed, label=self.tr("Predicting"))

    def _failed(self, message: str) -> None:
        self.info.show_message(self.tr("The prediction failed: {0}").format(message))

    def _predicted(self, result) -> None:
        prediction, summary, table, steps = result
        self.prediction = prediction
        self.summary_model.set_prepared(table)
        self.detail_model.set_frame(pd.DataFrame())
        self._stager.later(lambda: self._show_charts(prediction, summary, steps))

    def _show_charts(self, prediction: Prediction, summary: pd.DataFrame, steps: pd.DataFrame) -> None:
        if prediction is not self.prediction:
            return
        self.rel_chart.set_data(summary)
        self._stager.later(lambda: self._show_step_chart(prediction, steps))

    def _show_step_chart(self, prediction: Prediction, steps: pd.DataFrame) -> None:
        if prediction is not self.prediction:
            return
        self.step_chart.set_data(steps)
        self._stager.later(lambda: self._show_notes(prediction))

    def _show_notes(self, prediction: Prediction) -> None:
        if prediction is not self.prediction:
            return
        self.comm_lines.setText("\n".join(comm_lines(prediction)))
        notes = [self.tr("Source: {0} ({1})").format(prediction.source.display_name, self.source_note.text()),
                 self.tr("Every time is per step (mean over the captured steps) and per rank (mean over ranks)."),
                 cpu_note(prediction)]
        basis = self.basis.currentText()
        notes.append(self.tr("Model: {0} — see docs/accuracy.md for the error this model has shown on public "
                             "measurements").format(basis))
        for t in prediction.targets:
            if t.basis_text:
                notes.append(f"{t.device}: {t.basis_text}")
            for note in t.notes:
                notes.append(f"{t.device}: {note}")
            if t.rules:
                notes.append(f"{t.device}: {', '.join(t.rules)}")
        notes += prediction.warnings
        if not prediction.excluded.empty:
            notes.append(
                self.tr("Excluded from the prediction (per step, mean per rank): {0}").format(
                    ", ".join(f"{r['class']} × {r['count']:.3g}" for _, r in prediction.excluded.iterrows())
                )
            )
        self.notes.setText("\n".join(notes))
        self.cpu_note.setText(cpu_note(prediction))
        self.predicted.emit(prediction)
        self.status_message.emit(self.tr("Prediction: {0} target chip(s) for {1}").format(
            len(prediction.targets), prediction.source.display_name))

    def _target_selected(self, current, _previous) -> None:
        if self.prediction is None or not current.isValid() or self.analysis is None:
            return
        row = self.summary_model.source_row(current.row()) - 1  # row 0 is the measured source
        if not 0 <= row < len(self.prediction.targets):
            return
        target = self.prediction.targets[row]
        source = self.prediction.source
        rules = list(self.prediction.rules)
        inputs = self.prediction.inputs
        basis = self.prediction.basis
        self.detail_label.setText(self.tr("Computing the per-kernel prediction on {0}…").format(target.device))

        def job(progress):
            partial = Prediction(source, self.prediction.ranks, 0.0, [], pd.DataFrame(), [], rules, {}, inputs,
                                 basis=basis)
            for rank, inp in inputs.items():
                progress.set_progress(0.5, "")
                tk = predict_kernels(inp, source, target.chip, rules, basis)
                if tk.frame is not None:
                    partial.details[(rank, target.device)] = tk.frame
            return detail_frame(partial)

        self.runner.start(
            DETAIL_CHANNEL,
            job,
            lambda frame, t=target: self._detail_ready(frame, t.device),
            self._failed,
            label=self.tr("Per-kernel prediction"),
        )

    def _detail_ready(self, frame: pd.DataFrame, device: str) -> None:
        self.detail_model.set_frame(frame, detail_columns(frame))
        self.detail_label.setText(self.tr("{0}: {1} kernels").format(device, f"{len(frame):,}"))

    # --- export ------------------------------------------------------------------------------

    def export_dialog(self) -> None:
        """Ask for a folder and write the two CSV files there."""
        folder = QFileDialog.getExistingDirectory(self, self.tr("Export prediction CSV files to"))
        if folder:
            self.export_to(Path(folder))

    def export_to(self, folder: Path) -> None:
        """Write performance_prediction.csv and kernel_prediction_detail.csv (background)."""
        if self.prediction is None or self.analysis is None:
            self.info.show_message(self.tr("Nothing to export yet: run a prediction first."))
            return
        from mfu_desktop.core.writing import ExportError, forbid_inside

        try:
            forbid_inside(folder, [r.folder.path for r in self.analysis.ranks])
        except ExportError as exc:
            self.info.show_message(str(exc))
            return
        p = self.prediction
        ranks = rank_inputs(self.analysis)
        targets = [t.chip for t in p.targets]
        cpu = self.assume_cpu.value() or None

        def job(progress):
            full = predict(ranks, p.source, targets, list(p.rules), cpu, keep_details=True, basis=p.basis)
            return write_outputs(full, folder)

        self.runner.start(
            EXPORT_CHANNEL,
            job,
            lambda paths: self.action_message.emit(self.tr("Wrote {0}").format(", ".join(str(x) for x in paths))),
            lambda msg: self.info.show_message(self.tr("Export failed: {0}").format(msg)),
            label=self.tr("Exporting prediction"),
        )


def model_choices() -> dict[tuple[str, str], str]:
    """The model switch's items: (model, basis) → its label, the default first."""
    labels = {ROOFLINE: translate("Columns", "Roofline model"), SEED: translate("Columns", "Seed model")}
    bases = {FITTED: translate("Columns", "fitted"), ACHIEVABLE: translate("Columns", "achievable"),
             ADVERTISED: translate("Columns", "advertised")}
    choices = {(m, b): f"{labels[m]} · {bases[b]}" for m in (ROOFLINE, SEED) for b in (FITTED, ACHIEVABLE, ADVERTISED)}
    default = (DEFAULT_MODEL, DEFAULT_BASIS)
    choices[default] = translate("Columns", "{0} (default)").format(choices[default])
    choices[(SEED, ADVERTISED)] = translate("Columns", "{0} (original script)").format(choices[(SEED, ADVERTISED)])
    return {default: choices[default], **{k: v for k, v in choices.items() if k != default}}


def band_text(row: pd.Series) -> str:
    """The expected error of one results row in the UI's words: "−12 % … +9 % (median −2 %)"; empty when none."""
    low, mid, high = row.get("error_band_p10"), row.get("error_band_median"), row.get("error_band_p90")
    if low is None or pd.isna(low):
        return ""

    def pct(v: float) -> str:
        return f"{v * 100:+.0f} %".replace("-", "−")

    return translate("Columns", "{0} … {1} (median {2})").format(pct(low), pct(high), pct(mid))


def display_rows(prediction: Prediction) -> pd.DataFrame:
    """The engine's rows (core.predict_rows) plus the text columns the table shows.

    ``compute_x`` ("1.90× (99.8 %)"), ``basis_shown`` (the basis in the UI's language) and
    ``expected_error``: the error to expect for this profile's kernel mix on each target — the
    accuracy report's held-out band for this model, basis and class of chip pair (docs/accuracy.md).
    """
    rows = prediction_rows(prediction)
    rows["expected_error"] = [band_text(r) for _, r in rows.iterrows()]
    rows["basis_shown"] = [basis_text(b) for b in rows["basis"]]  # the engine's words, translated
    rows["compute_x"] = [relative_text(v, bool(p), s) for v, p, s in
                         zip(rows["relative_performance"], rows["partial"], rows["predicted_share"])]
    rows["slowest"] = [f"{int(r)}" if pd.notna(r) else "" for r in rows["slowest_rank"]]
    rows["memory_shown"] = [memory_text(f, h) for f, h in zip(rows["memory_fits"], rows["memory_headroom_gb"])]
    return rows


def memory_text(fits: object, headroom_gb: object) -> str:
    """A target's memory cell: "✓ fits, 13.5 GB free", "✗ does not fit: 8.2 GB short", or blank (unknown)."""
    if fits is None or headroom_gb is None or pd.isna(headroom_gb):
        return ""
    if fits:
        return translate("Columns", "✓ fits, {0} GB free").format(f"{float(headroom_gb):,.1f}")
    return translate("Columns", "✗ does not fit: {0} GB short").format(f"{-float(headroom_gb):,.1f}")


def comm_lines(prediction: Prediction) -> list[str]:
    """The measured communication, then each target's predicted one (transfer scaled, wait kept)."""
    from mfu_desktop.core.predict.step import comm_line

    m = prediction.measured
    lines = []
    measured = comm_line(m.mean("comm_not_overlapped_us"), m.mean("transfer_us"), m.mean("wait_us"))
    if measured:
        lines.append(f"{prediction.source.display_name} (measured): {measured}")
    lines += [f"{t.device}: {t.comm_line()}" for t in prediction.targets if t.comm_line()]
    return lines


def cpu_note(prediction: Prediction) -> str:
    """Where the cpu coefficients come from, and which chips lack one."""
    missing = [t.device for t in prediction.targets if t.chip.value("cpu") is None]
    if prediction.source.value("cpu") is None:
        missing.insert(0, prediction.source.display_name)
    missing = list(dict.fromkeys(missing))  # the source may be a target too
    if prediction.assumed_cpu:
        return translate("Columns", "cpu coefficient from the catalog; assumed {0} for: {1}").format(
            f"{prediction.assumed_cpu:g}", ", ".join(missing) or translate("Columns", "none"))
    if missing:
        return translate("Columns", "cpu coefficient from the catalog; chips without one (step not predicted): "
                                    "{0}").format(", ".join(missing))
    return translate("Columns", "cpu coefficient from the catalog for every chip")


def summary_columns() -> list[ColumnSpec]:
    """Specs of the per-chip results table (the engine's rows; times per step, mean per rank)."""
    return [
        ColumnSpec("device", translate("Columns", "Chip")),
        ColumnSpec("architecture", translate("Columns", "Arch")),
        ColumnSpec(
            "compute_x",
            translate("Columns", "Compute ×"),
            None,
            translate("Columns", "compute-class kernels; (share) when only part of their time is predictable"),
            cell_tooltip="partial_reason",
        ),
        ColumnSpec("basis_shown", translate("Columns", "Basis"), None,
                   translate("Columns", "advertised peaks or measured achievable values, with the share of time "
                                        "predicted on each")),
        ColumnSpec("expected_error", translate("Columns", "Expected error"), None,
                   translate("Columns", "10 %–90 % band and median of the per-kernel error the accuracy report "
                                        "measured on held-out public pairs of this class (same or cross vendor), "
                                        "for this model and basis, weighted by this profile's kernel mix "
                                        "(docs/accuracy.md); empty: nothing measured applies")),
        ColumnSpec(
            "step_relative_performance",
            translate("Columns", "Step ×"),
            fmt_number,
            translate("Columns", "whole step, composed by time (prediction.md §4.3)"),
        ),
        ColumnSpec(
            "readme_formula_relative_performance",
            translate("Columns", "README formula ×"),
            fmt_number,
            translate("Columns", "the seed README's arithmetic-mean formula, for comparison"),
        ),
        ColumnSpec("predicted_compute_us", translate("Columns", "Compute (µs/step)"), fmt_us,
                   translate("Columns", "predicted time of the predictable compute-class kernels")),
        ColumnSpec("predicted_step_us", translate("Columns", "Step (µs)"), fmt_us),
        ColumnSpec("computing_us", translate("Columns", "Computing (µs)"), fmt_us),
        ColumnSpec("transfer_us", translate("Columns", "Transfer (µs)"), fmt_us),
        ColumnSpec("wait_us", translate("Columns", "Wait (µs)"), fmt_us),
        ColumnSpec("free_us", translate("Columns", "Free (µs)"), fmt_us),
        ColumnSpec("memory_shown", translate("Columns", "Memory"), None,
                   translate("Columns", "the footprint measured on the source (process reserved, else the allocator's "
                                        "reserved) against the chip's memory; the same allocator is assumed")),
        ColumnSpec("slowest", translate("Columns", "Slowest rank")),
        ColumnSpec("slowest_step_us", translate("Columns", "Slowest rank step (µs)"), fmt_us),
        ColumnSpec("predicted_share", translate("Columns", "Predicted share"), fmt_pct, cell_tooltip="partial_reason"),
        ColumnSpec("fallback_time_share", translate("Columns", "Fallback share"), fmt_pct),
        ColumnSpec("step_not_predicted", translate("Columns", "Step not predicted because")),
        ColumnSpec("rules", translate("Columns", "Rules")),
        ColumnSpec("cube_fp16_tflops", "CubeFP16", fmt_number),
        ColumnSpec("cube_fp32_tflops", "CubeFP32", fmt_number),
        ColumnSpec("vector_fp16_tflops", "VecFP16", fmt_number),
        ColumnSpec("vector_fp32_tflops", "VecFP32", fmt_number),
        ColumnSpec("bandwidth_gbs", translate("Columns", "HBM GB/s"), fmt_number),
    ]


def detail_columns(frame: pd.DataFrame) -> list[ColumnSpec]:
    """Specs of the per-kernel detail table."""
    labels = {
        "rank": translate("Columns", "Rank"),
        "device": translate("Columns", "Chip"),
        "name": translate("Columns", "Name"),
        "type": translate("Columns", "Type"),
        "accelerator_core": translate("Columns", "Core"),
        "class": translate("Columns", "Class"),
        "precision": translate("Columns", "Precision"),
        "peak_unit": translate("Columns", "Peak unit"),
        "duration_us": translate("Columns", "Duration (µs)"),
        "compute_us": translate("Columns", "Compute (µs)"),
        "memory_us": translate("Columns", "Memory (µs)"),
        "compute_ratio": translate("Columns", "Compute ratio"),
        "memory_ratio": translate("Columns", "Memory ratio"),
        "scale": translate("Columns", "Scale"),
        "predicted_us": translate("Columns", "Predicted (µs)"),
        "fallback": translate("Columns", "Fallback"),
        "rules": translate("Columns", "Rules"),
        "basis": translate("Columns", "Basis"),
        "reason": translate("Columns", "Reason"),
    }
    us = {"duration_us", "compute_us", "memory_us", "predicted_us"}
    return [ColumnSpec(c, labels.get(c, c), fmt_us if c in us else fmt_number) for c in frame.columns]
