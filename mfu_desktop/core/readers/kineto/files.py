"""Which files are PyTorch profiler (Kineto) traces, and opening them (gzip or not): light, no numpy."""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

#: File names written by the PyTorch profiler (any name with a Kineto body is accepted too).
TRACE_NAME = re.compile(r"\.pt\.trace\.json(\.gz)?$")
#: Other JSON files are read when their head looks like a Kineto trace.
JSON_NAME = re.compile(r"\.json(\.gz)?$")
#: How much of a file's (decompressed) head is sniffed for the Kineto markers.
SNIFF_BYTES = 1 << 18


def open_text(path: Path) -> io.TextIOBase:
    """A trace file as text, gzip or not (decided by its magic bytes, not its name)."""
    raw = path.open("rb")
    head = raw.read(2)
    raw.seek(0)
    stream = gzip.GzipFile(fileobj=raw) if head == b"\x1f\x8b" else raw
    return io.TextIOWrapper(stream, encoding="utf-8", errors="replace")


def sniff(path: Path) -> bool:
    """True when the file's head looks like a Kineto/Chrome trace."""
    try:
        with open_text(path) as fh:
            head = fh.read(SNIFF_BYTES)
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeError):
        return False
    return head.lstrip().startswith("{") and ('"traceEvents"' in head or '"deviceProperties"' in head
                                             or '"schemaVersion"' in head)


def is_trace_file(path: Path) -> bool:
    """A ``*.pt.trace.json[.gz]`` name, or a ``*.json[.gz]`` whose head looks like a Kineto trace."""
    if TRACE_NAME.search(path.name):
        return True
    return bool(JSON_NAME.search(path.name)) and sniff(path)
