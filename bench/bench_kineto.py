"""Benchmark: PyTorch profiler (Kineto) traces of 0.3 and 2 GB — MB/s, against json.load and the decode floor.

Usage::

    python bench/bench_kineto.py [--gb 0.3 2] [--baseline /path/to/other/checkout] [--keep DIR]

Writes synthetic traces with :func:`mfu_desktop.demo.write_kineto_trace` (transformer layers:
GEMMs, causal SDPA, correlation-only mm, vector adds, NCCL all-reduce, and ``python_function``
events as in a ``with_stack`` capture) sized to each ``--gb``, then times, each in its own process:

(a) ``mfu analyze --json --no-cache`` of the trace (decode, kernel frame, FLOPs, MFU, steps) — and
    the same with ``--baseline``'s code (another checkout: the before of a change, in the same run);
(b) the reader alone (:func:`read_trace` + :func:`kernel_frame`);
(c) ``json.load`` of the same file (the whole JSON as Python objects, nothing analysed) — above
    ``--json-load-max-gb`` it would take about 5× the file in memory on a shared machine, so its
    time is extrapolated from the smallest trace's rate, and says so;
(d) the typed-decode floor: msgspec decoding the events in 4 MiB slices into typed structs of
    ``ph, cat, name, pid, tid, ts, dur`` with ``args`` kept raw — decoding and nothing else;
(e) ``mfu analyze`` of two such traces at once (ranks 0 and 1: the second decodes in a worker
    process), against twice (a) — up to ``--pair-max-gb``.

Prints wall time, MB/s and peak RSS of each (the largest process's: a worker's memory is not added
to its parent's), and the ratios the targets are stated in: (a) ≥ 100 MB/s, (a) ≤ 0.30 × (c),
peak RSS of (a) ≤ 1.0 × the file.
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
ROOT = Path(__file__).resolve().parents[1]


def measured(cmd: list[str], checkout: Path = ROOT) -> tuple[float, float]:
    """Wall seconds and the child's peak RSS (MB); ``checkout``'s code runs (``-m`` imports from the cwd first)."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=checkout)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed: {err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_maxrss / 1024.0


def generate(path: Path, gigabytes: float) -> None:
    """A trace of about ``gigabytes`` (4 profiler steps), and a copy of it as rank 1 beside it."""
    from mfu_desktop.demo import write_kineto_trace

    layers = max(1, int(gigabytes * 1e9 / BYTES_PER_LAYER / 4))
    started = time.perf_counter()
    write_kineto_trace(path, steps=4, layers=layers, filler_events=6, rank=0)
    print(f"generated {path.name}: {path.stat().st_size / 1e6:,.0f} MB, {layers:,} layers × 4 steps "
          f"in {time.perf_counter() - started:.1f} s")
    second = path.parent / "pair" / "rank1.pt.trace.json"
    second.parent.mkdir(exist_ok=True)
    with path.open("rb") as src, second.open("wb") as dst:
        head = src.read(1 << 12)
        dst.write(head.replace(b'"rank": 0,', b'"rank": 1,', 1))
        shutil.copyfileobj(src, dst, 1 << 24)
    os.link(path, second.parent / "rank0.pt.trace.json")


READER = ("import sys; from pathlib import Path; "
          "from mfu_desktop.core.readers.kineto.read import read_trace; "
          "from mfu_desktop.core.readers.kineto.frame import kernel_frame; "
          "ev = read_trace(Path(sys.argv[1])); print(len(kernel_frame(ev).kernels))")
JSON_LOAD = "import json, sys; data = json.load(open(sys.argv[1], encoding='utf-8')); print(len(data['traceEvents']))"
FLOOR = """
import math, re, sys
import msgspec

class Event(msgspec.Struct, gc=False):
    ph: str = ""
    cat: str = ""
    name: str = ""
    pid: int | str = 0
    tid: int | str = 0
    ts: float = math.nan
    dur: float = math.nan
    args: msgspec.Raw = msgspec.Raw(b"null")

decode = msgspec.json.Decoder(list[Event]).decode
cut = re.compile(rb"\\}[ \\t\\n\\r]*(,)[ \\t\\n\\r]*\\{")
events = 0
with open(sys.argv[1], "rb") as fh:
    buf = fh.read(1 << 22)
    start = buf.index(b"[", buf.index(b'"traceEvents"')) + 1
    while True:
        more = fh.read(1 << 22)
        if not more:  # the rest, up to the array's ']'
            events += len(decode(b"[" + buf[start:buf.rindex(b"]")] + b"]"))
            break
        buf = buf[start:] + more
        last = None
        for last in cut.finditer(buf, max(0, len(buf) - (1 << 16))):
            pass
        events += len(decode(b"[" + buf[:last.start(1)] + b"]"))
        start = last.start(1) + 1
print(events)
"""


def rows_for(path: Path, baseline: Path | None, json_load: bool, pair: bool) -> dict[str, tuple[list[str], Path]]:
    """The commands to time for one trace (label → command, the checkout whose code it runs)."""
    analyze = [sys.executable, "-m", "mfu_desktop", "analyze", "--json", "--no-cache"]
    rows: dict[str, tuple[list[str], Path]] = {"(a) mfu analyze --json": ([*analyze, str(path)], ROOT)}
    if baseline is not None:
        rows["(a) … with --baseline's code"] = ([*analyze, str(path)], baseline)
    rows["(b) reader (read_trace + kernel_frame)"] = ([sys.executable, "-c", READER, str(path)], ROOT)
    if json_load:
        rows["(c) json.load"] = ([sys.executable, "-c", JSON_LOAD, str(path)], ROOT)
    rows["(d) typed-decode floor (msgspec)"] = ([sys.executable, "-c", FLOOR, str(path)], ROOT)
    if not pair:
        return rows
    rows["(e) mfu analyze, 2 such traces"] = ([*analyze, str(path.parent / "pair")], ROOT)
    if baseline is not None:
        rows["(e) … with --baseline's code"] = ([*analyze, str(path.parent / "pair")], baseline)
    return rows


def bench_one(path: Path, baseline: Path | None, limits: argparse.Namespace, json_rate: list[float]) -> None:
    """Time every row for one trace and print the ratios."""
    size_mb = path.stat().st_size / 1e6
    json_load = size_mb / 1e3 <= limits.json_load_max_gb
    pair = size_mb / 1e3 <= limits.pair_max_gb
    print(f"\ntrace: {path} ({size_mb:,.0f} MB)")
    results = {}
    for label, (cmd, checkout) in rows_for(path, baseline, json_load, pair).items():
        wall, rss = measured(cmd, checkout)
        results[label] = (wall, rss)
        print(f"{label:<42} {wall:8.1f} s  {size_mb / wall:7.1f} MB/s   peak RSS {rss:8,.0f} MB "
              f"({rss / size_mb:.2f} × file)")
    if json_load:
        json_rate.append(size_mb / results["(c) json.load"][0])
        json_s, note = results["(c) json.load"][0], ""
    else:
        json_s, note = size_mb / json_rate[0], f" (json.load extrapolated at {json_rate[0]:.1f} MB/s)"
    a, floor = results["(a) mfu analyze --json"], results["(d) typed-decode floor (msgspec)"][0]
    print(f"\n(a) {size_mb / a[0]:.1f} MB/s (target ≥ 100); time (a) / json.load {a[0] / json_s:.2f} (target ≤ 0.30)"
          f"{note}; (a) / typed-decode floor {a[0] / floor:.2f}; peak RSS (a) / file {a[1] / size_mb:.2f} "
          "(target ≤ 1.0)")
    print(f"(b) reader / json.load {results['(b) reader (read_trace + kernel_frame)'][0] / json_s:.2f}; "
          f"(b) / floor {results['(b) reader (read_trace + kernel_frame)'][0] / floor:.2f}")
    if baseline is not None:
        before = results["(a) … with --baseline's code"]
        print(f"before → after: (a) {before[0]:.1f} s → {a[0]:.1f} s ({before[0] / a[0]:.1f}× faster), "
              f"{size_mb / before[0]:.1f} → {size_mb / a[0]:.1f} MB/s, json.load ratio {before[0] / json_s:.2f} → "
              f"{a[0] / json_s:.2f}, peak RSS {before[1]:,.0f} → {a[1]:,.0f} MB")
    if pair:
        both = results["(e) mfu analyze, 2 such traces"][0]
        before = results.get("(e) … with --baseline's code")
        print(f"(e) 2 traces {both:.1f} s vs 2 × (a) {2 * a[0]:.1f} s"
              + (f"; with --baseline's code {before[0]:.1f} s" if before else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, nargs="+", default=[0.3, 2.0], help="trace sizes to generate (GB)")
    parser.add_argument("--baseline", type=Path, help="another checkout whose `mfu analyze` is timed too (before)")
    parser.add_argument("--json-load-max-gb", type=float, default=1.0,
                        help="larger traces extrapolate json.load's time instead of running it (memory)")
    parser.add_argument("--pair-max-gb", type=float, default=0.5, help="larger traces skip row (e) (time)")
    parser.add_argument("--keep", type=Path, help="folder for the traces (kept; reused when present)")
    args = parser.parse_args()
    if min(args.gb) > args.json_load_max_gb:  # json.load's rate comes from the smallest trace
        parser.error(f"add a size ≤ --json-load-max-gb {args.json_load_max_gb:g} to --gb (e.g. --gb 0.3 "
                     f"{min(args.gb):g}): json.load of a larger trace is extrapolated from it, running it "
                     "needs ~5× the file in memory")
    folder = args.keep or Path(tempfile.mkdtemp(prefix="mfu-bench-kineto-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"CPUs: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f} at the start (other work on the machine "
          "slows every row alike: read the ratios)")
    json_rate: list[float] = []
    try:
        for gb in sorted(args.gb):
            path = folder / f"{gb:g}gb" / "rank0.pt.trace.json"
            path.parent.mkdir(exist_ok=True)
            if not path.exists():
                generate(path, gb)
            bench_one(path, args.baseline, args, json_rate)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
