"""Help → Formulas and conventions, Help → Keyboard shortcuts, Help → About."""

from __future__ import annotations

import platform
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from mfu_desktop import __version__
from mfu_desktop.core.paths import resources_dir, user_cache_dir, user_catalog_path, user_config_dir


def formulas_path(language: str) -> Path:
    """The formulas page for a language (English when no translation ships)."""
    docs = resources_dir() / "docs"
    localized = docs / f"formulas.{language}.md"
    return localized if localized.exists() else docs / "formulas.md"


class MarkdownDialog(QDialog):
    """A resizable, read-only Markdown page."""

    def __init__(self, title: str, markdown: str, parent: QWidget | None = None, base: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(960, 760)
        layout = QVBoxLayout(self)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        if base is not None:  # relative links and images (screenshots/…) resolve against it
            self.browser.setSearchPaths([str(base)])
        self.browser.setMarkdown(markdown)
        layout.addWidget(self.browser)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        box.rejected.connect(self.reject)
        layout.addWidget(box)


def formulas_dialog(language: str, parent: QWidget | None = None) -> MarkdownDialog:
    """The formulas and conventions page."""
    path = formulas_path(language)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        text = f"The formulas page could not be read ({path}: {exc.strerror or exc})."
    return MarkdownDialog(QDialog.tr("Formulas and conventions"), text, parent)


def user_guide_dialog(parent: QWidget | None = None) -> MarkdownDialog:
    """The user guide (docs/user-guide.md, with its screenshots)."""
    from mfu_desktop.core.paths import shipped_file

    guide = shipped_file("docs/user-guide.md")
    try:
        text = guide.read_text(encoding="utf-8")
    except OSError as exc:
        text = f"The user guide could not be read ({guide}: {exc.strerror or exc})."
    return MarkdownDialog(QDialog.tr("User guide"), text, parent, base=guide.parent)


def about_text() -> str:
    """Version, libraries and where the app keeps its files."""
    import numpy
    import pandas
    import pyarrow
    import pyqtgraph

    return "\n".join([
        f"# MFU Desktop {__version__}",
        "",
        "Model FLOPs Utilization for Ascend NPU (and other accelerator) training: calculator, "
        "profiler analysis and cross-chip prediction. Works offline; never writes into a profiler folder.",
        "",
        f"- Python {platform.python_version()} · PySide6 {pyside_version} · pandas {pandas.__version__} · "
        f"numpy {numpy.__version__} · pyarrow {pyarrow.__version__} · pyqtgraph {pyqtgraph.__version__}",
        f"- Settings: `{user_config_dir()}`",
        f"- Your chip catalog: `{user_catalog_path()}`",
        f"- Cache of parsed profiles: `{user_cache_dir()}`",
        "",
        "Licence: Apache-2.0.",
    ])


def about_dialog(parent: QWidget | None = None) -> MarkdownDialog:
    """The About box."""
    dialog = MarkdownDialog(QDialog.tr("About MFU Desktop"), about_text(), parent)
    dialog.resize(640, 360)
    return dialog


def shortcuts_markdown(shortcuts: list[tuple[str, str]]) -> str:
    """Every shortcut as a Markdown table (where it is in the menus, the keys)."""
    from PySide6.QtCore import QCoreApplication

    title = QCoreApplication.translate("Help", "Keyboard shortcuts")
    intro = QCoreApplication.translate("Help", "Every tab and every view of the Profiler tab has one; Ctrl+F finds "
                                               "kernels and operator types in every open tab.")
    command, keys = QCoreApplication.translate("Help", "Command"), QCoreApplication.translate("Help", "Keys")
    lines = [f"# {title}", "", intro, "", f"| {command} | {keys} |", "|---|---|"]
    lines += [f"| {where} | `{keys}` |" for where, keys in shortcuts]
    return "\n".join(lines)


def shortcuts_dialog(shortcuts: list[tuple[str, str]], parent: QWidget | None = None) -> MarkdownDialog:
    """Help → Keyboard shortcuts."""
    from PySide6.QtCore import QCoreApplication

    dialog = MarkdownDialog(QCoreApplication.translate("Help", "Keyboard shortcuts"), shortcuts_markdown(shortcuts),
                            parent)
    dialog.resize(640, 720)
    return dialog
