"""Where a JSON value ends in a byte buffer, without decoding it: any depth, any size, resumable.

The trace decoder (:mod:`.decoder`) hands whole slices of events to msgspec; this scanner is what
it falls back on to find one value's end when a slice cannot be decoded (a NaN, a 5,000-digit
number, nesting deeper than a decoder's recursion limit, a value larger than a chunk) and to skip
the values it ignores (``metadata``). It follows strings, brackets and scalars only — the value is
validated by whoever decodes it — and it stops at the first byte that cannot start a JSON token,
so a malformed file fails at once instead of being read to its end.
"""

from __future__ import annotations

import re

_WS = re.compile(rb"[ \t\n\r]*")
#: A string's body after its opening quote, up to and including the closing quote.
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
#: Numbers (any length), literals, and the NaN/Infinity that Python's json writes.
_SCALAR = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null|NaN|-?Infinity")
_DELIMITERS = frozenset(b" \t\n\r,:]}")
#: What a number or literal cut by the buffer's end may be the beginning of.
_SCALAR_START = re.compile(
    rb"-?(?:0|[1-9][0-9]*)?(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?"
    rb"|N(?:aN?)?|-?I(?:n(?:f(?:i(?:n(?:i(?:ty?)?)?)?)?)?)?")
#: Longer numbers are not waited for (a run of digits to the end of a huge file is not a number).
MAX_SCALAR_BYTES = 1 << 20
_CLOSER = {ord("{"): ord("}"), ord("["): ord("]")}


class Malformed(ValueError):
    """The bytes at ``pos`` cannot be JSON."""

    def __init__(self, pos: int, what: str) -> None:
        super().__init__(what)
        self.pos = pos
        self.what = what


class Scan:
    """A value being scanned: the closers still expected (a resumable stack) and how far it got."""

    def __init__(self, pos: int) -> None:
        self.pos = pos
        self.closers = bytearray()

    def shift(self, offset: int) -> None:
        """The buffer lost its first ``offset`` bytes (consumed): move the position with it."""
        self.pos -= offset


def skip_ws(buf: bytes, pos: int) -> int:
    """The first non-whitespace position at or after ``pos``."""
    return _WS.match(buf, pos).end()  # type: ignore[union-attr]


def _token(buf: bytes, i: int, scan: Scan, final: bool) -> int | None:
    """Consume one token at ``i`` (a non-space byte); the position after it, or None when it needs more bytes."""
    c = buf[i]
    if c == 0x22:  # "
        m = _STRING_REST.match(buf, i + 1)
        if m is None:
            if final:
                raise Malformed(i, "a string that never ends")
            return None
        return m.end()
    if c in _CLOSER:
        scan.closers.append(_CLOSER[c])
        return i + 1
    if c in (0x5D, 0x7D):  # ] }
        if not scan.closers or scan.closers.pop() != c:
            raise Malformed(i, f"an unexpected {chr(c)!r}")
        return i + 1
    if c in (0x2C, 0x3A) and scan.closers:  # , : inside a container
        return i + 1
    m = _SCALAR.match(buf, i)
    end = m.end() if m else i
    if end < len(buf) and buf[end] in _DELIMITERS and m:
        return end
    if not final and len(buf) - i <= MAX_SCALAR_BYTES and _SCALAR_START.fullmatch(buf, i):
        return None  # a number or literal cut by the buffer's end: it may go on in the next chunk
    if m is None:
        raise Malformed(i, f"a byte that cannot start a JSON value ({bytes([c])!r})")
    if end < len(buf):
        raise Malformed(end, f"an invalid number or literal ({buf[i:end + 1][:40]!r})")
    return end


def advance(buf: bytes, scan: Scan, final: bool) -> bool:
    """Scan on from ``scan.pos``; True when the value is complete (``scan.pos`` is then just after it).

    False means the buffer ended first: append bytes (dropping any consumed prefix with
    :meth:`Scan.shift`) and call again. ``final`` says no more bytes will come.

    Raises:
        Malformed: At the first byte that cannot be part of a JSON value (or at the end when ``final``).
    """
    i = scan.pos
    n = len(buf)
    while True:
        i = skip_ws(buf, i)
        if i >= n:
            if final:
                raise Malformed(i, "the file ends inside a value")
            scan.pos = i
            return False
        end = _token(buf, i, scan, final)
        if end is None:
            scan.pos = i
            return False
        i = end
        if not scan.closers:
            scan.pos = i
            return True
