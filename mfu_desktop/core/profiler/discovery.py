"""Find the rank folders in whatever the user dropped (profiler-formats.md §1).

A dropped path may be a cluster root with dozens of ``*_ascend_pt`` folders, one rank folder,
an ``ASCEND_PROFILER_OUTPUT`` folder, a ``PROF_*`` msprof folder, or a single
``kernel_details.csv``. The walk is bounded in depth and never loops on symlinks. The rank id
comes from ``profiler_info_{rank}.json`` / ``rank_id``, the database or ``info.json`` — never
from a folder name.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from mfu_desktop.core.profiler.info import CaptureConfig, load_json, parse_profiler_info, rank_from_info_name

#: How deep below a dropped folder rank folders are looked for (cluster/job/node/rank …).
MAX_DEPTH = 8
#: Folders never worth descending into while looking for ranks.
_SKIP_DIRS = {"FRAMEWORK", "logs", "host", "__pycache__", ".git", "node_modules"}

OUTPUT_DIR = "ASCEND_PROFILER_OUTPUT"
MSPROF_OUTPUT_DIR = "mindstudio_profiler_output"
CLUSTER_DIR = "cluster_analysis_output"

_DB_NAME = re.compile(r"^(ascend_pytorch_profiler|ascend_mindspore_profiler)(?:_(\d+))?\.db$")
_MSPROF_DB = re.compile(r"^msprof_\d+.*\.db$")
_OP_SUMMARY = re.compile(r"^op_summary_(?:slice_(\d+)_)?.*\.csv$")
_INFO_JSON = re.compile(r"^info\.json\.\d+$")


@dataclass
class RankFolder:
    """One rank's capture and the files found in it.

    Attributes:
        path: The rank folder (``*_ascend_pt``, ``*_ascend_ms`` or ``PROF_*``).
        root: The dropped path it was found under.
        producer: ``torch_npu``, ``mindspore`` or ``msprof``.
        kernel_csvs: ``kernel_details.csv``, or ``op_summary_*.csv`` slices (concatenated).
        db: The profiler SQLite export, if any.
        analysis_db: ``analysis.db`` (step trace and communication in the db export).
        rank: Rank id, or ``None`` when nothing says it.
        rank_origin: Where the rank id came from.
        analyse_done: Whether the ``analyse.done`` marker exists.
        problems: Per-rank messages (unreadable info file, …).
    """

    path: Path
    root: Path
    producer: str
    output_dir: Path | None = None
    kernel_csvs: list[Path] = field(default_factory=list)
    db: Path | None = None
    analysis_db: Path | None = None
    step_trace: Path | None = None
    comm_matrix: Path | None = None
    profiler_info: Path | None = None
    metadata: Path | None = None
    device_infos: list[Path] = field(default_factory=list)
    analyse_done: bool = False
    rank: int | None = None
    rank_origin: str = "unknown"
    config: CaptureConfig = field(default_factory=CaptureConfig)
    problems: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Short display name: ``rank 3 (node1_123_ascend_pt)``."""
        rank = f"rank {self.rank}" if self.rank is not None else "rank ?"
        return f"{rank} ({self.path.name})"

    def input_files(self) -> list[Path]:
        """Every file this rank's analysis reads (for cache keys and read-only checks)."""
        files = [*self.kernel_csvs, self.db, self.analysis_db, self.step_trace, self.comm_matrix,
                 self.profiler_info, self.metadata, *self.device_infos]
        return [f for f in files if f is not None]


@dataclass
class Discovery:
    """Everything found under the dropped paths."""

    roots: list[Path]
    ranks: list[RankFolder] = field(default_factory=list)
    cluster_dirs: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _scandir(path: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _torch_rank(path: Path, root: Path, output: Path) -> RankFolder:
    producer = "mindspore" if path.name.endswith("_ascend_ms") else "torch_npu"
    rank = RankFolder(path=path, root=root, producer=producer, output_dir=output)
    for entry in _scandir(output):
        name = entry.name
        p = Path(entry.path)
        if name == "kernel_details.csv":
            rank.kernel_csvs = [p]
        elif _DB_NAME.match(name):
            rank.db = p
        elif name == "analysis.db":
            rank.analysis_db = p
        elif name == "step_trace_time.csv":
            rank.step_trace = p
        elif name == "communication_matrix.json":
            rank.comm_matrix = p
        elif name == "analyse.done":
            rank.analyse_done = True
    for entry in _scandir(path):
        name = entry.name
        if name.startswith("profiler_info") and name.endswith(".json") and rank.profiler_info is None:
            rank.profiler_info = Path(entry.path)
        elif name == "profiler_metadata.json":
            rank.metadata = Path(entry.path)
        elif name == "analyse.done":
            rank.analyse_done = True
        elif name.startswith("PROF_") and _is_dir(entry):
            prof = _msprof_files(Path(entry.path))
            rank.device_infos.extend(prof["infos"])
            if not rank.kernel_csvs and prof["op_summary"]:
                rank.kernel_csvs = prof["op_summary"]
    return rank


def _msprof_files(prof: Path) -> dict[str, list[Path]]:
    """Files of a ``PROF_*`` folder: device info.json.N, op_summary CSVs, msprof db."""
    out: dict[str, list[Path]] = {"infos": [], "op_summary": [], "db": []}
    for entry in _scandir(prof):
        p = Path(entry.path)
        if entry.name.startswith("device_") and _is_dir(entry):
            out["infos"].extend(Path(e.path) for e in _scandir(p) if _INFO_JSON.match(e.name))
        elif entry.name == MSPROF_OUTPUT_DIR and _is_dir(entry):
            slices: list[tuple[int, Path]] = []
            singles: list[Path] = []
            for e in _scandir(p):
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


def _msprof_rank(prof: Path, root: Path) -> RankFolder:
    files = _msprof_files(prof)
    rank = RankFolder(path=prof, root=root, producer="msprof",
                      output_dir=prof / MSPROF_OUTPUT_DIR if (prof / MSPROF_OUTPUT_DIR).is_dir() else None)
    rank.kernel_csvs = files["op_summary"]
    rank.db = files["db"][0] if files["db"] else None
    rank.device_infos = files["infos"]
    return rank


def _db_rank(db: Path) -> tuple[int | None, str | None]:
    """Rank from ``RANK_DEVICE_MAP`` (−1 = unknown); never raises."""
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)
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


def _resolve_rank(rank: RankFolder) -> None:
    if rank.profiler_info is not None:
        data, problem = load_json(rank.profiler_info)
        if problem:
            rank.problems.append(problem)
        rank.config = parse_profiler_info(data)
        if rank.config.rank_id is not None:
            rank.rank, rank.rank_origin = rank.config.rank_id, f"{rank.profiler_info.name} rank_id"
            return
        from_name = rank_from_info_name(rank.profiler_info)
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


def discover(paths: list[Path | str], max_depth: int = MAX_DEPTH) -> Discovery:
    """Find every rank folder under the dropped paths.

    Args:
        paths: Folders (or a kernel_details.csv / .db file) the user dropped.
        max_depth: How many folder levels below each path to search.

    Returns:
        The ranks (sorted by rank id), cluster_analysis_output folders, and warnings for
        anything that was not a profile (a file, a folder without ranks, duplicate ranks).
    """
    roots = [Path(p).expanduser() for p in paths]
    result = Discovery(roots=roots)
    visited: set[tuple[int, int]] = set()
    for root in roots:
        before = len(result.ranks)
        if not root.exists():
            result.warnings.append(f"{root} does not exist")
            continue
        if root.is_file():
            if root.name == "kernel_details.csv" or _DB_NAME.match(root.name):
                output = root.parent
                rank_dir = output.parent if output.name == OUTPUT_DIR else output
                result.ranks.append(_torch_rank(rank_dir, root, output))
            else:
                result.warnings.append(
                    f"{root.name} is a file, not a profiler folder: open the folder that holds the *_ascend_pt "
                    "rank folders (or one of them)"
                )
            continue
        _walk(root, root, 0, max_depth, visited, result)
        if len(result.ranks) == before:
            result.warnings.append(
                f"no profiler ranks found in {root} (looked {max_depth} levels deep for *_ascend_pt/"
                "ASCEND_PROFILER_OUTPUT, PROF_*/mindstudio_profiler_output or kernel_details.csv)"
            )
    for rank in result.ranks:
        _resolve_rank(rank)
    by_rank: dict[int, list[RankFolder]] = defaultdict(list)
    for rank in result.ranks:
        if rank.rank is not None:
            by_rank[rank.rank].append(rank)
    for rank_id, folders in sorted(by_rank.items()):
        if len(folders) > 1:
            result.warnings.append(
                f"rank {rank_id} appears in {len(folders)} folders ({', '.join(f.path.name for f in folders)}): "
                "re-runs? All are loaded; compare their capture times"
            )
    result.ranks.sort(key=lambda r: (r.rank is None, r.rank if r.rank is not None else 0, str(r.path)))
    return result


def _walk(path: Path, root: Path, depth: int, max_depth: int, visited: set[tuple[int, int]],
          result: Discovery) -> None:
    try:
        st = path.stat()
    except OSError as exc:
        result.warnings.append(f"{path} cannot be read ({exc.strerror or exc})")
        return
    key = (st.st_dev, st.st_ino)
    if key in visited:  # a symlink loop or a folder reached twice
        return
    visited.add(key)
    if path.name == OUTPUT_DIR:
        result.ranks.append(_torch_rank(path.parent, root, path))
        return
    if path.name == MSPROF_OUTPUT_DIR and path.parent.name.startswith("PROF_"):
        result.ranks.append(_msprof_rank(path.parent, root))
        return
    if (path / OUTPUT_DIR).is_dir():
        result.ranks.append(_torch_rank(path, root, path / OUTPUT_DIR))
        return
    if path.name.startswith("PROF_") and ((path / MSPROF_OUTPUT_DIR).is_dir() or any(
        e.name.startswith("device_") for e in _scandir(path)
    )):
        rank = _msprof_rank(path, root)
        if rank.kernel_csvs or rank.db:
            result.ranks.append(rank)
        return
    if path.name == CLUSTER_DIR:
        result.cluster_dirs.append(path)
        return
    if (path / "kernel_details.csv").is_file():  # a renamed output folder
        result.ranks.append(_torch_rank(path, root, path))
        return
    if depth >= max_depth:
        return
    for entry in _scandir(path):
        if entry.name in _SKIP_DIRS or entry.name.startswith("."):
            continue
        if _is_dir(entry):
            _walk(Path(entry.path), root, depth + 1, max_depth, visited, result)
