"""Benchmark throughputs of validation.md §1 (FlagPerf, limulidae) as the time of a fixed amount of work.

Ascend 910B against A100/A800: each benchmark's rate turned into the time of one GEMM
(``M = N = K = 8192``; limulidae: 1 TFLOP, shape not stated) or of 1 GB of element-wise input
(limulidae counts GB/s on input bytes, so the bytes are input + output: only the ratio matters).
"""

from __future__ import annotations

import math

from tools.corpus.rows import Measurement

FLAGPERF = "FlagOpen/FlagPerf@1b5a030"
LIMULIDAE = "gameofdimension/limulidae@27a8db0"
ASCEND = "Huawei Ascend 910B"
GEMM_FLOPS = 2 * 8192**3
#: (id, source, file, op type, dtype, FLOPs, bytes, 910B chip, 910B µs, other chip, other µs, note)
ROWS = (
    ("flagperf-gemm-bf16", FLAGPERF, "base/benchmarks/computation-BF16", "aten::mm", "bf16", GEMM_FLOPS,
     3 * 8192**2 * 2, "NVIDIA A100 SXM 40GB", 3613.5220, 4241.9430, "304.277 vs 259.2 TFLOP/s, 8-card mean"),
    ("flagperf-gemm-fp16", FLAGPERF, "base/benchmarks/computation-FP16", "aten::mm", "fp16", GEMM_FLOPS,
     3 * 8192**2 * 2, "NVIDIA A100 SXM 40GB", 3510.7753, 4371.8156, "313.182 vs 251.5 TFLOP/s"),
    ("flagperf-gemm-fp32", FLAGPERF, "base/benchmarks/computation-FP32", "aten::mm", "fp32", GEMM_FLOPS,
     3 * 8192**2 * 4, "NVIDIA A100 SXM 40GB", 13259.9087, 57717.1458, "82.920 vs 19.05 TFLOP/s (TF32 off)"),
    ("limulidae-matmul-bf16", LIMULIDAE, "README.md", "aten::mm", "bf16", 1e12, math.nan, "NVIDIA A800 SXM 80GB",
     3048.7805, 3496.5035, "1 TFLOP at 328 vs 286 TFLOP/s; shape not stated"),
    ("limulidae-matmul-fp32", LIMULIDAE, "README.md", "aten::mm", "fp32", 1e12, math.nan, "NVIDIA A800 SXM 80GB",
     11494.2529, 52631.5789, "1 TFLOP at 87 vs 19 TFLOP/s"),
    ("limulidae-exp", LIMULIDAE, "README.md", "aten::exp", "fp32", math.nan, 2e9, "NVIDIA A800 SXM 80GB",
     1557.6324, 1131.2217, "1 GB input at 642 vs 884 GB/s (input bytes)"),
    ("limulidae-sigmoid", LIMULIDAE, "README.md", "aten::sigmoid", "fp32", math.nan, 2e9, "NVIDIA A800 SXM 80GB",
     1562.5000, 1127.3957, "640 vs 887 GB/s (input bytes)"),
    ("limulidae-sigmoid-handwritten", LIMULIDAE, "README.md", "aten::sigmoid", "fp32", math.nan, 2e9,
     "NVIDIA A800 SXM 80GB", 7812.5000, 5681.8182, "hand-written sigmoid (several kernels), 128 vs 176 GB/s"),
)


def measurements() -> list[Measurement]:
    """Two rows (910B and the NVIDIA part) per benchmark."""
    out = []
    for op_id, ref, file, op_type, dtype, flops, nbytes, other, ascend_us, other_us, note in ROWS:
        category = "gemm" if op_type == "aten::mm" else "element-wise"
        for chip, us in ((ASCEND, ascend_us), (other, other_us)):
            out.append(Measurement(
                op_id=f"bench:{op_id}", dataset="benchmark", source_ref=ref, source_file=file, model=op_id,
                workload="benchmark", op=op_id, op_type=op_type, category=category,
                unit="cube" if category == "gemm" else "vector", dtype=dtype, shapes="8192,8192;8192,8192"
                if op_id.startswith("flagperf") else "", flops=float(flops), bytes=float(nbytes), calls=1.0,
                chip=chip, measured_us=us, raw_us=us, note=note))
    return out
