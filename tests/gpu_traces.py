"""Small PyTorch-profiler traces written from a list of ops and the kernels each launched (tests only).

Each op is a CPU ``cpu_op`` with its shapes; its kernels follow one another on the GPU, linked by
``External id`` (and a ``cudaLaunchKernel`` with the same correlation). Every step repeats the
ops inside a ``ProfilerStep#N`` range on the CPU, so per-step figures are the per-op figures
times the op's repetitions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9,
        "computeMinor": 0, "numSms": 132}
MI300X = {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 205571227648, "computeMajor": 9,
          "computeMinor": 4, "numSms": 304}
BF16 = "c10::BFloat16"


@dataclass
class Op:
    """One CPU op and the kernels it launched: ``(name, duration µs)`` or ``(name, duration, category)``.

    ``name=None`` writes the kernels alone, as a GPU-only capture has them.
    """

    name: str | None
    dims: list = field(default_factory=list)
    types: list = field(default_factory=list)
    kernels: list = field(default_factory=list)


def mm_op(m: int, k: int, n: int, kernels: list) -> Op:
    """``aten::mm`` of (m, k)·(k, n) in BF16 with the given kernels."""
    return Op("aten::mm", [[m, k], [k, n]], [BF16, BF16], kernels)


def write_trace(path: Path, device: dict, ops: list[Op], steps: int = 1, rank: int = 0) -> Path:
    """Write a trace running ``ops`` once per step on ``device``; return ``path``."""
    events: list[dict] = []
    ext, corr, t = 1, 1000, 1_000_000.0
    for step in range(1, steps + 1):
        start, gpu = t, t + 10.0
        for op in ops:
            if op.name is not None:
                events.append({"ph": "X", "cat": "cpu_op", "name": op.name, "pid": 1, "tid": 1, "ts": t, "dur": 8.0,
                               "args": {"External id": ext, "Input Dims": op.dims, "Input type": op.types}})
            for kernel in op.kernels:
                name, dur = kernel[0], float(kernel[1])
                cat = kernel[2] if len(kernel) > 2 else "kernel"
                link = {"External id": ext} if op.name is not None else {}
                events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": gpu, "dur": dur,
                               "args": {**link, "device": 0, "stream": 7, "correlation": corr}})
                if op.name is not None:
                    events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                                   "ts": t + 1.0, "dur": 1.0, "args": {"correlation": corr}})
                corr += 1
                gpu += dur + 1.0
            ext += 1
            t += 10.0
        t = max(t, gpu) + 5.0
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1, "tid": 1,
                       "ts": start, "dur": t - start, "args": {"External id": ext}})
        ext += 1
        t += 10.0
    runtime = {"hip_runtime_version": 60443483} if "AMD" in device["name"] else {"cuda_runtime_version": 12040}
    payload = {"schemaVersion": 1, "deviceProperties": [device], **runtime, "record_shapes": 1,
               "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 1}, "traceEvents": events}
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path
