"""Benchmark: cost of predicting 10 target chips on top of the profile analysis.

Usage::

    python bench/bench_predict.py [--rows 1000000] [--keep DIR]

Generates (or reuses) a single-rank PipeUtilization profile, then in one process times the
analysis (no cache) and the prediction for 10 targets with the default model and basis (the
roofline model, fitted basis), and prints the ratio. Target: the prediction adds ≤ 20 % to the
analysis time (issue 23).

Then, as whole processes: ``mfu predict --targets <6>`` with and without ``--out`` (the three
output files incl. ``kernel_prediction_detail.csv``, one row per kernel and target). Target:
``--out`` adds ≤ 50 % to ``mfu predict``. The detail file's size is printed.
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
sys.path.insert(0, str(ROOT))

TARGETS = ["Huawei Ascend 910C", "Huawei Ascend 950DT", "Huawei Ascend 950PR", "NVIDIA H200", "NVIDIA H20",
           "NVIDIA H100 SXM", "NVIDIA B200", "NVIDIA A100 SXM 80GB", "AMD MI300X", "Huawei Ascend 910B3"]


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="profile folder to reuse (generated there when missing)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mfu-bench-predict-"))
    os.environ["MFU_DESKTOP_CACHE_DIR"] = str(work / "cache")
    profile = args.keep or (work / "profile")
    if not any(profile.glob("*_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv")):
        subprocess.run([sys.executable, "-m", "mfu_desktop.demo", str(profile), "--ranks", "1", "--kernels",
                        str(args.rows)], check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    from mfu_desktop.core.chips.catalog import ChipCatalog
    from mfu_desktop.core.pipeline.analyze import analyze_paths
    from mfu_desktop.core.predict.basis import default_basis
    from mfu_desktop.core.predict.inputs import rank_inputs
    from mfu_desktop.core.predict.predictor import predict

    catalog = ChipCatalog.load(include_user=False)
    t0 = time.perf_counter()
    result = analyze_paths([profile], use_cache=False)
    analysis = time.perf_counter() - t0
    ranks = rank_inputs(result)
    targets = [catalog.find(n) for n in TARGETS]
    t1 = time.perf_counter()
    prediction = predict(ranks, catalog.find("Huawei Ascend 910B"), targets, basis=default_basis())
    predicting = time.perf_counter() - t1
    t2 = time.perf_counter()
    predict(ranks, catalog.find("Huawei Ascend 910B"), targets, keep_details=True, basis=default_basis())
    details = time.perf_counter() - t2
    kernels = len(result.ranks[0].kernels)
    print(f"{kernels:,} kernels, {len(targets)} targets")
    print(f"analysis (no cache)          : {analysis:6.2f} s")
    print(f"prediction, 10 targets        : {predicting:6.2f} s  → adds {predicting / analysis * 100:.1f} % "
          "[target ≤ 20 %]")
    print(f"  with per-kernel detail rows : {details:6.2f} s  ({details / analysis * 100:.1f} %; only for the "
          "detail CSV and the GUI table)")
    best = max(prediction.targets, key=lambda t: t.relative_performance or 0)
    print(f"fastest target: {best.device} {best.relative_performance:.2f}×")
    six = ",".join(TARGETS[:6])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "mfu_desktop", "predict", str(profile), "--targets", six]
    subprocess.run(cmd, check=True, env=env, capture_output=True)  # fill the parse cache: time the prediction
    plain = _timed(cmd, env)
    out_dir = work / "out"
    with_out = _timed([*cmd, "--out", str(out_dir)], env)
    detail = out_dir / "kernel_prediction_detail.csv"
    parquet = _timed([*cmd, "--out", str(work / "out-parquet"), "--format", "parquet"], env)
    cold = _timed([*cmd, "--no-cache"], env)
    cold_out = _timed([*cmd, "--no-cache", "--out", str(work / "out-cold")], env)
    print(f"mfu predict, 6 targets (cached parse)   : {plain:6.2f} s")
    print(f"  with --out (3 files)                  : {with_out:6.2f} s  → --out adds "
          f"{(with_out / plain - 1) * 100:.0f} % [target ≤ 50 %]; detail CSV {detail.stat().st_size / 2**20:.0f} MB "
          f"for {kernels:,} kernels × 6 targets")
    size = (work / "out-parquet" / "kernel_prediction_detail.parquet").stat().st_size / 2**20
    print(f"  with --out --format parquet           : {parquet:6.2f} s  → adds {(parquet / plain - 1) * 100:.0f} %; "
          f"detail Parquet {size:.0f} MB")
    print(f"mfu predict --no-cache (parse included) : {cold:6.2f} s; with --out {cold_out:6.2f} s → adds "
          f"{(cold_out / cold - 1) * 100:.0f} %")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
