"""Memory files of msprof's text output (``PROF_*/mindstudio_profiler_output``; profiler-formats.md §14).

``memory_record_*.csv``, ``operator_memory_*.csv``, ``npu_module_mem_*.csv``, ``npu_mem_*.csv`` and
``static_op_mem_*.csv``: the columns of the Ascend text export, in KB. A long capture is cut in
``<name>_slice_<N>_<time>.csv`` files, concatenated here in slice order; without slices the latest
file of a name is read (msprof keeps one per export). Reading is :func:`.ascend_text.memory_from_files`.
"""

from __future__ import annotations

from pathlib import Path

from mfu_desktop.core.readers.memory.ascend_text import memory_from_files
from mfu_desktop.core.readers.memory.files import msprof_memory_files
from mfu_desktop.core.readers.memory.records import MemoryData

__all__ = ["msprof_memory_files", "read_msprof_memory"]

def read_msprof_memory(files: dict[str, list[Path]], where: str, profile_memory: bool | None) -> MemoryData:
    """Msprof's memory files (slices concatenated) as :class:`MemoryData`."""
    md = memory_from_files(files, where, profile_memory)
    sliced = [role for role, paths in files.items() if len(paths) > 1]
    if sliced and md.reason is None:
        md.notes.append(f"{', '.join(sliced)}: {max(len(files[r]) for r in sliced)} slices concatenated")
    return md
