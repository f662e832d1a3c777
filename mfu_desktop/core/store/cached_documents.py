"""The command line's cached path: a folder document from cached rank documents, without pandas.

When every rank under the dropped paths has an analysis cached for the same inputs (sizes and
mtimes), options and chip catalog, ``mfu analyze`` prints from the rank documents alone: no
numpy, pandas or pyarrow is imported, so re-opening a rank from the command line costs the
interpreter's start-up plus a few small JSON files. Any missing or stale rank → ``None`` and
the full analysis runs (and refreshes the cache).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.core.cluster.document_schema import document_problem
from mfu_desktop.core.cluster.documents import DOCUMENT_VERSION, folder_document
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.store.cache import analysis_key, read_document

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.chips.catalog import ChipCatalog


def cached_folder_document(paths: list[Path], options: AnalysisOptions, catalog: ChipCatalog) -> dict | None:
    """The folder document of ``paths`` from the cache, or ``None`` when any rank would need analysing."""
    found = discover(list(paths))
    if not found.ranks:
        return None
    documents = []
    for folder in found.ranks:
        doc = read_document(analysis_key(folder, options, catalog))
        if doc is None or doc.get("document_version") != DOCUMENT_VERSION or document_problem(doc) is not None:
            return None  # damaged: analysed again (and the entry rewritten)
        doc.pop("cache_version", None)
        documents.append(doc)
    return folder_document([str(p) for p in found.roots], documents, [], list(found.warnings),
                           options.describe(), options.top_n)
