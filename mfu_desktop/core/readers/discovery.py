"""Find the ranks in whatever the user dropped (profiler-formats.md §1), by asking the readers.

A dropped path may be a cluster root with dozens of rank folders, one rank folder, an
``ASCEND_PROFILER_OUTPUT`` folder, a ``PROF_*`` msprof folder, a single ``kernel_details.csv``
or a folder of PyTorch profiler traces: the registered readers (:mod:`mfu_desktop.core.readers`)
say which. The walk is bounded in depth, never loops on symlinks and never leaves a dropped folder
through one; it reads regular files only. The rank id comes from
the files (``profiler_info_{rank}.json`` / ``rank_id``, the database, ``info.json``, a trace's
``distributedInfo``) — never from a folder name.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from mfu_desktop.core.readers.base import Discovery, RankFolder
from mfu_desktop.core.readers.files import (
    describe_error,
    is_folder,
    is_regular_file,
    list_dir_or_reason,
    not_regular,
    safe_is_dir,
    within,
)
from mfu_desktop.core.readers.records import MAX_RANK_ID, valid_rank_id
from mfu_desktop.core.readers.registry import ENRICHERS, READERS, looked_for, reader_named

#: How deep below a dropped folder rank folders are looked for (cluster/job/node/rank …).
MAX_DEPTH = 8
#: Folders never worth descending into while looking for ranks.
_SKIP_DIRS = {"FRAMEWORK", "logs", "host", "__pycache__", ".git", "node_modules"}


def discover(paths: list[Path | str] | Path | str, max_depth: int = MAX_DEPTH) -> Discovery:
    """Find every rank under the dropped paths, asking the registered readers.

    One bad path or folder never stops the others: a folder that cannot be listed is a failed
    rank, a link that leads out of the dropped folder is not followed, a file that is not a
    regular file (a FIFO would block the read) is left out, and a reader that fails on one
    path is a warning naming it.

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
        if not _discover_root(root, max_depth, visited, result):
            continue
        if len(result.ranks) == before:
            result.warnings.append(
                f"no profiler ranks found in {root} (looked {max_depth} levels deep for {looked_for()})"
            )
    for rank in result.ranks:
        _complete(rank, result)
    _warn_duplicates(result)
    result.ranks.sort(key=lambda r: (r.rank is None, r.rank if r.rank is not None else 0, str(r.path)))
    for n, rank in enumerate(r for r in result.ranks if r.rank is None):
        rank.placeholder = -1 - n
    return result


def _discover_root(root: Path, max_depth: int, visited: set[tuple[int, int]], result: Discovery) -> bool:
    """Add the ranks of one dropped path; ``False`` when the path is not a folder to look in (warned)."""
    if not os.path.lexists(root):
        result.warnings.append(f"{root} does not exist")
        return False
    if is_regular_file(root):
        found = _asked(result, root, lambda: next((r for reader in READERS if (r := reader.ranks_in_file(root))),
                                                  None))
        if found:
            result.ranks.extend(found)
        elif found is not _FAILED:
            result.warnings.append(
                f"{root.name} is a file, not a profiler folder: open the folder that holds the *_ascend_pt "
                "rank folders (or one of them), or a PyTorch profiler trace (*.pt.trace.json[.gz])"
            )
        return False
    if not is_folder(root):
        result.warnings.append(f"{root} is neither a folder nor a regular file ({not_regular(root)}): not read")
        return False
    escapes: list[str] = []
    _walk(root, root, root.resolve(), 0, max_depth, visited, result, escapes)
    if escapes:
        result.warnings.append(f"{len(escapes)} link(s) under {root} lead outside it and were not followed: "
                               + ", ".join(escapes[:5]) + (" …" if len(escapes) > 5 else ""))
    return True


#: What :func:`_asked` returns when the reader failed (the failure is already a warning).
_FAILED = object()


def _asked(result: Discovery, path: Path, ask):
    """``ask()``, or :data:`_FAILED` with a warning naming ``path`` when a reader raises on it."""
    try:
        return ask()
    except Exception as exc:  # one unreadable path must not stop the others
        result.warnings.append(f"{path} cannot be read ({describe_error(exc)}): skipped")
        return _FAILED


def _complete(rank: RankFolder, result: Discovery) -> None:
    """The rank's id and its enrichers' side files, then only the files it may read (regular, inside its root)."""
    if rank.unreadable is None:
        _asked(result, rank.path, lambda: reader_named(rank.reader).resolve_rank(rank))
        if rank.rank is not None and valid_rank_id(rank.rank) is None:  # one gate for every reader's evidence
            rank.problems.append(f"rank id {str(rank.rank)[:24]} ({rank.rank_origin}) is not a rank id (beyond "
                                 f"{MAX_RANK_ID:,}): the rank is shown without one")
            rank.rank, rank.rank_origin = None, "unknown"
        for enricher in ENRICHERS:  # side files an enricher reads (memory): inputs of the rank
            find = getattr(enricher, "find_files", None)
            if find is not None:
                _asked(result, rank.path, lambda find=find: find(rank))
    confine_files(rank)


def confine_files(rank: RankFolder) -> None:
    """Leave out of ``rank.files`` what is not a regular file or leads out of the dropped folder (``rank.left_out``).

    The dropped path itself is always read (the user chose it, links included); everything found
    below a dropped folder must resolve inside it.
    """
    root = rank.root
    boundary = (root if is_folder(root) else rank.path).resolve()
    for role, paths in list(rank.files.items()):
        kept = []
        for path in paths:
            if not is_regular_file(path):
                rank.left_out.append(f"{path.name} is not a regular file ({not_regular(path)}): not read")
            elif path != root and not within(path, boundary):
                rank.left_out.append(f"{path.name} links outside {root}: not read")
            else:
                kept.append(path)
        if kept:
            rank.files[role] = kept
        else:
            rank.files.pop(role)


def _warn_duplicates(result: Discovery) -> None:
    """One warning per rank id found in several folders."""
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


def _walk(path: Path, root: Path, boundary: Path, depth: int, max_depth: int, visited: set[tuple[int, int]],
          result: Discovery, escapes: list[str]) -> None:
    """Ask the readers about ``path``, then descend into its folders that stay inside ``boundary``."""
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
        ranks = _asked(result, path, lambda reader=reader: reader.ranks_in_dir(path, root))
        if ranks and ranks is not _FAILED:
            result.ranks.extend(ranks)
            if reader.claims_folder:
                return
    if any(_asked(result, path, lambda reader=reader: reader.is_cluster_output(path)) is True for reader in READERS):
        result.cluster_dirs.append(path)
        return
    if depth >= max_depth:
        return
    entries, reason = list_dir_or_reason(path)
    if reason is not None:  # a folder that cannot be listed: one failed rank, the others go on
        result.ranks.append(RankFolder(path=path, root=root, producer="unknown", reader="",
                                       unreadable=f"{path} cannot be listed ({reason})"))
        return
    for entry in entries:
        if entry.name in _SKIP_DIRS or entry.name.startswith("."):
            continue
        if not safe_is_dir(entry):
            continue
        if entry.is_symlink() and not within(entry.path, boundary):
            escapes.append(entry.name)
            continue
        _walk(Path(entry.path), root, boundary, depth + 1, max_depth, visited, result, escapes)
