"""Decoded trace events → the columns of :class:`~.events.TraceEvents`, a kind of event at a time.

Every step runs at C speed over a whole slice: the kind of each event is looked up by its
struct's type (``map`` over ``type``), the events of a kind are picked out with their indices,
and each column is one ``np.fromiter`` over an attribute (``attrgetter``). Texts are interned, ``(pid,
tid)`` pairs numbered and the raw JSON of shapes, dtypes and concrete inputs turned into cells by
dictionaries that compute a value only the first time they meet its key.
"""

from __future__ import annotations

import re
from array import array
from collections import defaultdict
from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np

from mfu_desktop.core.readers.kineto import time_checks as T
from mfu_desktop.core.readers.kineto.byte_stream import decode_one
from mfu_desktop.core.readers.kineto.events import Strings, TraceEvents
from mfu_desktop.core.readers.kineto.schema import (
    CATEGORY_OF,
    ID_LIMIT,
    KNOWN_CATEGORIES,
    AnnotationEvent,
    InstantEvent,
    KernelEvent,
    LaunchEvent,
    OpEvent,
    OtherEvent,
)

STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")
SKIP, KERNEL, OP, LAUNCH, CPU_STEP, GPU_STEP, INSTANT = range(7)


def _kind(cls: type) -> int:
    if issubclass(cls, KernelEvent):
        return KERNEL
    if issubclass(cls, OpEvent):
        return OP
    if issubclass(cls, LaunchEvent):
        return LAUNCH
    if issubclass(cls, AnnotationEvent):
        return GPU_STEP if CATEGORY_OF[cls] == "gpu_user_annotation" else CPU_STEP
    return SKIP


#: Struct → kind of event (instants of any category the structs do not know may be ``[memory]`` events).
KIND_OF = {**{cls: _kind(cls) for cls in KNOWN_CATEGORIES.values()}, InstantEvent: INSTANT, OtherEvent: INSTANT}
#: Struct of a kernel → the category name the frame knows (old names read as the current ones).
KERNEL_CATEGORY = {cls: {"Kernel": "kernel", "Memcpy": "gpu_memcpy", "Memset": "gpu_memset"}.get(cat, cat)
                   for cat, cls in KNOWN_CATEGORIES.items() if issubclass(cls, KernelEvent)}
_TYPECODES = {np.dtype(np.int32): "i", np.dtype(np.int64): "q", np.dtype(np.float64): "d"}
_PID_TID = attrgetter("pid", "tid")
_PH = attrgetter("ph")
_ARGS = attrgetter("args")
_INPUTS = attrgetter("input_dims", "input_type", "concrete_inputs")
_OLD_STEP = {KNOWN_CATEGORIES["Operator"]}


def shape_cell(dims: Any) -> str:
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


def list_cell(values: Any) -> str:
    """``["float", "Scalar"]`` → ``"float;Scalar"`` (a ``;`` inside a value becomes ``,``)."""
    if not isinstance(values, list):
        return ""
    return ";".join(str(v).replace(";", ",") for v in values)


class _Numbers(dict):
    """Any hashable key → 0, 1, 2 … in order of first appearance."""

    def __missing__(self, key: Any) -> int:
        code = self[key] = len(self)
        return code


class _Cells(dict):
    """An op's raw JSON shapes, dtypes and concrete inputs → the index of their three cell codes in ``codes``.

    The key is the three texts joined by NUL (which JSON text cannot hold): one lookup per op, each
    distinct triple decoded and formatted once.
    """

    def __init__(self, strings: Strings) -> None:
        super().__init__()
        self.strings = strings
        self.codes: list[tuple[int, int, int]] = []

    def __missing__(self, raw: bytes) -> int:
        cells = []
        for part, cell in zip(raw.split(b"\0"), (shape_cell, list_cell, list_cell)):
            try:
                value = decode_one(part)
            except ValueError:
                value = None
            cells.append(self.strings.code(cell(value)))
        index = self[raw] = len(self.codes)
        self.codes.append((cells[0], cells[1], cells[2]))
        return index


def _pick(events: list[Any], rows: np.ndarray) -> list[Any]:
    return events if len(rows) == len(events) else list(map(events.__getitem__, rows.tolist()))


def _args(events: list[Any]) -> list[Any]:
    """The events' args structs (one pass: a dotted attrgetter per column costs more)."""
    return list(map(_ARGS, events))


def _floats(events: list[Any], attribute: str) -> np.ndarray:
    return np.fromiter(map(attrgetter(attribute), events), dtype=np.float64, count=len(events))


def _ids(events: list[Any], attribute: str) -> np.ndarray:
    """Integer ids as int64; those beyond ±2**62 become −1."""
    get = attrgetter(attribute)
    try:
        out = np.fromiter(map(get, events), dtype=np.int64, count=len(events))
    except OverflowError:
        out = np.array([v if -ID_LIMIT < v < ID_LIMIT else -1 for v in map(get, events)], dtype=np.int64)
    out[(out <= -ID_LIMIT) | (out >= ID_LIMIT)] = -1
    return out


def _external_ids(args: list[Any]) -> np.ndarray:
    """``External id``, else the ``external id`` of PyTorch ≤ 1.10 kernels and launches (from the args)."""
    new = _ids(args, "external_id")
    missing = np.flatnonzero(new == -1)
    if len(missing):
        new[missing] = _ids(_pick(args, missing), "external_id_old")
    return new


class EventColumns:
    """Fills a :class:`TraceEvents` from slices of decoded events (``keeps(op_name)``: keep its shapes)."""

    def __init__(self, out: TraceEvents, keeps: Callable[[str], Any]) -> None:
        self.out = out
        self.keeps = keeps
        self.strings = out.strings
        self._threads = _Numbers()
        self._kept_names = np.zeros(0, dtype=np.int8)  # per string code: 0 unknown, 1 keep, 2 not
        self._cells = _Cells(out.strings)
        self._parts: dict[str, list[np.ndarray]] = defaultdict(list)
        self._seen = 0  # events before this slice (their sequence numbers order the interned texts)

    # --- one slice ------------------------------------------------------------------------------

    def add(self, events: list[Any]) -> None:
        """Sort one slice's events by kind and append their columns."""
        kinds = np.fromiter(map(KIND_OF.__getitem__, map(type, events)), dtype=np.int8, count=len(events))
        present = np.bincount(kinds, minlength=INSTANT + 1)
        self.out.skipped += int(present[SKIP])
        first, self._seen = self._seen, self._seen + len(events)
        for kind in (np.flatnonzero(present[1:]) + 1).tolist():
            rows = np.flatnonzero(kinds == kind)
            chosen = _pick(events, rows)
            if kind != INSTANT:
                chosen, rows = self._complete(chosen, rows)
            if chosen:
                self._add_kind(kind, chosen, first + rows)

    def _complete(self, events: list[Any], rows: np.ndarray) -> tuple[list[Any], np.ndarray]:
        """The complete events (``ph`` X) among ``events``, and their rows; the others are skipped."""
        if set(map(_PH, events)) == {"X"}:
            return events, rows
        ok = np.flatnonzero(np.fromiter(map("X".__eq__, map(_PH, events)), dtype=bool, count=len(events)))
        self.out.skipped += len(events) - len(ok)
        return _pick(events, ok), rows[ok]

    def _add_kind(self, kind: int, events: list[Any], seq: np.ndarray) -> None:
        """Append the columns of one kind's events (``seq``: their places in the file)."""
        if kind == KERNEL:
            self._kernels(events, seq)
        elif kind == OP:
            self._ops_and_old_steps(events, seq)
        elif kind == LAUNCH:
            self._launches(events)
        elif kind == CPU_STEP:
            self._steps(events, self.out.cpu_steps)
        elif kind == GPU_STEP:
            self._steps(events, self.out.gpu_steps)
        else:
            memory = [e for e in events if e.ph == "i" and e.name == "[memory]"]
            self.out.skipped += len(events) - len(memory)
            if memory:
                self._memory(memory)

    def _append(self, columns: dict[str, np.ndarray]) -> None:
        for name, values in columns.items():
            self._parts[name].append(values)

    def _thread_codes(self, events: list[Any]) -> np.ndarray:
        """One number per (pid, tid) pair."""
        return np.fromiter(map(self._threads.__getitem__, map(_PID_TID, events)), dtype=np.int64, count=len(events))

    def _ops_and_old_steps(self, events: list[Any], seq: np.ndarray) -> None:
        """Ops; PyTorch ≤ 1.10 wrote its ProfilerStep#N ranges as Operators too (they are steps, not ops)."""
        step = np.fromiter(map(_OLD_STEP.__contains__, map(type, events)), dtype=bool, count=len(events))
        if step.any():
            step[step] = np.fromiter((e.name.startswith("ProfilerStep#") for e in _pick(events, np.flatnonzero(step))),
                                     dtype=bool, count=int(step.sum()))
        if step.any():
            self._steps(_pick(events, np.flatnonzero(step)), self.out.cpu_steps)
            events, seq = _pick(events, np.flatnonzero(~step)), seq[~step]
        self._ops(events, seq)

    def _kernels(self, events: list[Any], seq: np.ndarray) -> None:
        ts, dur = _floats(events, "ts"), _floats(events, "dur")
        args = _args(events)
        ext, corr = _external_ids(args), _ids(args, "correlation")
        reasons = T.kernel_time_reasons(ts, dur)
        if reasons.any():  # excluded: counted, their links kept (their ops' FLOPs cannot be shared), no text kept
            T.count(self.out.excluded, T.KERNELS, reasons)
            bad = reasons > 0
            self._append({"x_ext": ext[bad], "x_corr": corr[bad]})
            ok = np.flatnonzero(~bad)
            events, args, ts, dur, ext, corr, seq = (_pick(events, ok), _pick(args, ok), ts[ok], dur[ok], ext[ok],
                                                     corr[ok], seq[ok])
        n = len(events)
        self._append({
            "k_name": self.strings.codes(map(attrgetter("name"), events), n),
            "k_cat": self.strings.codes(map(KERNEL_CATEGORY.__getitem__, map(type, events)), n),
            "k_ts": ts, "k_dur": dur, "k_ext": ext, "k_corr": corr,
            "k_device": _ids(args, "device"), "k_stream": _ids(args, "stream"), "k_seq": seq,
        })

    def _ops(self, events: list[Any], seq: np.ndarray) -> None:
        if not events:
            return
        ts, dur = _floats(events, "ts"), _floats(events, "dur")
        reasons = T.span_time_reasons(ts, dur)
        if reasons.any():
            T.count(self.out.excluded, T.OPS, reasons)
            ok = np.flatnonzero(reasons == 0)
            events, ts, dur, seq = _pick(events, ok), ts[ok], dur[ok], seq[ok]
        n = len(events)
        names = self.strings.codes(map(attrgetter("name"), events), n)
        dims, types, concrete = (np.full(n, -1, dtype=np.int32) for _ in range(3))
        kept = np.flatnonzero(self._kept(names))
        args = _args(events)
        if len(kept):
            raw = map(b"\0".join, map(_INPUTS, _pick(args, kept)))
            index = np.fromiter(map(self._cells.__getitem__, raw), dtype=np.int32, count=len(kept))
            codes = np.array(self._cells.codes, dtype=np.int32)[index]
            dims[kept], types[kept], concrete[kept] = codes[:, 0], codes[:, 1], codes[:, 2]
        self._append({"op_name": names, "op_thread": self._thread_codes(events), "op_ts": ts, "op_dur": dur,
                      "op_ext": _external_ids(args), "op_dims": dims, "op_types": types, "op_concrete": concrete,
                      "op_seq": seq})

    def _kept(self, names: np.ndarray) -> np.ndarray:
        """Per op: whether ``keeps`` wants its shapes (asked once per distinct name)."""
        values = self.strings.values
        if len(self._kept_names) < len(values):
            self._kept_names = np.concatenate([self._kept_names, np.zeros(len(values) - len(self._kept_names),
                                                                           dtype=np.int8)])
        flags = self._kept_names
        for code in np.unique(names[flags[names] == 0]).tolist():
            flags[code] = 1 if self.keeps(values[code]) else 2
        return flags[names] == 1

    def _launches(self, events: list[Any]) -> None:
        ts, dur = _floats(events, "ts"), _floats(events, "dur")
        reasons = T.span_time_reasons(ts, dur)
        T.count(self.out.excluded, T.LAUNCHES, reasons)
        corr = _ids(_args(events), "correlation")
        keep = (reasons == 0) & (corr >= 0)
        self._append({"l_corr": corr[keep], "l_thread": self._thread_codes(events)[keep], "l_ts": ts[keep]})

    def _steps(self, events: list[Any], into: list[tuple[int, float, float]]) -> None:
        matched = [(e, m) for e in events if (m := STEP_NAME.match(e.name))]
        if not matched:
            return
        chosen = [e for e, _ in matched]
        ts, dur = _floats(chosen, "ts"), _floats(chosen, "dur")
        reasons = T.span_time_reasons(ts, dur)
        T.count(self.out.excluded, T.STEPS, reasons)
        into.extend((int(m.group(1)), t, t + d) for (_, m), t, d, r in
                    zip(matched, ts.tolist(), dur.tolist(), reasons.tolist()) if not r)

    def _memory(self, events: list[Any]) -> None:
        args = _args(events)
        ts, size = _floats(events, "ts"), _floats(args, "nbytes")
        ok = np.isfinite(ts) & np.isfinite(size)
        self.out.skipped += int((~ok).sum())
        allocated, reserved = _floats(args, "total_allocated"), _floats(args, "total_reserved")
        columns = {
            "m_ts": ts, "m_bytes": size, "m_addr": _ids(args, "addr"),
            "m_allocated": np.where(np.isfinite(allocated), allocated, np.nan),
            "m_reserved": np.where(np.isfinite(reserved), reserved, np.nan),
            "m_device_type": _ids(args, "device_type"), "m_device": _ids(args, "device_id"),
            "m_thread": self._thread_codes(events),
        }
        self._append({name: values[ok] for name, values in columns.items()})

    # --- the end --------------------------------------------------------------------------------

    def finish(self) -> None:
        """Join the slices' columns, then exclude what lasts longer than the capture could hold."""
        out = self.out
        joined = {}
        while self._parts:  # a column at a time, its slices freed as it is joined: memory stays one copy
            name, parts = self._parts.popitem()
            joined[name] = np.concatenate(parts)
            del parts
        starts = [joined[c] for c in ("k_ts", "op_ts", "l_ts", "m_ts") if c in joined and len(joined[c])]
        steps = out.cpu_steps + out.gpu_steps
        if steps:
            starts.append(np.array([s[1] for s in steps]))
        if starts:
            out.capture_us = float(max(s.max() for s in starts) - min(s.min() for s in starts))
        if "k_dur" in joined:
            self._drop_too_long(joined, "k_", T.KERNELS, links=True)
        if "op_dur" in joined:
            self._drop_too_long(joined, "op_", T.OPS)
        for ranges in (out.cpu_steps, out.gpu_steps):
            kept = [s for s in ranges if not T.too_long(np.array([s[2] - s[1]]), out.capture_us)[0]]
            T.count_too_long(out.excluded, T.STEPS, len(ranges) - len(kept))
            ranges[:] = kept
        self._renumber(joined)
        while joined:
            name, values = joined.popitem()
            column = array(_TYPECODES[values.dtype])
            column.frombytes(memoryview(values).cast("B"))
            setattr(out, name, column)
            del values

    def _renumber(self, joined: dict[str, np.ndarray]) -> None:
        """Number the texts in the order the file first uses them, whatever order the slices interned them in.

        A kernel uses its name, then its category; an op its name, shapes, dtypes, concrete
        inputs. The sequence columns are dropped.
        """
        k_seq, op_seq = joined.pop("k_seq", np.zeros(0, np.int64)), joined.pop("op_seq", np.zeros(0, np.int64))
        uses = [("k_name", k_seq, 0), ("k_cat", k_seq, 1), ("op_name", op_seq, 0), ("op_dims", op_seq, 1),
                ("op_types", op_seq, 2), ("op_concrete", op_seq, 3)]
        values = self.strings.values
        first = np.full(len(values), np.iinfo(np.int64).max, dtype=np.int64)
        for column, seq, slot in uses:
            if column in joined:
                codes = joined[column]
                used = codes >= 0
                np.minimum.at(first, codes[used], seq[used] * 4 + slot)
        order = np.lexsort((np.arange(len(values)), first))
        if (order == np.arange(len(values))).all():
            return
        new_code = np.empty(len(values), dtype=np.int32)
        new_code[order] = np.arange(len(values), dtype=np.int32)
        for column, _, _ in uses:
            if column in joined:
                codes = joined[column]
                joined[column] = np.where(codes >= 0, new_code[np.clip(codes, 0, None)], -1).astype(np.int32)
        self.strings.reorder(order.tolist())

    def _drop_too_long(self, joined: dict[str, np.ndarray], prefix: str, what: str, links: bool = False) -> None:
        long = T.too_long(joined[prefix + "dur"], self.out.capture_us)
        if not long.any():
            return
        T.count_too_long(self.out.excluded, what, int(long.sum()))
        if links:
            for link in ("ext", "corr"):
                joined["x_" + link] = np.concatenate([joined.get("x_" + link, np.zeros(0, np.int64)),
                                                      joined[prefix + link][long]])
        for name in [n for n in joined if n.startswith(prefix)]:
            joined[name] = joined[name][~long]
