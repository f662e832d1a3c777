"""What every reader shares: a discovered rank (:class:`RankFolder`) and the :class:`Reader` protocol.

A reader is one module that knows one family of profiler files. It says which folders or
files it recognises and, for one rank, fills the canonical frames (kernels, step trace,
communication, device evidence) of a :class:`RankData`. Discovery
asks the registered readers (:mod:`~mfu_desktop.core.readers.registry`); nothing else knows file names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from mfu_desktop.core.readers.records import CaptureConfig

if TYPE_CHECKING:
    import pandas as pd

    from mfu_desktop.core.readers.records import CommMatrix, DbExtras, DeviceInfo, MemoryData, ParallelGroups
    from mfu_desktop.core.readers.step_trace import StepTrace


@dataclass
class RankFolder:
    """One rank's capture and the files found for it.

    Attributes:
        path: The rank (a ``*_ascend_pt`` / ``PROF_*`` folder, or a trace file).
        root: The dropped path it was found under.
        producer: ``torch_npu``, ``mindspore``, ``msprof``, ``kineto`` …
        reader: Name of the registered reader that reads it.
        vendor: ``Huawei``, ``NVIDIA``, ``AMD`` or ``GPU`` (until the trace names it).
        files: The rank's input files by role (a reader's own vocabulary).
        rank: Rank id, or ``None`` when nothing says it.
        rank_origin: Where the rank id came from.
        placeholder: The id shown while ``rank`` is ``None`` (-1, -2, … in discovery order, so two
            ranks without ids stay apart in every table).
        analyse_done: Whether the producer's "finished" marker exists (Ascend ``analyse.done``).
        config: Capture configuration, when the producer records it.
        problems: Per-rank messages (unreadable info file, a file left out, …).
        unreadable: Why the rank cannot be read at all (a folder that cannot be listed), else ``None``.
        left_out: Files found and not read, with why (not a regular file, a link out of the dropped folder).
    """

    path: Path
    root: Path
    producer: str
    reader: str = ""
    vendor: str = "Huawei"
    output_dir: Path | None = None
    files: dict[str, list[Path]] = field(default_factory=dict)
    analyse_done: bool = False
    rank: int | None = None
    rank_origin: str = "unknown"
    placeholder: int = -1
    config: CaptureConfig = field(default_factory=CaptureConfig)
    problems: list[str] = field(default_factory=list)
    unreadable: str | None = None
    left_out: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Short display name: ``rank 3 (node1_123_ascend_pt)``."""
        rank = f"rank {self.rank}" if self.rank is not None else "rank ?"
        return f"{rank} ({self.path.name})"

    def file(self, role: str) -> Path | None:
        """The (first) file of a role, or ``None``."""
        paths = self.files.get(role)
        return paths[0] if paths else None

    def set_file(self, role: str, path: Path | None) -> None:
        """Record the file of a role (``None`` removes it)."""
        if path is None:
            self.files.pop(role, None)
        else:
            self.files[role] = [path]

    def input_files(self) -> list[Path]:
        """Every file this rank's analysis reads (for cache keys and read-only checks)."""
        return [p for paths in self.files.values() for p in paths]

    # --- the Ascend readers' roles (read-only views, kept for the code that inspects a rank) ---
    @property
    def kernel_csvs(self) -> list[Path]:
        """``kernel_details.csv`` or the ``op_summary_*.csv`` slices."""
        return list(self.files.get("kernel_csv", []))

    @property
    def db(self) -> Path | None:
        """The profiler SQLite export."""
        return self.file("db")

    @property
    def analysis_db(self) -> Path | None:
        """``analysis.db`` (step trace and communication of the db export)."""
        return self.file("analysis_db")

    @property
    def step_trace(self) -> Path | None:
        """``step_trace_time.csv``."""
        return self.file("step_trace")

    @property
    def comm_matrix(self) -> Path | None:
        """``communication_matrix.json``."""
        return self.file("comm_matrix")

    @property
    def profiler_info(self) -> Path | None:
        """``profiler_info_{rank}.json``."""
        return self.file("profiler_info")

    @property
    def metadata(self) -> Path | None:
        """``profiler_metadata.json``."""
        return self.file("metadata")

    @property
    def device_infos(self) -> list[Path]:
        """``PROF_*/device_*/info.json.*``."""
        return list(self.files.get("device_info", []))


@dataclass
class Discovery:
    """Everything found under the dropped paths."""

    roots: list[Path]
    ranks: list[RankFolder] = field(default_factory=list)
    cluster_dirs: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class Reader(Protocol):
    """One family of profiler files (see the module docstring)."""

    #: Registry name, stored in :attr:`RankFolder.reader`.
    name: str
    #: Words the "no profiler ranks found" message lists for this reader.
    looks_for: str
    #: True when a folder holding this reader's ranks is the rank (the walk stops there);
    #: False when the ranks are files beside other things (the walk goes on below).
    claims_folder: bool

    def ranks_in_dir(self, path: Path, root: Path) -> list[RankFolder] | None:
        """The ranks this folder is (or directly holds); ``None`` when it is not this reader's.

        Returning ranks stops the walk below ``path`` when :attr:`claims_folder` is true.
        """

    def ranks_in_file(self, path: Path) -> list[RankFolder] | None:
        """The rank a dropped file is, or ``None`` when the file is not this reader's."""

    def is_cluster_output(self, path: Path) -> bool:
        """True for a folder of whole-cluster results written beside the ranks."""

    def resolve_rank(self, folder: RankFolder) -> None:
        """Set ``folder.rank`` and ``rank_origin`` from the reader's evidence (never from folder names)."""

    def read(self, folder: RankFolder, data: RankData) -> None:
        """Fill ``data`` (kernels, step trace, communication, device evidence).

        Failures become ``data.error`` or ``data.problems``, never exceptions.
        """


class Enricher(Protocol):
    """Adds what another source records to a rank its reader has read (MSTX marks, …)."""

    #: Registry name.
    name: str

    def applies(self, folder: RankFolder, data: RankData) -> bool:
        """True when this rank has what the enricher reads."""

    def enrich(self, folder: RankFolder, data: RankData) -> None:
        """Add columns to ``data.kernels`` and notes/problems to ``data``; never raises."""


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
    #: The capture's memory data, or why there is none (the memory enricher, :mod:`.memory`); ``None``: not read.
    memory: MemoryData | None = None
    #: What a reader hands to an enricher (a trace's ``[memory]`` events): consumed by it, never cached.
    raw: dict[str, object] = field(default_factory=dict)


def adopt(folder: RankFolder, data: RankData) -> None:
    """Make ``data`` (possibly from the cache) describe ``folder``, and the folder what its reader learnt."""
    data.folder = folder
    if data.vendor:
        folder.vendor = data.vendor
    if data.config is not None:
        folder.config = data.config
