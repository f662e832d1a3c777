"""Before an export writes: refused folders are said, an earlier export is replaced only when the user agrees.

The engine decides (:func:`mfu_desktop.core.writing.refuse_profile_destination`,
:func:`~mfu_desktop.core.writing.check_output_folder`); this asks the question the command
line's ``--force`` answers, for every export of the window (analysis, prediction, comparison).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from mfu_desktop.core.writing import ExportError, OverwriteRefused


def ask_replace(parent: QWidget | None, folder: Path, files: list[str]) -> bool:
    """Whether the user agrees to replace the files of an earlier export in ``folder``."""
    listed = ", ".join(files[:6]) + (" …" if len(files) > 6 else "")
    answer = QMessageBox.question(
        parent, QCoreApplication.translate("ExportGuard", "Replace the earlier export?"),
        QCoreApplication.translate("ExportGuard", "{0} holds an earlier export of MFU Desktop. Replace its files "
                                   "({1})? Nothing else in the folder is touched.").format(folder, listed),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


def writable(parent: QWidget | None, folder: Path, check: Callable[[bool], None],
             refused: Callable[[str], None]) -> bool | None:
    """Run ``check(force)``: the ``force`` to write with (asking before replacing), or ``None`` when not to write.

    Args:
        parent: The dialog or window that asks.
        folder: Where the export goes.
        check: The engine's checks for this export (raise :class:`ExportError`).
        refused: Shows a refusal (translated prefix + the engine's reason).
    """
    try:
        check(False)
        return False
    except OverwriteRefused as exc:
        return True if ask_replace(parent, folder, exc.files) else None
    except ExportError as exc:
        refused(QCoreApplication.translate("ExportGuard", "Export refused: {0}").format(exc))
        return None
