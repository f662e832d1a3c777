"""Load benchmark: 64 ranks × 100,000 kernels (and one corrupt rank), headless and in the window.

Usage::

    QT_QPA_PLATFORM=offscreen python bench/bench_load.py [--ranks 64] [--kernels 100000] [--keep DIR]

One rank is generated with ``mfu_desktop.demo`` and its files are hard-linked into the other
rank folders (each with its own ``profiler_info_N.json``), so the cluster costs the disk of
one rank while every rank is parsed on its own (the cache is off or keyed per path). One more
rank gets a corrupt ``kernel_details.csv``: it must fail alone, with a reason.

Measured in one run, each in its own process so peak RSS is that process's:
(a) ``mfu analyze ROOT --json --no-cache``: wall time, peak RSS, ranks loaded / failed;
(b) the window loading ROOT (no cache): wall time, peak RSS, longest GUI-thread stall
    (5 ms heartbeat), ranks shown.
Ratios printed: peak RSS / total CSV size, window / headless wall time; target stall < 100 ms.
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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

WINDOW_SCRIPT = r"""
import json, os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, sys.argv[2]); sys.path.insert(0, sys.argv[2] + "/bench")
from pathlib import Path
from PySide6.QtWidgets import QApplication
from mfu_desktop.core import loader, profile_analysis
loader.cache_read = lambda key: None
profile_analysis.read_analysis = lambda key: None
from bench_gui_stall import Heartbeat, spin
from mfu_desktop.gui.app import create, parse_args
app = QApplication([])
_, window = create(parse_args(["--lang", "en"]), app)
window.show()
beat = Heartbeat(lambda: ",".join(sorted(window.runner._active))); beat.start(); spin(app, 1.0)
window.tabs.setCurrentWidget(window.profiler); spin(app, 1.0)  # first display of the tab: a one-off cost
beat.reset("load")
start = time.perf_counter()
start_t0 = start - beat.t0
window.open_paths([Path(sys.argv[1])], remember=False)
spin(app, until=lambda: window.profiler.result is not None and not window.is_busy()
     and window.prediction.prediction is not None, timeout=1800)
wall = time.perf_counter() - start
result = window.profiler.result
print(json.dumps({"wall": wall, "stall_ms": beat.worst, "ranks": len(result.ranks) if result else 0,
                  "failed": len(result.failures) if result else 0,
                  "gaps": [[round(t - start_t0, 2), round(g), c] for t, g, c in beat.gaps]}))
window.shutdown()
"""


def run_measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stdout of a child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        raise SystemExit(f"{' '.join(cmd[:4])} failed:\n{err[-3000:]}")
    return wall, usage.ru_maxrss / 1024.0, out.decode(errors="replace")


def build_cluster(root: Path, ranks: int, kernels: int) -> int:
    """``ranks`` rank folders sharing one generated rank's files, plus one corrupt rank; returns CSV bytes."""
    from mfu_desktop.demo import generate

    seed_root = root / "_seed"
    generate(seed_root, ranks=1, steps=2, kernels=kernels)
    seed = next(p for p in seed_root.iterdir() if p.name.endswith("_ascend_pt"))
    total = 0
    cluster = root / "cluster"
    for r in range(ranks + 1):
        target = cluster / f"node{r // 8}_{40000 + r}_20260101000000000_ascend_pt"
        for src in seed.rglob("*"):
            rel = src.relative_to(seed)
            dst = target / rel
            if src.is_dir():
                dst.mkdir(parents=True, exist_ok=True)
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.name.startswith("profiler_info"):
                info = json.loads(src.read_text(encoding="utf-8"))
                info["rank_id"] = r
                (target / f"profiler_info_{r}.json").write_text(json.dumps(info), encoding="utf-8")
            elif src.name == "kernel_details.csv" and r == ranks:
                dst.write_bytes(b"\x00\xff garbage, not a profiler file\n" * 100)  # the corrupt rank
            else:
                os.link(src, dst)
                if src.name == "kernel_details.csv":
                    total += src.stat().st_size
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--kernels", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="work folder to reuse")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="mfu-bench-load-"))
    try:
        cluster = work / "cluster"
        if not cluster.exists():
            t0 = time.perf_counter()
            csv_bytes = build_cluster(work, args.ranks, args.kernels)
            seconds = time.perf_counter() - t0
            print(f"built {args.ranks} ranks × {args.kernels:,} kernels (+1 corrupt) in {seconds:.0f} s")
        else:
            csv_bytes = sum(p.stat().st_size for p in cluster.rglob("kernel_details.csv")) - 3200
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"), PYTHONPATH=str(ROOT))
        for name in ("DATA", "CACHE", "CONFIG"):
            env[f"MFU_DESKTOP_{name}_DIR"] = str(work / "user" / name.lower())

        wall_a, rss_a, out_a = run_measured([sys.executable, "-m", "mfu_desktop", "analyze", str(cluster), "--json",
                                             "--no-cache"], env)
        data = json.loads(out_a)
        script = work / "window_load.py"
        script.write_text(WINDOW_SCRIPT, encoding="utf-8")
        _, rss_b, out_b = run_measured([sys.executable, str(script), str(cluster), str(ROOT)], env)
        gui = json.loads(out_b.strip().splitlines()[-1])

        mb = csv_bytes / 1e6
        print(f"\ncluster: {args.ranks} ranks × {args.kernels:,} kernels = {args.ranks * args.kernels:,} kernels, "
              f"{mb:.0f} MB of kernel_details.csv, + 1 corrupt rank")
        print(f"(a) mfu analyze --no-cache : {wall_a:6.1f} s  peak RSS {rss_a:7.0f} MB  "
              f"ranks {len(data['ranks'])} loaded, {len(data['failed'])} failed")
        print(f"(b) window, load+show+predict: {gui['wall']:6.1f} s  peak RSS {rss_b:7.0f} MB  "
              f"ranks {gui['ranks']} shown, {gui['failed']} failed; longest GUI stall {gui['stall_ms']:.0f} ms")
        if gui.get("gaps"):
            print("    GUI gaps > 50 ms (s after the drop, ms, running jobs): " + "; ".join(
                f"{t:.2f} s {g} ms [{c.replace('load', '').strip()}]" for t, g, c in gui["gaps"]))
        print(f"ratios: RSS(a)/CSV = {rss_a / mb:.2f}, RSS(b)/CSV = {rss_b / mb:.2f}, window/headless time = "
              f"{gui['wall'] / wall_a:.2f}")
        ok = gui["stall_ms"] < 100 and len(data["failed"]) == 1 and len(data["ranks"]) == args.ranks
        print(f"target: stall < 100 ms, the corrupt rank fails alone: {'OK' if ok else 'MISSED'}")
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
