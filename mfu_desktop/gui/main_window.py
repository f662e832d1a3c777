"""The main window: three tabs, menus, drag and drop anywhere, status bar with progress and Cancel.

The window owns the :class:`~mfu_desktop.gui.workers.JobRunner`, the settings and the chip
catalog, and wires the tabs together (a loaded profile feeds the prediction; "Open in
calculator" switches tabs). It does no arithmetic.
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QByteArray, QRect, Qt, QUrl
from PySide6.QtGui import (
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.chips.catalog import ChipCatalog
from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.report.analysis_export import analysis_export_names, analysis_sources, export_analysis
from mfu_desktop.core.writing import (
    ExportError,
    check_output_folder,
    mark_output_folder,
    refuse_profile_destination,
)
from mfu_desktop.gui.charts.profile_charts import export_plot
from mfu_desktop.gui.dialogs.export_dialog import ExportChoice, ExportDialog
from mfu_desktop.gui.find_bar import FindBar, FindTarget
from mfu_desktop.gui.i18n import LANGUAGES, current_language
from mfu_desktop.gui.messages import MessageArea, MessageChannel
from mfu_desktop.gui.settings import Settings, save_settings
from mfu_desktop.gui.start_page import recent_title
from mfu_desktop.gui.table_view import TableView
from mfu_desktop.gui.tabs.calculator_tab import CalculatorTab
from mfu_desktop.gui.tabs.compare_tab import CompareTab
from mfu_desktop.gui.tabs.prediction_tab import PredictionTab
from mfu_desktop.gui.tabs.profiler_tab import ProfilerTab
from mfu_desktop.gui.theme import apply_theme
from mfu_desktop.gui.widgets import DropHint
from mfu_desktop.gui.workers import JobRunner

TAB_NAMES = ("calculator", "profiler", "prediction", "compare")
EXPORT_CHANNEL = "export"


def local_paths(urls: list[QUrl]) -> list[Path]:
    """The local files/folders among dropped URLs."""
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile() and u.toLocalFile()]


def view_shortcut(i: int) -> str:
    """The key of the Profiler's ``i``-th view: Alt+1 … Alt+0, then Alt+Shift+1 … (every view has one)."""
    return f"Alt+{(i + 1) % 10}" if i < 10 else f"Alt+Shift+{(i - 9) % 10}"


def mode_from_modifiers(modifiers: Qt.KeyboardModifier) -> str | None:
    """How a drop opens: Ctrl adds to the open profile, Shift replaces it, no modifier asks."""
    if modifiers & Qt.KeyboardModifier.ControlModifier:
        return "add"
    if modifiers & Qt.KeyboardModifier.ShiftModifier:
        return "replace"
    return None


def _copy_or_link(event: QDropEvent | QDragEnterEvent) -> bool:
    """Take a drop as a Copy (else a Link), never a Move: the file manager must not delete the profile after it.

    Accepting the proposed action took a Move when the source proposed one (Shift-drag, or a
    drag between volumes on some desktops). Returns ``False`` when the source allows neither.
    """
    actions = event.possibleActions()
    for action in (Qt.DropAction.CopyAction, Qt.DropAction.LinkAction):
        if actions & action:
            event.setDropAction(action)
            return True
    return False


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
        TableView.column_memory = settings.table_columns  # every table's column choice is remembered
        self.setWindowTitle("MFU Desktop")
        self.resize(1440, 900)

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        self.info = MessageChannel("", self)
        self.find_bar = FindBar(self.find_targets)
        layout.addWidget(self.find_bar)
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
        # one message area over the tabs' bottom-right corner: messages never push the layout around
        self.messages = MessageArea(central)
        for channel in (self.info, self.profiler.info, self.prediction.info, self.compare.info):
            channel.attach(self.messages)
        self.drop_hint = DropHint(central)
        self.tabs.setCurrentWidget(self.profiler)  # a first start: the start page, not an empty calculator
        start = self.profiler.start_page
        start.open_folder.connect(self.open_folder_dialog)
        start.open_files.connect(self.open_files_dialog)
        start.open_demo.connect(self.open_demo)
        start.open_recent.connect(self.open_recent)
        start.show_calculator.connect(lambda: self.tabs.setCurrentWidget(self.calculator))
        self.compare.choose_requested.connect(self.compare_with_dialog)
        self.compare.start_folder = self.prediction.start_folder = self.start_folder

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
        self._build_file_menu(menu.addMenu(self.tr("&File")))
        self._build_view_menu(menu.addMenu(self.tr("&View")))
        tools = menu.addMenu(self.tr("&Tools"))
        tools.addAction(self.tr("&Chip catalog…"), self.open_catalog_editor)
        tools.addAction(self.tr("Clear the &cache of parsed profiles"), self.clear_cache)
        help_menu = menu.addMenu(self.tr("&Help"))
        formulas = help_menu.addAction(self.tr("&Formulas and conventions"), self.show_formulas)
        formulas.setShortcut(QKeySequence.StandardKey.HelpContents)
        help_menu.addAction(self.tr("&User guide"), self.open_user_guide)
        shortcuts = help_menu.addAction(self.tr("&Keyboard shortcuts"), self.show_shortcuts)
        shortcuts.setShortcut(QKeySequence("Ctrl+/"))
        help_menu.addAction(self.tr("&About MFU Desktop"), self.show_about)

    def _build_file_menu(self, file_menu) -> None:
        """Open (a folder, files, a recent profile, the demo), add to the open profile, compare, export, quit."""
        self.open_action = file_menu.addAction(self.tr("&Open folder…"), self.open_folder_dialog)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        files = file_menu.addAction(self.tr("Open &trace or db files…"), self.open_files_dialog)
        files.setShortcut(QKeySequence("Ctrl+Shift+O"))
        add = file_menu.addAction(self.tr("&Add a folder to the open profile…"), self.add_folder_dialog)
        add.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.recent_menu = file_menu.addMenu(self.tr("Open &recent"))
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._fill_recent()
        file_menu.addAction(self.tr("Open the &demo profile"), self.open_demo)
        file_menu.addSeparator()
        compare = file_menu.addAction(self.tr("Co&mpare with a folder…"), self.compare_with_dialog)
        compare.setShortcut(QKeySequence("Ctrl+Shift+M"))
        file_menu.addAction(self.tr("Compare with trace or db &files…"), lambda: self.compare_with_dialog(True))
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

    def _build_view_menu(self, view) -> None:
        """Theme, language, hot operators shown; a shortcut for every tab and every Profiler view; find; the tree."""
        self._choice_menu(view.addMenu(self.tr("&Theme")), "theme_group", self.settings.theme, self.set_theme,
                          (("system", self.tr("Follow the system")), ("light", self.tr("Light")),
                           ("dark", self.tr("Dark"))))
        self._choice_menu(view.addMenu(self.tr("&Language")), "language_group", self.settings.language,
                          self.set_language, (("system", self.tr("Follow the system")), *LANGUAGES.items()))
        self._choice_menu(view.addMenu(self.tr("Hot operators shown")), "top_group", self.settings.top_n,
                          lambda n: self.set_top_n(int(n)), tuple((n, str(n)) for n in (10, 15, 25, 50)))
        view.addSeparator()
        for i in range(self.tabs.count()):
            action = view.addAction(self.tabs.tabText(i), lambda i=i: self.tabs.setCurrentIndex(i))
            action.setShortcut(QKeySequence(f"Ctrl+{i + 1}"))
        views = view.addMenu(self.tr("Profiler &views"))
        for i in range(self.profiler.tabs.count()):
            page = self.profiler.tabs.widget(i)
            action = views.addAction(self.profiler.tabs.tabText(i), lambda page=page: self.show_profiler_page(page))
            action.setShortcut(QKeySequence(view_shortcut(i)))
        view.addSeparator()
        self.tree_action = view.addAction(self.tr("Rank &tree"))
        self.tree_action.setCheckable(True)
        self.tree_action.setChecked(True)
        self.tree_action.setShortcut(QKeySequence("Ctrl+B"))
        self.tree_action.toggled.connect(self.profiler.set_tree_visible)
        find = view.addAction(self.tr("&Find kernels and types…"), self.find_bar.open)
        find.setShortcut(QKeySequence.StandardKey.Find)

    def _choice_menu(self, menu, name: str, current, chosen, choices) -> None:
        """A menu of exclusive choices (``(value, label)``), the current one checked."""
        group = QActionGroup(self)
        for key, label in choices:
            action = menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(current == key)
            action.setData(key)
            group.addAction(action)
        group.triggered.connect(lambda a: chosen(a.data()))
        setattr(self, name, group)

    def find_targets(self) -> list[FindTarget]:
        """What Ctrl+F searches: kernels, By type, By type and shape, Compare groups, the prediction detail."""
        profiler = self.profiler

        def table(tab: QWidget, view, page: QWidget | None = None) -> tuple:
            def show() -> None:
                self.tabs.setCurrentWidget(tab)
                if page is not None:
                    profiler.tabs.setCurrentWidget(page)
                elif tab is self.compare:
                    self.compare.tabs.setCurrentWidget(self.compare.groups_view)
                elif tab is self.prediction:
                    self.prediction.tabs.setCurrentIndex(1)
            return view.apply_find, show

        kernels = profiler.view_pages["kernels"]
        targets = [FindTarget(self.tr("Kernels"), profiler.find_kernels, lambda: self.show_profiler_page(kernels))]
        for key, name in (("by-type", self.tr("By type")), ("by-shape", self.tr("By type and shape"))):
            view = profiler.table_views[key]
            targets.append(FindTarget(name, *table(profiler, view, view)))
        targets.append(FindTarget(self.tr("Compare"), *table(self.compare, self.compare.groups_view)))
        targets.append(FindTarget(self.tr("Prediction detail"), *table(self.prediction, self.prediction.detail_view)))
        return targets

    def show_profiler_page(self, page: QWidget) -> None:
        """Bring the Profiler tab and one of its views to the front."""
        self.tabs.setCurrentWidget(self.profiler)
        self.profiler.tabs.setCurrentWidget(page)

    def shortcut_list(self) -> list[tuple[str, str]]:
        """Every menu action that has a shortcut: (where it is, the keys), in menu order."""
        out: list[tuple[str, str]] = []

        def walk(menu, path: str) -> None:
            for action in menu.actions():
                text = action.text().replace("&", "")
                if action.menu() is not None:
                    walk(action.menu(), f"{path} → {text}")
                elif not action.shortcut().isEmpty():
                    out.append((f"{path} → {text}", action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)))

        for top in self.menuBar().actions():
            if top.menu() is not None:
                walk(top.menu(), top.text().replace("&", ""))
        return out

    def show_shortcuts(self) -> None:
        """Help → Keyboard shortcuts: every shortcut of every menu, tab and view."""
        from mfu_desktop.gui.dialogs.help_dialogs import shortcuts_dialog

        shortcuts_dialog(self.shortcut_list(), self).exec()

    # --- opening -----------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and local_paths(event.mimeData().urls()) and _copy_or_link(event):
            event.accept()
            self.drop_hint.show_over(self.centralWidget())
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasUrls() and local_paths(event.mimeData().urls()) and _copy_or_link(event):
            event.accept()
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.drop_hint.hide()
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drop_hint.hide()
        paths = local_paths(event.mimeData().urls()) if event.mimeData().hasUrls() else []
        if paths and _copy_or_link(event):
            event.accept()
            self.dropped(paths, event.modifiers())
        else:
            event.ignore()

    def dropped(self, paths: list[Path], modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
        """Paths dropped anywhere on the window (Ctrl: add to the open profile, Shift: replace it, else ask)."""
        self.open_by_user(paths, mode_from_modifiers(modifiers))

    def start_folder(self) -> str:
        """Where a file dialog starts: the last folder a dialog opened, else the last profile's, else home."""
        if self.settings.last_folder and Path(self.settings.last_folder).is_dir():
            return self.settings.last_folder
        for entry in self.settings.recent_folders:
            first = Path(entry.split("\n")[0])
            folder = first if first.is_dir() else first.parent
            if folder.is_dir():
                return str(folder)
        return str(Path.home())

    def remember_folder(self, chosen: Path) -> None:
        """The next dialog starts where this one was accepted."""
        folder = chosen if chosen.is_dir() else chosen.parent
        self.settings.last_folder = str(folder.parent if chosen.is_dir() else folder)

    def choose_folder(self, title: str) -> Path | None:
        """A folder dialog starting in the last folder (the answer is remembered)."""
        folder = QFileDialog.getExistingDirectory(self, title, self.start_folder())
        if not folder:
            return None
        self.remember_folder(Path(folder))
        return Path(folder)

    def choose_files(self, title: str) -> list[Path]:
        """A dialog for trace, CSV and db files starting in the last folder (the answer is remembered)."""
        files, _ = QFileDialog.getOpenFileNames(
            self, title, self.start_folder(),
            self.tr("Profiler files (*.json *.json.gz *.csv *.db);;All files (*)"))
        if files:
            self.remember_folder(Path(files[0]))
        return [Path(f) for f in files]

    def open_folder_dialog(self) -> None:
        """File → Open folder."""
        folder = self.choose_folder(self.tr("Open a profiler folder"))
        if folder is not None:
            self.open_by_user([folder])

    def open_files_dialog(self) -> None:
        """File → Open trace files (PyTorch profiler traces, a kernel_details.csv, a profiler database)."""
        files = self.choose_files(self.tr("Open profiler files"))
        if files:
            self.open_by_user(files)

    def add_folder_dialog(self) -> None:
        """File → Add folder to the open profile."""
        folder = self.choose_folder(self.tr("Add a profiler folder to the open profile"))
        if folder is not None:
            self.open_by_user([folder], "add")

    def open_demo(self) -> None:
        """File → Open the demo profile."""
        self.open_by_user([demo_profile_dir()], remember=False)

    def ask_open_mode(self, paths: list[Path]) -> str | None:
        """A profile is open: add ``paths`` to it, replace it, or cancel (``"add"``, ``"replace"``, ``None``)."""
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Open"))
        box.setText(self.tr("A profile is open. Add {0} to it, or replace it?").format(
            ", ".join(p.name for p in paths)))
        box.setInformativeText(self.tr("Hold Ctrl while dropping to add, Shift to replace, without this question."))
        add = box.addButton(self.tr("Add to the open profile"), QMessageBox.ButtonRole.AcceptRole)
        replace = box.addButton(self.tr("Replace it"), QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        return "add" if clicked is add else "replace" if clicked is replace else None

    def open_by_user(self, paths: list[Path], mode: str | None = None, remember: bool = True) -> bool:
        """Open what the user chose or dropped; with a profile open, add to it or replace it (asked when not said)."""
        if mode is None and self.profiler.has_profile():
            mode = self.ask_open_mode(paths)
            if mode is None:
                return False
        if mode == "add" and self.profiler.has_profile():
            current = [Path(p) for p in self.profiler.paths]
            paths = current + [p for p in paths if Path(p) not in current]
        return self.open_paths(paths, remember)

    def open_paths(self, paths: list[Path], remember: bool = True) -> bool:
        """Load profiler folders or files in the Profiler tab, replacing what is shown once they load.

        A missing path is named and skipped; when nothing loads, the profile already open is kept.
        """
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
        self._remember_next = remember
        self.tabs.setCurrentWidget(self.profiler)
        self.profiler.load(existing)
        return True

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        self.profiler.start_page.set_recent(self.settings.recent_folders)
        if not self.settings.recent_folders:
            action = self.recent_menu.addAction(self.tr("(none yet)"))
            action.setEnabled(False)
            return
        for entry in self.settings.recent_folders:
            action = self.recent_menu.addAction(recent_title(entry))
            action.setToolTip(entry)
            action.triggered.connect(lambda _=False, e=entry: self.open_recent(e))
        self.recent_menu.addSeparator()
        self.recent_menu.addAction(self.tr("Clear the list"), self._clear_recent)

    def open_recent(self, entry: str) -> None:
        """Reopen a recent profile (its paths; one that no longer exists is removed from the list)."""
        paths = [Path(p) for p in entry.split("\n") if p]
        if not any(p.exists() for p in paths):
            self.settings.recent_folders = [f for f in self.settings.recent_folders if f != entry]
            self._fill_recent()
            self.info.show_message(self.tr("{0} no longer exists; removed from the recent list.").format(
                ", ".join(str(p) for p in paths)))
            return
        self.open_by_user(paths)

    def _clear_recent(self) -> None:
        self.settings.recent_folders = []
        self._fill_recent()

    def _profile_loaded(self, result) -> None:
        self.export_action.setEnabled(bool(result.ranks))
        if result.ranks:
            if getattr(self, "_remember_next", True):  # a profile that loaded joins File → Recent
                self.settings.add_recent("\n".join(str(p) for p in self.profiler.paths))
                self._fill_recent()
            self.setWindowTitle(f"MFU Desktop — {', '.join(p.name for p in self.profiler.paths)}")
            self.prediction.set_analysis(result)
            roots = result.discovery.roots
            self.compare.set_base(result, ", ".join(p.name for p in roots) or "profile")

    def compare_with_dialog(self, files: bool = False) -> None:
        """File → Compare with a folder (or files): the open profile (BASE) against another (NEW)."""
        if not self.profiler.has_profile():
            self.tabs.setCurrentWidget(self.compare)  # its page says how to open BASE first
            return
        chosen = self.choose_files(self.tr("Compare with (NEW): trace or db files")) if files else \
            [p for p in [self.choose_folder(self.tr("Compare with (NEW)"))] if p is not None]
        if chosen:
            self.tabs.setCurrentWidget(self.compare)
            self.compare.set_new(chosen)

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
        """File → Export analysis: tables, charts, summary (the dialog stays open on a refusal)."""
        if self.profiler.result is None or not self.profiler.result.ranks:
            self.info.show_message(self.tr("Nothing to export yet: open a profile first."))
            return
        default = Path(self.start_folder()) / "mfu-export"
        dialog = ExportDialog(default, self, check=self.check_export)
        if dialog.exec():
            self.export_to(dialog.choice())

    def _export_names(self, choice: ExportChoice) -> list[str]:
        """Every file an export of ``choice`` writes: the charts and the tables."""
        charts = [f"{name}.{fmt}" for fmt in choice.charts for name in self.chart_plots()]
        return charts + analysis_export_names(choice.tables)

    def check_export(self, choice: ExportChoice) -> None:
        """Whether ``choice`` may be written (never inside or above a profile, never over what is not ours).

        Raises:
            ExportError: Why not (:class:`~mfu_desktop.core.writing.OverwriteRefused` when an earlier
                export would be replaced without ``choice.force``).
        """
        result = self.profiler.result
        refuse_profile_destination(choice.folder, analysis_sources(result) if result is not None else [])
        check_output_folder(choice.folder, self._export_names(choice), choice.force)

    def export_to(self, choice: ExportChoice) -> None:
        """Write the charts (here: they are widgets), then the tables (background) into ``choice.folder``."""
        result = self.profiler.result
        if result is None:
            return
        try:
            self.check_export(choice)
        except ExportError as exc:
            self.info.show_message(self.tr("Export refused: {0}").format(exc))
            return
        written: list[Path] = []
        try:
            for fmt in choice.charts:
                for name, chart in self.chart_plots().items():
                    written.append(export_plot(chart, choice.folder / f"{name}.{fmt}"))
            if written:
                mark_output_folder(choice.folder, "analysis export", written)
        except ExportError as exc:
            self.info.show_message(self.tr("Export failed: {0}").format(exc))
            return
        tables = list(choice.tables)

        def done(paths: list[Path]) -> None:
            self.show_status(self.tr("Exported {0} files to {1}").format(len(paths) + len(written), choice.folder))

        lang = current_language()
        self.runner.start(EXPORT_CHANNEL,
                          lambda progress: export_analysis(result, choice.folder, tables, lang, force=choice.force),
                          done, lambda msg: self.info.show_message(self.tr("Export failed: {0}").format(msg)),
                          label=self.tr("Exporting"))

    def chart_plots(self) -> dict[str, QWidget]:
        """Every chart that has something to show (title, legend and plot), by file name."""
        charts: dict[str, QWidget] = {"hot_operators": self.profiler.hot_chart, "mfu_scatter": self.profiler.scatter,
                                      "step_breakdown": self.profiler.steps_chart, "roofline": self.profiler.roofline}
        if self.prediction.prediction is not None:
            charts["relative_performance"] = self.prediction.rel_chart
            charts["predicted_step"] = self.prediction.step_chart
        return charts

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
        self.profiler.roofline.restyle()  # its roofs and their labels in the theme's ink

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
        self.profiler.restore_splitter(self.settings.profiler_split)

    def fit_to_screen(self, area: QRect | None = None) -> None:
        """Keep the whole window on its screen: shrink and move it into the screen's free area.

        The first run's 1440×900, or a size remembered from a larger monitor, would put the tabs'
        right edge and the status bar off a 1280×800 laptop screen. ``area`` defaults to the
        window's screen's available geometry (nothing is done on the offscreen platform).
        """
        if area is None:
            if QGuiApplication.platformName() in ("offscreen", "minimal"):
                return
            screen = self.screen() or QGuiApplication.primaryScreen()
            if screen is None:
                return
            area = screen.availableGeometry()
        frame_w = max(0, self.frameGeometry().width() - self.width())
        frame_h = max(0, self.frameGeometry().height() - self.height())
        width = min(self.width(), area.width() - frame_w)
        height = min(self.height(), area.height() - frame_h)
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        x = min(max(self.x(), area.left()), area.left() + max(0, area.width() - self.width() - frame_w))
        y = min(max(self.y(), area.top()), area.top() + max(0, area.height() - self.height() - frame_h))
        if (x, y) != (self.x(), self.y()):
            self.move(x, y)

    def remember_geometry(self) -> None:
        """Store the window geometry and state in the settings."""
        self.settings.geometry = bytes(self.saveGeometry().toBase64()).decode("ascii")
        self.settings.window_state = bytes(self.saveState().toBase64()).decode("ascii")
        self.settings.profiler_split = self.profiler.splitter_state()

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
