"""The window writes nowhere it should not, asks before replacing, keeps the user's choices, and drops as a Copy.

Before (issue 22): a refused export closed the dialog (every choice lost); the window's export
replaced the files of any folder; a drop proposed as a Move was accepted as a Move (the file
manager may then delete the profile); Ctrl+C copied ``=HYPERLINK(…)`` verbatim into the clipboard.
"""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox

from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.writing import OUTPUT_MARKER
from mfu_desktop.gui.dialogs.export_dialog import ExportDialog
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


@pytest.fixture
def demo_window(make_window, qtbot, tmp_path):
    profile = tmp_path / "demo"
    shutil.copytree(demo_profile_dir(), profile)
    window = make_window("--lang", "en")
    window.open_paths([profile], remember=False)
    wait_idle(qtbot, window, timeout=120000)
    return window, profile


def _dialog(window, qtbot, folder) -> ExportDialog:
    dialog = ExportDialog(folder, window, check=window.check_export)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def _ok(dialog, qtbot) -> None:
    box = dialog.findChild(QDialogButtonBox)
    qtbot.mouseClick(box.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)


def test_a_refusal_keeps_the_dialog_and_every_choice(demo_window, qtbot, tmp_path):
    window, profile = demo_window
    dialog = _dialog(window, qtbot, profile / "inside")
    for box, on in ((dialog.csv, False), (dialog.xlsx, True), (dialog.png, False), (dialog.svg, True)):
        box.setChecked(on)
    _ok(dialog, qtbot)
    assert dialog.isVisible()  # before: closed, every choice lost
    assert dialog.refusal.isVisible() and "refusing to write into" in dialog.refusal.text()
    assert "write to" in dialog.refusal.text()  # where to write instead
    assert (dialog.csv.isChecked(), dialog.xlsx.isChecked(), dialog.png.isChecked(), dialog.svg.isChecked()) == (
        False, True, False, True)
    dialog.folder.setText(str(tmp_path / "export"))
    _ok(dialog, qtbot)
    assert not dialog.isVisible() and dialog.result() == ExportDialog.DialogCode.Accepted
    assert dialog.choice().tables == ["xlsx"] and dialog.choice().charts == ["svg"]


def test_a_folder_of_the_users_is_refused_and_untouched(demo_window, qtbot, tmp_path):
    window, _ = demo_window
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "summary.md").write_text("my notes")
    dialog = _dialog(window, qtbot, mine)
    _ok(dialog, qtbot)
    assert dialog.isVisible() and "was not written by MFU Desktop" in dialog.refusal.text()
    assert [p.name for p in mine.iterdir()] == ["summary.md"] and (mine / "summary.md").read_text() == "my notes"


def test_an_earlier_export_is_replaced_only_when_the_user_agrees(demo_window, qtbot, tmp_path, monkeypatch):
    window, _ = demo_window
    out = tmp_path / "export"
    dialog = _dialog(window, qtbot, out)
    _ok(dialog, qtbot)
    window.export_to(dialog.choice())
    wait_idle(qtbot, window, timeout=120000)
    assert (out / OUTPUT_MARKER).exists() and (out / "summary.md").exists()
    (out / "summary.md").write_text("stale")
    answers = []

    def answer(reply):
        def question(parent, title, text, *args, **kwargs):
            answers.append(text)
            return reply
        return question

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.No))
    again = _dialog(window, qtbot, out)
    _ok(again, qtbot)
    assert again.isVisible() and "holds an earlier export" in answers[-1]  # said no: nothing replaced
    assert (out / "summary.md").read_text() == "stale"
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Yes))
    _ok(again, qtbot)
    assert not again.isVisible() and again.choice().force
    window.export_to(again.choice())
    wait_idle(qtbot, window, timeout=120000)
    assert (out / "summary.md").read_text().startswith("# MFU Desktop report")


def test_the_prediction_export_asks_before_replacing(demo_window, qtbot, tmp_path, monkeypatch):
    window, profile = demo_window
    wait_idle(qtbot, window, timeout=120000)
    window.prediction.export_to(profile / "pred")
    assert "refusing to write into" in window.prediction.info.label.text()
    assert not (profile / "pred").exists()
    out = tmp_path / "pred"
    window.prediction.export_to(out)
    wait_idle(qtbot, window, timeout=120000)
    stamp = (out / "performance_prediction.csv").stat().st_mtime_ns
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    window.prediction.export_to(out)
    wait_idle(qtbot, window, timeout=120000)
    assert (out / "performance_prediction.csv").stat().st_mtime_ns == stamp


def _drag(window, actions: Qt.DropAction, proposed: Qt.DropAction, path) -> QDragEnterEvent:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    pos = window.centralWidget().mapTo(window, QPoint(5, 5))
    event = QDragEnterEvent(pos, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    event.setDropAction(proposed)
    QApplication.sendEvent(window.windowHandle(), event)
    return event


def test_a_drop_is_a_copy_or_a_link_never_a_move(make_window, qtbot):
    window = make_window("--lang", "en")
    folder = demo_profile_dir()
    A = Qt.DropAction
    event = _drag(window, A.CopyAction | A.MoveAction, A.MoveAction, folder)
    assert event.isAccepted() and event.dropAction() == A.CopyAction  # before: accepted as the proposed Move
    event = _drag(window, A.LinkAction | A.MoveAction, A.MoveAction, folder)
    assert event.isAccepted() and event.dropAction() == A.LinkAction
    event = _drag(window, A.MoveAction, A.MoveAction, folder)
    assert not event.isAccepted()  # only a Move is offered: refused
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder))])
    drop = QDropEvent(QPointF(window.centralWidget().mapTo(window, QPoint(5, 5))), A.CopyAction | A.MoveAction,
                      mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    drop.setDropAction(A.MoveAction)
    QApplication.sendEvent(window.windowHandle(), drop)
    assert drop.isAccepted() and drop.dropAction() == A.CopyAction
    wait_idle(qtbot, window, timeout=120000)
    assert window.profiler.result is not None and len(window.profiler.result.ranks) == 8


def test_ctrl_c_neutralises_formulas_like_the_csv_export(qtbot):
    from mfu_desktop.gui.models.dataframe_model import ColumnSpec, DataFrameModel
    from mfu_desktop.gui.table_view import TableView

    frame = pd.DataFrame({"type": ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "MatMulV2"],
                          "delta": ["-12.5", "-3 %", "-", "1,234.5"]})
    model = DataFrameModel(frame, [ColumnSpec("type", "Type"), ColumnSpec("delta", "Δ µs")])
    view = TableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.show()
    view.selectAll()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    lines = QGuiApplication.clipboard().text().splitlines()
    assert lines[1:] == ["'=HYPERLINK(\"http://x\",\"y\")\t-12.5", "'+cmd|' /C calc'!A0\t-3 %", "'@SUM(1+1)\t'-",
                         "MatMulV2\t1,234.5"]  # numbers stay numbers; text that starts a formula gets a '
