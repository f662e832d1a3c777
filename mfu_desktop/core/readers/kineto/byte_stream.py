"""A trace file's bytes read a chunk at a time, with a position, and the values no decoder could read.

:class:`ByteStream` keeps one buffer: what has been consumed is dropped at each refill, so a
file of any size is held a few chunks at a time. Positions in messages are offsets in the
(decompressed) file. A value is decoded by msgspec, or by Python's json when only it can
(``NaN``, ``Infinity``); one neither can decode is counted in :class:`Problems` with what and where.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import msgspec

from mfu_desktop.core.readers.kineto.json_scan import Malformed, Scan, advance, skip_ws
from mfu_desktop.core.readers.kineto.schema import ANY_DECODER

#: Bytes read per chunk (a decoded slice of events is at most about this long).
CHUNK_BYTES = 1 << 22
#: Undecodable values described one by one (the rest are counted).
MAX_PROBLEMS = 5
_STILL_WRITTEN = "(was it still being written?)"


class TraceFormatError(ValueError):
    """The file is not a readable Chrome/Kineto trace; the message says why."""


@dataclass
class Problems:
    """Values that were skipped because no decoder could read them: how many, and the first few described."""

    count: int = 0
    described: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        """Count one skipped value, keeping its description when it is among the first few."""
        self.count += 1
        if len(self.described) < MAX_PROBLEMS:
            self.described.append(text)


def _why_undecodable(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested deeper than a decoder can follow"
    text = str(exc)
    if "digits" in text:
        return "a number with thousands of digits"
    return f"not valid JSON ({text.split(':')[0]})"


def decode_one(data: bytes) -> Any:
    """One JSON value: msgspec first, Python's json for what only it reads (NaN, Infinity).

    Raises:
        ValueError: A number or nesting no decoder can take, or invalid JSON (the message says which).
    """
    try:
        return ANY_DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        pass
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ValueError(_why_undecodable(exc)) from None


class ByteStream:
    """The buffer over a binary file: ``buf[pos:]`` is unread, ``base`` is the file offset of ``buf[0]``."""

    def __init__(self, fh: BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.fh = fh
        self.chunk = chunk_bytes
        self.buf = b""
        self.pos = 0
        self.base = 0
        self.eof = False
        self.problems = Problems()

    def fill(self, at_least: int = 0) -> bool:
        """Drop the consumed bytes and read one more chunk (or ``at_least`` bytes); False at the end of the file."""
        if self.eof:
            return False
        more = self.fh.read(max(self.chunk, at_least))
        if self.pos:
            self.base += self.pos
            self.buf = self.buf[self.pos:]
            self.pos = 0
        if not more:
            self.eof = True
            return False
        self.buf += more
        return True

    def peek(self) -> int:
        """The next non-space byte (−1 at the end of the file); ``pos`` moves onto it."""
        while True:
            self.pos = skip_ws(self.buf, self.pos)
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return -1

    def where(self, offset: int | None = None) -> str:
        """``byte N`` of the file, for buffer ``offset`` (default: ``pos``)."""
        return f"byte {self.base + (self.pos if offset is None else offset):,}"

    def expect(self, char: str, what: str | None = None) -> None:
        """Consume ``char``.

        Raises:
            TraceFormatError: When the file ends or holds something else there.
        """
        got = self.peek()
        if got == ord(char):
            self.pos += 1
            return
        self.fail(what or repr(char), got)

    def fail(self, expected: str, got: int) -> None:
        """Raise the error for finding byte ``got`` where ``expected`` should be.

        Raises:
            TraceFormatError: Always.
        """
        if got < 0:
            raise TraceFormatError(f"truncated: the file ends where {expected} was expected {_STILL_WRITTEN}")
        raise TraceFormatError(f"malformed JSON at {self.where()}: expected {expected}, found {chr(got)!r}")

    def value_end(self) -> int:
        """The buffer offset just after the value at ``pos`` (the buffer grows to hold it; ``pos`` stays).

        Raises:
            TraceFormatError: At the first byte that cannot be JSON, or when the file ends inside the value.
        """
        scan = Scan(self.pos)
        try:
            while not advance(self.buf, scan, self.eof):
                before = self.pos
                self.fill(len(self.buf) - self.pos)  # the buffer doubles: a huge value is not rescanned chunk by chunk
                scan.shift(before - self.pos)
        except Malformed as exc:
            self._malformed(exc)
        return scan.pos

    def skip_value(self) -> None:
        """Pass over the value at ``pos`` without keeping it (bytes are dropped as the scan goes: any size).

        Raises:
            TraceFormatError: At the first byte that cannot be JSON, or when the file ends inside the value.
        """
        scan = Scan(self.pos)
        try:
            while not advance(self.buf, scan, self.eof):
                self.pos = scan.pos  # everything before is consumed
                before = self.pos
                self.fill()
                scan.shift(before - self.pos)
        except Malformed as exc:
            self._malformed(exc)
        self.pos = scan.pos

    def _malformed(self, exc: Malformed) -> None:
        if exc.pos >= len(self.buf) and self.eof:
            raise TraceFormatError(f"truncated or malformed JSON: the file ends inside a value {_STILL_WRITTEN}")
        raise TraceFormatError(f"malformed JSON at {self.where(exc.pos)}: {exc.what}")
