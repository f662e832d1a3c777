"""Benchmark: a 1 GB PyTorch profiler (Kineto) trace, read by the streaming reader vs ``json.load``.

Usage::

    python bench/bench_kineto.py [--gb 1.0] [--keep DIR]

Writes a synthetic trace with :func:`mfu_desktop.demo.write_kineto_trace` (transformer layers:
GEMMs, causal SDPA, correlation-only mm, vector adds, NCCL all-reduce, and ``python_function``
events as in a ``with_stack`` capture) sized to ``--gb``, then times, each in its own process:

(a) ``mfu analyze --json --no-cache`` of the trace (streaming read, kernel frame, FLOPs, MFU, steps),
(b) the reader alone (:func:`read_trace` + :func:`kernel_frame`),
(c) ``json.load`` of the same file (the whole JSON as Python objects, nothing analysed),
(d) a bare ``import numpy, pandas`` (the interpreter's floor, subtracted nowhere, shown for reference).

Prints wall time and peak RSS of each and the ratios the targets are stated in: peak RSS of
(a) ≤ 1.5 × the file size, and the time of (b) and (a) against (c).
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

#: Bytes the generator writes per layer with the default shape and 6 filler events (measured).
BYTES_PER_LAYER = 4_710


def measured(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and the child's peak RSS (MB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed: {err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_maxrss / 1024.0


def generate(path: Path, gigabytes: float) -> None:
    """A trace of about ``gigabytes`` (4 profiler steps)."""
    from mfu_desktop.demo import write_kineto_trace

    layers = max(1, int(gigabytes * 1e9 / BYTES_PER_LAYER / 4))
    started = time.perf_counter()
    write_kineto_trace(path, steps=4, layers=layers, filler_events=6)
    print(f"generated {path.name}: {path.stat().st_size / 1e6:,.0f} MB, {layers:,} layers × 4 steps "
          f"in {time.perf_counter() - started:.1f} s")


READER = ("import sys; from pathlib import Path; "
          "from mfu_desktop.core.readers.kineto.events import read_trace; "
          "from mfu_desktop.core.readers.kineto.frame import kernel_frame; "
          "ev = read_trace(Path(sys.argv[1])); frame, trace, notes = kernel_frame(ev); "
          "print(len(frame))")
JSON_LOAD = "import json, sys; data = json.load(open(sys.argv[1], encoding='utf-8')); print(len(data['traceEvents']))"
FLOOR = "import numpy, pandas"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0, help="trace size to generate (GB)")
    parser.add_argument("--keep", type=Path, help="folder for the trace (kept; reused when present)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="mfu-bench-kineto-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "rank0.pt.trace.json"
    try:
        if not path.exists():
            generate(path, args.gb)
        size_mb = path.stat().st_size / 2**20
        print(f"trace: {path} ({size_mb:,.0f} MiB)")
        rows = {
            "(a) mfu analyze --json": [sys.executable, "-m", "mfu_desktop", "analyze", "--json", "--no-cache",
                                       str(path)],
            "(b) reader (read_trace + kernel_frame)": [sys.executable, "-c", READER, str(path)],
            "(c) json.load": [sys.executable, "-c", JSON_LOAD, str(path)],
            "(d) import numpy, pandas": [sys.executable, "-c", FLOOR],
        }
        results = {}
        for label, cmd in rows.items():
            wall, rss = measured(cmd)
            results[label] = (wall, rss)
            print(f"{label:<42} {wall:8.1f} s   peak RSS {rss:8,.0f} MiB   ({rss / size_mb:.2f} × file)")
        a, b, c = (results[k] for k in list(rows)[:3])
        print()
        print(f"peak RSS (a) / file size      {a[1] / size_mb:.2f}   (target ≤ 1.5)")
        print(f"peak RSS (b) / file size      {b[1] / size_mb:.2f}")
        print(f"peak RSS (c) / file size      {c[1] / size_mb:.2f}   (json.load, for reference)")
        print(f"time (b) / json.load          {b[0] / c[0]:.2f}")
        print(f"time (a) / json.load          {a[0] / c[0]:.2f}")
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
