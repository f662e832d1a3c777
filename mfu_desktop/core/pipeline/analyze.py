"""Analyse what the user dropped, in this process: discover → load (concurrently, cached) → analyse → cluster.

This is the single entry point the CLI (``mfu analyze``) and the GUI call. A rank that
cannot be read is a :class:`~mfu_desktop.core.analysis.rank.RankFailure` with its reason; the others still load.
"""

from __future__ import annotations

from pathlib import Path

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.analysis.rank import RankAnalysis, RankFailure, analyze_rank
from mfu_desktop.core.chips.catalog import ChipCatalog, default_catalog
from mfu_desktop.core.cluster import documents as summary
from mfu_desktop.core.cluster.folder import FolderAnalysis, cluster_summary
from mfu_desktop.core.cluster.rank_document import rank_document
from mfu_desktop.core.progress import Progress, check
from mfu_desktop.core.readers.base import RankFolder, adopt
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
    keys: dict[int, str] = {}
    results: dict[int, RankAnalysis | RankFailure] = {}
    if use_cache:
        keys, results = _cached_results(found.ranks, options, catalog)
    _analyse_pending(found.ranks, results, keys, options, catalog, progress, use_cache)
    ranks = [r for i in sorted(results) if isinstance(r := results[i], RankAnalysis)]
    failures = [r for i in sorted(results) if isinstance(r := results[i], RankFailure)]
    documents = [rank_document(r, options.top_n) for r in ranks]
    warnings = _folder_warnings(found.warnings, failures, documents)
    return FolderAnalysis(found, ranks, failures, cluster_summary(ranks, found, options, documents), options,
                          warnings, documents)


def _cached_results(folders: list[RankFolder], options: AnalysisOptions,
                    catalog: ChipCatalog) -> tuple[dict[int, str], dict[int, RankAnalysis | RankFailure]]:
    """The analysis cache key of every rank folder, and the analyses the cache already holds.

    Args:
        folders: The rank folders found, in order.
        options: The analysis options (part of the key).
        catalog: The chip catalog (part of the key).

    Returns:
        ``(keys, results)``, both by position in ``folders``; a cached rank is marked as read from the cache.
    """
    keys: dict[int, str] = {}
    results: dict[int, RankAnalysis | RankFailure] = {}
    for i, folder in enumerate(folders):
        keys[i] = analysis_key(folder, options, catalog)
        cached = read_analysis(keys[i])
        if isinstance(cached, RankAnalysis):
            adopt(folder, cached.data)
            cached.data.from_cache = True
            results[i] = cached
    return keys, results


def _analyse_pending(folders: list[RankFolder], results: dict[int, RankAnalysis | RankFailure],
                     keys: dict[int, str], options: AnalysisOptions, catalog: ChipCatalog,
                     progress: Progress | None, use_cache: bool) -> None:
    """Load and analyse the ranks not in ``results`` (in place), and cache the new analyses.

    A rank whose analysis raises becomes a :class:`RankFailure`: one broken rank must not stop the others.

    Args:
        folders: The rank folders found, in order.
        results: Analyses by position in ``folders``; filled in place.
        keys: Analysis cache keys by position (empty without the cache).
        options: The analysis options.
        catalog: The chip catalog.
        progress: Progress/cancel callbacks.
        use_cache: Use and fill the per-user parse cache.

    Raises:
        Cancelled: When cancelled through ``progress``.
    """
    pending = [i for i in range(len(folders)) if i not in results]
    loaded = load_ranks([folders[i] for i in pending], use_cache=use_cache, progress=progress)
    for n, (i, data) in enumerate(zip(pending, loaded)):
        check(progress)
        try:
            result = analyze_rank(data, options, catalog)
        except Exception as exc:  # one broken rank must not stop the others
            result = RankFailure(data.folder, f"analysis failed: {type(exc).__name__}: {exc}")
        results[i] = result
        if use_cache and isinstance(result, RankAnalysis) and i in keys and not data.changed_while_read:
            write_analysis(keys[i], cache_key(folders[i]), result, rank_document(result, options.top_n))
        if progress is not None:
            progress.set_progress(0.8 + 0.2 * (n + 1) / max(len(pending), 1), f"analysed {n + 1}/{len(pending)} ranks")


def _folder_warnings(found_warnings: list[str], failures: list[RankFailure],
                     documents: list[dict[str, object]]) -> list[str]:
    """The folder's warnings: discovery's, one per rank not analysed, and mixed chips across ranks."""
    warnings = list(found_warnings)
    for failure in failures:
        warnings.append(f"{failure.folder.label}: not analysed — {failure.reason}")
    mixed = summary.mixed_chips_warning(documents)
    if mixed:
        warnings.append(mixed)
    return warnings
