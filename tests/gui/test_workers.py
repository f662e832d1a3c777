"""The worker abstraction: latest job per channel wins, cancel drops results, errors become messages."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QThreadPool

from mfu_desktop.core.progress import check
from mfu_desktop.gui.workers import JobRunner

pytestmark = pytest.mark.gui


def slow(value, seconds: float = 0.3):
    def fn(progress):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            check(progress)
            time.sleep(0.01)
        progress.set_progress(1.0, "done")
        return value
    return fn


def test_latest_job_of_a_channel_wins(qtbot):
    runner = JobRunner()
    got, failed = [], []
    runner.start("c", slow("old"), got.append, failed.append)
    runner.start("c", slow("new", 0.05), got.append, failed.append)
    runner.start("other", slow("parallel", 0.05), got.append, failed.append)
    qtbot.waitUntil(lambda: runner.running_jobs() == 0, timeout=5000)
    qtbot.wait(20)
    assert sorted(got) == ["new", "parallel"] and failed == []
    assert not runner.busy()


def test_cancel_drops_the_result_and_frees_the_thread(qtbot):
    runner = JobRunner()
    got = []
    started = threading.Event()

    def fn(progress):
        started.set()
        return slow("late", 5.0)(progress)

    job = runner.start("c", fn, got.append)
    assert started.wait(5)
    runner.cancel("c")
    assert runner.wait(5000)
    qtbot.wait(20)
    assert got == [] and runner.running_jobs() == 0 and job.progress.was_cancelled()
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def test_errors_become_readable_messages(qtbot):
    runner = JobRunner()
    failed = []

    def boom(progress):
        raise ValueError("kernel_details.csv: column Duration(us) missing")

    runner.start("c", boom, lambda r: None, failed.append)
    qtbot.waitUntil(lambda: bool(failed), timeout=5000)
    assert failed == ["ValueError: kernel_details.csv: column Duration(us) missing"]


def test_mfu_desktops_own_errors_are_their_message_alone(qtbot):
    from mfu_desktop.core.writing import ExportError

    runner = JobRunner()
    failed = []

    def refused(progress):
        raise ExportError("refusing to write into /p/rank0_ascend_pt/t.json: /p/rank0_ascend_pt is a profiler folder")

    runner.start("c", refused, lambda r: None, failed.append)
    qtbot.waitUntil(lambda: bool(failed), timeout=5000)
    # before: "mfu_desktop.core.writing.ExportError: refusing …" (the class's dotted path, jargon to a user)
    assert failed == ["refusing to write into /p/rank0_ascend_pt/t.json: /p/rank0_ascend_pt is a profiler folder"]


def test_progress_and_busy_signals(qtbot):
    runner = JobRunner()
    progress, ended = [], []
    runner.job_progress.connect(lambda f, t: progress.append((f, t)))
    runner.job_ended.connect(lambda: ended.append(True))
    with qtbot.waitSignal(runner.job_started, timeout=1000):
        runner.start("c", slow(1, 0.05), lambda r: None, label="work")
    assert runner.busy("c") and runner.busy()
    qtbot.waitUntil(lambda: bool(ended), timeout=5000)
    assert (1.0, "done") in progress
