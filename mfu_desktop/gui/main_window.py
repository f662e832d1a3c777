"""The main window: three tabs, menus, drag and drop anywhere, status bar with progress and Cancel.

The window owns the :class:`~mfu_desktop.gui.workers.JobRunner`, the settings and the chip
catalog, and wires the tabs together (a loaded profile feeds the prediction; "Open in
calculator" switches tabs). It does no arithmetic.
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QByteArray, QUrl
from PySide6.QtGui import (
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.report.analysis_export import export_analysis
from mfu_desktop.core.writing import ExportError, forbid_inside
from mfu_desktop.gui.charts.profile_charts import export_plot
from mfu_desktop.gui.dialogs.export_dialog import ExportChoice, ExportDialog
from mfu_desktop.gui.i18n import LANGUAGES, current_language
from mfu_desktop.gui.settings import Settings, save_settings
from mfu_desktop.gui.tabs.calculator_tab import CalculatorTab
from mfu_desktop.gui.tabs.compare_tab import CompareTab
from mfu_desktop.gui.tabs.prediction_tab import PredictionTab
from mfu_desktop.gui.tabs.profiler_tab import ProfilerTab
from mfu_desktop.gui.theme import apply_theme
from mfu_desktop.gui.widgets import InfoBar
from mfu_desktop.gui.workers import JobRunner

TAB_NAMES = ("calculator", "profiler", "prediction", "compare")
EXPORT_CHANNEL = "export"


def local_paths(urls: list[QUrl]) -> list[Path]:
    """The local files/folders among dropped URLs."""
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile() and u.toLocalFile()]


def folder_key(paths: list[Path]) -> str:
    """The settings key of a set of opened paths (for the chip chosen per folder)."""
    return "|".join(sorted(str(p.expanduser().resolve()) for p in paths))


class MainWindow(QMainWindow):
    """Calculator, Profiler and Prediction tabs in one window."""

    def __init__(self, settings: Settings, catalog: ChipCatalog, language: str = "en",
                 notices: list[str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.catalog = catalog
        self.language = language
        self.runner = JobRunner(self)
        self.setWindowTitle("MFU Desktop")
        self.resize(1440, 900)

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        self.info = InfoBar()
        layout.addWidget(self.info)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self.calculator = CalculatorTab(catalog)
        self.profiler = ProfilerTab(catalog, self.runner)
        self.prediction = PredictionTab(catalog, self.runner)
        self.prediction.set_basis(settings.prediction_basis)
        self.prediction.basis_changed.connect(self._remember_basis)
        self.compare = CompareTab(catalog, self.runner)
        self.tabs.addTab(self.calculator, self.tr("Calculator"))
        self.tabs.addTab(self.profiler, self.tr("Profiler"))
        self.tabs.addTab(self.prediction, self.tr("Prediction"))
        self.tabs.addTab(self.compare, self.tr("Compare"))

        self.profiler.top_n = settings.top_n
        self.profiler.set_conventions(settings.fa_backward, settings.mask_convention, settings.hf32)
        self.profiler.loaded.connect(self._profile_loaded)
        self.profiler.open_in_calculator.connect(self._open_in_calculator)
        # Each tab's latest message is kept; the status bar shows the current tab's (a prediction
        # finishing in the background does not talk over the Calculator).
        self._tab_status: dict[QWidget, str] = {}
        self.profiler.status_message.connect(lambda text: self.show_status(text, self.profiler))
        self.prediction.status_message.connect(lambda text: self.show_status(text, self.prediction))
        self.compare.status_message.connect(lambda text: self.show_status(text, self.compare))
        self.profiler.action_message.connect(self.show_status)
        self.prediction.action_message.connect(self.show_status)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.profiler.fa_backward.currentIndexChanged.connect(self._remember_conventions)
        self.profiler.convention.currentIndexChanged.connect(self._remember_conventions)
        self.profiler.hf32.toggled.connect(self._remember_conventions)
        self.profiler.chip_choice.currentIndexChanged.connect(self._remember_chip)

        self._build_status_bar()
        self._build_menus()
        # Drops anywhere reach the window: Qt walks from the widget under the cursor up to the
        # first one that accepts drops, so no child (text fields included) may accept them.
        for child in self.findChildren(QWidget):
            child.setAcceptDrops(False)
        self.setAcceptDrops(True)
        self._restore_geometry()
        messages = [m for m in (notices or []) if m]
        if messages:
            self.info.show_message("\n".join(messages))

    # --- chrome ------------------------------------------------------------------------------

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(False)
        self.progress_text = QLabel("")
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel_work)
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.progress_text)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        self._set_busy(False)
        self.runner.job_started.connect(self._job_started)
        self.runner.job_progress.connect(self._job_progress)
        self.runner.job_ended.connect(lambda: self._set_busy(self.runner.busy()))

    def _set_busy(self, busy: bool) -> None:
        for w in (self.progress, self.cancel_button, self.progress_text):
            w.setVisible(busy)
        if not busy:
            self.progress.setValue(0)
            self.progress_text.setText("")

    def _job_started(self, label: str) -> None:
        self._set_busy(True)
        self.progress.setValue(0)
        self.progress_text.setText(label)

    def _job_progress(self, fraction: float, text: str) -> None:
        # QProgressBar repaints synchronously on setValue: move it in visible steps only.
        value = int(fraction * 100) * 10
        if value != self.progress.value():
            self.progress.setValue(value)
        if text and text[:80] != self.progress_text.text():
            self.progress_text.setText(text[:80])

    def show_status(self, text: str, tab: QWidget | None = None) -> None:
        """A status message: shown now when it is about the current tab (or the whole window), else kept for later."""
        if tab is not None:
            self._tab_status[tab] = text
            if self.tabs.currentWidget() is not tab:
                return
        self.status_label.setText(text)

    def _tab_changed(self, _index: int) -> None:
        self.status_label.setText(self._tab_status.get(self.tabs.currentWidget(), ""))

    def is_busy(self) -> bool:
        """Background jobs running or scheduled, or a display still being assembled."""
        return (self.runner.busy() or self.runner.running_jobs() > 0 or self.profiler.settling()
                or self.prediction.settling())

    def cancel_work(self) -> None:
        """Cancel every background job; their results are dropped."""
        self.profiler.cancel_pending()
        self.runner.cancel()
        self.show_status(self.tr("Cancelled"))

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu(self.tr("&File"))
        self.open_action = file_menu.addAction(self.tr("&Open folder…"), self.open_folder_dialog)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        file_menu.addAction(self.tr("Open &trace files…"), self.open_files_dialog)
        file_menu.addAction(self.tr("Co&mpare with…"), self.compare_with_dialog)
        self.recent_menu = file_menu.addMenu(self.tr("Open &recent"))
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._fill_recent()
        file_menu.addAction(self.tr("Open the &demo profile"), self.open_demo)
        file_menu.addSeparator()
        self.export_action = file_menu.addAction(self.tr("&Export analysis…"), self.export_dialog)
        self.export_action.setShortcut(QKeySequence("Ctrl+E"))
        file_menu.addAction(self.tr("Export &prediction CSV…"), self.prediction.export_dialog)
        timeline = self.profiler.view_pages.get("timeline")
        if timeline is not None:  # the Timeline view: the selected rank as a Chrome trace
            file_menu.addAction(self.tr("Export the rank as a &Chrome trace…"), timeline.export_dialog)
        file_menu.addSeparator()
        quit_action = file_menu.addAction(self.tr("&Quit"), self.close)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)

        view = menu.addMenu(self.tr("&View"))
        theme_menu = view.addMenu(self.tr("&Theme"))
        self.theme_group = QActionGroup(self)
        for key, label in (("system", self.tr("Follow the system")), ("light", self.tr("Light")),
                           ("dark", self.tr("Dark"))):
            action = theme_menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(self.settings.theme == key)
            action.setData(key)
            self.theme_group.addAction(action)
        self.theme_group.triggered.connect(lambda a: self.set_theme(a.data()))
        language_menu = view.addMenu(self.tr("&Language"))
        self.language_group = QActionGroup(self)
        for key, label in (("system", self.tr("Follow the system")), *LANGUAGES.items()):
            action = language_menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(self.settings.language == key)
            action.setData(key)
            self.language_group.addAction(action)
        self.language_group.triggered.connect(lambda a: self.set_language(a.data()))
        top_menu = view.addMenu(self.tr("Hot operators shown"))
        self.top_group = QActionGroup(self)
        for n in (10, 15, 25, 50):
            action = top_menu.addAction(str(n))
            action.setCheckable(True)
            action.setChecked(self.settings.top_n == n)
            action.setData(n)
            self.top_group.addAction(action)
        self.top_group.triggered.connect(lambda a: self.set_top_n(int(a.data())))
        view.addSeparator()
        for i, name in enumerate((self.tr("Calculator"), self.tr("Profiler"), self.tr("Prediction"))):
            action = view.addAction(name, lambda i=i: self.tabs.setCurrentIndex(i))
            action.setShortcut(QKeySequence(f"Ctrl+{i + 1}"))

        tools = menu.addMenu(self.tr("&Tools"))
        tools.addAction(self.tr("&Chip catalog…"), self.open_catalog_editor)
        tools.addAction(self.tr("Clear the &cache of parsed profiles"), self.clear_cache)

        help_menu = menu.addMenu(self.tr("&Help"))
        formulas = help_menu.addAction(self.tr("&Formulas and conventions"), self.show_formulas)
        formulas.setShortcut(QKeySequence.StandardKey.HelpContents)
        help_menu.addAction(self.tr("&User guide"), self.open_user_guide)
        help_menu.addAction(self.tr("&About MFU Desktop"), self.show_about)

    # --- opening -----------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and local_paths(event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        paths = local_paths(event.mimeData().urls()) if event.mimeData().hasUrls() else []
        if paths:
            event.acceptProposedAction()
            self.dropped(paths)
        else:
            event.ignore()

    def dropped(self, paths: list[Path]) -> None:
        """Paths dropped anywhere on the window."""
        self.open_paths(paths)

    def open_folder_dialog(self) -> None:
        """File → Open folder."""
        start = self.settings.recent_folders[0] if self.settings.recent_folders else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, self.tr("Open a profiler folder"), start)
        if folder:
            self.open_paths([Path(folder)])

    def open_files_dialog(self) -> None:
        """File → Open trace files (PyTorch profiler traces, a kernel_details.csv, a profiler database)."""
        start = self.settings.recent_folders[0] if self.settings.recent_folders else str(Path.home())
        files, _ = QFileDialog.getOpenFileNames(
            self, self.tr("Open profiler files"), start,
            self.tr("Profiler files (*.json *.json.gz *.csv *.db);;All files (*)"))
        if files:
            self.open_paths([Path(f) for f in files])

    def open_demo(self) -> None:
        """File → Open the demo profile."""
        self.open_paths([demo_profile_dir()], remember=False)

    def open_paths(self, paths: list[Path], remember: bool = True) -> bool:
        """Load profiler folders in the Profiler tab (non-modal message when there is nothing to load)."""
        paths = [Path(p) for p in paths]
        missing = [p for p in paths if not p.exists()]
        existing = [p for p in paths if p.exists()]
        if not existing:
            self.info.show_message(self.tr("Nothing to open: {0} does not exist.").format(
                ", ".join(str(p) for p in missing)))
            return False
        if missing:
            self.info.show_message(self.tr("Not found, skipped: {0}").format(", ".join(str(p) for p in missing)))
        else:
            self.info.hide()
        chip = self.settings.chip_per_folder.get(folder_key(existing))
        self.profiler.chip_choice.blockSignals(True)
        self.profiler.chip_choice.setCurrentIndex(max(self.profiler.chip_choice.findData(chip or ""), 0))
        self.profiler.chip_choice.blockSignals(False)
        if remember:
            for p in reversed(existing):
                if p.is_dir():
                    self.settings.add_recent(str(p))
        self.tabs.setCurrentWidget(self.profiler)
        self.setWindowTitle(f"MFU Desktop — {', '.join(p.name for p in existing)}")
        self.profiler.load(existing)
        return True

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        if not self.settings.recent_folders:
            action = self.recent_menu.addAction(self.tr("(none yet)"))
            action.setEnabled(False)
            return
        for folder in self.settings.recent_folders:
            action = self.recent_menu.addAction(folder)
            action.triggered.connect(lambda _=False, f=folder: self._open_recent(f))
        self.recent_menu.addSeparator()
        self.recent_menu.addAction(self.tr("Clear the list"), self._clear_recent)

    def _open_recent(self, folder: str) -> None:
        if not Path(folder).exists():
            self.settings.recent_folders = [f for f in self.settings.recent_folders if f != folder]
            self.info.show_message(self.tr("{0} no longer exists; removed from the recent list.").format(folder))
            return
        self.open_paths([Path(folder)])

    def _clear_recent(self) -> None:
        self.settings.recent_folders = []

    def _profile_loaded(self, result) -> None:
        self.export_action.setEnabled(bool(result.ranks))
        if result.ranks:
            self.prediction.set_analysis(result)
            roots = result.discovery.roots
            self.compare.set_base(result, ", ".join(p.name for p in roots) or "profile")

    def compare_with_dialog(self) -> None:
        """File → Compare with…: the loaded profile (BASE) against another (NEW), in the Compare tab."""
        if self.profiler.result is None or not self.profiler.result.ranks:
            self.info.show_message(self.tr("Open the BASE profile first (File → Open folder), then compare it."))
            return
        start = self.settings.recent_folders[0] if self.settings.recent_folders else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, self.tr("Compare with (NEW)"), start)
        if folder:
            self.tabs.setCurrentWidget(self.compare)
            self.compare.set_new(Path(folder))

    def _open_in_calculator(self, prefill) -> None:
        self.calculator.prefill(prefill)
        self.tabs.setCurrentWidget(self.calculator)

    def _remember_conventions(self) -> None:
        self.settings.fa_backward = self.profiler.fa_backward.currentData()
        self.settings.mask_convention = self.profiler.convention.currentData()
        self.settings.hf32 = self.profiler.hf32.isChecked()

    def _remember_chip(self) -> None:
        if not self.profiler.paths:
            return
        key = folder_key(self.profiler.paths)
        chip = self.profiler.chip_choice.currentData()
        if chip:
            self.settings.chip_per_folder[key] = chip
        else:
            self.settings.chip_per_folder.pop(key, None)

    # --- export ------------------------------------------------------------------------------

    def export_dialog(self) -> None:
        """File → Export analysis: tables, charts, summary."""
        if self.profiler.result is None or not self.profiler.result.ranks:
            self.info.show_message(self.tr("Nothing to export yet: open a profile first."))
            return
        default = Path.home() / "mfu-export"
        dialog = ExportDialog(default, self)
        if dialog.exec():
            self.export_to(dialog.choice())

    def export_to(self, choice: ExportChoice) -> None:
        """Write the tables (background) and the charts (here, they are widgets) into ``choice.folder``."""
        result = self.profiler.result
        if result is None:
            return
        roots = [r.folder.path for r in result.ranks] + list(result.discovery.roots)
        try:
            forbid_inside(choice.folder, roots)
        except ExportError as exc:
            self.info.show_message(self.tr("Export refused: {0}").format(exc))
            return
        written: list[Path] = []
        try:
            for fmt in choice.charts:
                for name, plot in self.chart_plots().items():
                    written.append(export_plot(plot, choice.folder / f"{name}.{fmt}"))
        except ExportError as exc:
            self.info.show_message(self.tr("Export failed: {0}").format(exc))
            return
        tables = list(choice.tables)

        def done(paths: list[Path]) -> None:
            self.show_status(self.tr("Exported {0} files to {1}").format(len(paths) + len(written), choice.folder))

        lang = current_language()
        self.runner.start(EXPORT_CHANNEL, lambda progress: export_analysis(result, choice.folder, tables, lang), done,
                          lambda msg: self.info.show_message(self.tr("Export failed: {0}").format(msg)),
                          label=self.tr("Exporting"))

    def chart_plots(self) -> dict[str, pg.PlotWidget]:
        """Every chart that has something to show, by file name."""
        plots = {"hot_operators": self.profiler.hot_chart.plot, "mfu_scatter": self.profiler.scatter.plot,
                 "step_breakdown": self.profiler.steps_chart.plot, "roofline": self.profiler.roofline.plot}
        if self.prediction.prediction is not None:
            plots["relative_performance"] = self.prediction.rel_chart.plot
            plots["predicted_step"] = self.prediction.step_chart.plot
        return plots

    # --- view --------------------------------------------------------------------------------

    def set_theme(self, theme: str) -> None:
        """Light, dark or the system's; charts are restyled in place."""
        self.settings.theme = theme
        effective = apply_theme(QApplication.instance(), theme)
        background = (37, 37, 38) if effective == "dark" else "w"
        foreground = (220, 220, 220) if effective == "dark" else (40, 40, 40)
        for plot in self.findChildren(pg.PlotWidget):
            plot.setBackground(background)
            item = plot.getPlotItem()
            for name in ("left", "bottom"):
                axis = item.getAxis(name)
                axis.setPen(foreground)
                axis.setTextPen(foreground)
            item.titleLabel.setAttr("color", pg.mkColor(foreground))
            item.titleLabel.setText(item.titleLabel.text)

    def set_language(self, language: str) -> None:
        """Remember the language; it applies at the next start (all texts are built once)."""
        self.settings.language = language
        save_settings(self.settings)
        self.info.show_message(self.tr("The language changes the next time MFU Desktop starts."))

    def set_top_n(self, n: int) -> None:
        """How many hot operators the charts show (recomputed in the background)."""
        self.settings.top_n = n
        self.profiler.top_n = n
        self.profiler.reload()

    # --- tools and help ---------------------------------------------------------------------

    def open_catalog_editor(self) -> None:
        """Tools → Chip catalog; a saved catalog is reloaded into every tab."""
        from mfu_desktop.gui.dialogs.catalog_editor import CatalogEditor

        editor = CatalogEditor(self.catalog, self)
        if editor.exec() and editor.saved:
            self.reload_catalog()

    def reload_catalog(self) -> None:
        """Re-read shipped + user catalogs and hand them to the tabs."""
        catalog = ChipCatalog.load()
        self.catalog = catalog
        self.calculator.set_catalog(catalog)
        self.prediction.set_catalog(catalog)
        self.profiler.set_catalog(catalog)
        self.compare.set_catalog(catalog)
        if catalog.problems:
            self.info.show_message("\n".join(catalog.problems[:5]))
        self.show_status(self.tr("Chip catalog reloaded: {0} chips").format(len(catalog.chips)))

    def clear_cache(self) -> None:
        """Tools → Clear the cache of parsed profiles."""
        from mfu_desktop.core.store.ranks import clear_cache

        removed = clear_cache()
        self.show_status(self.tr("Removed {0} cached file(s)").format(removed))

    def show_formulas(self) -> None:
        """Help → Formulas and conventions."""
        from mfu_desktop.gui.dialogs.help_dialogs import formulas_dialog

        formulas_dialog(self.language, self).exec()

    def open_user_guide(self) -> None:
        """Help → User guide (shown in the app, screenshots included)."""
        from mfu_desktop.gui.dialogs.help_dialogs import user_guide_dialog

        user_guide_dialog(self).exec()

    def show_about(self) -> None:
        """Help → About."""
        from mfu_desktop.gui.dialogs.help_dialogs import about_dialog

        about_dialog(self).exec()

    # --- lifetime ----------------------------------------------------------------------------

    def select_tab(self, name: str) -> None:
        """Show ``calculator``, ``profiler`` or ``prediction``."""
        if name in TAB_NAMES:
            self.tabs.setCurrentIndex(TAB_NAMES.index(name))

    def _restore_geometry(self) -> None:
        if self.settings.geometry:
            self.restoreGeometry(QByteArray.fromBase64(self.settings.geometry.encode("ascii")))
        if self.settings.window_state:
            self.restoreState(QByteArray.fromBase64(self.settings.window_state.encode("ascii")))

    def remember_geometry(self) -> None:
        """Store the window geometry and state in the settings."""
        self.settings.geometry = bytes(self.saveGeometry().toBase64()).decode("ascii")
        self.settings.window_state = bytes(self.saveState().toBase64()).decode("ascii")

    def shutdown(self, wait_ms: int = 10000) -> None:
        """Cancel jobs, wait for the pool, save the settings (also called by tests)."""
        self.runner.cancel()
        self.runner.wait(wait_ms)
        self.remember_geometry()
        save_settings(self.settings)

    def _remember_basis(self, basis: str) -> None:
        """The Prediction tab's basis switch is remembered between runs."""
        self.settings.prediction_basis = basis
        save_settings(self.settings)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)
