"""Analyse what the user dropped, in this process: discover → load (concurrently, cached) → analyse → cluster.

This is the single entry point the CLI (``mfu analyze``) and the GUI call. A rank that
cannot be read is a :class:`~mfu_desktop.core.analysis.rank.RankFailure` with its reason; the others still load.
"""

from __future__ import annotations

from pathlib import Path

from mfu_desktop.core.analysis.aggregates import (
    AnalysisOptions,
)
from mfu_desktop.core.analysis.rank import RankAnalysis, RankFailure, analyze_rank
from mfu_desktop.core.chips.catalog import ChipCatalog, default_catalog
from mfu_desktop.core.cluster import documents as summary
from mfu_desktop.core.cluster.folder import FolderAnalysis, cluster_summary
from mfu_desktop.core.cluster.rank_document import rank_document
from mfu_desktop.core.progress import Progress, check
from mfu_desktop.core.readers.base import adopt
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.store.analysis_cache import read_analysis, write_analysis
from mfu_desktop.core.store.cache import analysis_key, cache_key
from mfu_desktop.core.store.ranks import load_ranks


def analyze_paths(
    paths: list[Path | str],
    options: AnalysisOptions | None = None,
    catalog: ChipCatalog | None = None,
    progress: Progress | None = None,
    use_cache: bool = True,
) -> FolderAnalysis:
    """Analyse everything under the dropped paths.

    Args:
        paths: Folders (or files) the user dropped.
        options: Chip choice and conventions.
        catalog: Chip catalog (default: shipped + user).
        progress: Progress/cancel callbacks.
        use_cache: Use and fill the per-user parse cache.

    Raises:
        UnknownChipError: When ``options.chip`` names no catalog row.
        Cancelled: When cancelled through ``progress``.
    """
    options = options or AnalysisOptions()
    catalog = catalog or default_catalog()
    if options.chip:
        catalog.find(options.chip)  # fail early on a typo, before any parsing
    if progress is not None:
        progress.set_progress(0.0, "looking for rank folders")
    found = discover(list(paths))
    check(progress)
    results: dict[int, RankAnalysis | RankFailure] = {}
    keys: dict[int, str] = {}
    if use_cache:
        for i, folder in enumerate(found.ranks):
            keys[i] = analysis_key(folder, options, catalog)
            cached = read_analysis(keys[i])
            if isinstance(cached, RankAnalysis):
                adopt(folder, cached.data)
                cached.data.from_cache = True
                results[i] = cached
    pending = [i for i in range(len(found.ranks)) if i not in results]
    loaded = load_ranks([found.ranks[i] for i in pending], use_cache=use_cache, progress=progress)
    for n, (i, data) in enumerate(zip(pending, loaded)):
        check(progress)
        try:
            result = analyze_rank(data, options, catalog)
        except Exception as exc:  # one broken rank must not stop the others
            result = RankFailure(data.folder, f"analysis failed: {type(exc).__name__}: {exc}")
        results[i] = result
        if use_cache and isinstance(result, RankAnalysis) and i in keys and not data.changed_while_read:
            write_analysis(keys[i], cache_key(found.ranks[i]), result, rank_document(result, options.top_n))
        if progress is not None:
            progress.set_progress(0.8 + 0.2 * (n + 1) / max(len(pending), 1), f"analysed {n + 1}/{len(pending)} ranks")
    ranks = [r for i in sorted(results) if isinstance(r := results[i], RankAnalysis)]
    failures = [r for i in sorted(results) if isinstance(r := results[i], RankFailure)]
    warnings = list(found.warnings)
    for failure in failures:
        warnings.append(f"{failure.folder.label}: not analysed — {failure.reason}")
    documents = [rank_document(r, options.top_n) for r in ranks]
    mixed = summary.mixed_chips_warning(documents)
    if mixed:
        warnings.append(mixed)
    return FolderAnalysis(found, ranks, failures, cluster_summary(ranks, found, options, documents), options,
                          warnings, documents)
