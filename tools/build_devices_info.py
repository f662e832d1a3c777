"""Build the shipped ``devices_info.csv`` from the reference table ``chips.csv``.

Run from the project root (needs ``../shared/spec/chips.csv``)::

    python tools/build_devices_info.py

The output keeps the seed predictor's column layout first (``vendor, model,
architecture_type, cube_fp16_tflops, cube_fp32_tflops, vector_fp16_tflops,
vector_fp32_tflops, hbm_bandwidth_gbs, memory_gb, tdp_w, notes``), then the two
columns the seed uses elsewhere (``interconnect_bandwidth`` GB/s, ``cpu``), then the
columns the product needs. Ascend rows get their AI core count and cube clock
(``chips.md`` section b.4) so a profile's hardware counters can identify the SKU, and their
vector core count (AIV, same table) so the advisor can tell an under-filled vector kernel.
Where the seed value differs from the sourced one, the seed value is kept as a named
alternative (``chips.md`` section d) and never used by default.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "spec" / "chips.csv"
TARGET = ROOT / "devices_info.csv"

COLUMNS = [
    # seed layout
    "vendor", "model", "architecture_type", "cube_fp16_tflops", "cube_fp32_tflops",
    "vector_fp16_tflops", "vector_fp32_tflops", "hbm_bandwidth_gbs", "memory_gb", "tdp_w",
    "notes",
    # seed columns used by its script
    "interconnect_bandwidth", "cpu",
    # product columns
    "cube_bf16_tflops", "cube_fp8_tflops", "cube_int8_tflops", "cube_hf32_tflops",
    "interconnect_direction", "host_cpu", "ai_core_count", "cube_freq_mhz", "vector_core_count", "aliases",
    "alternatives", "confidence", "source", "die",
    # the achievable basis (validation.md §1)
    "mamf_fp16_tflops", "mamf_bf16_tflops", "mamf_fp32_tflops", "mamf_fp8_tflops", "achievable_hbm_gbs",
    "achievable_source", "achievable_date",
]

# (AI cores, cube MHz, vector cores) from the CANN platform configs (chips.md b.4: AIC / AIV and
# cube_freq). The seed alias rows ("Ascend 910B", "Ascend 910C" package) carry none: counters
# identify the SKU row. The 910A's cores are coupled: it has no separate vector cores.
CORES_CLOCK = {
    "Ascend 910A": (32, 1000, ""),
    "Ascend 910B1": (24, 1850, 48),
    "Ascend 910B2": (24, 1800, 48),
    "Ascend 910B2C": (24, 1800, 48),
    "Ascend 910B3": (20, 1800, 40),
    "Ascend 910B4": (20, 1500, 40),
    "Ascend 910C die (Ascend910_9381/9382)": (24, 1800, 48),
    "Ascend 910C die (Ascend910_9391/9392)": (24, 1850, 48),
    "Ascend 950PR": (28, 1650, 56),
    "Ascend 950PR Atlas 350 card": (28, 1650, 56),
    "Ascend 950PR server tier": (32, 1650, 64),
    "Ascend 950DT": (32, 1650, 64),
}

ALIASES = {
    "Ascend 910B2": "Ascend910B2",
    "Ascend 910B1": "Ascend910B1",
    "Ascend 910B3": "Ascend910B3",
    "Ascend 910B4": "Ascend910B4;Ascend910B4-1",
    "Ascend 910B2C": "Ascend910B2C",
    "Ascend 910C die (Ascend910_9381/9382)": "Ascend910_9381;Ascend910_9382;910C die",
    "Ascend 910C die (Ascend910_9391/9392)": "Ascend910_9391;Ascend910_9392",
    "Ascend 950PR Atlas 350 card": "Ascend950PR_957b;Ascend950PR_957bx;Atlas 350",
    "Ascend 950PR server tier": "Ascend950PR_9589;Ascend950PR_958b",
    "Ascend 950DT": "Ascend950DT_9581;Ascend950DT_9581x;Ascend950DT_9582;Ascend950DT_9582x",
    "H100 SXM": "H100",
    "PPU": "PPU1.5",
}

# Seed values that differ from the sourced ones (chips.md section d): named alternatives.
ALTERNATIVES = {
    "Ascend 910B": "seed predictor|cube_fp16_tflops=354,cube_bf16_tflops=354,cube_fp32_tflops=88,"
    "vector_fp16_tflops=22,vector_fp32_tflops=11",
    "Ascend 910B1": "seed MFU table|cube_fp16_tflops=378.88,cube_bf16_tflops=378.88",
    "Ascend 910B4": "seed MFU table|cube_fp16_tflops=270,cube_bf16_tflops=270;"
    "CANN config clock|cube_fp16_tflops=245.8,cube_bf16_tflops=245.8",
    "Ascend 910C": "seed predictor|cube_fp16_tflops=708,cube_bf16_tflops=708,cube_fp32_tflops=176,"
    "vector_fp16_tflops=44,vector_fp32_tflops=22",
    "Ascend 950DT": "seed predictor|cube_fp32_tflops=27,interconnect_bandwidth=1500,memory_gb=96;"
    "lower bound, vector FP32|cube_fp32_tflops=27",
    "Ascend 950PR": "seed predictor|cube_fp16_tflops=371,cube_bf16_tflops=371,cube_fp32_tflops=27,"
    "vector_fp16_tflops=54,vector_fp32_tflops=27,memory_gb=114,interconnect_bandwidth=800;"
    "lower bound, vector FP32|cube_fp32_tflops=27",
    "PPU": "seed predictor (unsourced)|cube_fp16_tflops=414,cube_bf16_tflops=414,cube_fp32_tflops=13,"
    "vector_fp16_tflops=26,vector_fp32_tflops=13,hbm_bandwidth_gbs=3350",
}


# The silicon each chip is cut from (vendor whitepapers and datasheets). Chips on one die share the prediction
# model's fitted efficiencies and floors when only a sibling was measured (resources/prediction_model.csv);
# blank: no sibling in the catalog, or not certain.
_DIES = {
    "Ascend 910B": ("Ascend 910B", "Ascend 910B1", "Ascend 910B2", "Ascend 910B2C", "Ascend 910B3", "Ascend 910B4"),
    "GV100": ("V100 SXM2", "V100 PCIe 32GB"),
    "GA100": ("A100 SXM 40GB", "A100 SXM 80GB", "A100 PCIe 40GB", "A100 PCIe 80GB", "A800 SXM 80GB",
              "A800 PCIe 80GB"),
    "GH100": ("H100 SXM", "H100 PCIe", "H100 NVL", "H800 SXM", "H20", "H200", "H200 NVL"),
    "AD102": ("L40S", "L20", "RTX 4090"),
    "CDNA 2 (Aldebaran)": ("MI210", "MI250 (per GCD)", "MI250X (per GCD)"),
    "CDNA 3 (MI300)": ("MI300X", "MI325X"),
}
DIE = {model: die for die, models in _DIES.items() for model in models}


_MLE = "stas00/ml-engineering@744d01e compute/accelerator/README.md (MAMF table, own best shape, mean of 100 runs)"
#: Azure's published microbenchmarks: BabelStream Triad (HBM) and the best cuBLASLt/hipBLASLt GEMM of its shape list.
_AZURE = "Azure/AI-benchmarking-guide"
_AZURE_FORK = "samuel-bohman/AI-benchmarking-guide"
_COPY = "(a copy of Azure/AI-benchmarking-guide)"
_TRIAD = "HBM = BabelStream Triad"
_FLAGPERF = "FlagOpen/FlagPerf@1b5a030 base/benchmarks/computation-* (M=N=K=8192, 8-card mean)"
_LIMULIDAE = "gameofdimension/limulidae@27a8db0 README.md"
_EXP = "HBM = 2 x the torch.exp fp32 rate counted on input bytes (read + write)"
#: Compiled into the catalog on this date from ../shared/spec/validation.md (the commit pins the data).
_DATE = "2026-08"
#: Rows whose values were partly compiled later (the Azure HBM/FP8/FP16 figures, December 2026).
_LATER = "2026-08 (MAMF table); 2026-12 (Azure figures)"

# Achievable basis per catalog row (validation.md §1); a value is a measurement, never a guess.
ACHIEVABLE: dict[str, dict[str, object]] = {
    "Ascend 910B": {"mamf_bf16_tflops": 304.277, "mamf_fp16_tflops": 313.182, "mamf_fp32_tflops": 82.92,
                    "achievable_hbm_gbs": 1284,
                    "achievable_source": f"MAMF: {_FLAGPERF}, Atlas 800T A2 (SKU not stated); HBM: {_LIMULIDAE}, "
                                         f"{_EXP}"},
    "Ascend 910B2": {"mamf_bf16_tflops": 304.277, "mamf_fp16_tflops": 313.182, "mamf_fp32_tflops": 82.92,
                     "achievable_hbm_gbs": 1284,
                     "achievable_source": f"MAMF: {_FLAGPERF}, Atlas 800T A2 (SKU not stated); HBM: {_LIMULIDAE}, "
                                          f"{_EXP}"},
    "A100 SXM 40GB": {"mamf_bf16_tflops": 259.2, "mamf_fp16_tflops": 251.5, "mamf_fp32_tflops": 19.05,
                      "achievable_hbm_gbs": 1328.25, "achievable_source": f"{_FLAGPERF}, A100-40GB SXM (TF32 off)"},
    "A100 SXM 80GB": {"mamf_bf16_tflops": 271.2, "mamf_fp16_tflops": 256.5, "achievable_hbm_gbs": 1700,
                      "achievable_source": f"BF16: {_MLE}, A100 SXM; FP16 and HBM: {_AZURE}@3bb66ca "
                                           f"Azure_Results/ND_A100_v4_results.md (A100-SXM4-80GB, CUDA 12.5; FP16 = "
                                           f"cuBLASLt 16384^3; {_TRIAD} 1.70 TB/s)",
                      "achievable_date": _LATER},
    "A100 PCIe 80GB": {"mamf_bf16_tflops": 252.9, "achievable_source": f"{_MLE}, A100 PCIe"},
    "A800 SXM 80GB": {"mamf_bf16_tflops": 286, "mamf_fp32_tflops": 19, "achievable_hbm_gbs": 1768,
                      "achievable_source": f"{_LIMULIDAE}, A800; HBM: {_EXP}"},
    "H100 SXM": {"mamf_bf16_tflops": 794.5, "mamf_fp8_tflops": 1402.6, "achievable_hbm_gbs": 2970,
                 "achievable_source": f"MAMF: {_MLE}; HBM: {_AZURE_FORK}@26d18e9 {_COPY} "
                                      f"Azure_Results/ND_H100_v5_results.md (H100 80GB HBM3, CUDA 12.6; {_TRIAD} "
                                      "2.97 TB/s)",
                 "achievable_date": _LATER},
    "H200": {"mamf_bf16_tflops": 794.5, "mamf_fp8_tflops": 1453.4, "achievable_hbm_gbs": 4150,
             "achievable_source": f"MAMF: {_MLE} (BF16: H100 SXM and H200 the same); HBM: {_AZURE}@7f20e5f "
                                  f"Azure_Results/ND_H200_v5_results.md (H200 141GB, CUDA 12.6; {_TRIAD} 4.15 TB/s)",
             "achievable_date": _LATER},
    "B200": {"mamf_bf16_tflops": 1745.0, "achievable_source": _MLE},
    "B300": {"mamf_bf16_tflops": 1769.0, "achievable_source": _MLE},
    "GB200": {"mamf_bf16_tflops": 1822.0, "mamf_fp8_tflops": 2906.9,
              "achievable_source": f"BF16: {_MLE}; FP8: {_AZURE}@2a370be Azure_Results/ND_GB200_v6_results.md "
                                   "(cuBLASLt FP8, best of its shape list: 16384^3)",
              "achievable_date": _LATER},
    "MI300X": {"mamf_bf16_tflops": 668.4, "mamf_fp8_tflops": 1159.5, "achievable_hbm_gbs": 4090,
               "achievable_source": f"BF16: {_MLE}; FP8 and HBM: {_AZURE_FORK}@3de0c29 {_COPY} "
                                    f"Azure_Results/ND_MI300X_v5_results.md (ROCm 6.2; FP8 = hipBLASLt "
                                    f"6144x12288x12288; {_TRIAD} 4.09 TB/s)",
               "achievable_date": _LATER},
    "MI325X": {"mamf_bf16_tflops": 784.9, "achievable_source": _MLE},
    "MI355X": {"mamf_bf16_tflops": 1565.0, "achievable_source": _MLE},
    "Gaudi2": {"mamf_bf16_tflops": 418.7, "achievable_source": _MLE},
    "Gaudi3": {"mamf_bf16_tflops": 1243.0, "achievable_source": _MLE},
}


# Chips the public validation data measured (NeuSight's GPUs, validation/neusight) that chips.csv lacks:
# the vendor's datasheet figures (dense; NVDS: NVIDIA datasheets, ANDT: AnandTech's copy of AMD's table).
# Keys are chips.csv's columns; blank stays blank.
EXTRA_ROWS: list[dict[str, str]] = [
    {"vendor": "NVIDIA", "model": "V100 PCIe 32GB", "cube_fp16_tflops": "112", "cube_fp32_tflops": "14",
     "vector_fp16_tflops": "28", "vector_fp32_tflops": "14", "hbm_bandwidth_gbs": "900", "memory_gb": "32",
     "tdp_w": "250", "confidence": "B", "source": "NVDS;V100S",
     "notes": "Tesla V100 PCIe: Tensor Cores take FP16 only (no BF16/TF32/INT8); vector FP16 derived as 2x FP32"},
    {"vendor": "NVIDIA", "model": "P100 PCIe 16GB", "cube_fp16_tflops": "18.7", "cube_fp32_tflops": "9.3",
     "vector_fp16_tflops": "18.7", "vector_fp32_tflops": "9.3", "hbm_bandwidth_gbs": "732", "memory_gb": "16",
     "tdp_w": "250", "confidence": "B", "source": "NVDS",
     "notes": "Tesla P100 PCIe 16 GB: no Tensor Cores (matrix = CUDA cores; FP16 at 2x FP32); the 12 GB card has "
              "540 GB/s"},
    {"vendor": "NVIDIA", "model": "P4", "cube_fp32_tflops": "5.5", "vector_fp32_tflops": "5.5",
     "cube_int8_tflops": "22", "hbm_bandwidth_gbs": "192", "memory_gb": "8", "tdp_w": "75", "confidence": "B",
     "source": "NVDS",
     "notes": "Tesla P4 (GP104): no Tensor Cores; FP16 runs at 1/64 rate (not published as a peak: blank); "
              "8 GB GDDR5 (column name says HBM)"},
    {"vendor": "NVIDIA", "model": "T4", "cube_fp16_tflops": "65", "cube_int8_tflops": "130",
     "cube_fp32_tflops": "8.1", "vector_fp16_tflops": "16.2", "vector_fp32_tflops": "8.1",
     "hbm_bandwidth_gbs": "320", "memory_gb": "16", "tdp_w": "70", "confidence": "B", "source": "NVDS",
     "notes": "Tesla T4 (Turing): 65 FP16 mixed precision on Tensor Cores; no BF16/TF32; vector FP16 derived as "
              "2x FP32; 16 GB GDDR6 (column name says HBM)"},
    {"vendor": "NVIDIA", "model": "L4", "cube_fp16_tflops": "121", "cube_bf16_tflops": "121",
     "cube_fp8_tflops": "242.5", "cube_int8_tflops": "242.5", "cube_fp32_tflops": "30.3",
     "cube_hf32_or_tf32_tflops": "60", "vector_fp16_tflops": "30.3", "vector_fp32_tflops": "30.3",
     "hbm_bandwidth_gbs": "300", "memory_gb": "24", "tdp_w": "72", "confidence": "B", "source": "NVDS",
     "notes": "L4 (Ada): datasheet sparse figures halved (FP16/BF16 242, FP8/INT8 485, TF32 120); vector FP16 = "
              "FP32 rate on Ada; 24 GB GDDR6 (column name says HBM)"},
    {"vendor": "AMD", "model": "MI100", "cube_fp16_tflops": "184.6", "cube_bf16_tflops": "92.3",
     "cube_int8_tflops": "184.6", "cube_fp32_tflops": "46.1", "vector_fp32_tflops": "23.1",
     "hbm_bandwidth_gbs": "1228.8", "memory_gb": "32", "tdp_w": "300", "confidence": "B", "source": "ANDT;AMDP",
     "notes": "Instinct MI100 (CDNA 1): FP32 matrix 46.1, FP32 vector 23.1; BF16 matrix at half the FP16 rate"},
    {"vendor": "AMD", "model": "MI210", "cube_fp16_tflops": "181", "cube_bf16_tflops": "181",
     "cube_int8_tflops": "181", "cube_fp32_tflops": "45.3", "vector_fp32_tflops": "22.6",
     "hbm_bandwidth_gbs": "1638.4", "memory_gb": "64", "tdp_w": "300", "confidence": "B", "source": "ANDT;AMDP",
     "notes": "Instinct MI210 (CDNA 2, one GCD, PCIe): FP32 matrix 45.3, FP32 vector 22.6"},
    {"vendor": "AMD", "model": "MI250 (per GCD)", "cube_fp16_tflops": "181", "cube_bf16_tflops": "181",
     "cube_int8_tflops": "181", "cube_fp32_tflops": "45.25", "vector_fp32_tflops": "22.65",
     "hbm_bandwidth_gbs": "1638.4", "memory_gb": "64", "confidence": "B", "source": "ANDT;AMDP",
     "notes": "One MI250 OAM = 2 GCDs = 2 framework devices; every value is the package figure halved (package: "
              "362 FP16/BF16, FP32 matrix 90.5, FP32 vector 45.3, 128 GB, 3276.8 GB/s, 560 W)"},
]


def _extra(row: dict[str, str]) -> dict[str, str]:
    """An :data:`EXTRA_ROWS` entry with every ``chips.csv`` column (blank when not given)."""
    columns = ("vendor", "model", "architecture_type", "cube_fp16_tflops", "cube_bf16_tflops", "cube_fp8_tflops",
               "cube_int8_tflops", "cube_fp32_tflops", "cube_hf32_or_tf32_tflops", "vector_fp16_tflops",
               "vector_fp32_tflops", "hbm_bandwidth_gbs", "memory_gb", "interconnect_gbs", "interconnect_direction",
               "tdp_w", "host_cpu", "cpu_coefficient", "confidence", "source", "notes")
    return {c: row.get(c, "GPU" if c == "architecture_type" else "") for c in columns}


def _achievable(model: str) -> dict[str, str]:
    """The achievable-basis cells of one row (blank when nothing was measured)."""
    values = ACHIEVABLE.get(model, {})
    cells = {c: ("" if values.get(c) is None else f"{values[c]:g}" if not isinstance(values[c], str) else values[c])
             for c in COLUMNS[COLUMNS.index("mamf_fp16_tflops"):]}
    cells["achievable_date"] = str(values.get("achievable_date", _DATE)) if values else ""
    return cells


def _fmt(value: str) -> str:
    return value.strip()


def build() -> list[dict[str, str]]:
    """Return the catalog rows built from ``chips.csv``."""
    rows = []
    with SOURCE.open(newline="", encoding="utf-8") as fh:
        sources = [*csv.DictReader(fh), *(_extra(r) for r in EXTRA_ROWS)]
        for src in sources:
            model = src["model"].strip()
            cores, clock, vector_cores = CORES_CLOCK.get(model, ("", "", ""))
            rows.append({
                "vendor": _fmt(src["vendor"]),
                "model": model,
                "architecture_type": _fmt(src["architecture_type"]),
                "cube_fp16_tflops": _fmt(src["cube_fp16_tflops"]),
                "cube_fp32_tflops": _fmt(src["cube_fp32_tflops"]),
                "vector_fp16_tflops": _fmt(src["vector_fp16_tflops"]),
                "vector_fp32_tflops": _fmt(src["vector_fp32_tflops"]),
                "hbm_bandwidth_gbs": _fmt(src["hbm_bandwidth_gbs"]),
                "memory_gb": _fmt(src["memory_gb"]),
                "tdp_w": _fmt(src["tdp_w"]),
                "notes": _fmt(src["notes"]),
                "interconnect_bandwidth": _fmt(src["interconnect_gbs"]),
                "cpu": _fmt(src["cpu_coefficient"]),
                "cube_bf16_tflops": _fmt(src["cube_bf16_tflops"]),
                "cube_fp8_tflops": _fmt(src["cube_fp8_tflops"]),
                "cube_int8_tflops": _fmt(src["cube_int8_tflops"]),
                "cube_hf32_tflops": _fmt(src["cube_hf32_or_tf32_tflops"]),
                "interconnect_direction": _fmt(src["interconnect_direction"]),
                "host_cpu": _fmt(src["host_cpu"]),
                "ai_core_count": str(cores),
                "cube_freq_mhz": str(clock),
                "vector_core_count": str(vector_cores),
                "aliases": ALIASES.get(model, ""),
                "alternatives": ALTERNATIVES.get(model, ""),
                "confidence": _fmt(src["confidence"]),
                "source": _fmt(src["source"]),
                "die": DIE.get(model, ""),
                **_achievable(model),
            })
    return rows


def main() -> int:
    """Write ``devices_info.csv``; return a process exit code."""
    if not SOURCE.exists():
        print(f"missing {SOURCE}", file=sys.stderr)
        return 1
    rows = build()
    with TARGET.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} devices to {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
