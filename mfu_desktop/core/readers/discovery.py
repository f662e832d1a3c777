"""Find the ranks in whatever the user dropped (profiler-formats.md §1), by asking the readers.

A dropped path may be a cluster root with dozens of rank folders, one rank folder, an
``ASCEND_PROFILER_OUTPUT`` folder, a ``PROF_*`` msprof folder, a single ``kernel_details.csv``
or a folder of PyTorch profiler traces: the registered readers (:mod:`mfu_desktop.core.readers`)
say which. The walk is bounded in depth and never loops on symlinks. The rank id comes from
the files (``profiler_info_{rank}.json`` / ``rank_id``, the database, ``info.json``, a trace's
``distributedInfo``) — never from a folder name.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from mfu_desktop.core.readers.base import Discovery, RankFolder
from mfu_desktop.core.readers.files import list_dir, safe_is_dir
from mfu_desktop.core.readers.registry import ENRICHERS, READERS, looked_for, reader_named

#: How deep below a dropped folder rank folders are looked for (cluster/job/node/rank …).
MAX_DEPTH = 8
#: Folders never worth descending into while looking for ranks.
_SKIP_DIRS = {"FRAMEWORK", "logs", "host", "__pycache__", ".git", "node_modules"}


def discover(paths: list[Path | str] | Path | str, max_depth: int = MAX_DEPTH) -> Discovery:
    """Find every rank under the dropped paths, asking the registered readers.

    Args:
        paths: Folders or files the user dropped (or one of them).
        max_depth: How many folder levels below each path to search.

    Returns:
        The ranks (sorted by rank id), cluster-level output folders, and warnings for
        anything that was not a profile (a file, a folder without ranks, duplicate ranks).
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    roots = [Path(p).expanduser() for p in paths]
    result = Discovery(roots=roots)
    visited: set[tuple[int, int]] = set()
    for root in roots:
        before = len(result.ranks)
        if not root.exists():
            result.warnings.append(f"{root} does not exist")
            continue
        if root.is_file():
            found = next((r for reader in READERS if (r := reader.ranks_in_file(root))), None)
            if found:
                result.ranks.extend(found)
            else:
                result.warnings.append(
                    f"{root.name} is a file, not a profiler folder: open the folder that holds the *_ascend_pt "
                    "rank folders (or one of them), or a PyTorch profiler trace (*.pt.trace.json[.gz])"
                )
            continue
        _walk(root, root, 0, max_depth, visited, result)
        if len(result.ranks) == before:
            result.warnings.append(
                f"no profiler ranks found in {root} (looked {max_depth} levels deep for {looked_for()})"
            )
    for rank in result.ranks:
        reader_named(rank.reader).resolve_rank(rank)
        for enricher in ENRICHERS:  # side files an enricher reads (memory): inputs of the rank
            find = getattr(enricher, "find_files", None)
            if find is not None:
                find(rank)
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
    for n, rank in enumerate(r for r in result.ranks if r.rank is None):
        rank.placeholder = -1 - n
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
    for reader in READERS:
        ranks = reader.ranks_in_dir(path, root)
        if ranks:
            result.ranks.extend(ranks)
            if reader.claims_folder:
                return
    if any(reader.is_cluster_output(path) for reader in READERS):
        result.cluster_dirs.append(path)
        return
    if depth >= max_depth:
        return
    for entry in list_dir(path):
        if entry.name in _SKIP_DIRS or entry.name.startswith("."):
            continue
        if safe_is_dir(entry):
            _walk(Path(entry.path), root, depth + 1, max_depth, visited, result)
