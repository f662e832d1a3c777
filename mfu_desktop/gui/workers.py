"""One worker abstraction on QThreadPool, with progress, cancel and "latest wins".

``JobRunner.start(channel, fn, ...)`` runs ``fn(progress)`` on the global thread pool. A new
job on the same channel cancels the previous one and disconnects it, so a result of a
cancelled job never reaches the screen. Widgets are touched only in the slots, which run on
the GUI thread (queued connections).
"""

from __future__ import annotations

import itertools
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from mfu_desktop.core.progress import Cancelled


class QtProgress:
    """The core's Progress protocol, forwarding to Qt signals (thread-safe)."""

    def __init__(self, signals: WorkerSignals) -> None:
        self._signals = signals
        self._cancel = threading.Event()

    def set_progress(self, fraction: float, text: str = "") -> None:
        """Report progress (emitted to the GUI thread)."""
        if not self._cancel.is_set():
            self._signals.progress.emit(float(max(0.0, min(1.0, fraction))), text)

    def was_cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Ask the job to stop at its next check."""
        self._cancel.set()


class WorkerSignals(QObject):
    """Signals of one job (created on the GUI thread)."""

    progress = Signal(float, str)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    done = Signal()  # always last, whatever the outcome


class Job(QRunnable):
    """``fn(progress)`` on a pool thread; outcome reported through :class:`WorkerSignals`."""

    def __init__(self, fn: Callable[[QtProgress], Any], label: str = "") -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.label = label
        self.signals = WorkerSignals()
        self.progress = QtProgress(self.signals)
        self.id = next(_IDS)

    def run(self) -> None:
        try:
            result = self.fn(self.progress)
        except Cancelled:
            self.signals.cancelled.emit()
        except Exception as exc:  # the job's error path: shown as a readable message
            self.signals.failed.emit(failure_text(exc))
        else:
            if self.progress.was_cancelled():
                self.signals.cancelled.emit()
            else:
                self.signals.finished.emit(result)
        finally:
            self.signals.done.emit()


_IDS = itertools.count(1)


def failure_text(exc: BaseException) -> str:
    """What a failed job says.

    MFU Desktop's own errors are written for the user (their message alone); another library's
    keep their type (``ArrowInvalid: …``), which says where to look.
    """
    if type(exc).__module__.startswith("mfu_desktop.") and str(exc):
        return str(exc)
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


@dataclass
class _Active:
    job: Job
    channel: str


class JobRunner(QObject):
    """Starts jobs per channel; the newest job of a channel wins.

    Signals:
        job_started(label): a job began. job_progress(fraction, text). job_ended(): no job left.
    """

    job_started = Signal(str)
    job_progress = Signal(float, str)
    job_ended = Signal()

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self._active: dict[str, Job] = {}
        self._running: dict[int, Job] = {}

    def start(self, channel: str, fn: Callable[[QtProgress], Any], on_finished: Callable[[Any], None],
              on_failed: Callable[[str], None] | None = None, label: str = "") -> Job:
        """Run ``fn`` for ``channel``, cancelling and disconnecting the channel's previous job."""
        self.cancel(channel)
        job = Job(fn, label)
        self._active[channel] = job
        self._running[job.id] = job

        def finished(result: Any, job: Job = job) -> None:
            if self._active.get(channel) is job:  # a cancelled or replaced job is dropped here
                on_finished(result)

        def failed(message: str, job: Job = job) -> None:
            if self._active.get(channel) is job and on_failed is not None:
                on_failed(message)

        job.signals.finished.connect(finished)
        job.signals.failed.connect(failed)
        job.signals.progress.connect(lambda f, t, job=job: self._progress(channel, job, f, t))
        job.signals.done.connect(lambda job=job: self._done(channel, job))
        self.job_started.emit(label)
        self.pool.start(job)
        return job

    def _progress(self, channel: str, job: Job, fraction: float, text: str) -> None:
        if self._active.get(channel) is job:
            self.job_progress.emit(fraction, text)

    def _done(self, channel: str, job: Job) -> None:
        self._running.pop(job.id, None)
        if self._active.get(channel) is job:
            del self._active[channel]
        if not self._active:
            self.job_ended.emit()

    def cancel(self, channel: str | None = None) -> None:
        """Cancel one channel's job (or all jobs); their results are dropped."""
        channels = [channel] if channel is not None else list(self._active)
        cancelled = False
        for ch in channels:
            job = self._active.pop(ch, None)
            if job is not None:
                job.progress.cancel()
                cancelled = True
        if cancelled and not self._active:
            self.job_ended.emit()

    def busy(self, channel: str | None = None) -> bool:
        """Whether a job runs (on ``channel``, or at all)."""
        return channel in self._active if channel is not None else bool(self._active)

    def wait(self, msecs: int = 30000) -> bool:
        """Wait for every running job (used at exit and in tests)."""
        return self.pool.waitForDone(msecs)

    def running_jobs(self) -> int:
        """Jobs whose ``run`` has not returned yet (cancelled ones included)."""
        return len(self._running)
