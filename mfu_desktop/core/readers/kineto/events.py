"""What a PyTorch profiler (Kineto) trace holds for the analysis, as compact columns (profiler-formats.md §13).

:class:`TraceEvents` is the decoder's output (:func:`.read.read_trace`) and the kernel frame's
input (:mod:`.frame`): kernels, memcpy/memset, ``cpu_op``s, runtime launches, ``ProfilerStep#``
ranges and ``[memory]`` events as typed arrays, with every text interned once (:class:`Strings`),
and what was left out with its reason. Nothing per event survives as a Python object.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mfu_desktop.core.formulas.aten_ops import RULED_OPS
from mfu_desktop.core.formulas.flop_rules import rule_for


class _Numbering(dict):
    """Text → code, numbering each new text as it is first looked up (``values`` lists them in order)."""

    def __init__(self, values: list[str]) -> None:
        super().__init__()
        self.values = values

    def __missing__(self, text: str) -> int:
        code = self[text] = len(self.values)
        self.values.append(text)
        return code


class Strings:
    """Interned text: each distinct string stored once, referred to by its code."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self._codes = _Numbering(self.values)

    def code(self, text: str) -> int:
        """The code of ``text`` (a new one the first time it is seen)."""
        return self._codes[text]

    def codes(self, texts: Iterable[str], count: int = -1) -> np.ndarray:
        """The codes of many texts (int32; ``count`` when known makes it faster)."""
        return np.fromiter(map(self._codes.__getitem__, texts), dtype=np.int32, count=count)

    def reorder(self, order: list[int]) -> None:
        """Renumber: the text of old code ``order[i]`` gets code ``i``."""
        self.values[:] = [self.values[i] for i in order]
        self._codes.clear()
        self._codes.update((text, code) for code, text in enumerate(self.values))

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
    # what was left out, and why: {what: {reason: count}} (``time_checks``); the excluded kernels' links
    excluded: dict[str, Counter[str]] = field(default_factory=dict)
    x_ext: array = field(default_factory=_ints)
    x_corr: array = field(default_factory=_ints)
    #: Values no decoder could read (skipped): how many, and the first few with what and where.
    undecodable: int = 0
    problems: list[str] = field(default_factory=list)
    capture_us: float = 0.0  # first to last event start

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


def has_flop_rule(op_name: str) -> bool:
    """True for the ATen/custom ops with a FLOP rule (their FLOPs go to their kernels)."""
    return op_name in RULED_OPS or (rule_for(op_name) is not None and "::" in op_name)
