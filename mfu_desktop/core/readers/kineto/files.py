"""Which files are PyTorch profiler (Kineto) traces, and opening them (gzip or not): light, no numpy."""

from __future__ import annotations

import gzip
import io
import re
import zlib
from enum import Enum
from pathlib import Path
from typing import BinaryIO

#: File names written by the PyTorch profiler (any name with a Kineto body is accepted too).
TRACE_NAME = re.compile(r"\.pt\.trace\.json(\.gz)?$")
#: Other JSON files are read when their head looks like a Kineto trace.
JSON_NAME = re.compile(r"\.json(\.gz)?$")
#: How much of a file's (decompressed) head is sniffed for the Kineto markers.
SNIFF_BYTES = 1 << 18
#: What reading a trace file can raise: the file system, a cut or corrupt gzip stream, bad text.
READ_ERRORS = (OSError, EOFError, zlib.error, UnicodeError)


def open_binary(path: Path) -> BinaryIO:
    """A trace file's (decompressed) bytes, streamed: gzip or not is decided by its magic bytes, not its name."""
    raw = path.open("rb")
    try:
        head = raw.read(2)
        raw.seek(0)
    except OSError:
        raw.close()
        raise
    return gzip.GzipFile(fileobj=raw) if head == b"\x1f\x8b" else raw  # type: ignore[return-value]


def open_text(path: Path) -> io.TextIOBase:
    """A trace file as text, gzip or not (undecodable bytes replaced)."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace")  # type: ignore[arg-type]


def read_error(exc: BaseException) -> str:
    """What went wrong reading a trace file, in words (a corrupt gzip stream says so, not ``zlib.error``)."""
    if isinstance(exc, (zlib.error, gzip.BadGzipFile)):
        return f"damaged gzip data ({exc}): copy or export the file again"
    if isinstance(exc, EOFError):
        return "the gzip data is cut short (was the file still being written or copied?)"
    if isinstance(exc, UnicodeError):
        return f"not UTF-8 text ({exc})"
    return f"cannot be read ({exc})"


class Sniff(Enum):
    """What a file's head says it is."""

    TRACE = "trace"
    OTHER = "other"
    DAMAGED = "damaged"  # a gzip file whose head cannot be decompressed


def sniff(path: Path) -> Sniff:
    """Whether the file's head looks like a Kineto/Chrome trace (a damaged gzip head says so)."""
    try:
        with open_text(path) as fh:
            head = fh.read(SNIFF_BYTES)
    except (EOFError, zlib.error, gzip.BadGzipFile):
        return Sniff.DAMAGED
    except (OSError, UnicodeError):
        return Sniff.OTHER
    looks = head.lstrip().startswith("{") and ('"traceEvents"' in head or '"deviceProperties"' in head
                                               or '"schemaVersion"' in head)
    return Sniff.TRACE if looks else Sniff.OTHER


def is_trace_file(path: Path) -> bool:
    """A ``*.pt.trace.json[.gz]`` name, or a ``*.json[.gz]`` whose head looks like a Kineto trace.

    A ``*.json.gz`` that cannot be decompressed is taken as a trace too: reading it then fails that
    rank alone with a message naming the file, instead of the file vanishing from the count.
    """
    if TRACE_NAME.search(path.name):
        return True
    if not JSON_NAME.search(path.name):
        return False
    found = sniff(path)
    return found is Sniff.TRACE or (found is Sniff.DAMAGED and path.name.endswith(".gz"))
