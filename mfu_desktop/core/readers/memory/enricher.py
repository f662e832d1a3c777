"""The memory enricher the registry knows: finds a rank's memory files, then reads the right source.

* Discovery (:meth:`MemoryEnricher.find_files`): the Ascend text export's four files in the
  rank's output folder, else msprof's ``*_N.csv`` files in ``mindstudio_profiler_output`` — they
  become the rank's input files (so the cache and the "changed while read" check cover them).
* Reading (:meth:`MemoryEnricher.enrich`): the text files first (:mod:`.ascend_text`,
  :mod:`.msprof_text`), else the database tables (:mod:`.db`); a trace's ``[memory]`` events
  (:mod:`.kineto`), handed over by the Kineto reader. Every rank gets a :class:`MemoryData`:
  the data, or the reason there is none ("no memory data: capture with profile_memory=True").

Light: the registry imports this module during discovery; pandas is imported to read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.core.readers.files import list_dir, safe_is_dir, safe_is_file

if TYPE_CHECKING:
    from mfu_desktop.core.readers.base import RankData, RankFolder

#: Roles of :attr:`RankFolder.files` this enricher adds (text files of either layout).
ROLES = ("memory_record", "operator_memory", "npu_module_mem", "static_op_mem", "npu_mem")
_TEXT_NAMES = {"memory_record.csv": "memory_record", "operator_memory.csv": "operator_memory",
               "npu_module_mem.csv": "npu_module_mem", "static_op_mem.csv": "static_op_mem"}
_MSPROF_DIR = "mindstudio_profiler_output"


def _msprof_dirs(folder: RankFolder) -> list[Path]:
    out = []
    if folder.output_dir is not None and folder.output_dir.name == _MSPROF_DIR:
        out.append(folder.output_dir)
    if folder.path.is_dir():
        for entry in list_dir(folder.path):
            if entry.name.startswith("PROF_") and safe_is_dir(entry):
                candidate = Path(entry.path) / _MSPROF_DIR
                if candidate.is_dir():
                    out.append(candidate)
            elif entry.name == _MSPROF_DIR and safe_is_dir(entry):
                out.append(Path(entry.path))
    return list(dict.fromkeys(out))


class MemoryEnricher:
    """Enrichment reader: the memory a rank's capture recorded (profile_memory=True)."""

    name = "memory"

    def find_files(self, folder: RankFolder) -> None:
        """Add the rank's memory files to ``folder.files`` (discovery; lists a folder or two, reads nothing)."""
        if folder.reader == "kineto":
            return
        if folder.output_dir is not None and folder.output_dir.is_dir():
            found = {}
            for entry in list_dir(folder.output_dir):
                role = _TEXT_NAMES.get(entry.name)
                if role and safe_is_file(entry):
                    found[role] = [Path(entry.path)]
            if found:
                folder.files.update(found)
                return
        from mfu_desktop.core.readers.memory.files import msprof_memory_files

        for where in _msprof_dirs(folder):
            found = msprof_memory_files(where)
            if found:
                folder.files.update(found)
                return

    def applies(self, folder: RankFolder, data: RankData) -> bool:
        """Every rank that was read: those without memory data get the reason."""
        return data.error is None

    def enrich(self, folder: RankFolder, data: RankData) -> None:
        """Set ``data.memory`` (the data or why there is none); bad input becomes a problem, never an exception."""
        try:
            data.memory = self._read(folder, data)
        except Exception as exc:  # a broken memory file must not lose the rank's kernels
            from mfu_desktop.core.readers.memory.records import CAPTURE_HINT, missing

            data.memory = missing(f"no memory data: the memory files could not be read ({type(exc).__name__}: "
                                  f"{exc}; {CAPTURE_HINT} and check the files)")
        data.problems.extend(data.memory.problems)
        data.raw.pop("kineto_memory", None)

    def _read(self, folder: RankFolder, data: RankData):
        profile_memory = folder.config.profile_memory if folder.config is not None else None
        if folder.reader == "kineto":
            from mfu_desktop.core.readers.memory.kineto import read_trace_memory

            return read_trace_memory(data.raw.get("kineto_memory"))
        files = {role: folder.files[role] for role in ROLES if folder.files.get(role)}
        text = None
        if files:
            first = next(iter(files.values()))[0]
            where = first.parent.name
            if first.name in _TEXT_NAMES:
                from mfu_desktop.core.readers.memory.ascend_text import memory_from_files

                text = memory_from_files(files, where, profile_memory)
            else:
                from mfu_desktop.core.readers.memory.msprof_text import read_msprof_memory

                text = read_msprof_memory(files, where, profile_memory)
            if text.reason is None or folder.db is None:
                return text
        if folder.db is not None:
            from mfu_desktop.core.readers.memory.db import read_db_memory

            db = read_db_memory(folder.db, profile_memory)
            if db.reason is None or text is None:
                if text is not None:
                    db.notes.append(f"the text memory files are unusable ({text.reason}): read from the database")
                return db
            return text
        from mfu_desktop.core.readers.memory.ascend_text import no_memory_reason

        where = folder.output_dir.name if folder.output_dir is not None else folder.path.name
        return _missing(no_memory_reason(profile_memory, f"no memory_record.csv or operator_memory.csv in {where}"))


def _missing(reason: str):
    from mfu_desktop.core.readers.memory.records import missing

    return missing(reason)
