"""Staged display: show a big result in small steps so the window keeps answering.

Each step runs :data:`STAGE_MS` after the previous one, which gives the event loop time to
paint and to serve input in between (a whole cluster view in one go kept the GUI thread busy
for 150 ms). ``settling()`` tells tests, ``--screenshot`` and benchmarks that steps are still
to come.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

#: Delay between steps: long enough for a paint in between, short enough to look instantaneous.
STAGE_MS = 15


class Stager(QObject):
    """Schedules display steps and counts the ones not run yet."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending = 0

    def later(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` after :data:`STAGE_MS` (dropped with this object's parent)."""
        self._pending += 1

        def run() -> None:
            self._pending -= 1
            fn()

        QTimer.singleShot(STAGE_MS, self, run)

    def settling(self) -> bool:
        """True while scheduled steps are still to come."""
        return self._pending > 0
