"""Host (framework) operators of a rank and the kernels each launched, read only when a timeline asks.

The analysis needs no host operator (a kernel's shapes already come with it), so loading a
rank never reads them; a timeline does (the host lanes, "which op launched this kernel"), and
calls :func:`read_host_ops` on the rank's files. Sources (profiler-formats.md §8.3, §13):

* a PyTorch profiler trace: the ``cpu_op`` events, each kernel linked to the op that launched
  it (``External id``, else its launch's correlation) — :mod:`.kineto.host_ops`;
* an Ascend db export: ``PYTORCH_API`` operator rows (type 50001), linked to their device tasks
  through ``CONNECTION_IDS`` and ``TASK.connectionId`` — :mod:`.ascend.host_ops_db`.

A text export (``kernel_details.csv``) has no host operators with times (``operator_details.csv``
has durations only; ``trace_view.json`` is not read): its timeline has device lanes alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from mfu_desktop.core.readers.base import RankFolder
    from mfu_desktop.core.readers.host_records import HostOps


def read_host_ops(folder: RankFolder, kernels: pd.DataFrame) -> HostOps | None:
    """The host operators of a rank (see the module docstring), or ``None`` when its files have none.

    Never raises for bad input: an unreadable source gives ``None`` or ops with a note.

    Args:
        folder: The rank's folder (its files by role).
        kernels: The rank's kernel frame (rows the ops are linked to).
    """
    if folder.file("trace") is not None:
        from mfu_desktop.core.readers.kineto.host_ops import trace_host_ops

        return trace_host_ops(folder.file("trace"), kernels)
    if folder.db is not None:
        from mfu_desktop.core.readers.ascend.host_ops_db import db_host_ops

        return db_host_ops(folder.db, kernels)
    return None
