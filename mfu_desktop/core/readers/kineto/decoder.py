"""A trace file's top level: header values, the ``traceEvents`` array, and ``metadata`` passed over.

The file is one JSON object. Its keys are read one at a time from the :class:`~.byte_stream.ByteStream`:
``traceEvents`` goes to :class:`~.event_array.EventArray` (msgspec, in slices), ``metadata``
(environment dumps, which can hold secrets, of any size or depth) is skipped without being
decoded, and every other value (``deviceProperties``, ``distributedInfo``, ``record_shapes`` …)
is decoded and handed to ``on_header`` — one that no decoder can read is skipped and counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, BinaryIO

from mfu_desktop.core.readers.kineto.byte_stream import CHUNK_BYTES, ByteStream, TraceFormatError, decode_one
from mfu_desktop.core.readers.kineto.event_array import EventArray


class TraceDecoder:
    """Walks a trace file: header values to ``on_header``, batches of event structs to ``on_events``."""

    def __init__(self, fh: BinaryIO, on_header: Callable[[str, Any], None], on_events: Callable[[list[Any]], None],
                 chunk_bytes: int = CHUNK_BYTES) -> None:
        self.stream = ByteStream(fh, chunk_bytes)
        self.on_header = on_header
        self.events = EventArray(self.stream, on_events)
        self.seen_events = False

    @property
    def problems(self):
        """The values no decoder could read."""
        return self.stream.problems

    def run(self) -> None:
        """Read the whole file.

        Raises:
            TraceFormatError: When the file is not a JSON object, or its JSON is malformed or cut short.
        """
        s = self.stream
        s.expect("{")
        while s.peek() not in (ord("}"), -1):
            key = self._key()
            s.expect(":")
            if key == "traceEvents":
                self.seen_events = True
                s.expect("[", "'[' (traceEvents is a list of events)")
                self.events.read()
            elif key == "metadata":
                s.skip_value()
            else:
                self._header_value(key)
            if s.peek() == ord(","):
                s.pos += 1
        s.expect("}")

    def _key(self) -> str:
        s = self.stream
        got = s.peek()
        if got != ord('"'):
            s.fail("a key", got)
        end = s.value_end()
        try:
            key = json.loads(s.buf[s.pos:end])
        except ValueError as exc:
            raise TraceFormatError(f"malformed JSON at {s.where()}: {exc}") from None
        s.pos = end
        return str(key)

    def _header_value(self, key: str) -> None:
        s = self.stream
        end = s.value_end()
        try:
            value = decode_one(s.buf[s.pos:end])
        except ValueError as exc:
            s.problems.add(f"the top-level {key!r} at {s.where()}: {exc}")
        else:
            self.on_header(key, value)
        s.pos = end
