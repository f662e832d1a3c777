"""Does the profile fit on a target chip? The measured memory footprint against the target's ``memory_gb``.

The footprint is the largest of the ranks' (process reserved when recorded, else the framework
allocator's reserved; :mod:`mfu_desktop.core.analysis.memory`): every rank must fit, so the
largest decides. **The same allocator on another chip is assumed** — the caching allocator keeps
the same blocks, the runtime and communication buffers are the same size — and every output
says so. A 910C package row counts one die's memory per rank (a rank is one die).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mfu_desktop.core.analysis.memory import MB_PER_GB, SAME_ALLOCATOR
from mfu_desktop.core.chips.catalog import Chip
from mfu_desktop.core.numbers import finite_number


@dataclass(frozen=True)
class Footprint:
    """The profile's memory footprint: the largest rank's, and which figure it is."""

    mb: float | None
    rank: int | None
    basis: str
    ranks: int
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``memory`` object of ``mfu predict --json``."""
        return {"footprint_mb": finite_number(self.mb), "rank": self.rank, "basis": self.basis,
                "ranks_with_memory": self.ranks, "assumption": SAME_ALLOCATOR, "reason": self.reason}


@dataclass(frozen=True)
class MemoryFit:
    """The footprint on one chip: ``fits`` is ``None`` when the footprint or the chip's memory is unknown."""

    fits: bool | None
    headroom_gb: float | None
    capacity_gb: float | None
    note: str = ""


def footprint(memories: list[tuple[int, dict[str, Any] | None, str | None]]) -> Footprint:
    """The largest footprint among the ranks' ``memory`` objects (rank, object, reason when none)."""
    best: tuple[float, int, str] | None = None
    reasons = []
    counted = 0
    for rank, mem, reason in memories:
        value = finite_number((mem or {}).get("footprint_mb"))
        if value is None:
            if reason:
                reasons.append(reason)
            continue
        counted += 1
        if best is None or value > best[0]:
            best = (value, rank, str((mem or {}).get("footprint_basis") or ""))
    if best is None:
        return Footprint(None, None, "", 0, reasons[0] if reasons else "no memory data: capture with "
                                                                         "profile_memory=True")
    return Footprint(best[0], best[1], best[2], counted)


def rank_capacity_gb(chip: Chip) -> tuple[float | None, str]:
    """The memory one rank has on ``chip`` (GB): its ``memory_gb``, one die's for a 910C package row."""
    gb = finite_number(chip.value("memory_gb"))
    if gb is None:
        return None, f"{chip.display_name} has no memory_gb in the catalog"
    if "910C" in chip.identifier and "die" not in chip.identifier.lower():
        return gb / 2, f"{chip.display_name}: {gb:g} GB is the package (two dies); a rank has one die's {gb / 2:g} GB"
    return gb, ""


def fit_on(chip: Chip, fp: Footprint) -> MemoryFit:
    """The footprint against one chip's memory."""
    capacity, note = rank_capacity_gb(chip)
    if fp.mb is None or capacity is None:
        return MemoryFit(None, None, capacity, note or (fp.reason or ""))
    headroom = capacity - fp.mb / MB_PER_GB
    return MemoryFit(headroom >= 0, headroom, capacity, note)
