"""The FLOP conventions the user chooses (FlashAttention mask, layout, backward count), stamped into reports."""

from __future__ import annotations

from dataclasses import dataclass

from mfu_desktop.core.formulas.flops import BackwardCount, MaskConvention


@dataclass(frozen=True)
class FlopOptions:
    """User choices that change FLOPs (each stamped into reports).

    Attributes:
        fa_sparse_mode: ``"auto"`` (inferred from the mask) or a sparse_mode to apply to every
            FlashAttention kernel.
        fa_layout: ``"auto"`` or a layout to apply.
        fa_backward: ``model`` (2× forward, default) or ``executed`` (2.5×, HFU view).
        mask_convention: ``exact`` or ``seed``.
    """

    fa_sparse_mode: str | int = "auto"
    fa_layout: str = "auto"
    fa_backward: str = BackwardCount.MODEL.value
    mask_convention: str = MaskConvention.EXACT.value

    def describe(self) -> list[str]:
        """The options as convention lines."""
        return [
            f"FlashAttention sparse_mode: {self.fa_sparse_mode}"
            + (" (inferred per kernel from atten_mask)" if self.fa_sparse_mode == "auto" else " (user override)"),
            f"FlashAttention layout: {self.fa_layout}"
            + (" (inferred from softmax_max's shape)" if self.fa_layout == "auto" else " (user override)"),
            "FlashAttention backward: " + ("model FLOPs, 2 × forward" if self.fa_backward == "model"
                                          else "executed FLOPs incl. recomputed QKᵀ (HFU view)"),
            f"mask geometry: {self.mask_convention}",
        ]
