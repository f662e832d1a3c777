"""Reading one Ascend rank: kernels (text export first, else the database), step trace, communication, device info."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mfu_desktop.core.readers.ascend.communication import read_comm_matrix, read_comm_matrix_db
from mfu_desktop.core.readers.ascend.info import load_json, parse_device_info, parse_metadata
from mfu_desktop.core.readers.ascend.kernels_csv import KernelFileError, KernelTable, read_kernel_csvs
from mfu_desktop.core.readers.ascend.kernels_db import read_kernel_db
from mfu_desktop.core.readers.files import fingerprint
from mfu_desktop.core.readers.step_trace import read_step_trace_csv, read_step_trace_db

if TYPE_CHECKING:
    from mfu_desktop.core.readers.base import RankData, RankFolder


def _read_kernels(folder: RankFolder, data: RankData) -> KernelTable | None:
    """Text export first (it has cube_utilization and every column), the database otherwise."""
    errors: list[str] = []
    if folder.kernel_csvs:
        try:
            table = read_kernel_csvs(folder.kernel_csvs)
            note = f"kernels from {table.source}"
            if folder.db is not None:
                note += f" (the db export {folder.db.name} is also present and not used: never both)"
            data.kernel_source = note
            return table
        except KernelFileError as exc:
            errors.append(str(exc))
    if folder.db is not None:
        try:
            table, extras = read_kernel_db(folder.db)
            data.db_extras = extras
            data.device_name = extras.npu_name
            note = f"kernels from {folder.db.name}"
            if errors:
                note += " (text export unusable: " + "; ".join(errors) + ")"
            data.kernel_source = note
            return table
        except KernelFileError as exc:
            errors.append(str(exc))
    if not errors:
        errors.append("no kernel_details.csv, op_summary_*.csv or profiler .db in this folder")
    data.error = "; ".join(errors)
    return None


def read_ascend(folder: RankFolder, data: RankData) -> None:
    """Kernels, step trace, communication matrix, info.json and metadata of one Ascend rank."""
    before = fingerprint(folder.kernel_csvs)
    table = _read_kernels(folder, data)
    if table is not None:
        _take_kernels(table, data)
    _note_incomplete(folder, data, before)
    _read_step_trace(folder, data)
    _read_communication(folder, data)
    _read_device_files(folder, data)


def _take_kernels(table: KernelTable, data: RankData) -> None:
    """Store the kernel table's frame, missing columns and problems in the rank's data."""
    data.kernels = table.frame
    data.missing_columns = table.missing_columns
    data.problems.extend(table.problems)
    if table.frame.empty:
        data.problems.append(f"{table.source} has no kernel rows")


def _note_incomplete(folder: RankFolder, data: RankData, before: list[tuple[str, int, int]]) -> None:
    """Say when the kernel files changed while read, or the profiler's ``analyse.done`` marker is absent.

    Args:
        folder: The rank folder.
        data: The rank's data; its ``incomplete`` list is extended.
        before: The kernel files' fingerprint taken before they were read.
    """
    if fingerprint(folder.kernel_csvs) != before:
        data.incomplete.append(f"{', '.join(p.name for p in folder.kernel_csvs)} changed while it was read: the "
                               "profiler may still be writing; figures are from a partial file")
    if folder.producer != "msprof" and not folder.analyse_done:
        data.incomplete.append("analyse.done marker absent: the profiler may not have finished parsing, or the "
                               "folder was copied/trimmed")


def _read_step_trace(folder: RankFolder, data: RankData) -> None:
    """The step trace from its CSV, else from ``analysis.db``, and its problems."""
    if folder.step_trace is not None:
        data.step_trace = read_step_trace_csv(folder.step_trace)
    elif folder.analysis_db is not None:
        data.step_trace = read_step_trace_db(folder.analysis_db)
    if data.step_trace is not None:
        data.problems.extend(data.step_trace.problems)


def _read_communication(folder: RankFolder, data: RankData) -> None:
    """The communication matrix from its JSON, else from ``analysis.db`` (none when that is empty), and its problems."""
    if folder.comm_matrix is not None:
        data.comm = read_comm_matrix(folder.comm_matrix)
    elif folder.analysis_db is not None:
        data.comm = read_comm_matrix_db(folder.analysis_db)
    if data.comm is not None and data.comm.layout == "empty" and folder.comm_matrix is None:
        data.comm = None  # Level0 analysis.db has no matrix: not a problem worth reporting
    if data.comm is not None:
        data.problems.extend(data.comm.problems)


def _read_device_files(folder: RankFolder, data: RankData) -> None:
    """The devices' ``info.json`` files and the profiler metadata (parallel groups), and their problems."""
    for info_path in folder.device_infos:
        parsed, problem = load_json(info_path)
        info = parse_device_info(parsed, info_path)
        if info is not None:
            data.device_infos.append(info)
        if problem:
            data.problems.append(problem)
    if folder.metadata is not None:
        parsed, problem = load_json(folder.metadata)
        data.groups = parse_metadata(parsed)
        if problem:
            data.problems.append(problem)
