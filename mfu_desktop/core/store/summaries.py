"""Cluster summaries on disk: a versioned folder of rank documents, Parquet tables and a JSON manifest.

Layout of a summary folder::

    manifest.json          format, version, options, roots, and per rank: id, path, key (inputs +
                           options), status (ok / failed / cancelled) and the reason of a failure
    ranks/<key>.json       one rank document per summarised rank (mfu_desktop.core.pipeline.summary_document)
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
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mfu_desktop import __version__
from mfu_desktop.core.cluster.documents import DOCUMENT_VERSION, folder_document
from mfu_desktop.core.paths import file_mode
from mfu_desktop.core.store.cache import write_atomic

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


def write_document(root: Path, key: str, doc: dict[str, Any]) -> None:
    """Write one rank document (``ranks/<key>.json``) as soon as it arrives; an existing one is kept.

    Raises:
        OSError: When it cannot be written.
    """
    path = Path(root) / DOCUMENTS / f"{key}.json"
    if path.exists():
        return
    text = json.dumps(doc, ensure_ascii=False, allow_nan=False)
    if not write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"), shared=True):
        raise OSError(f"cannot write {path}")


def write_summary(root: Path, entries: list[RankEntry], roots: list[str], options: dict[str, Any],
                  conventions: list[str], top_n: int, warnings: list[str]) -> Path:
    """Write (or update) a summary folder: documents, then the tables, the manifest last.

    Documents not yet on disk (``entry.document`` set) are written; the tables are built by
    reading the documents back :data:`TABLE_CHUNK` ranks at a time, so memory does not grow
    with the number of ranks.

    Args:
        root: The summary folder (created).
        entries: Every rank (its document in memory, or already in ``ranks/``).
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
    ok = [e for e in entries if e.status == "ok"]
    for e in ok:
        if e.document is not None:
            write_document(root, e.key, e.document)
    _write_tables(root, ok)
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
    keep = {f"{e.key}.json" for e in ok}
    for stale in docs_dir.glob("*.json"):  # documents of ranks no longer listed (changed files)
        if stale.name not in keep:
            try:
                stale.unlink()
            except OSError:
                pass
    return path


#: Ranks read back at once while the tables are written.
TABLE_CHUNK = 64
#: Every table's columns: (name, kind) with kind "text", "float", "int" or "bool".
TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "ranks": (("rank", "int"), ("path", "text"), ("chip", "text"), ("mfu_ops", "float"), ("mfu_step", "float"),
              ("mfu_ops_lo", "float"), ("mfu_ops_hi", "float"), ("cube_utilization", "float"), ("tier", "int"),
              ("step_time_us", "float"), ("steps", "int"), ("computing", "float"), ("comm_not_overlapped", "float"),
              ("free", "float"), ("bubble", "float"), ("comm_wait_us", "float"), ("kernels", "int"),
              ("countable_kernels", "int")),
    "steps": (("rank", "int"), ("step", "text"), ("computing", "float"), ("comm_not_overlapped", "float"),
              ("overlapped", "float"), ("communication", "float"), ("free", "float"), ("bubble", "float"),
              ("step_time_us", "float"), ("flops", "float"), ("mfu_step", "float")),
    "by_type": (("rank", "int"), ("type", "text"), ("count", "float"), ("flops", "float"), ("time_us", "float"),
                ("achieved_tflops", "float"), ("mfu", "float")),
    "by_shape": (("rank", "int"), ("type", "text"), ("input_shapes", "text"), ("dtype", "text"), ("count", "float"),
                 ("calls", "float"), ("time_us", "float"), ("flops", "float"), ("mfu", "float"), ("lost_us", "float"),
                 ("status", "text"), ("reason", "text"), ("bytes", "float"), ("achieved_gbs", "float"),
                 ("bw_util", "float"), ("intensity", "float"), ("roof_util", "float"), ("bound", "text")),
    "hot": (("rank", "int"), ("by", "text"), ("type", "text"), ("input_shapes", "text"), ("count", "float"),
            ("time_us", "float"), ("mfu", "float"), ("lost_us", "float"), ("time_share", "float"),
            ("klass", "text"), ("bw_util", "float"), ("roof_util", "float"), ("bound", "text")),
    "excluded": (("rank", "int"), ("type", "text"), ("reason", "text"), ("count", "float"), ("time_us", "float")),
    "collectives": (("rank", "int"), ("step", "text"), ("kind", "text"), ("op", "text"), ("link", "text"),
                    ("transport", "text"), ("transit_time_ms", "float"), ("transit_size_mb", "float")),
}


def _rows_of(doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A document's rows for every table (each row carries the rank)."""
    from mfu_desktop.core.cluster.documents import cluster_rows

    rank = {"rank": doc["rank"]}
    out: dict[str, list[dict[str, Any]]] = {"ranks": cluster_rows([doc], [])}
    out["steps"] = [{**rank, **row} for row in doc.get("step_rows", [])]
    out["by_type"] = [{**rank, **row} for row in doc.get("by_type", [])]
    out["by_shape"] = [{**rank, **row} for row in doc.get("by_shape", [])]
    out["hot"] = [{**rank, "by": by[4:], **row} for by in ("hot_by_time", "hot_by_lost") for row in doc.get(by, [])]
    out["excluded"] = [{**rank, **row} for row in doc.get("excluded", [])]
    out["collectives"] = [{**rank, **row} for row in doc.get("collectives", [])]
    return out


def _cell(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "text":
        return str(value)
    if kind == "bool":
        return bool(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return int(number) if kind == "int" else number


def _write_tables(root: Path, entries: list[RankEntry]) -> None:
    """The Parquet tables, written :data:`TABLE_CHUNK` ranks at a time (a row group per chunk)."""
    import pyarrow as pa  # only when writing: reading a summary for the command line needs neither
    import pyarrow.parquet as pq

    kinds = {"text": pa.string(), "float": pa.float64(), "int": pa.int64(), "bool": pa.bool_()}
    schemas = {name: pa.schema([(c, kinds[k]) for c, k in cols]) for name, cols in TABLES.items()}
    temps = {name: root / f".{name}.parquet.tmp" for name in TABLES}
    writers = {name: pq.ParquetWriter(str(temps[name]), schemas[name]) for name in TABLES}
    try:
        for start in range(0, len(entries), TABLE_CHUNK):
            rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
            for e in entries[start:start + TABLE_CHUNK]:
                doc = e.document or _read_document(root / DOCUMENTS / f"{e.key}.json")
                if doc is None:
                    continue
                for name, items in _rows_of(doc).items():
                    rows[name] += items
            for name, cols in TABLES.items():
                arrays = [pa.array([_cell(r.get(c), k) for r in rows[name]], type=kinds[k]) for c, k in cols]
                writers[name].write_table(pa.Table.from_arrays(arrays, schema=schemas[name]))
    finally:
        for writer in writers.values():
            writer.close()
    for name, temp in temps.items():
        os.chmod(temp, file_mode())
        os.replace(temp, root / f"{name}.parquet")
