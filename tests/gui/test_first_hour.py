"""What a newcomer sees in the first hour: cards that never clip, names not paths, a status bar that fits the tab."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import wait_idle
from tests.helpers import kernel_row, make_rank

pytestmark = pytest.mark.gui


def unconfirmed_profile(root: Path) -> Path:
    """Two ranks without chip evidence: every MFU is a range "0.0589 %–0.0813 %" (the longest card values)."""
    for rank in (0, 1):
        rows = [kernel_row(f"mm{i}", "MatMulV2", "AI_CORE", f"{1767225600000000 + i * 100}.000", 50.0 + rank,
                           f"{64 + i},256;256,128", "DT_BF16;DT_BF16", f"{64 + i},128", "DT_BF16")
                for i in range(30)]
        make_rank(root, f"rank{rank}_ascend_pt", rank, rows)
    return root


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_cards_never_clip(make_window, qtbot, tmp_path, size):
    window = make_window("--lang", "en")
    window.resize(*size)
    window.open_paths([unconfirmed_profile(tmp_path / "p")])
    wait_idle(qtbot, window)
    profiler = window.profiler
    cards = (profiler.card_ops, profiler.card_step, profiler.card_cube, profiler.card_tier, profiler.card_chip)
    for view in ("cluster", "rank"):
        if view == "rank":
            assert profiler.select_rank(1)
            wait_idle(qtbot, window)
        qtbot.wait(20)
        assert "–" in profiler.card_ops.full_value  # a range: the case that clipped
        for card in cards:
            label = card.value
            assert label.fontMetrics().horizontalAdvance(label.text()) <= label.width(), (view, card.full_value)
            if not card.value_fits():  # elided: the tooltip has the whole value
                assert label.text().endswith("…") and card.full_value in card.toolTip()


def test_header_shows_the_folder_name_and_copies_the_full_path(make_window, qtbot, tmp_path):
    from PySide6.QtGui import QGuiApplication

    profile = unconfirmed_profile(tmp_path / "deep" / "nested" / "job_42")
    window = make_window("--lang", "en")
    window.open_paths([profile])
    wait_idle(qtbot, window)
    title = window.profiler.title.text()
    assert "job_42" in title and str(tmp_path) not in title and "/" not in title
    assert window.profiler.title.toolTip() == str(profile)
    window.profiler.copy_path.click()
    assert QGuiApplication.clipboard().text() == str(profile)
    assert window.profiler.select_rank(0)
    wait_idle(qtbot, window)
    assert window.profiler.title.text() == "Rank 0 — rank0_ascend_pt"
    assert window.profiler.title.toolTip() == str(profile / "rank0_ascend_pt")


def test_status_bar_speaks_of_the_current_tab(make_window, qtbot):
    window = make_window("--lang", "en", "--demo", "--tab", "calculator")
    wait_idle(qtbot, window, timeout=120000)
    assert "Prediction" not in window.status_label.text()  # the prediction ran in the background
    window.tabs.setCurrentWidget(window.prediction)
    assert window.status_label.text().startswith("Prediction: 6 target chip(s)")
    window.tabs.setCurrentWidget(window.calculator)
    assert window.status_label.text() == ""


def test_cluster_and_empty_folders_show_sentences_not_empty_axes(make_window, qtbot, tmp_path):
    window = make_window("--lang", "en", "--demo")
    wait_idle(qtbot, window, timeout=120000)
    scatter = window.profiler.scatter
    assert scatter.page.showing_message and "select a rank" in scatter.page.message.text()
    assert window.profiler.select_rank(2)
    wait_idle(qtbot, window)
    assert not scatter.page.showing_message
    empty = tmp_path / "empty"
    empty.mkdir()
    window.open_paths([empty])
    wait_idle(qtbot, window)
    text = window.profiler.info.label.text()
    # sentence case after the stop; and the demo that was open is kept (never lose the user's work)
    assert text.startswith("Nothing could be loaded from empty. No profiler ranks found")
    assert text.endswith("The profile already open is kept.")
    assert len(window.profiler.result.ranks) == 8 and window.profiler.paths[0].name == "demo"


def test_no_visible_text_contains_a_path(make_window, qtbot):
    """What the screenshots show: folder names only (the full path is in tooltips and behind Copy path)."""
    from PySide6.QtWidgets import QLabel

    from mfu_desktop.core.paths import demo_profile_dir

    window = make_window("--lang", "en", "--demo", "--tab", "profiler", "--rank", "5")
    wait_idle(qtbot, window, timeout=120000)
    parent = str(demo_profile_dir().parent)
    for label in window.findChildren(QLabel):
        if label.isVisible():
            assert parent not in label.text(), label.text()
    assert window.profiler.title.text().startswith("Rank 5 — node0_")


def test_an_unconfirmed_chip_says_so_once_with_the_action_and_setting_it_keeps_the_rank(make_window, qtbot, tmp_path):
    window = make_window("--lang", "en")
    window.open_paths([unconfirmed_profile(tmp_path / "p")])
    wait_idle(qtbot, window)
    profiler = window.profiler
    assert profiler.select_rank(1)
    wait_idle(qtbot, window)
    card = profiler.info.card
    assert profiler.info.text().startswith("The profile does not confirm the chip of every rank")
    assert card.action.isVisibleTo(card) and card.action.text() == "Set the chip…"
    assert "–" in profiler.card_ops.full_value and "set it in Assumptions" in profiler.card_ops.full_detail
    assert profiler.card_tier.full_value == f"T1: {profiler.card_ops.full_value}"  # not "T1: –"
    assert "set it in Assumptions" in profiler.scatter.page.message.text()
    qtbot.mouseClick(card.action, Qt.MouseButton.LeftButton)
    assert profiler.tabs.currentWidget() is profiler.assumptions_page
    profiler.chip_choice.hidePopup()
    profiler.chip_choice.setCurrentIndex(profiler.chip_choice.findData("Huawei Ascend 910B2"))
    wait_idle(qtbot, window)
    assert profiler.current is not None and profiler.current.rank == 1  # the tree kept rank 1, not the cluster
    assert "–" not in profiler.card_ops.full_value and profiler.info.text() == ""


@pytest.mark.parametrize("size", ["1024x700", "1280x800"])
def test_the_rank_tree_keeps_mfu_tier_and_warnings_in_sight(make_window, qtbot, size):
    """The tree is a quarter of a laptop screen: the names give way, not MFU, Tier or "⚠ N" (its click opens them)."""
    from PySide6.QtTest import QTest

    from mfu_desktop.gui.core_text import tl
    from mfu_desktop.gui.models.rank_tree import ROLE_KIND, WARNINGS_COLUMN

    window = make_window("--lang", "zh_CN", "--demo", "--tab", "profiler", "--size", size)
    wait_idle(qtbot, window, timeout=120000)
    profiler, tree = window.profiler, window.profiler.tree
    visible = tree.viewport().width()
    shown = [tree.columnWidth(col) for col in range(WARNINGS_COLUMN + 1) if not tree.isColumnHidden(col)]
    assert sum(shown) <= visible, (shown, visible)
    assert tree.columnWidth(0) >= 100  # names shortened at their end, never to nothing
    slow = profiler.tree_model.index(5, 0, profiler.tree_model.index(1, 0))
    shown_name = tree.fontMetrics().elidedText(slow.data(), Qt.TextElideMode.ElideRight, tree.visualRect(slow).width())
    assert shown_name.startswith("rank 5"), shown_name  # the id stays in sight
    model = profiler.tree_model
    root = next(model.index(r, 0) for r in range(model.rowCount()) if model.index(r, 0).data(ROLE_KIND) == "root")
    warn = model.index(1, WARNINGS_COLUMN, root)  # rank 1 of the demo has warnings
    assert warn.data().startswith("⚠ ")
    rect = tree.visualRect(warn)
    assert tree.viewport().rect().contains(rect), (rect, tree.viewport().rect())
    metrics = tree.fontMetrics()
    assert metrics.horizontalAdvance(warn.data()) <= rect.width()  # "⚠ 3" whole
    QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    wait_idle(qtbot, window)
    assert profiler.current is not None and profiler.current.rank == 1
    assert profiler.tabs.currentWidget() is profiler.assumptions_page
    first_line = profiler.warnings.toPlainText().split("\n")[0]
    assert profiler.current.warnings and first_line == tl(profiler.current.warnings[0])  # the warnings come first
    assert model.horizontalHeaderItem(WARNINGS_COLUMN).toolTip() == "警告"
