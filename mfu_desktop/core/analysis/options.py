"""The user's choices that change a rank's figures (chip, HF32, FLOP conventions, top N), stamped into every report.

A light module (no numpy/pandas): the command line's cached path builds its cache keys from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mfu_desktop.core.formulas.options import FlopOptions

#: Hot-operator lists show this many rows by default.
DEFAULT_TOP_N = 10


@dataclass(frozen=True)
class AnalysisOptions:
    """User choices that change the figures; stamped into every report.

    Attributes:
        chip: Chip name chosen by the user (overrides detection), or ``None``.
        hf32: FP32 matmuls ran with HF32/TF32 (uses the HF32 peak where ``HF32 Eligible`` ≠ NO).
        flops: FlashAttention and mask conventions.
        include_suspicious: Keep MFU > 100 % kernels in aggregates (off by default).
        top_n: Rows in the hot-operator lists.
    """

    chip: str | None = None
    hf32: bool = False
    flops: FlopOptions = field(default_factory=FlopOptions)
    include_suspicious: bool = False
    top_n: int = DEFAULT_TOP_N

    def describe(self) -> list[str]:
        """Conventions as text lines."""
        return [
            "MFU = Σ (FLOPs_i / peak_i) / Σ t_i over counted kernels (operator achievement rate, 算子达成率)",
            "step MFU = Σ FLOPs_i / peak_i over the step time Computing + Communication(Not Overlapped) + Free",
            ("FP32 matmuls use the HF32/TF32 peak (HF32 on), except kernels known not to run so"
             if self.hf32 else "FP32 matmuls use the FP32 peak (HF32 off), except GPU kernels whose names show TF32 "
             "tensor cores (the TF32 peak)"),
            "kernels with MFU > 100 % are " + ("kept in" if self.include_suspicious else "kept out of") + " aggregates",
            *self.flops.describe(),
        ]
