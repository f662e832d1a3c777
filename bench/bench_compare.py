"""Benchmark: comparing two 1,000,000-kernel ranks against analysing them.

Usage::

    python bench/bench_compare.py [--rows 1000000] [--keep DIR]

Generates two ranks with the demo generator (seeds 7 and 8: the same operators, other
durations), then, each as its own process (no cache, fastest of ``--repeat`` runs):
(a) ``mfu analyze --json`` of both ranks, (b) ``mfu compare --json`` of the pair (which analyses
both and then compares). Prints both and the target: (b) ≤ 2 × (a).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="folder for the two ranks (kept; reused when present)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="mfu-bench-compare-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), MFU_DESKTOP_CACHE_DIR=str(work / "cache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    py = sys.executable
    try:
        sides = []
        for seed in (7, 8):
            folder = work / f"seed{seed}"
            if not any(folder.glob("*_ascend_pt")):
                subprocess.run([py, "-m", "mfu_desktop.demo", str(folder), "--ranks", "1", "--kernels",
                                str(args.rows), "--seed", str(seed)], check=True, env=env, stdout=subprocess.DEVNULL)
            sides.append(folder)
        analyse = min(timed([py, "-m", "mfu_desktop", "analyze", str(sides[0]), str(sides[1]), "--json",
                             "--no-cache"], env) for _ in range(args.repeat))
        both = min(timed([py, "-m", "mfu_desktop", "compare", str(sides[0]), str(sides[1]), "--json",
                          "--no-cache"], env) for _ in range(args.repeat))
        print(f"two ranks of {args.rows:,} kernels")
        print(f"(a) mfu analyze of both        {analyse:6.2f} s")
        print(f"(b) mfu compare of the pair    {both:6.2f} s")
        print(f"(b)/(a) = {both / analyse:.2f}  [≤ 2]")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
