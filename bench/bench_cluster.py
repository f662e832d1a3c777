"""Benchmark: a whole cluster through ``mfu summarize`` on a local Dask cluster, then opened in the window.

Usage::

    QT_QPA_PLATFORM=offscreen python bench/bench_cluster.py [--ranks 512] [--small 128] [--kernels 10000]
                                                            [--workers 2] [--keep DIR] [--heat-map FILE.png]

Generates ``--ranks`` ranks of ``--kernels`` kernels (the demo generator) and, each in its own
process: summarises the first ``--small`` ranks and then all of them with ``--workers`` Dask
worker processes (the client's own peak RSS is measured inside it, the workers' apart), then
opens the large summary in the window: time to the first paint of the tree and cards, the
longest GUI-thread stall (5 ms heartbeat) and the window's peak RSS; the heat map is rendered
to ``--heat-map``.

Targets: summary ≤ 200 KB per rank; client peak RSS ≤ 300 MB and independent of the rank count
(small vs large); window: first paint ≤ 2 s, stall < 100 ms, RSS ≤ 500 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SUMMARIZE = """
import json, resource, sys, time
from pathlib import Path
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.pipeline.runners import DaskRunner
from mfu_desktop.core.pipeline.summarize import summarize
paths, out, workers = [Path(p) for p in sys.argv[1].split(",")], Path(sys.argv[2]), int(sys.argv[3])
runner = DaskRunner(workers=workers)
t = time.perf_counter()
result = summarize(paths, out, AnalysisOptions(), default_catalog(), runner)
wall = time.perf_counter() - t
runner.close()
print(json.dumps({"wall": wall, "ranks": result.ranks, "summarised": result.summarised,
                  "failed": len(result.failed),
                  "client_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

WINDOW = """
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[2]); sys.path.insert(0, sys.argv[2] + "/bench")
from PySide6.QtWidgets import QApplication
from bench_gui_stall import Heartbeat, spin
from mfu_desktop.gui.app import create, parse_args
app = QApplication([])
_, window = create(parse_args(["--lang", "en", "--size", "1440x900"]), app)
window.show()
spin(app, 1.0)
window.tabs.setCurrentWidget(window.profiler); spin(app, 1.0)  # first display of the tab: a one-off cost
beat = Heartbeat()
beat.start()
beat.reset("open")
t = time.perf_counter()
window.open_paths([__import__("pathlib").Path(sys.argv[1])])
profiler = window.profiler
spin(app, until=lambda: profiler.result is not None and profiler.tree_model.rowCount() > 0)
spin(app, until=lambda: not profiler.settling(), timeout=120)
first_paint = time.perf_counter() - t
profiler.tabs.setCurrentWidget(profiler.heat_map)
spin(app, 1.0)
stall = beat.worst
if len(sys.argv) > 3 and sys.argv[3]:
    profiler.grab().save(sys.argv[3])
print(json.dumps({"first_paint_s": first_paint, "stall_ms": stall, "ranks": len(profiler.result.ranks),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_json(cmd: list[str], env: dict[str, str]) -> dict:
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=512)
    parser.add_argument("--small", type=int, default=128)
    parser.add_argument("--kernels", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="folder for the generated ranks (kept; reused when present)")
    parser.add_argument("--heat-map", type=Path, help="PNG of the Profiler tab showing the heat map")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="mfu-bench-cluster-"))
    profile = work / "job"
    env = dict(os.environ, PYTHONPATH=str(ROOT), MFU_DESKTOP_CACHE_DIR=str(work / "cache"),
               MFU_DESKTOP_CONFIG_DIR=str(work / "config"), MFU_DESKTOP_DATA_DIR=str(work / "data"),
               QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        ranks = sorted(profile.glob("*_ascend_pt")) if profile.exists() else []
        if len(ranks) < args.ranks:
            from mfu_desktop.demo import generate

            shutil.rmtree(profile, ignore_errors=True)
            t = time.perf_counter()
            generate(profile, ranks=args.ranks, steps=2, kernels=args.kernels)
            print(f"generated {args.ranks} ranks × {args.kernels:,} kernels in {time.perf_counter() - t:.0f} s")
            ranks = sorted(profile.glob("*_ascend_pt"))
        csv_mb = sum(p.stat().st_size for p in profile.rglob("kernel_details.csv")) / 2**20
        print(f"profile: {len(ranks)} ranks, {csv_mb:,.0f} MB of kernel_details.csv")
        rows = {}
        for n in (args.small, args.ranks):
            out = work / f"summary-{n}"
            shutil.rmtree(out, ignore_errors=True)
            chosen = ",".join(str(p) for p in ranks[:n])
            r = run_json([sys.executable, "-c", SUMMARIZE, chosen, str(out), str(args.workers)], env)
            size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
            docs = list((out / "ranks").glob("*.json"))
            r["per_rank_s"] = r["wall"] / max(r["ranks"], 1)
            r["summary_kb_per_rank"] = size / 1024 / max(r["ranks"], 1)
            r["largest_document_kb"] = max(p.stat().st_size for p in docs) / 1024 if docs else 0
            rows[n] = r
            print(f"summarize {n:>4} ranks: {r['wall']:7.1f} s ({r['per_rank_s']:.3f} s/rank), "
                  f"{r['summarised']} summarised, {r['failed']} failed; summary {size / 2**20:.1f} MB = "
                  f"{r['summary_kb_per_rank']:.0f} KB/rank (largest document {r['largest_document_kb']:.0f} KB); "
                  f"client peak RSS {r['client_rss_mb']:.0f} MB")
        w = run_json([sys.executable, "-c", WINDOW, str(work / f"summary-{args.ranks}"), str(ROOT),
                      str(args.heat_map or "")], env)
        print(f"window on {w['ranks']} ranks: first paint {w['first_paint_s']:.2f} s, longest stall "
              f"{w['stall_ms']:.0f} ms, peak RSS {w['rss_mb']:.0f} MB")
        small, large = rows[args.small], rows[args.ranks]
        print("\ntargets")
        print(f"  summary per rank          : {large['summary_kb_per_rank']:.0f} KB  [≤ 200 KB]")
        print(f"  client peak RSS           : {small['client_rss_mb']:.0f} MB ({args.small} ranks) vs "
              f"{large['client_rss_mb']:.0f} MB ({args.ranks} ranks)  [≤ 300 MB, flat]")
        print(f"  window first paint        : {w['first_paint_s']:.2f} s  [≤ 2 s]")
        print(f"  window longest stall      : {w['stall_ms']:.0f} ms  [< 100 ms]")
        print(f"  window peak RSS           : {w['rss_mb']:.0f} MB  [≤ 500 MB]")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
