"""The bytes of a profiler's CSV as the parser should see them: NUL padding cut, the file's encoding found.

A file preallocated or cut while it was written ends in NUL bytes (gigabytes of them, at
worst): fed to the CSV parser they are one giant field that takes twice their size in memory
and fails the whole file. :func:`open_table` hands the parser only the bytes before the
padding (memory-mapped: nothing is copied) and says how much was ignored.

Encodings are decided per file, never from the header alone: torch_npu writes UTF-8, a
spreadsheet on a Chinese Windows saves GBK, and an ASCII header says nothing about the
operator names below it. :func:`decode_table_bytes` takes UTF-8 when the bytes are UTF-8,
GB18030 (a superset of GBK) when they are that and most of what is beyond ASCII is not UTF-8,
and otherwise UTF-8 with the bad bytes replaced (said so).
"""

from __future__ import annotations

import io
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

#: Bytes read at a time while looking for where the NUL padding starts.
_TAIL_CHUNK = 1 << 20


@dataclass
class TableSource:
    """What to hand to the CSV parser for one file.

    Attributes:
        path: The file.
        size: Bytes the parser reads (the file without its NUL padding).
        source: The file itself, or its bytes (a memory-mapped slice, or re-encoded text).
        encoding: ``utf-8``, ``gb18030`` or ``utf-8 (bad bytes replaced)``.
        notes: What was done to the bytes, for the rank's problems.
    """

    path: Path
    size: int
    source: Path | pa.BufferReader | io.BytesIO
    encoding: str = "utf-8"
    notes: list[str] = field(default_factory=list)

    def data(self) -> bytes:
        """The bytes the parser sees (read on demand: for messages and re-encoding only)."""
        if isinstance(self.source, io.BytesIO):
            return self.source.getvalue()
        with self.path.open("rb") as fh:
            return fh.read(self.size)

    def rewind(self) -> None:
        """Make the source readable again from its start (a second parse)."""
        if isinstance(self.source, (io.BytesIO, pa.BufferReader)):
            self.source.seek(0)

    def recode(self, encoding: str | None = None) -> bool:
        """Re-encode the bytes as UTF-8 when they are not (``encoding`` forced, or found); ``True`` when it did."""
        raw = self.data()
        if encoding is None:
            text, encoding = decode_table_bytes(raw)
        else:
            text = raw.decode(encoding, errors="replace")
        if encoding == "utf-8":
            return False
        self.source = io.BytesIO(text.encode("utf-8"))
        self.size = len(self.source.getbuffer())
        self.encoding = encoding
        what = "decoded as GB18030 (GBK)" if encoding == "gb18030" else "has bytes that are not UTF-8 (replaced)"
        self.notes.append(f"{self.path.name} {what}")
        return True


def open_table(path: Path) -> TableSource:
    """The source of a CSV file without its trailing NUL padding.

    Raises:
        OSError: When the file cannot be read, or is not a regular file (a FIFO would block).
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(0, "not a regular file (a FIFO, socket or device)")
    end = data_end(path, st.st_size)
    out = TableSource(path, end, path)
    if end < st.st_size:
        out.source = pa.BufferReader(pa.memory_map(str(path)).read_buffer(end)) if end else io.BytesIO(b"")
        out.notes.append(f"{path.name} ends with {st.st_size - end:,} NUL bytes (preallocated, or cut while it "
                         "was written): ignored")
    return out


def data_end(path: Path, size: int) -> int:
    """Where a file's trailing NUL bytes start (its size when it has none); reads only the padding."""
    with path.open("rb") as fh:
        end = size
        while end > 0:
            start = max(0, end - _TAIL_CHUNK)
            fh.seek(start)
            chunk = fh.read(end - start).rstrip(b"\x00")
            if chunk:
                return start + len(chunk)
            end = start
    return 0


def decode_table_bytes(raw: bytes) -> tuple[str, str]:
    """A file's text and its encoding: ``utf-8``, ``gb18030``, or ``utf-8 (bad bytes replaced)``.

    GB18030 is taken only when the bytes decode as it and more of the text beyond ASCII is damaged
    than decodes as UTF-8 (GBK bytes form a valid UTF-8 character now and then): a UTF-8 file with
    a damaged byte stays UTF-8, with that byte replaced.
    """
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    replaced = raw.decode("utf-8-sig", errors="replace")
    bad = replaced.count("\ufffd")
    beyond_ascii = len(replaced) - len(replaced.encode("ascii", errors="ignore"))
    if bad > beyond_ascii - bad:  # more damage than characters: not UTF-8 at all (GBK bytes decode by chance)
        try:
            return raw.decode("gb18030"), "gb18030"
        except UnicodeDecodeError:
            pass
    return replaced, "utf-8 (bad bytes replaced)"
