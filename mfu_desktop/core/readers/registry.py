"""The registry of profiler readers: the one list of formats MFU Desktop reads.

Each reader is one module (:mod:`.ascend`, :mod:`.kineto` …) with a class that follows
:class:`~mfu_desktop.core.readers.base.Reader`. Discovery asks every reader, in this order,
whether a folder or a dropped file is one of its ranks; the loader asks a rank's reader to read
it, then every :data:`ENRICHERS` entry that applies adds what other sources record (MSTX marks, memory).
An enricher with a ``find_files(folder)`` method adds its files to each discovered rank.
**Adding a format** is one new module and one line in :data:`READERS` (or :data:`ENRICHERS`).
"""

from __future__ import annotations

from mfu_desktop.core.readers.ascend.reader import AscendTorchReader, MsprofReader
from mfu_desktop.core.readers.base import Enricher, Reader
from mfu_desktop.core.readers.kineto.reader import KinetoReader
from mfu_desktop.core.readers.memory.enricher import MemoryEnricher
from mfu_desktop.core.readers.mstx.enricher import MstxEnricher

#: Every reader, asked in this order (the first that recognises a folder wins).
READERS: tuple[Reader, ...] = (
    AscendTorchReader(),
    MsprofReader(),
    KinetoReader(),
)

#: Enrichment readers, run in this order after a rank's reader.
ENRICHERS: tuple[Enricher, ...] = (
    MstxEnricher(),
    MemoryEnricher(),
)


def reader_named(name: str) -> Reader:
    """The registered reader called ``name``.

    Raises:
        KeyError: When no reader has that name.
    """
    for reader in READERS:
        if reader.name == name:
            return reader
    raise KeyError(f"no reader named {name!r}")


def looked_for() -> str:
    """What discovery looks for, for the "no profiler ranks found" message."""
    return ", ".join(r.looks_for for r in READERS)
