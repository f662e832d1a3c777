"""Reading one trace file into :class:`~.events.TraceEvents`: the decoder feeding the column builder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mfu_desktop.core.readers.kineto import time_checks as T
from mfu_desktop.core.readers.kineto.byte_stream import CHUNK_BYTES, TraceFormatError
from mfu_desktop.core.readers.kineto.decoder import TraceDecoder
from mfu_desktop.core.readers.kineto.events import TraceEvents
from mfu_desktop.core.readers.kineto.files import READ_ERRORS, open_binary, read_error
from mfu_desktop.core.readers.kineto.to_columns import EventColumns


def keep_every_op(name: str) -> bool:
    """Every op keeps its shapes, dtypes and concrete inputs (the default)."""
    return True


def read_trace(path: Path, keeps: Callable[[str], Any] = keep_every_op, chunk_bytes: int = CHUNK_BYTES) -> TraceEvents:
    """Decode a trace file into :class:`TraceEvents`.

    ``keeps(op_name)`` says which ops keep their shapes, dtypes and concrete inputs (all by
    default: FLOPs need the ops with a rule, bytes every op that launches a kernel); every
    other op keeps only its name, thread and times. ``chunk_bytes`` is how much is read and
    decoded at a time.

    Raises:
        TraceFormatError: When the file is not a JSON object with a ``traceEvents`` array, its JSON
            is malformed or cut short, or it cannot be read (a damaged gzip stream, a read error).
    """
    out = TraceEvents()
    columns = EventColumns(out, keeps)
    try:
        with open_binary(path) as fh:
            decoder = TraceDecoder(fh, out.header.__setitem__, columns.add, chunk_bytes)
            decoder.run()
    except READ_ERRORS as exc:
        raise TraceFormatError(read_error(exc)) from None
    if not decoder.seen_events:
        raise TraceFormatError(f"{path.name} has no traceEvents array: not a PyTorch profiler trace")
    columns.finish()
    out.skipped += decoder.events.non_objects
    out.undecodable = decoder.problems.count
    out.problems = decoder.problems.described
    return out


def decode_notes(ev: TraceEvents) -> list[str]:
    """What the decoder left out, in sentences.

    Events with unusable times (per kind, with reasons) and values no decoder could read (how
    many, the first few with what and where).
    """
    kept = {T.KERNELS: ev.kernels, T.OPS: ev.ops, T.LAUNCHES: len(ev.l_ts),
            T.STEPS: len(ev.cpu_steps) + len(ev.gpu_steps)}
    notes = T.describe(ev.excluded, kept)
    if T.KERNELS in ev.excluded:
        notes[list(ev.excluded).index(T.KERNELS)] += (" — their ops' FLOPs are not counted (how to share them over "
                                                      "the kernels left is unknown)")
    if ev.undecodable:
        more = "; …" if ev.undecodable > len(ev.problems) else ""
        notes.append(f"{ev.undecodable:,} value(s) that no JSON decoder can read were skipped: "
                     f"{'; '.join(ev.problems)}{more}")
    return notes
