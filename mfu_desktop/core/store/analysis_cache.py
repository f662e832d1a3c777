"""Cached analyses: small on disk, quick to reopen (the window), and a document the command line prints from.

Per analysis (key: :func:`mfu_desktop.core.store.cache.analysis_key`):

* ``.arrow`` — only the columns the analysis added to the kernels (FLOPs, MFU, status …); the
  kernels themselves are the rank's cached frame (``ranks/<rank key>.arrow``), written once
  per rank whatever the options;
* ``.pkl`` — the rest of the analysis (tables of a few hundred rows, summary, chip);
* ``.json`` — the rank document (:func:`mfu_desktop.core.cluster.rank_document.rank_document`).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import pandas as pd

from mfu_desktop.core.store.cache import entry, read_pickle, touch, write_atomic, write_document, write_pickle
from mfu_desktop.core.store.frames import read_frame, write_frame
from mfu_desktop.core.store.ranks import cache_read as read_rank

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.rank import RankAnalysis


def write_analysis(key: str, rank_key: str, result: RankAnalysis, document: dict) -> None:
    """Cache an analysis (failures are silent: the cache is optional)."""
    raw = result.data.kernels
    added = [c for c in result.kernels.columns if raw is None or c not in raw.columns]
    if not write_atomic(entry(key, "analysis", ".arrow"), lambda p: write_frame(result.kernels[added], p)):
        return
    rest = copy.copy(result)
    rest.kernels = None  # type: ignore[assignment]
    rest.data = copy.copy(result.data)
    rest.data.kernels = None
    rest.__dict__["_cache"] = {"rank_key": rank_key, "columns": list(result.kernels.columns)}
    if write_pickle(key, "analysis", rest):
        write_document(key, document)


def read_analysis(key: str) -> RankAnalysis | None:
    """A cached analysis with its kernels rebuilt (rank frame + added columns), or ``None`` — whatever is damaged."""
    try:
        return _read_analysis(key)
    except Exception:  # a damaged entry is a miss: analysed again, the entry rewritten
        return None


def _read_analysis(key: str) -> RankAnalysis | None:
    rest = read_pickle(key, "analysis")
    meta = getattr(rest, "__dict__", {}).pop("_cache", None) if rest is not None else None
    if not meta:
        return None
    rank = read_rank(meta["rank_key"])
    added_path = entry(key, "analysis", ".arrow")
    added = read_frame(added_path)
    if rank is None or rank.kernels is None or added is None or len(added) != len(rank.kernels):
        return None
    touch(added_path)
    columns = {c: rank.kernels[c] for c in rank.kernels.columns}
    columns.update({c: added[c] for c in added.columns})
    rest.kernels = pd.DataFrame({c: columns[c] for c in meta["columns"] if c in columns}, copy=False)
    rest.data.kernels = rank.kernels
    return rest
