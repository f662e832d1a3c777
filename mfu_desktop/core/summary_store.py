"""Cluster summaries on disk: a versioned folder of rank documents, Parquet tables and a JSON manifest.

Layout of a summary folder::

    manifest.json          format, version, options, roots, and per rank: id, path, key (inputs +
                           options), status (ok / failed / cancelled) and the reason of a failure
    ranks/<key>.json       one rank document per summarised rank (mfu_desktop.core.summary_tables)
    ranks.parquet          one row per rank (the cluster table)
    steps.parquet          per rank and step: the step breakdown
    by_type.parquet        per rank and operator type
    by_shape.parquet       per rank, type and input shapes (the longest 200 per rank)
    hot.parquet            per rank: the top operators by time and by lost time
    excluded.parquet       per rank: what was excluded from FLOPs-based MFU, and why
    collectives.parquet    per rank, step and collective: longest-link transit time and size

The documents are the source of truth (the command line and the window read them); the Parquet
tables are the same data in columns, for pandas, DuckDB or a spreadsheet. The manifest is
written last, so a summary interrupted while being written keeps its previous manifest. Rank
documents are keyed by their inputs and options, so summaries merge and a re-run reuses every
rank whose files did not change.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mfu_desktop import __version__
from mfu_desktop.core.cache import write_atomic
from mfu_desktop.core.summary import DOCUMENT_VERSION, folder_document

SUMMARY_FORMAT = "mfu-desktop-summary"
#: Bump when the folder layout or the documents change incompatibly (an old summary is then re-made).
SUMMARY_VERSION = 1
MANIFEST = "manifest.json"
DOCUMENTS = "ranks"


class SummaryError(ValueError):
    """A folder that is not a readable summary (the message says why)."""


@dataclass
class RankEntry:
    """One rank of a summary: where it came from, its key, and its document (or why there is none)."""

    rank: int | None
    path: str
    key: str
    status: str  # ok | failed | cancelled
    reason: str = ""
    document: dict[str, Any] | None = None

    def manifest_row(self) -> dict[str, Any]:
        """The rank's line in the manifest."""
        return {"rank": self.rank, "path": self.path, "key": self.key, "status": self.status, "reason": self.reason}


@dataclass
class Summary:
    """A summary folder, read."""

    root: Path
    manifest: dict[str, Any]
    entries: list[RankEntry] = field(default_factory=list)

    @property
    def documents(self) -> list[dict[str, Any]]:
        """The documents of the summarised ranks, sorted by rank id."""
        docs = [e.document for e in self.entries if e.status == "ok" and e.document is not None]
        return sorted(docs, key=lambda d: (d["rank"] < 0, d["rank"]))

    @property
    def failed(self) -> list[RankEntry]:
        """Ranks that could not be summarised (failed or cancelled)."""
        return [e for e in self.entries if e.status != "ok"]

    def folder_document(self) -> dict[str, Any]:
        """The folder document the command line prints (as for an analysed folder)."""
        failed = [{"path": e.path, "rank": e.rank, "reason": e.reason or e.status} for e in self.failed]
        warnings = [f"rank {e.rank if e.rank is not None else '?'} ({Path(e.path).name}): not summarised — "
                    f"{e.reason or e.status}" for e in self.failed]
        m = self.manifest
        return folder_document([str(self.root)], self.documents, failed, [*m.get("warnings", []), *warnings],
                               m.get("conventions", []), int(m.get("top_n", 10)))


def is_summary(path: Path) -> bool:
    """True for a folder with a summary manifest."""
    manifest = Path(path) / MANIFEST
    if not manifest.is_file():
        return False
    try:
        with manifest.open(encoding="utf-8") as fh:
            return json.load(fh).get("format") == SUMMARY_FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def read_manifest(root: Path) -> dict[str, Any]:
    """The manifest of a summary folder.

    Raises:
        SummaryError: When it is missing, unreadable, or of another format or version.
    """
    path = Path(root) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SummaryError(f"{path} cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise SummaryError(f"{path} is not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != SUMMARY_FORMAT:
        raise SummaryError(f"{root} is not an MFU Desktop summary (no {SUMMARY_FORMAT} manifest)")
    if manifest.get("version") != SUMMARY_VERSION:
        raise SummaryError(f"{root} is a summary of format version {manifest.get('version')}, this MFU Desktop reads "
                           f"version {SUMMARY_VERSION}: run mfu summarize again")
    return manifest


def read_summary(root: Path) -> Summary:
    """A summary folder: manifest and the rank documents it lists.

    A listed document that is missing or unreadable turns its rank into a failed one (said so).

    Raises:
        SummaryError: When the folder is not a readable summary.
    """
    root = Path(root)
    manifest = read_manifest(root)
    entries = []
    for row in manifest.get("ranks", []):
        entry = RankEntry(row.get("rank"), str(row.get("path", "")), str(row.get("key", "")),
                          str(row.get("status", "failed")), str(row.get("reason", "")))
        if entry.status == "ok":
            doc = _read_document(root / DOCUMENTS / f"{entry.key}.json")
            if doc is None:
                entry.status = "failed"
                entry.reason = f"its document {DOCUMENTS}/{entry.key}.json is missing or damaged"
            entry.document = doc
        entries.append(entry)
    return Summary(root, manifest, entries)


def _read_document(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("document_version") == DOCUMENT_VERSION else None


def write_summary(root: Path, entries: list[RankEntry], roots: list[str], options: dict[str, Any],
                  conventions: list[str], top_n: int, warnings: list[str]) -> Path:
    """Write (or update) a summary folder; documents first, the manifest last.

    Args:
        root: The summary folder (created).
        entries: Every rank, with its document when summarised (documents already on disk under
            the same key are not rewritten).
        roots: The profiler folders summarised.
        options: The analysis options (their key and text) — a summary holds one option set.
        conventions: The conventions text (stamped in every report).
        top_n: Rows of the hot-operator lists.
        warnings: Discovery warnings.

    Returns:
        The manifest's path.

    Raises:
        OSError: When the folder cannot be written.
    """
    root = Path(root)
    docs_dir = root / DOCUMENTS
    docs_dir.mkdir(parents=True, exist_ok=True)
    keep = set()
    for e in entries:
        if e.status == "ok" and e.document is not None:
            keep.add(f"{e.key}.json")
            path = docs_dir / f"{e.key}.json"
            if not path.exists():
                text = json.dumps(e.document, ensure_ascii=False, allow_nan=False)
                if not write_atomic(path, lambda p, t=text: p.write_text(t, encoding="utf-8"), shared=True):
                    raise OSError(f"cannot write {path}")
    _write_tables(root, [e.document for e in entries if e.status == "ok" and e.document is not None])
    manifest = {
        "format": SUMMARY_FORMAT, "version": SUMMARY_VERSION, "written_by": f"MFU Desktop {__version__}",
        "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "roots": roots, "options": options,
        "conventions": conventions, "top_n": top_n, "warnings": warnings,
        "ranks": [e.manifest_row() for e in entries],
    }
    path = root / MANIFEST
    text = json.dumps(manifest, ensure_ascii=False, indent=1)
    if not write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"), shared=True):
        raise OSError(f"cannot write {path}")
    for stale in docs_dir.glob("*.json"):  # documents of ranks no longer listed (changed files)
        if stale.name not in keep:
            try:
                stale.unlink()
            except OSError:
                pass
    return path


def _write_tables(root: Path, docs: list[dict[str, Any]]) -> None:
    """The Parquet tables (see the module docstring), one row per rank and item."""
    import pandas as pd  # only when writing: reading a summary for the command line needs no pandas

    from mfu_desktop.core.summary import cluster_rows

    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in
                                               ("steps", "by_type", "by_shape", "hot", "excluded", "collectives")}
    for d in docs:
        rank = {"rank": d["rank"]}
        tables["steps"] += [{**rank, **row} for row in d.get("step_rows", [])]
        tables["by_type"] += [{**rank, **row} for row in d.get("by_type", [])]
        tables["by_shape"] += [{**rank, **row} for row in d.get("by_shape", [])]
        for by in ("hot_by_time", "hot_by_lost"):
            tables["hot"] += [{**rank, "by": by[4:], **row} for row in d.get(by, [])]
        tables["excluded"] += [{**rank, **row} for row in d.get("excluded", [])]
        tables["collectives"] += [{**rank, **row} for row in d.get("collectives", [])]
    frames = {"ranks": pd.DataFrame(cluster_rows(docs, []))}
    frames.update({name: pd.DataFrame(rows) for name, rows in tables.items()})
    for name, frame in frames.items():
        for column in frame.columns:  # mixed None/str or None/number columns: one Arrow type each
            if frame[column].dtype == object:
                frame[column] = frame[column].astype("string")
        path = root / f"{name}.parquet"
        if not write_atomic(path, lambda p, f=frame: f.to_parquet(p, index=False), shared=True):
            raise OSError(f"cannot write {path}")
