"""What a reader fills for one rank: the canonical frames and what it learnt on the way."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from mfu_desktop.core.readers.ascend.communication import CommMatrix
from mfu_desktop.core.readers.ascend.info import CaptureConfig, DeviceInfo, ParallelGroups
from mfu_desktop.core.readers.ascend.kernels_db import DbExtras
from mfu_desktop.core.readers.base import RankFolder
from mfu_desktop.core.readers.step_trace import StepTrace


@dataclass
class RankData:
    """Everything read from one rank folder (parsed, not yet analysed).

    Attributes:
        folder: The discovered rank.
        kernels: Canonical kernel frame, or ``None`` when nothing could be read.
        kernel_source: What the kernels came from and why (text vs db).
        step_trace: Step breakdown, when present.
        comm: Communication matrix (longest links), when present.
        error: Why the rank could not be analysed at all (``None`` when it could).
        problems: Non-fatal problems (skipped rows, unreadable side files …).
        notes: What else was read (MSTX marks tied to kernels …), shown with the rank's notes.
        incomplete: Reasons to think the folder is not whole (marker missing, file growing).
        from_cache: True when served from the cache.
    """

    folder: RankFolder
    kernels: pd.DataFrame | None = None
    kernel_source: str = ""
    missing_columns: list[str] = field(default_factory=list)
    step_trace: StepTrace | None = None
    comm: CommMatrix | None = None
    device_infos: list[DeviceInfo] = field(default_factory=list)
    db_extras: DbExtras | None = None
    groups: ParallelGroups | None = None
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    from_cache: bool = False
    load_seconds: float = 0.0
    changed_while_read: bool = False
    device_name: str | None = None
    device: object | None = None  # a GPU's deviceProperties (chip detection), when the reader has them
    #: What the reader learnt about the rank folder itself (vendor, capture configuration): kept
    #: here so that a result served from the cache tells the folder the same (:func:`adopt`).
    vendor: str | None = None
    config: CaptureConfig | None = None


def adopt(folder: RankFolder, data: RankData) -> None:
    """Make ``data`` (possibly from the cache) describe ``folder``, and the folder what its reader learnt."""
    data.folder = folder
    if data.vendor:
        folder.vendor = data.vendor
    if data.config is not None:
        folder.config = data.config
