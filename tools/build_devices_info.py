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
    "alternatives", "confidence", "source",
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


_MLE = "stas00/ml-engineering@744d01e compute/accelerator/README.md (MAMF table, own best shape, mean of 100 runs)"
_FLAGPERF = "FlagOpen/FlagPerf@1b5a030 base/benchmarks/computation-* (M=N=K=8192, 8-card mean)"
_LIMULIDAE = "gameofdimension/limulidae@27a8db0 README.md"
_EXP = "HBM = 2 x the torch.exp fp32 rate counted on input bytes (read + write)"
#: Compiled into the catalog on this date from ../shared/spec/validation.md (the commit pins the data).
_DATE = "2026-08"

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
    "A100 SXM 80GB": {"mamf_bf16_tflops": 271.2, "achievable_source": f"{_MLE}, A100 SXM"},
    "A100 PCIe 80GB": {"mamf_bf16_tflops": 252.9, "achievable_source": f"{_MLE}, A100 PCIe"},
    "A800 SXM 80GB": {"mamf_bf16_tflops": 286, "mamf_fp32_tflops": 19, "achievable_hbm_gbs": 1768,
                      "achievable_source": f"{_LIMULIDAE}, A800; HBM: {_EXP}"},
    "H100 SXM": {"mamf_bf16_tflops": 794.5, "mamf_fp8_tflops": 1402.6, "achievable_source": _MLE},
    "H200": {"mamf_bf16_tflops": 794.5, "mamf_fp8_tflops": 1453.4,
             "achievable_source": f"{_MLE} (BF16: H100 SXM and H200 the same)"},
    "B200": {"mamf_bf16_tflops": 1745.0, "achievable_source": _MLE},
    "B300": {"mamf_bf16_tflops": 1769.0, "achievable_source": _MLE},
    "GB200": {"mamf_bf16_tflops": 1822.0, "achievable_source": _MLE},
    "MI300X": {"mamf_bf16_tflops": 668.4, "achievable_source": _MLE},
    "MI325X": {"mamf_bf16_tflops": 784.9, "achievable_source": _MLE},
    "MI355X": {"mamf_bf16_tflops": 1565.0, "achievable_source": _MLE},
    "Gaudi2": {"mamf_bf16_tflops": 418.7, "achievable_source": _MLE},
    "Gaudi3": {"mamf_bf16_tflops": 1243.0, "achievable_source": _MLE},
}


def _achievable(model: str) -> dict[str, str]:
    """The achievable-basis cells of one row (blank when nothing was measured)."""
    values = ACHIEVABLE.get(model, {})
    cells = {c: ("" if values.get(c) is None else f"{values[c]:g}" if not isinstance(values[c], str) else values[c])
             for c in COLUMNS[COLUMNS.index("mamf_fp16_tflops"):]}
    cells["achievable_date"] = _DATE if values else ""
    return cells


def _fmt(value: str) -> str:
    return value.strip()


def build() -> list[dict[str, str]]:
    """Return the catalog rows built from ``chips.csv``."""
    rows = []
    with SOURCE.open(newline="", encoding="utf-8") as fh:
        for src in csv.DictReader(fh):
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
