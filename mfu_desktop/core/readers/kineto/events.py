"""Streaming a PyTorch profiler (Kineto) trace into compact columns (profiler-formats.md §13).

The file is read in chunks and decoded one event at a time (``json.JSONDecoder.raw_decode``
over a sliding buffer); only the events the analysis needs are kept — kernels, memcpy/memset,
``cpu_op``s, runtime launches and ``ProfilerStep#`` ranges — as typed arrays with every text
interned once (:class:`Strings`). Nothing per event survives as a Python object: a 1 GB trace
becomes a few hundred MB of arrays, never the whole JSON and the frames at once.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mfu_desktop.core.formulas.aten_ops import RULED_OPS
from mfu_desktop.core.formulas.flop_rules import rule_for
from mfu_desktop.core.readers.kineto.files import open_text

#: Characters decoded per read (the buffer grows when one event is larger).
CHUNK_CHARS = 1 << 22
#: Event categories kept; every other event (python_function, instant events, flows …) is skipped.
KERNEL_CATS = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})
LAUNCH_CATS = frozenset({"cuda_runtime", "cuda_driver"})
STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")


# --- streaming JSON -------------------------------------------------------------------------


class TraceFormatError(ValueError):
    """The file is not a readable Chrome/Kineto trace; the message says why."""


class _JsonStream:
    """Decode a top-level JSON object key by key, and an array element by element, from chunks of text."""

    _WS = re.compile(r"[ \t\n\r]*")

    def __init__(self, fh: io.TextIOBase) -> None:
        self.fh = fh
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.decoder = json.JSONDecoder()

    def _fill(self) -> bool:
        if self.eof:
            return False
        chunk = self.fh.read(CHUNK_CHARS)
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        while True:
            self.pos = self._WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._fill():
                return ""

    def expect(self, char: str) -> None:
        got = self.peek()
        if got != char:
            if not got:
                raise TraceFormatError(f"truncated: the file ends where {char!r} was expected (was it still being "
                                       "written?)")
            raise TraceFormatError(f"malformed JSON: expected {char!r}, found {got!r}")
        self.pos += 1

    def value(self) -> Any:
        """The next JSON value (an event, a header value)."""
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if not self._fill():
                    raise TraceFormatError(f"truncated or malformed JSON: {exc.msg} at character {exc.pos}") from None
                continue
            if end >= len(self.buf) and not self.eof and not isinstance(value, (dict, list, str)):
                self._fill()  # a number at the buffer's end may continue in the next chunk
                continue
            self.pos = end
            return value




# --- compact storage ------------------------------------------------------------------------


class Strings:
    """Interned text: each distinct string stored once, referred to by its code."""

    def __init__(self) -> None:
        self._codes: dict[str, int] = {}
        self.values: list[str] = []

    def code(self, text: str) -> int:
        """The code of ``text`` (a new one the first time it is seen)."""
        found = self._codes.get(text)
        if found is None:
            found = self._codes[text] = len(self.values)
            self.values.append(text)
        return found

    def table(self) -> np.ndarray:
        """Code → text (object array)."""
        return np.array(self.values, dtype=object)


def _ints() -> array:
    return array("q")


def _floats() -> array:
    return array("d")


def _codes() -> array:
    return array("i")


@dataclass
class TraceEvents:
    """What a trace holds for the analysis, as typed arrays (texts as :class:`Strings` codes, −1 = none)."""

    header: dict[str, Any] = field(default_factory=dict)
    strings: Strings = field(default_factory=Strings)
    # cpu ops
    op_name: array = field(default_factory=_codes)
    op_thread: array = field(default_factory=_ints)
    op_ts: array = field(default_factory=_floats)
    op_dur: array = field(default_factory=_floats)
    op_ext: array = field(default_factory=_ints)
    op_dims: array = field(default_factory=_codes)  # shapes of ops with a FLOP rule, −1 otherwise
    op_types: array = field(default_factory=_codes)
    op_concrete: array = field(default_factory=_codes)
    # kernels, memcpy, memset
    k_name: array = field(default_factory=_codes)
    k_cat: array = field(default_factory=_codes)
    k_ts: array = field(default_factory=_floats)
    k_dur: array = field(default_factory=_floats)
    k_ext: array = field(default_factory=_ints)
    k_corr: array = field(default_factory=_ints)
    k_device: array = field(default_factory=_ints)
    k_stream: array = field(default_factory=_ints)
    # runtime launches: correlation, thread, time
    l_corr: array = field(default_factory=_ints)
    l_thread: array = field(default_factory=_ints)
    l_ts: array = field(default_factory=_floats)
    # ProfilerStep ranges: (step, start, end)
    cpu_steps: list[tuple[int, float, float]] = field(default_factory=list)
    gpu_steps: list[tuple[int, float, float]] = field(default_factory=list)
    # ``[memory]`` instant events (profile_memory=True): bytes (negative = free), allocator totals in bytes
    m_ts: array = field(default_factory=_floats)
    m_bytes: array = field(default_factory=_floats)
    m_addr: array = field(default_factory=_ints)
    m_allocated: array = field(default_factory=_floats)
    m_reserved: array = field(default_factory=_floats)
    m_device_type: array = field(default_factory=_ints)
    m_device: array = field(default_factory=_ints)
    m_thread: array = field(default_factory=_ints)
    skipped: int = 0

    @property
    def kernels(self) -> int:
        """Number of GPU kernels (and memcpy/memset) kept."""
        return len(self.k_ts)

    @property
    def ops(self) -> int:
        """Number of CPU ops kept."""
        return len(self.op_ts)

    def ruled_ops(self) -> np.ndarray:
        """Per op: True when it has a FLOP rule and its shapes were kept."""
        if not len(self.op_name):
            return np.zeros(0, dtype=bool)
        names = np.frombuffer(self.op_name, dtype=np.int32)
        flags = np.array([has_flop_rule(v) for v in self.strings.values], dtype=bool)
        return flags[names] & (np.frombuffer(self.op_dims, dtype=np.int32) >= 0)

    def has_op_shapes(self) -> bool:
        """True when some op with a FLOP rule recorded its input shapes (a nonempty Input Dims)."""
        dims = np.frombuffer(self.op_dims, dtype=np.int32)
        empty = self.strings.code("")
        return bool((self.ruled_ops() & (dims != empty)).any())


def _thread_key(event: dict[str, Any]) -> int:
    """One number per (pid, tid); ids of the wrong type (lists, objects) are taken by their text."""
    pid, tid = event.get("pid"), event.get("tid")
    return hash((pid if isinstance(pid, (int, str)) else repr(pid), tid if isinstance(tid, (int, str)) else repr(tid)))


def _shape_cell(dims: Any) -> str:
    """``[[768], [788, 768], []]`` → ``"768;788,768;"`` (the profiler's shape notation)."""
    if not isinstance(dims, list):
        return ""
    parts = []
    for d in dims:
        if isinstance(d, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in d):
            parts.append(",".join(str(x) for x in d))
        else:
            parts.append("")  # tensor lists and non-tensors: no shape
    return ";".join(parts)


def _cell(values: Any) -> str:
    if not isinstance(values, list):
        return ""
    return ";".join(str(v).replace(";", ",") for v in values)




def has_flop_rule(op_name: str) -> bool:
    """True for the ATen/custom ops with a FLOP rule (their FLOPs go to their kernels)."""
    return op_name in RULED_OPS or (rule_for(op_name) is not None and "::" in op_name)


def _id(value: Any) -> int:
    """An integer id (External id, correlation, device, stream), −1 when absent or not a sane integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) and -(2**62) < value < 2**62 else -1


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class _Keeper:
    """Keeps the events the analysis needs (``keeps`` says which op names record their shapes)."""

    def __init__(self, out: TraceEvents, keeps: Any) -> None:
        self.out = out
        self.keeps = keeps
        self._kept_codes: dict[int, bool] = {}

    def __call__(self, e: Any) -> None:
        out = self.out
        if isinstance(e, dict) and e.get("ph") == "i" and e.get("name") == "[memory]":
            self._memory(e)
            return
        if not isinstance(e, dict) or e.get("ph") != "X":
            out.skipped += 1
            return
        cat = e.get("cat")
        ts, dur = e.get("ts"), e.get("dur")
        if not isinstance(cat, str) or not _finite_number(ts) or not _finite_number(dur) or dur < 0:
            out.skipped += 1
            return
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if cat in KERNEL_CATS:
            self._kernel(e, cat, float(ts), float(dur), args)
        elif cat == "cpu_op":
            self._op(e, float(ts), float(dur), args)
        elif cat in LAUNCH_CATS:
            corr = _id(args.get("correlation"))
            if corr >= 0:
                out.l_corr.append(corr)
                out.l_thread.append(_thread_key(e))
                out.l_ts.append(float(ts))
        elif cat in ("user_annotation", "gpu_user_annotation"):
            m = STEP_NAME.match(str(e.get("name", "")))
            if m:
                (out.gpu_steps if cat == "gpu_user_annotation" else out.cpu_steps).append(
                    (int(m.group(1)), float(ts), float(ts) + float(dur)))
        else:
            out.skipped += 1

    def _memory(self, e: dict[str, Any]) -> None:
        """One ``[memory]`` event (mfu_desktop.core.readers.memory.kineto turns them into the memory record)."""
        out = self.out
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        ts, size = e.get("ts"), args.get("Bytes")
        if not _finite_number(ts) or not _finite_number(size):
            out.skipped += 1
            return
        out.m_ts.append(float(ts))
        out.m_bytes.append(float(size))
        out.m_addr.append(_id(args.get("Addr")))
        for column, key in ((out.m_allocated, "Total Allocated"), (out.m_reserved, "Total Reserved")):
            value = args.get(key)
            column.append(float(value) if _finite_number(value) else math.nan)
        out.m_device_type.append(_id(args.get("Device Type")))
        out.m_device.append(_id(args.get("Device Id")))
        out.m_thread.append(_thread_key(e))

    def _kernel(self, e: dict[str, Any], cat: str, ts: float, dur: float, args: dict[str, Any]) -> None:
        out, strings = self.out, self.out.strings
        out.k_name.append(strings.code(str(e.get("name", ""))))
        out.k_cat.append(strings.code(cat))
        out.k_ts.append(ts)
        out.k_dur.append(dur)
        out.k_ext.append(_id(args.get("External id")))
        out.k_corr.append(_id(args.get("correlation")))
        out.k_device.append(_id(args.get("device")))
        out.k_stream.append(_id(args.get("stream")))

    def _op(self, e: dict[str, Any], ts: float, dur: float, args: dict[str, Any]) -> None:
        out, strings = self.out, self.out.strings
        code = strings.code(str(e.get("name", "")))
        out.op_name.append(code)
        out.op_thread.append(_thread_key(e))
        out.op_ts.append(ts)
        out.op_dur.append(dur)
        out.op_ext.append(_id(args.get("External id")))
        kept = self._kept_codes.get(code)
        if kept is None:
            kept = self._kept_codes[code] = bool(self.keeps(strings.values[code]))
        if kept:
            out.op_dims.append(strings.code(_shape_cell(args.get("Input Dims"))))
            out.op_types.append(strings.code(_cell(args.get("Input type"))))
            out.op_concrete.append(strings.code(_cell(args.get("Concrete Inputs"))))
        else:
            out.op_dims.append(-1)
            out.op_types.append(-1)
            out.op_concrete.append(-1)


def read_trace(path: Path, keeps: Any = lambda name: True) -> TraceEvents:
    """Stream a trace file into :class:`TraceEvents`.

    ``keeps(op_name)`` says which ops keep their shapes, dtypes and concrete inputs (all by
    default: FLOPs need the ops with a rule, bytes every op that launches a kernel); every
    other op keeps only its name, thread and times.

    Raises:
        TraceFormatError: When the file is not a JSON object with a ``traceEvents`` array.
        OSError: When the file cannot be read.
    """
    out = TraceEvents()
    keep = _Keeper(out, keeps)
    with open_text(path) as fh:
        try:
            stream = _JsonStream(fh)
            stream.expect("{")
            seen_events = False
            while stream.peek() not in ("}", ""):
                key = stream.value()
                stream.expect(":")
                if key == "traceEvents":
                    seen_events = True
                    stream.expect("[")
                    while stream.peek() not in ("]", ""):
                        keep(stream.value())
                        if stream.peek() == ",":
                            stream.pos += 1
                    stream.expect("]")
                elif key == "metadata":
                    stream.value()  # environment dumps (can hold secrets): never kept
                else:
                    out.header[str(key)] = stream.value()
                if stream.peek() == ",":
                    stream.pos += 1
            stream.expect("}")
        except (EOFError, gzip.BadGzipFile, OSError, UnicodeError) as exc:
            raise TraceFormatError(f"cannot read {path.name}: {exc}") from None
    if not seen_events:
        raise TraceFormatError(f"{path.name} has no traceEvents array: not a PyTorch profiler trace")
    return out
