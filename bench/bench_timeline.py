"""Benchmark: the timeline of a million-kernel rank — frame time while zooming and panning, GUI stalls opening it.

Usage::

    QT_QPA_PLATFORM=offscreen python bench/bench_timeline.py [--rows 1000000] [--keep DIR] [--width 1280]

Measured in one run, on one generated rank (the demo template repeated to ``--rows`` kernels):

(a) preparation on the worker pool: lanes (one sort), colours, prefix sums — its wall time;
(b) frames: the chart fitted to the whole capture (every kernel visible), then 24 zoom-ins (W),
    12 pans (A/D) and the zoom back out, each frame computed and painted synchronously
    (``redraw_now`` + ``repaint``); the same sequence again with the level of detail forced to
    reduce every visible kernel one by one (no prefix sums), the "before" of the ratio;
(c) the window: a 5 ms heartbeat on the GUI thread, idle for 2 s (the baseline), then while the
    Timeline view is opened on the loaded rank (preparation on the pool, first frame), while the
    colouring changes, and while it zooms to a step — the longest gap of each.

Targets (issue 26): a frame ≤ 50 ms while panning/zooming; the longest stall opening the view < 100 ms.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FRAME_TARGET_MS = 50.0
STALL_TARGET_MS = 100.0


def frames(app, chart, label: str) -> list[tuple[float, float]]:
    """Fit, zoom in 24 times, pan 12 times, zoom out: each frame computed and painted now (wall ms, CPU ms)."""
    from mfu_desktop.gui.charts.timeline_nav import KEY_PAN, KEY_ZOOM

    def frame(move) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        move()
        chart.redraw_now()
        chart.plot.viewport().repaint()
        return (time.perf_counter() - wall) * 1000.0, (time.process_time() - cpu) * 1000.0

    times = [frame(chart.fit)]
    times += [frame(lambda: chart.vb.zoom_time(KEY_ZOOM)) for _ in range(24)]
    times += [frame(lambda s=s: chart.vb.pan_time(KEY_PAN * s)) for s in (1, 1, 1, -1, -1, -1) * 2]
    times += [frame(lambda: chart.vb.zoom_time(1 / KEY_ZOOM)) for _ in range(24)]
    app.processEvents()
    wall = [w for w, _ in times]
    cpu = [c for _, c in times]
    print(f"{label:<46} wall median {statistics.median(wall):6.1f} worst {max(wall):6.1f} ms; "
          f"CPU median {statistics.median(cpu):5.1f} worst {max(cpu):6.1f} ms; zoomed out (fit + 4 zooms) "
          f"wall {statistics.mean(wall[:5]):6.1f} ms ({len(times)} frames)")
    return times


def bench_frames(app, rank, width: int) -> tuple[list[float], list[float]]:
    """(a) and (b): prepare the scene, draw the sequence with prefix sums, then without."""
    from mfu_desktop.core.analysis import timeline_lod
    from mfu_desktop.core.analysis.memory import memory_of
    from mfu_desktop.core.analysis.timeline import build_timeline
    from mfu_desktop.core.analysis.timeline_colors import kernel_colors
    from mfu_desktop.gui.charts.timeline_chart import TimelineChart
    from mfu_desktop.gui.charts.timeline_scene import rank_scene

    t0 = time.perf_counter()
    tl = build_timeline(rank.kernels, rank.rank)
    t1 = time.perf_counter()
    scene = rank_scene(tl, kernel_colors(rank.kernels, "lost"), rank.kernels, memory_of(rank))
    t2 = time.perf_counter()
    print(f"(a) lanes for {len(rank.kernels):,} kernels: {t1 - t0:.2f} s; colours + prefix sums: {t2 - t1:.2f} s "
          f"(worker pool); {len(tl.lanes)} lanes")
    chart = TimelineChart()
    chart.resize(width, 700)
    chart.show()
    chart.set_scene(scene)
    app.processEvents()
    after = frames(app, chart, "(b) frames, prefix sums (this branch)")
    limit = timeline_lod.LOCAL_LIMIT
    timeline_lod.LOCAL_LIMIT = 10**12  # every visible kernel reduced one by one: the naive way
    try:
        before = frames(app, chart, "(b) frames, every visible kernel one by one")
    finally:
        timeline_lod.LOCAL_LIMIT = limit
    chart.close()
    return before, after


def bench_window(app, profile: Path) -> list[tuple[str, float]]:
    """(c): the longest GUI-thread gap while the view opens, recolours and aligns the cluster."""
    from bench_gui_stall import Heartbeat, spin

    from mfu_desktop.gui.app import create, parse_args

    _, window = create(parse_args(["--lang", "en", "--size", "1440x900"]), app)
    window.show()
    beat = Heartbeat(lambda: ",".join(sorted(window.runner._active)))
    beat.start()
    beat.reset("idle")
    spin(app, 2.0)
    idle = beat.worst  # what the event loop stalls on its own (a loaded machine's scheduler)
    window.tabs.setCurrentWidget(window.profiler)
    window.open_paths([profile], remember=False)
    spin(app, until=lambda: window.profiler.result is not None and not window.is_busy())
    profiler = window.profiler
    profiler.select_rank(0)
    spin(app, until=lambda: not window.is_busy())
    view = profiler.view_pages["timeline"]
    results = [("idle window, 2 s (the baseline)", idle, 2.0)]

    def measure(name: str, action, done) -> None:
        spin(app, 0.3)
        beat.reset(name)
        start = time.perf_counter()
        action()
        spin(app, until=done, timeout=300)
        spin(app, 0.3)
        results.append((name, beat.worst, time.perf_counter() - start))

    measure("open the Timeline view (rank 0)", lambda: profiler.show_view("timeline"),
            lambda: view.scene is not None and not window.is_busy())
    measure("colour by MFU / BW band", lambda: view.color_by.setCurrentIndex(1),
            lambda: view.scene is not None and view.scene.mode == "mfu" and not window.is_busy())
    measure("zoom to step 2", lambda: (view.step_choice.setCurrentIndex(2), view._zoom_to_step()),
            lambda: not window.is_busy())
    window.shutdown()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="kernels of the rank")
    parser.add_argument("--width", type=int, default=1280, help="chart width in pixels")
    parser.add_argument("--keep", type=Path, help="profile folder to reuse (generated there when missing)")
    args = parser.parse_args(argv)
    from bench_gui_stall import generated_profile, isolated_workdir

    work = isolated_workdir("mfu-bench-timeline-")
    try:
        profile = generated_profile(args.keep or work / "profile", 1, args.rows)
        from PySide6.QtWidgets import QApplication

        from mfu_desktop.core.analysis.options import AnalysisOptions
        from mfu_desktop.core.pipeline.analyze import analyze_paths

        app = QApplication.instance() or QApplication([])
        rank = analyze_paths([profile], AnalysisOptions()).ranks[0]
        before, after = bench_frames(app, rank, args.width)
        del rank
        stalls = bench_window(app, profile)
        print()
        for name, worst, wall in stalls:
            print(f"(c) {name:<42} longest stall {worst:6.1f} ms   (done in {wall:.2f} s)")
        wall = [w for w, _ in after]
        cpu = [c for _, c in after]
        zoomed_out = statistics.mean(w for w, _ in before[:5]) / statistics.mean(w for w, _ in after[:5])
        print(f"\nframe: worst {max(wall):.1f} ms wall, {max(cpu):.1f} ms CPU; median {statistics.median(wall):.1f} ms "
              f"wall (target ≤ {FRAME_TARGET_MS:.0f} ms: {'OK' if max(wall) <= FRAME_TARGET_MS else 'MISSED'} on "
              f"wall time, {'OK' if max(cpu) <= FRAME_TARGET_MS else 'MISSED'} on CPU time); zoomed out, every "
              f"kernel one by one / prefix sums = {zoomed_out:.1f}×; load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores")
        opening = stalls[1][1]
        print(f"longest stall opening the view = {opening:.1f} ms (target < {STALL_TARGET_MS:.0f} ms: "
              f"{'OK' if opening < STALL_TARGET_MS else 'MISSED'})")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
