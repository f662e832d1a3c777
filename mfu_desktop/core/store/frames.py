"""Kernel frames on disk: Arrow IPC files with LZ4 compression, memory-mapped on read.

A million-kernel frame (99 MB in memory) is ~41 MB on disk, written in ~0.08 s and read back
in ~0.07 s (categoricals stay dictionary-encoded, nullable integers and float32 keep their
types). Used by the cache for parsed ranks and for the annotation columns of analyses.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.ipc as ipc

_OBJECT_CATEGORIES = b"mfu_desktop.object_categories"
#: Rows converted and written at once.
BATCH_ROWS = 1 << 17
#: Compression of cached frames (LZ4: fast both ways; zstd is 20 % smaller but 2–5× slower to read).
COMPRESSION = "lz4"


def write_frame(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` (index dropped) as an Arrow IPC file, :data:`BATCH_ROWS` rows at a time.

    Converting in batches keeps the extra memory to one batch (a whole-frame Arrow copy would
    double the peak while a million-kernel rank is being cached).

    Raises:
        OSError: When the file cannot be written.
        pyarrow.ArrowException: When a column cannot be converted.
    """
    schema = pa.Schema.from_pandas(frame.iloc[:0], preserve_index=False)
    object_categories = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)
                         and frame[c].cat.categories.dtype == object]
    metadata = dict(schema.metadata or {})
    metadata[_OBJECT_CATEGORIES] = json.dumps(object_categories).encode()
    schema = schema.with_metadata(metadata)
    options = ipc.IpcWriteOptions(compression=COMPRESSION)
    with pa.OSFile(str(path), "wb") as sink, ipc.new_file(sink, schema, options=options) as writer:
        for start in range(0, max(len(frame), 1), BATCH_ROWS):
            batch = frame.iloc[start:start + BATCH_ROWS]
            writer.write_batch(pa.RecordBatch.from_pandas(batch, schema=schema, preserve_index=False))


def read_frame(path: Path) -> pd.DataFrame | None:
    """A frame written by :func:`write_frame`, or ``None`` when missing or unreadable."""
    try:
        with pa.memory_map(str(path)) as source:
            table = ipc.open_file(source).read_all()
            frame = table.to_pandas(split_blocks=True)
        object_categories = json.loads((table.schema.metadata or {}).get(_OBJECT_CATEGORIES, b"[]"))
    except Exception:  # damaged (OSError, ArrowException, ValueError, …): a miss
        return None
    for column in object_categories:  # categories exactly as written (object text, not Arrow-backed strings)
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype) and values.cat.categories.dtype != object:
            frame[column] = pd.Categorical.from_codes(values.cat.codes.to_numpy(),
                                                      pd.Index(values.cat.categories.astype(object), dtype=object),
                                                      validate=False)
    return frame
