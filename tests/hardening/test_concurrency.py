"""The window under churn: load, cancel and reload 50 times, switch ranks and drop folders mid-load.

Proves: no leaked threads or timers, memory back near its start, and no result of a
cancelled or superseded job ever reaches the screen.
"""

from __future__ import annotations

import gc
import os
import random
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QThreadPool, QTimer

from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.core.pipeline import analyze as pipeline_analyze
from mfu_desktop.core.store import ranks as loader
from mfu_desktop.demo import generate
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


def rss_mb() -> float | None:
    """Resident memory of this process (Linux), None elsewhere."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, AttributeError):
        return None


def real_threads() -> list[str]:
    """Threads started by Python code (ThreadPoolExecutor workers included), not Qt's own pool threads."""
    return [t.name for t in threading.enumerate() if not isinstance(t, threading._DummyThread)]


def test_fifty_load_cancel_reload_cycles(make_window, qtbot, tmp_path, monkeypatch):
    # No cache: every load really parses, so cancels and new drops land mid-load.
    monkeypatch.setattr(loader, "cache_read", lambda key: None)
    monkeypatch.setattr(pipeline_analyze, "read_analysis", lambda key: None)
    big = generate(tmp_path / "big", ranks=4, steps=2, kernels=20_000)
    small = demo_profile_dir()
    window = make_window("--lang", "en")
    profiler = window.profiler
    # Pool threads that sit idle past the expiry timeout (30 s: easily reached on a loaded machine) end and are
    # replaced, and each replacement that runs Python leaves one more "dummy" thread object behind: keep the pool's
    # threads for the test, so that the bound on dummies below counts threads, not the machine's load.
    pool = QThreadPool.globalInstance()
    expiry = pool.expiryTimeout()
    pool.setExpiryTimeout(-1)

    delivered: list[list[Path]] = []
    stale: list[str] = []
    real_loaded = profiler._loaded

    def checked_loaded(result):
        roots = [Path(p) for p in result.discovery.roots]
        if roots != [Path(p) for p in profiler.paths]:
            stale.append(f"result for {roots} arrived while {profiler.paths} was requested")
        delivered.append(roots)
        real_loaded(result)

    monkeypatch.setattr(profiler, "_loaded", checked_loaded)

    window.open_paths([small], remember=False)  # warm up (imports, first paint, pools)
    wait_idle(qtbot, window, timeout=120000)
    gc.collect()
    threads_before = len(real_threads())
    dummies_before = {id(t) for t in threading.enumerate() if isinstance(t, threading._DummyThread)}
    timers_before = len(window.findChildren(QTimer))
    rss_before = rss_mb()

    rng = random.Random(7)
    for i in range(50):
        target = big if i % 2 == 0 else small
        window.open_paths([target], remember=False)
        qtbot.wait(rng.randint(0, 40))
        action = i % 5
        if action == 0:
            window.cancel_work()
        elif action == 1 and profiler.result is not None and profiler.result.ranks:
            profiler.select_rank(profiler.result.ranks[-1].rank)  # switch ranks while a load runs
        elif action == 2:
            window.open_paths([small if target == big else big], remember=False)  # a new drop mid-load
        elif action == 3:
            profiler.hf32.toggle()  # change an assumption mid-load: recompute
        else:
            wait_idle(qtbot, window, timeout=120000)  # let this one finish and reach the screen
        qtbot.wait(rng.randint(0, 20))

    window.open_paths([big], remember=False)
    wait_idle(qtbot, window, timeout=300000)
    assert [Path(p) for p in profiler.result.discovery.roots] == [big]
    assert len(profiler.result.ranks) == 4
    assert not stale, "\n".join(stale)
    assert delivered, "no load ever completed"

    # no leaked work, threads or timers
    assert window.runner.running_jobs() == 0 and not window.is_busy()
    assert QThreadPool.globalInstance().waitForDone(10000)
    assert QThreadPool.globalInstance().activeThreadCount() == 0
    gc.collect()
    assert len(real_threads()) <= threads_before, f"Python threads were left running: {real_threads()}"
    # Qt pool threads that ran Python show up as "dummy" threads; the pool reuses them (bounded).
    dummies = [t for t in threading.enumerate()
               if isinstance(t, threading._DummyThread) and id(t) not in dummies_before]
    pool.setExpiryTimeout(expiry)
    assert len(dummies) <= pool.maxThreadCount(), f"{len(dummies)} new pool threads ran Python"
    assert len(window.findChildren(QTimer)) == timers_before, "timers were left behind"

    # memory returns near its start (the last result for `big` is held on purpose)
    rss_after = rss_mb()
    from tests.hardening.conftest import REPORT

    REPORT["concurrency"] = (f"50 load/cancel/switch/drop cycles, {len(delivered)} results shown, 0 stale, "
                             f"threads {threads_before}→{len(real_threads())}, timers {timers_before}→"
                             f"{len(window.findChildren(QTimer))}, RSS {rss_before or 0:.0f}→{rss_after or 0:.0f} MB")
    if rss_before is not None and rss_after is not None:
        assert rss_after - rss_before < 250, f"RSS grew by {rss_after - rss_before:.0f} MB over 50 cycles"
