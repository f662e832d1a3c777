"""Enrichment reader of the Ascend database's MSTX marks (the work is in :mod:`.mstx_marks`).

Light: the registry imports this module during discovery; the marks are read (with pandas)
only when a rank is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mfu_desktop.core.readers.base import RankData, RankFolder


class MstxEnricher:
    """Enrichment reader: MSTX ``mfu_flops`` ranges and ``flash_attn_args`` marks of an Ascend rank's database."""

    name = "mstx"

    def applies(self, folder: RankFolder, data: RankData) -> bool:
        """True for an Ascend rank with a database beside its kernels."""
        return data.kernels is not None and not data.kernels.empty and folder.db is not None

    def enrich(self, folder: RankFolder, data: RankData) -> None:
        """Add the recorded columns to ``data.kernels``; notes and problems to ``data``."""
        from mfu_desktop.core.readers.mstx.marks import enrich_kernels

        assert folder.db is not None and data.kernels is not None
        result = enrich_kernels(data.kernels, folder.db)
        if result is None:
            return
        for name, values in result.columns.items():
            data.kernels[name] = values
        data.notes.extend(result.notes)
        data.problems.extend(result.problems)
