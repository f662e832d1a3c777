"""A tiny progress/cancel protocol for long core functions.

The GUI passes a Qt-backed implementation (signals, a cancel flag), the CLI a console one,
tests nothing at all. Core code calls ``set_progress`` now and then and checks
``was_cancelled`` between units of work, raising :class:`Cancelled`.
"""

from __future__ import annotations

import threading
from typing import Protocol


class Cancelled(Exception):
    """The user cancelled the job; partial results are dropped."""


class Progress(Protocol):
    """What a long-running core function reports to and asks of its caller."""

    def set_progress(self, fraction: float, text: str = "") -> None:
        """Report progress in [0, 1] with a short description."""

    def was_cancelled(self) -> bool:
        """True when the caller wants the job to stop."""


class NullProgress:
    """Progress that goes nowhere and never cancels."""

    def set_progress(self, fraction: float, text: str = "") -> None:
        return None

    def was_cancelled(self) -> bool:
        return False


class FlagProgress:
    """Thread-safe progress with a cancel flag (used by workers and tests)."""

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self.fraction = 0.0
        self.text = ""

    def set_progress(self, fraction: float, text: str = "") -> None:
        self.fraction = max(0.0, min(1.0, fraction))
        self.text = text

    def was_cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Ask the job to stop."""
        self._cancel.set()


def check(progress: Progress | None) -> None:
    """Raise :class:`Cancelled` when the caller cancelled."""
    if progress is not None and progress.was_cancelled():
        raise Cancelled()
