"""Which advertised catalog peak a kernel of a unit and precision is measured against (never a silent fallback)."""

from __future__ import annotations

from mfu_desktop.core.chips.catalog import Chip

_CUBE_COLUMNS = {"fp16": "cube_fp16_tflops", "bf16": "cube_bf16_tflops", "fp32": "cube_fp32_tflops",
                 "hf32": "cube_hf32_tflops", "int8": "cube_int8_tflops", "fp8": "cube_fp8_tflops"}


def peak_column(unit: str, precision: str, chip: Chip) -> tuple[str, str | None]:
    """Catalog column for a unit and precision, and a flag when it falls back (never silently)."""
    if unit == "vector":
        column = "vector_fp32_tflops" if precision in ("fp32", "hf32") else "vector_fp16_tflops"
        flag = None if precision in ("fp16", "bf16", "fp32", "hf32") else f"{precision} on vector: FP16 used"
        return column, flag
    column = _CUBE_COLUMNS.get(precision, "cube_fp16_tflops")
    flag = None if precision in _CUBE_COLUMNS else f"{precision}: FP16 peak used"
    if precision == "bf16" and chip.value(column) is None and chip.value("cube_fp16_tflops") is not None:
        return "cube_fp16_tflops", "BF16 column blank: the FP16 column used (seed-layout catalog)"
    if precision in ("int8", "fp8") and chip.value(column) is None:
        return "cube_fp16_tflops", f"{precision} peak not in the catalog: FP16 used"
    return column, flag


def advertised_peak(chip: Chip, unit: str, precision: str) -> float | None:
    """The catalog peak (TFLOP/s) a kernel of this unit and precision scales with, ``None`` when blank."""
    return chip.value(peak_column(unit, precision, chip)[0])
