"""Benchmark: this checkout against an earlier revision, on the same profile, runs interleaved.

Usage::

    python bench/bench_versus.py --base REV [--rows 1000000] [--distinct-shapes 5000] [--runs 10] [--keep DIR]

Checks the revision out into a temporary git worktree, generates a PipeUtilization profile
(``python -m mfu_desktop.demo``; ``--distinct-shapes`` adds a second profile whose matmuls have
that many shapes) and times ``mfu analyze --json --no-cache`` of each, alternating base and
this checkout ``--runs`` times (a loaded machine drifts: interleaving puts the drift on both).
Prints the min and median wall time and the peak RSS of each and their ratios — how much a
change costs (issue 14: the roofline columns may cost ≤ 15 % on the million-row profile).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(pythonpath: str, profile: Path, cache: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one ``mfu analyze --json --no-cache`` child."""
    env = dict(os.environ, PYTHONPATH=pythonpath, MFU_DESKTOP_CACHE_DIR=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mfu_desktop", "analyze", str(profile), "--json", "--no-cache"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        raise SystemExit(f"mfu analyze failed ({pythonpath}): {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024.0


def compare(profile: Path, base: Path, runs: int, cache: Path) -> None:
    """Interleave base and this checkout on one profile and print the ratios."""
    results: dict[str, list[tuple[float, float]]] = {"base": [], "this": []}
    for _ in range(runs):
        results["base"].append(timed(str(base), profile, cache))
        results["this"].append(timed(str(ROOT), profile, cache))
    figures = {}
    for name, rows in results.items():
        walls = [w for w, _ in rows]
        figures[name] = (min(walls), statistics.median(walls), max(r for _, r in rows))
    (bmin, bmed, brss), (tmin, tmed, trss) = figures["base"], figures["this"]
    print(f"{profile.name}: {runs} runs each, interleaved")
    print(f"  {'':6} {'min s':>7} {'median s':>9} {'peak RSS MB':>12}")
    print(f"  {'base':6} {bmin:7.2f} {bmed:9.2f} {brss:12.0f}")
    print(f"  {'this':6} {tmin:7.2f} {tmed:9.2f} {trss:12.0f}")
    print(f"  ratio  {tmin / bmin:7.3f} {tmed / bmed:9.3f} {trss / brss:12.3f}")


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="git revision to compare with")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--distinct-shapes", type=int, default=0, help="also time a profile with this many shapes")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="folder for the generated profiles (reused when present)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mfu-versus-"))
    worktree = work / "base"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(worktree), args.base],
                   check=True, capture_output=True)
    try:
        data = args.keep or work
        profiles = [(data / "profile", [])]
        if args.distinct_shapes:
            profiles.append((data / "varied", ["--distinct-shapes", str(args.distinct_shapes)]))
        for path, extra in profiles:
            if not path.exists():
                subprocess.run([sys.executable, "-m", "mfu_desktop.demo", str(path), "--ranks", "1", "--kernels",
                                str(args.rows), *extra], check=True, cwd=ROOT)
            compare(path, worktree, args.runs, work / "cache")
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
