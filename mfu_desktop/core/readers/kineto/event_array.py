"""The ``traceEvents`` array, decoded by msgspec in slices cut at event boundaries.

A slice ends at the last ``}`` of the buffer that is followed by ``,`` and ``{`` (the next event)
or by the array's ``]``; it is decoded in one call into the structs of :mod:`.schema`, and the
buffer drops it. A cut inside an event (a ``}, {`` in a string or an argument) cannot make a valid
slice — msgspec then fails at the slice's last byte — so an earlier cut is tried.

When msgspec stops inside a slice it says where: at event ``$[i]`` (a value of another type, an
unknown category) or at byte ``n`` (a NaN, a number or a nesting it cannot take). The events
before it are decoded typed, that one alone — typed when it fits by itself, else loosely
(:func:`~.schema.loose_event`), or skipped and counted when no decoder can read it — and the slice
goes on after it; past
:data:`MAX_FIXES` such events in one slice the rest is decoded loosely or one event at a time.
An event larger than a chunk goes alone too; bytes that cannot be JSON stop the read at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice
from typing import Any

import msgspec

from mfu_desktop.core.readers.kineto.byte_stream import ByteStream, TraceFormatError, decode_one
from mfu_desktop.core.readers.kineto.schema import ANY_DECODER, SLICE_DECODER, loose_event

#: Where a slice may end: an event's ``}``, then the next one's ``{`` (comma: group 1) or the array's ``]`` (group 2).
_CUT = re.compile(rb"\}[ \t\n\r]*(?:(,)[ \t\n\r]*\{|(\]))")
#: Between two events (the comma is group 1).
_NEXT_EVENT = re.compile(rb"\}[ \t\n\r]*(,)[ \t\n\r]*\{")
#: How far back from the buffer's end a cut is looked for first.
_CUT_WINDOW = 1 << 16
#: Earlier cuts tried when one lands inside an event.
_CUT_RETRIES = 3
#: Events handled alone inside one slice before the rest of it is decoded loosely or one by one.
MAX_FIXES = 16
_TRAILING = re.compile(r"trailing characters \(byte (\d+)\)")
_AT_INDEX = re.compile(r"at `\$\[(\d+)\]")
_AT_BYTE = re.compile(r"\(byte (\d+)\)")


def _decode_array(decoder: msgspec.json.Decoder, data: bytes) -> tuple[list[Any], int]:
    """Decode ``[…]`` bytes; when the array closed earlier (its own ``]`` inside), decode up to it.

    Returns:
        The values and how many bytes of ``data`` they took.
    """
    try:
        return decoder.decode(data), len(data)
    except msgspec.DecodeError as exc:
        m = _TRAILING.search(str(exc))
        if m is None:
            raise
        end = data.rindex(b"]", 0, int(m.group(1)) - 1) + 1
        return decoder.decode(data[:end]), end


def _single_event(data: bytes) -> Any:
    """One event's bytes as its struct: typed as in a slice when it fits, else loosely (None: not an object).

    Typed first, so that an event read alone (larger than a chunk, or next to a bad one) keeps what a
    slice would keep — a value msgspec skips unread (a 5,001-digit number under a key the reader
    ignores) does not make it undecodable.

    Raises:
        ValueError: When no decoder can read it (the message says why).
    """
    try:
        return SLICE_DECODER.decode(b"[" + data + b"]")[0]
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, IndexError):
        return loose_event(decode_one(data))


def _failed_index(exc: msgspec.ValidationError) -> int | None:
    """The index of the event msgspec stopped at (``… - at `$[12]…```)."""
    m = _AT_INDEX.search(str(exc))
    return int(m.group(1)) if m else None


def _failed_byte(exc: msgspec.DecodeError) -> int | None:
    """The byte msgspec stopped at (``… (byte 1234)``)."""
    m = _AT_BYTE.search(str(exc))
    return int(m.group(1)) if m else None


def _wrong_cut(exc: msgspec.DecodeError, length: int) -> bool:
    """True when msgspec failed only at the slice's last byte: the cut fell inside an event."""
    if "truncated" in str(exc):
        return True
    at = _failed_byte(exc)
    return at is not None and at >= length - 1


class EventArray:
    """Decodes the events of one ``traceEvents`` array from ``stream`` and hands each batch to ``on_events``."""

    def __init__(self, stream: ByteStream, on_events: Callable[[list[Any]], None]) -> None:
        self.s = stream
        self.on_events = on_events
        self.non_objects = 0  # elements that are not events (numbers, texts, lists …)

    def read(self) -> None:
        """Decode the events (``pos`` is just after the array's ``[``) up to and including its ``]``.

        Raises:
            TraceFormatError: When the file ends inside the array or holds bytes that cannot be JSON.
        """
        s = self.s
        while True:
            got = s.peek()
            if got < 0:
                raise TraceFormatError("truncated: the file ends inside traceEvents (was it still being written?)")
            if got == ord("]"):
                s.pos += 1
                return
            cut = self._cut()
            if cut is None and not s.eof and len(s.buf) - s.pos < s.chunk:
                s.fill()
                continue
            if cut is None:  # no event ends in a whole chunk: this one is huge, or not JSON at all
                self._one_by_one(s.base + s.pos + 1)
                continue
            until = s.base + cut[0]  # a file offset: handling an event alone may refill the buffer
            if not self._slice(until, cut[1]):
                self._one_by_one(until)

    def _cut(self, before: int | None = None) -> tuple[int, bool] | None:
        """Where a slice can end: the delimiter after the buffer's last complete-looking event, and whether it closes.

        Only bytes before ``before`` are looked at; the delimiter is a comma or the array's ``]``
        (then True). None when the buffer holds no such place.
        """
        s = self.s
        end = len(s.buf) if before is None else before
        for lo in dict.fromkeys((max(s.pos, end - _CUT_WINDOW), s.pos)):  # the tail first, then all of it
            last = None
            for last in _CUT.finditer(s.buf, lo, end):  # noqa: B007 (the last match is wanted)
                pass
            if last is not None:
                return (last.start(1), False) if last.group(1) else (last.start(2), True)
        return None

    def _slice(self, until: int, closes: bool) -> bool:
        """Decode the events up to file offset ``until`` in as few calls as possible.

        ``until`` is a comma, or the array's ``]`` when ``closes``. False when the rest must go one by one.
        """
        s = self.s
        retries = fixes = 0
        while s.base + s.pos < until and s.peek() != ord("]"):
            delimiter = until - s.base
            data = b"[" + s.buf[s.pos:delimiter] + b"]"
            try:
                events, used = _decode_array(SLICE_DECODER, data)
            except msgspec.ValidationError as exc:  # an event of another shape: alone, then on
                fixes += 1
                index = _failed_index(exc)
                if fixes > MAX_FIXES or index is None or not self._fix(self._nth_boundary(index, delimiter)):
                    return self._loose_slice(delimiter, closes)
                continue
            except msgspec.DecodeError as exc:
                if _wrong_cut(exc, len(data)) and retries < _CUT_RETRIES:
                    retries += 1
                    earlier = self._cut(delimiter)
                    if earlier is None:
                        return False
                    until, closes = s.base + earlier[0], earlier[1]
                    continue
                fixes += 1
                at = _failed_byte(exc)
                if fixes > MAX_FIXES or at is None or not self._fix(self._boundary_before(s.pos + at - 1)):
                    return False
                continue
            except RecursionError:
                return False
            self.on_events(events)
            self._consumed(used, len(data), closes)
            return True
        return True

    def _nth_boundary(self, index: int, delimiter: int) -> int | None:
        """Where event ``index`` of the slice starting at ``pos`` begins (its preceding comma), if it can be seen."""
        s = self.s
        if index == 0:
            return s.pos
        found = next(islice(_NEXT_EVENT.finditer(s.buf, s.pos, delimiter), index - 1, index), None)
        return None if found is None else found.start(1)

    def _boundary_before(self, offset: int) -> int:
        """The last comma between events before buffer ``offset`` (``pos`` when the first event holds it)."""
        last = None
        for last in _NEXT_EVENT.finditer(self.s.buf, self.s.pos, offset):  # noqa: B007 (the last match is wanted)
            pass
        return self.s.pos if last is None else last.start(1)

    def _fix(self, boundary: int | None) -> bool:
        """Decode the events before ``boundary`` typed, then the next one alone; False when that cannot be done."""
        s = self.s
        if boundary is None:
            return False
        if boundary > s.pos:
            try:
                events = SLICE_DECODER.decode(b"[" + s.buf[s.pos:boundary] + b"]")
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                return False
            self.on_events(events)
            s.pos = boundary + 1
            s.peek()
        self._one_by_one(s.base + s.pos + 1)
        return True

    def _consumed(self, used: int, length: int, closes: bool) -> None:
        """Move past a decoded slice of ``length`` bytes whose events took ``used`` of them.

        That is after its comma, or onto the array's ``]`` (``read`` closes the array) when the
        slice ended with it or the array ended inside the slice.
        """
        if used < length:  # the array's own ']' came first: data[used - 1] is it
            self.s.pos += used - 2
        else:
            self.s.pos += length - 2 + (0 if closes else 1)

    def _loose_slice(self, delimiter: int, closes: bool) -> bool:
        """The rest of the slice decoded as plain JSON, each event converted; False when even that fails."""
        data = b"[" + self.s.buf[self.s.pos:delimiter] + b"]"
        try:
            values, used = _decode_array(ANY_DECODER, data)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return False
        events = [e for e in map(loose_event, values) if e is not None]
        self.non_objects += len(values) - len(events)
        self.on_events(events)
        self._consumed(used, len(data), closes)
        return True

    def _one_by_one(self, until: int) -> None:
        """Decode events singly until past file offset ``until``, or up to the array's ``]`` (left for ``read``)."""
        s = self.s
        events: list[Any] = []
        try:
            while s.base + s.pos < until:
                end = s.value_end()
                try:
                    event = _single_event(s.buf[s.pos:end])
                except ValueError as exc:
                    s.problems.add(f"an event at {s.where()}: {exc}")
                else:
                    if event is None:
                        self.non_objects += 1
                    else:
                        events.append(event)
                s.pos = end
                got = s.peek()
                if got == ord("]"):
                    return
                if got != ord(","):
                    s.fail("',' or ']' after an event", got)
                s.pos += 1
                s.peek()
        finally:
            if events:
                self.on_events(events)
