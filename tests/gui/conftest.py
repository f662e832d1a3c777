"""GUI fixtures: a main window built the way ``mfu-desktop`` builds it, torn down without leaks."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QThreadPool


@pytest.fixture
def make_window(qtbot, qapp):
    """Factory: ``make_window("--demo", ...)`` → a shown MainWindow (closed and checked at teardown)."""
    from mfu_desktop.gui.app import create, parse_args

    windows = []

    def factory(*argv: str):
        _, window = create(parse_args(list(argv)), qapp)
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield factory
    for window in windows:
        window.shutdown()
        assert window.runner.running_jobs() == 0, "a background job outlived its window"
    assert QThreadPool.globalInstance().waitForDone(10000)


def wait_idle(qtbot, window, timeout: int = 60000) -> None:
    """Wait until no background job runs."""
    def idle() -> bool:
        return not window.is_busy()

    qtbot.waitUntil(idle, timeout=timeout)
    qtbot.wait(30)  # staged display steps (zero-delay timers) and follow-up jobs
    qtbot.waitUntil(idle, timeout=timeout)
