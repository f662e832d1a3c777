"""Benchmark: how long the GUI thread stalls while the window loads a million-row profile.

Usage::

    QT_QPA_PLATFORM=offscreen python bench/bench_gui_stall.py [--rows 1000000] [--ranks 1] [--keep DIR]

A 5 ms QTimer heartbeat runs on the GUI thread; every gap between beats beyond the interval
is a stall the user would feel as a frozen window. Measured in one run:

(a) idle window, 2 s (the baseline: what the event loop does on its own), then the first
    display of the Profiler tab (a one-off layout and paint cost, reported apart),
(b) loading the profile (no cache): discovery, parsing and analysis on the worker pool, then
    the tree, tables (1,000,000-row model), charts and the automatic prediction on screen,
(c) user actions on the loaded profile: sorting the kernel table by duration and by MFU,
    filtering it by type, switching ranks, and the cluster view; opening the Advisor view (its
    advice computed on the worker pool), selecting a finding (its kernels highlighted in the
    Kernels table and the charts) and showing all kernels again.

Prints the longest stall of each, the load's wall time against a headless
``analyze_paths`` of the same folder in this process (the GUI's overhead ratio), and the
target: longest stall during (b) < 100 ms.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TARGET_MS = 100.0
BEAT_MS = 5


class Heartbeat:
    """Records the gaps between timer beats on the GUI thread."""

    def __init__(self, context=None) -> None:
        from PySide6.QtCore import QTimer

        self.context = context or (lambda: "")
        self.gaps: list[tuple[float, float, str]] = []  # (start s, gap ms, context) of gaps > 50 ms
        self.t0 = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(BEAT_MS)
        self.timer.timeout.connect(self._beat)
        self.last = time.perf_counter()
        self.worst = 0.0
        self.where = ""
        self.phase = ""

    def _beat(self) -> None:
        now = time.perf_counter()
        gap = (now - self.last) * 1000.0 - BEAT_MS
        if gap > 50:
            self.gaps.append((self.last - self.t0, gap, f"{self.phase} {self.context()}"))
        if gap > self.worst:
            self.worst, self.where = gap, self.phase
        self.last = now

    def reset(self, phase: str) -> None:
        self.last = time.perf_counter()
        self.worst = 0.0
        self.phase = phase

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()


def spin(app, seconds: float = 0.0, until=None, timeout: float = 600.0) -> float:
    """Run the event loop for ``seconds`` or until ``until()`` is true; returns the elapsed seconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    start = time.perf_counter()
    check = QTimer()
    check.setInterval(20)

    def poll() -> None:
        elapsed = time.perf_counter() - start
        if (until is None and elapsed >= seconds) or (until is not None and until()) or elapsed > timeout:
            loop.quit()

    check.timeout.connect(poll)
    check.start()
    loop.exec()
    check.stop()
    return time.perf_counter() - start


def action(app, beat: Heartbeat, name: str, fn) -> tuple[str, float, float]:
    """Run one GUI-thread action between beats; returns (name, wall ms, worst stall ms)."""
    spin(app, 0.2)
    beat.reset(name)
    start = time.perf_counter()
    fn()
    wall = (time.perf_counter() - start) * 1000.0
    spin(app, 0.3)
    return name, wall, max(beat.worst, wall - BEAT_MS)


def action_until(app, beat: Heartbeat, name: str, fn, until) -> tuple[str, float, float]:
    """Start an action whose work continues on the worker pool; the stall is the longest gap until ``until()``."""
    spin(app, 0.2)
    beat.reset(name)
    start = time.perf_counter()
    fn()
    spin(app, until=until)
    wall = (time.perf_counter() - start) * 1000.0
    spin(app, 0.3)
    return name, wall, beat.worst


def isolated_workdir(prefix: str) -> Path:
    """A temporary folder holding this run's MFU Desktop data, cache and settings (the user's stay untouched)."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    for name in ("DATA", "CACHE", "CONFIG"):
        os.environ[f"MFU_DESKTOP_{name}_DIR"] = str(work / name.lower())
    return work


def generated_profile(profile: Path, ranks: int, rows: int) -> Path:
    """``profile``, generated there (``ranks`` × ``rows`` kernels, 2 steps) unless it already holds one."""
    if not (profile.exists() and any(profile.iterdir())):
        from mfu_desktop.demo import generate

        t0 = time.perf_counter()
        generate(profile, ranks=ranks, steps=2, kernels=rows)
        print(f"generated {ranks} rank(s) × {rows:,} kernels in {time.perf_counter() - t0:.1f} s")
    return profile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="kernels per rank")
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="profile folder to reuse (generated there when missing)")
    args = parser.parse_args(argv)

    work = isolated_workdir("mfu-bench-gui-")
    try:
        profile = generated_profile(args.keep or work / "profile", args.ranks, args.rows)

        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QApplication

        from mfu_desktop.core.analysis.options import AnalysisOptions
        from mfu_desktop.core.pipeline.analyze import analyze_paths
        from mfu_desktop.gui.app import create, parse_args

        t0 = time.perf_counter()
        headless = analyze_paths([profile], AnalysisOptions(), use_cache=False)
        headless_s = time.perf_counter() - t0
        kernels = sum(len(r.kernels) for r in headless.ranks)
        del headless

        app = QApplication.instance() or QApplication([])
        _, window = create(parse_args(["--lang", "en", "--size", "1440x900"]), app)
        window.show()
        beat = Heartbeat(lambda: ",".join(sorted(window.runner._active)))
        beat.start()

        beat.reset("idle")
        spin(app, 2.0)
        idle = beat.worst

        # The Profiler tab's first display (layout, first paint of three charts) is a one-off
        # cost of showing the tab, not of loading: measured on its own.
        beat.reset("first show")
        start = time.perf_counter()
        window.tabs.setCurrentWidget(window.profiler)
        spin(app, 1.0)
        first_show = beat.worst

        beat.reset("load")
        start = time.perf_counter()
        window.open_paths([profile], remember=False)
        spin(app, until=lambda: window.profiler.result is not None and not window.is_busy()
             and window.prediction.prediction is not None)
        load_s = time.perf_counter() - start
        load = beat.worst
        if window.profiler.result is None or not window.profiler.result.ranks:
            print("the profile did not load:", window.info.label.text(), window.profiler.info.label.text())
            return 2

        profiler = window.profiler
        view, model = profiler.kernel_view, profiler.kernel_model
        keys = model.column_keys()
        results = [
            action(app, beat, "select rank 0", lambda: profiler.select_rank(0)),
            action(app, beat, "sort kernels by duration",
                   lambda: view.sortByColumn(keys.index("duration_us"), Qt.SortOrder.DescendingOrder)),
            action(app, beat, "sort kernels by MFU", lambda: view.sortByColumn(keys.index("mfu"),
                                                                               Qt.SortOrder.AscendingOrder)),
            action(app, beat, "filter type 'MatMul'", lambda: profiler.filter_type.setText("MatMul")),
            action(app, beat, "clear the filter", lambda: profiler.filter_type.setText("")),
            action(app, beat, "cluster view", lambda: profiler._select_first()),
            action(app, beat, "select rank 0 again", lambda: profiler.select_rank(0)),
        ]
        advisor = profiler.view_pages["advisor"]
        results += [
            action_until(app, beat, "open the Advisor view (computed)", lambda: profiler.show_view("advisor"),
                         lambda: advisor.table.rowCount() > 0 and not window.is_busy()),
            action(app, beat, "select the 2nd finding (highlight)", lambda: advisor.table.selectRow(1)),
            action(app, beat, "show all kernels", lambda: profiler.bus.highlight(None)),
        ]
        window.shutdown()

        print(f"\nprofile: {args.ranks} rank(s), {kernels:,} kernels; heartbeat every {BEAT_MS} ms")
        print(f"{'phase':<34}{'wall':>10}{'longest stall':>16}")
        print(f"{'(a) idle window, 2 s':<34}{'':>10}{idle:>13.1f} ms")
        print(f"{'(a2) first show of the Profiler tab':<34}{'':>10}{first_show:>13.1f} ms")
        print(f"{'(b) load + show + predict':<34}{load_s:>8.2f} s{load:>13.1f} ms")
        for name, wall, stall in results:
            print(f"{'(c) ' + name:<34}{wall:>7.0f} ms{stall:>13.1f} ms")
        if beat.gaps:
            print("gaps > 50 ms (t, ms, phase + running jobs): " + "; ".join(
                f"{t:.2f} s {g:.0f} ms [{c.strip()}]" for t, g, c in beat.gaps))
        print(f"\nheadless analyze_paths of the same folder: {headless_s:.2f} s")
        print(f"ratio (b) load in the window / headless analysis = {load_s / headless_s:.2f}")
        ok = load < TARGET_MS
        print(f"longest stall while loading = {load:.1f} ms (idle baseline {idle:.1f} ms), "
              f"target < {TARGET_MS:.0f} ms: {'OK' if ok else 'MISSED'}")
        worst_action = max(results, key=lambda r: r[2])
        print(f"slowest user action: {worst_action[0]} {worst_action[2]:.0f} ms")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
