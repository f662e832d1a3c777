"""Compute dtypes: profiler spellings mapped to the catalog's peak columns (mfu.md §1)."""

from __future__ import annotations

from enum import StrEnum


class ComputeDtype(StrEnum):
    """The precision that selects a peak column in the chip catalog."""

    FP16 = "fp16"
    BF16 = "bf16"
    FP32 = "fp32"
    HF32 = "hf32"  # FP32 inputs with HF32 (Ascend) / TF32 (NVIDIA) enabled
    INT8 = "int8"
    FP8 = "fp8"


#: Profiler dtype spellings (kernel_details, op_summary, DB) → compute dtype.
_ALIASES: dict[str, ComputeDtype] = {}
for _names, _dtype in (
    (("FLOAT16", "DT_FLOAT16", "FP16", "HALF", "DT_HALF", "F16", "FLOAT16_T", "C10::HALF"), ComputeDtype.FP16),
    (("DT_BF16", "BF16", "BFLOAT16", "DT_BFLOAT16", "C10::BFLOAT16"), ComputeDtype.BF16),
    (("FLOAT", "DT_FLOAT", "FLOAT32", "DT_FLOAT32", "FP32", "DT_FP32", "F32"), ComputeDtype.FP32),
    (("HF32", "TF32"), ComputeDtype.HF32),
    (("INT8", "DT_INT8", "SIGNED CHAR", "C10::QINT8"), ComputeDtype.INT8),
    (
        (
            "FP8", "DT_FLOAT8_E4M3FN", "DT_FLOAT8_E5M2", "FLOAT8_E4M3FN", "FLOAT8_E5M2",
            "DT_HIFLOAT8", "HIFLOAT8", "E4M3", "E5M2", "C10::FLOAT8_E4M3FN", "C10::FLOAT8_E5M2",
            "C10::FLOAT8_E4M3FNUZ", "C10::FLOAT8_E5M2FNUZ",
        ),
        ComputeDtype.FP8,
    ),
):
    for _name in _names:
        _ALIASES[_name] = _dtype


def compute_dtype(name: str | None) -> ComputeDtype | None:
    """Map one dtype spelling to a compute dtype.

    Args:
        name: A dtype as written by the profiler (``DT_BF16``, ``FLOAT``, ``FLOAT16``) or by a
            user (``bf16``).

    Returns:
        The compute dtype, or ``None`` when the spelling is unknown or not a matmul precision
        (``INT64``, ``BOOL``, ``N/A``).
    """
    if not name:
        return None
    return _ALIASES.get(name.strip().upper())


def first_input_dtype(types_cell: str | None) -> str | None:
    """Return the first entry of an ``Input Data Types`` cell (``DT_BF16;INT64`` → ``DT_BF16``)."""
    if not types_cell:
        return None
    first = types_cell.split(";", 1)[0].strip()
    if not first or first.upper() == "N/A":
        return None
    return first


def dtype_column(dtype: ComputeDtype) -> str:
    """The chip-catalog column that holds the matrix-unit peak for ``dtype``."""
    return {
        ComputeDtype.FP16: "cube_fp16_tflops",
        ComputeDtype.BF16: "cube_bf16_tflops",
        ComputeDtype.FP32: "cube_fp32_tflops",
        ComputeDtype.HF32: "cube_hf32_tflops",
        ComputeDtype.INT8: "cube_int8_tflops",
        ComputeDtype.FP8: "cube_fp8_tflops",
    }[dtype]
