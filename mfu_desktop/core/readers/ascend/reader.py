"""Ascend profiler output (profiler-formats.md §1–§10): torch_npu / MindSpore rank folders and msprof ``PROF_*``.

Two readers share this module: :class:`AscendTorchReader` (``*_ascend_pt`` / ``*_ascend_ms``
folders with ``ASCEND_PROFILER_OUTPUT``, or a dropped ``kernel_details.csv`` / profiler
``.db``) and :class:`MsprofReader` (a native ``PROF_*`` capture). Both read the kernels from
the text export (kernel_details / op_summary CSV) or, failing that, the SQLite export — never
both — plus the step trace, the communication matrix, ``info.json`` and the metadata
(:mod:`.ascend_read`). This module only finds the ranks: it imports no numpy/pandas, so that
discovery is light.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.core.readers.ascend.info import load_json, parse_profiler_info
from mfu_desktop.core.readers.ascend.info import rank_from_info_name as _rank_from_info_name
from mfu_desktop.core.readers.base import RankFolder
from mfu_desktop.core.readers.database import open_database
from mfu_desktop.core.readers.files import is_folder, is_regular_file, list_dir, list_dir_or_reason, safe_is_dir

if TYPE_CHECKING:
    from mfu_desktop.core.readers.base import RankData

OUTPUT_DIR = "ASCEND_PROFILER_OUTPUT"
MSPROF_OUTPUT_DIR = "mindstudio_profiler_output"
CLUSTER_DIR = "cluster_analysis_output"
#: Name endings of torch_npu / MindSpore rank folders.
RANK_SUFFIXES = ("_ascend_pt", "_ascend_ms")

_DB_NAME = re.compile(r"^(ascend_pytorch_profiler|ascend_mindspore_profiler)(?:_(\d+))?\.db$")
_MSPROF_DB = re.compile(r"^msprof_\d+.*\.db$")
_OP_SUMMARY = re.compile(r"^op_summary_(?:slice_(\d+)_)?.*\.csv$")
_INFO_JSON = re.compile(r"^info\.json\.\d+$")


# --- discovery ----------------------------------------------------------------------------------


def _msprof_files(prof: Path) -> dict[str, list[Path]]:
    """Files of a ``PROF_*`` folder: device info.json.N, op_summary CSVs, msprof db."""
    out: dict[str, list[Path]] = {"infos": [], "op_summary": [], "db": []}
    for entry in list_dir(prof):
        p = Path(entry.path)
        if entry.name.startswith("device_") and safe_is_dir(entry):
            out["infos"].extend(Path(e.path) for e in list_dir(p) if _INFO_JSON.match(e.name))
        elif entry.name == MSPROF_OUTPUT_DIR and safe_is_dir(entry):
            slices: list[tuple[int, Path]] = []
            singles: list[Path] = []
            for e in list_dir(p):
                m = _OP_SUMMARY.match(e.name)
                if m:
                    (slices.append((int(m.group(1)), Path(e.path))) if m.group(1) else singles.append(Path(e.path)))
                elif _MSPROF_DB.match(e.name):
                    out["db"].append(Path(e.path))
            if slices:
                out["op_summary"] = [p for _, p in sorted(slices)]
            elif singles:
                out["op_summary"] = [sorted(singles)[-1]]
        elif _MSPROF_DB.match(entry.name):
            out["db"].append(p)
    return out


def _listings(path: Path, output: Path) -> tuple[list, list, str | None]:
    """The entries of a rank folder and of its output folder, and why one cannot be listed (``None``: both can)."""
    own, reason = list_dir_or_reason(path)
    if reason is None and is_folder(output) and output != path:
        outputs, reason = list_dir_or_reason(output)
        where = output
    else:
        outputs, where = (own if output == path else []), path
    return own, outputs, (f"{where} cannot be listed ({reason})" if reason is not None else None)


def torch_rank(path: Path, root: Path, output: Path) -> RankFolder:
    """A torch_npu / MindSpore rank folder and the files of its output folder."""
    producer = "mindspore" if path.name.endswith("_ascend_ms") else "torch_npu"
    rank = RankFolder(path=path, root=root, producer=producer, reader=AscendTorchReader.name, output_dir=output)
    own, outputs, rank.unreadable = _listings(path, output)
    for entry in outputs:
        name = entry.name
        p = Path(entry.path)
        if name == "kernel_details.csv":
            rank.files["kernel_csv"] = [p]
        elif _DB_NAME.match(name):
            rank.set_file("db", p)
        elif name == "analysis.db":
            rank.set_file("analysis_db", p)
        elif name == "step_trace_time.csv":
            rank.set_file("step_trace", p)
        elif name == "communication_matrix.json":
            rank.set_file("comm_matrix", p)
        elif name == "analyse.done":
            rank.analyse_done = True
    for entry in own:
        name = entry.name
        if name.startswith("profiler_info") and name.endswith(".json") and rank.profiler_info is None:
            rank.set_file("profiler_info", Path(entry.path))
        elif name == "profiler_metadata.json":
            rank.set_file("metadata", Path(entry.path))
        elif name == "analyse.done":
            rank.analyse_done = True
        elif name.startswith("PROF_") and safe_is_dir(entry):
            prof = _msprof_files(Path(entry.path))
            rank.files.setdefault("device_info", []).extend(prof["infos"])
            if not rank.kernel_csvs and prof["op_summary"]:
                rank.files["kernel_csv"] = prof["op_summary"]
    return rank


def msprof_rank(prof: Path, root: Path) -> RankFolder:
    """A native msprof ``PROF_*`` capture."""
    files = _msprof_files(prof)
    rank = RankFolder(path=prof, root=root, producer="msprof", reader=MsprofReader.name,
                      output_dir=prof / MSPROF_OUTPUT_DIR if is_folder(prof / MSPROF_OUTPUT_DIR) else None)
    if files["op_summary"]:
        rank.files["kernel_csv"] = files["op_summary"]
    rank.set_file("db", files["db"][0] if files["db"] else None)
    if files["infos"]:
        rank.files["device_info"] = files["infos"]
    return rank


def _db_rank(db: Path) -> tuple[int | None, str | None]:
    """Rank from ``RANK_DEVICE_MAP`` (−1 = unknown); never raises."""
    try:
        conn = open_database(db, timeout_s=1.0)
    except sqlite3.Error as exc:
        return None, f"{db.name} cannot be opened ({exc})"
    try:
        row = conn.execute("SELECT rankId FROM RANK_DEVICE_MAP LIMIT 1").fetchone()
    except sqlite3.Error:
        return None, None
    finally:
        conn.close()
    if row and isinstance(row[0], int) and row[0] >= 0:
        return row[0], None
    return None, None


def resolve_ascend_rank(rank: RankFolder) -> None:
    """Rank id: profiler_info ``rank_id``, its file name, the db's ``RANK_DEVICE_MAP``, info.json."""
    if rank.profiler_info is not None:
        data, problem = load_json(rank.profiler_info)
        if problem:
            rank.problems.append(problem)
        rank.config = parse_profiler_info(data)
        if rank.config.rank_id is not None:
            rank.rank, rank.rank_origin = rank.config.rank_id, f"{rank.profiler_info.name} rank_id"
            return
        from_name = _rank_from_info_name(rank.profiler_info)
        if from_name is not None:
            rank.rank, rank.rank_origin = from_name, f"{rank.profiler_info.name} file name"
            return
    if rank.db is not None:
        value, problem = _db_rank(rank.db)
        if problem:
            rank.problems.append(problem)
        if value is not None:
            rank.rank, rank.rank_origin = value, f"{rank.db.name} RANK_DEVICE_MAP"
            return
        m = _DB_NAME.match(rank.db.name)
        if m and m.group(2) is not None:
            rank.rank, rank.rank_origin = int(m.group(2)), f"{rank.db.name} file name"
            return
    for info in rank.device_infos:
        data, _ = load_json(info)
        if isinstance(data, dict) and isinstance(data.get("rank_id"), int) and data["rank_id"] >= 0:
            rank.rank, rank.rank_origin = data["rank_id"], f"{info.name} rank_id"
            return


# --- the readers --------------------------------------------------------------------------------


class AscendTorchReader:
    """torch_npu / MindSpore rank folders (text or db export), or a dropped kernel_details.csv / .db."""

    name = "ascend"
    looks_for = "*_ascend_pt/ASCEND_PROFILER_OUTPUT or kernel_details.csv"
    claims_folder = True

    def ranks_in_dir(self, path: Path, root: Path) -> list[RankFolder] | None:
        if path.name == OUTPUT_DIR:
            return [torch_rank(path.parent, root, path)]
        if is_folder(path / OUTPUT_DIR) or path.name.endswith(RANK_SUFFIXES):
            # a rank folder by its name counts even when empty or unreadable: it is then a failed rank
            return [torch_rank(path, root, path / OUTPUT_DIR)]
        if is_regular_file(path / "kernel_details.csv"):  # a renamed output folder
            return [torch_rank(path, root, path)]
        return None

    def ranks_in_file(self, path: Path) -> list[RankFolder] | None:
        if path.name == "kernel_details.csv" or _DB_NAME.match(path.name):
            output = path.parent
            rank_dir = output.parent if output.name == OUTPUT_DIR else output
            return [torch_rank(rank_dir, path, output)]
        return None

    def is_cluster_output(self, path: Path) -> bool:
        return path.name == CLUSTER_DIR

    def resolve_rank(self, folder: RankFolder) -> None:
        resolve_ascend_rank(folder)

    def read(self, folder: RankFolder, data: RankData) -> None:
        from mfu_desktop.core.readers.ascend.read import read_ascend  # heavy (pyarrow, pandas): only to read

        read_ascend(folder, data)


class MsprofReader:
    """Native msprof ``PROF_*`` captures (op_summary CSV slices or ``msprof_*.db``)."""

    name = "msprof"
    looks_for = "PROF_*/mindstudio_profiler_output"
    claims_folder = True

    def ranks_in_dir(self, path: Path, root: Path) -> list[RankFolder] | None:
        if path.name == MSPROF_OUTPUT_DIR and path.parent.name.startswith("PROF_"):
            return [msprof_rank(path.parent, root)]
        if path.name.startswith("PROF_") and (is_folder(path / MSPROF_OUTPUT_DIR) or any(
                e.name.startswith("device_") for e in list_dir(path))):
            rank = msprof_rank(path, root)
            return [rank] if (rank.kernel_csvs or rank.db) else []
        return None

    def ranks_in_file(self, path: Path) -> list[RankFolder] | None:
        return None

    def is_cluster_output(self, path: Path) -> bool:
        return False

    def resolve_rank(self, folder: RankFolder) -> None:
        resolve_ascend_rank(folder)

    def read(self, folder: RankFolder, data: RankData) -> None:
        from mfu_desktop.core.readers.ascend.read import read_ascend  # heavy (pyarrow, pandas): only to read

        read_ascend(folder, data)
