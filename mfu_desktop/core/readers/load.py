"""Read one rank with its registered reader, leave out impossible kernels, then run every enricher that applies."""

from __future__ import annotations

from mfu_desktop.core.readers.base import RankData, RankFolder
from mfu_desktop.core.readers.files import fingerprint
from mfu_desktop.core.readers.kernel_checks import screen_kernels
from mfu_desktop.core.readers.registry import ENRICHERS, reader_named


def read_rank(folder: RankFolder) -> RankData:
    """Read ``folder``: every failure becomes ``error`` or ``problems`` on the result, never an exception.

    ``changed_while_read`` says whether an input file changed during the read (such a result
    must not be cached).
    """
    data = RankData(folder=folder, problems=[*folder.problems, *folder.left_out])
    inputs_before = fingerprint(folder.input_files())
    try:
        reader = reader_named(folder.reader)
    except KeyError:
        data.error = folder.unreadable or f"no reader for {folder.path} ({folder.reader or 'unknown format'})"
        return data
    if folder.unreadable:
        data.error = folder.unreadable
        return data
    reader.read(folder, data)
    if data.kernels is not None:
        data.kernels, left_out = screen_kernels(data.kernels)
        if left_out:
            data.problems.append(left_out)
    for enricher in ENRICHERS:
        if data.error is None and enricher.applies(folder, data):
            enricher.enrich(folder, data)
    if data.error is not None and folder.left_out:  # why the file the error misses was not read
        data.error += " (" + "; ".join(folder.left_out) + ")"
    data.raw.clear()  # hand-overs between a reader and its enrichers are never cached
    data.changed_while_read = fingerprint(folder.input_files()) != inputs_before
    return data
