"""Which files are memory files: light (no pandas), discovery lists folders with it."""

from __future__ import annotations

import re
from pathlib import Path

from mfu_desktop.core.readers.files import list_dir, safe_is_file

#: Role → file-name stem of msprof's memory files.
STEMS = {"memory_record": "memory_record", "operator_memory": "operator_memory", "npu_module_mem": "npu_module_mem",
         "npu_mem": "npu_mem", "static_op_mem": "static_op_mem"}
_FILE = re.compile(r"^(memory_record|operator_memory|npu_module_mem|npu_mem|static_op_mem)_(?:slice_(\d+)_)?.*\.csv$")


def msprof_memory_files(folder: Path) -> dict[str, list[Path]]:
    """The memory files of a ``mindstudio_profiler_output`` folder by role, slices in order."""
    slices: dict[str, list[tuple[int, str, Path]]] = {}
    singles: dict[str, list[Path]] = {}
    for entry in list_dir(folder):
        m = _FILE.match(entry.name)
        if not m or not safe_is_file(entry):
            continue
        role = m.group(1)
        if m.group(2) is not None:
            slices.setdefault(role, []).append((int(m.group(2)), entry.name, Path(entry.path)))
        else:
            singles.setdefault(role, []).append(Path(entry.path))
    out: dict[str, list[Path]] = {}
    for role in STEMS:
        if slices.get(role):
            out[role] = [p for _, _, p in sorted(slices[role])]
        elif singles.get(role):
            out[role] = [sorted(singles[role])[-1]]
    return out
