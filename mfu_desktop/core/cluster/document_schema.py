"""What a rank document must look like before anything reads it: a summary's, or the cache's.

A summary folder is shared (a colleague's, or copied from a cluster): its documents and its
manifest are input like any profiler file. Before, 27 of 43 damaged or crafted summaries
crashed ``mfu analyze SUMMARY`` with a traceback (a missing field, a string where a number
goes, a list where an object goes) and the window dropped the whole summary. Every document
is now checked against :data:`RANK_DOCUMENT` (and a summary's against :data:`SUMMARY_DOCUMENT`)
first: one that does not match fails its rank, with the first place where it does not.

The checker is a few small spec classes, pure Python (the cached command line imports no
numpy or pandas). Numbers must be finite (JSON readers accept ``Infinity``), integers
bounded, strings strings; objects may carry more keys than listed (documents gain keys
within a version), and keys listed as optional may be absent.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from mfu_desktop.core.cluster.documents import BREAKDOWN, DOCUMENT_VERSION

#: The largest count or id accepted in a document (beyond it, a number is damage).
MAX_COUNT = 2**53


class Spec(ABC):
    """One expected value; :meth:`problem` says where and why a value does not match (``None``: it does)."""

    nullable: bool = True

    def problem(self, value: Any, where: str) -> str | None:
        """Where and why ``value`` does not match (``None``: it does, or it is an allowed null)."""
        if value is None:
            return None if self.nullable else f"{where} is missing (null)"
        return self.check(value, where)

    @abstractmethod
    def check(self, value: Any, where: str) -> str | None:
        """The same for a value that is not null."""


@dataclass
class Num(Spec):
    """A finite number (a bool is not one)."""

    nullable: bool = True

    def check(self, value: Any, where: str) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{where} is not a number"
        if isinstance(value, float) and not math.isfinite(value):
            return f"{where} is not finite"
        if abs(value) > 1e300:
            return f"{where} is out of range"
        return None


@dataclass
class Int(Spec):
    """An integer within ``lo`` … ``hi``."""

    lo: int = -MAX_COUNT
    hi: int = MAX_COUNT
    nullable: bool = False

    def check(self, value: Any, where: str) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{where} is not an integer"
        return None if self.lo <= value <= self.hi else f"{where} is out of range ({self.lo} … {self.hi})"


@dataclass
class Text(Spec):
    """A string."""

    nullable: bool = True

    def check(self, value: Any, where: str) -> str | None:
        return None if isinstance(value, str) else f"{where} is not text"


@dataclass
class Flag(Spec):
    """A bool."""

    nullable: bool = False

    def check(self, value: Any, where: str) -> str | None:
        return None if isinstance(value, bool) else f"{where} is not true or false"


@dataclass
class Scalar(Spec):
    """Text, a finite number, a bool or null (a cell of a table kept loosely)."""

    nullable: bool = True

    def check(self, value: Any, where: str) -> str | None:
        if isinstance(value, (str, bool)):
            return None
        return Num().check(value, where)


@dataclass
class ListOf(Spec):
    """A list whose items all match ``item`` (of length ``length`` when given)."""

    item: Spec = field(default_factory=Scalar)
    nullable: bool = False
    length: int | None = None

    def check(self, value: Any, where: str) -> str | None:
        if not isinstance(value, list):
            return f"{where} is not a list"
        if self.length is not None and len(value) != self.length:
            return f"{where} does not have {self.length} items"
        return next((p for i, v in enumerate(value) if (p := self.item.problem(v, f"{where}[{i}]"))), None)


@dataclass
class Obj(Spec):
    """An object with these keys (more are allowed); ``required`` keys must be present, the others may be absent."""

    keys: dict[str, Spec] = field(default_factory=dict)
    required: bool = False
    nullable: bool = False
    exact: bool = False  # no key beyond those listed (the object becomes a record's arguments)
    optional: tuple[str, ...] = ()  # keys that may be absent although ``required`` (added in a later version)

    def check(self, value: Any, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"{where} is not an object"
        if self.exact and (extra := sorted(set(value) - set(self.keys))):
            return f"{where} has unexpected key {str(extra[0])[:40]!r}"
        for key, spec in self.keys.items():
            if key not in value:
                if self.required and key not in self.optional:
                    return f"{where}.{key} is missing"
                continue
            if (problem := spec.problem(value[key], f"{where}.{key}")) is not None:
                return problem
        return None


@dataclass
class MapOf(Spec):
    """An object whose values all match ``value``."""

    value: Spec = field(default_factory=Scalar)
    nullable: bool = True

    def check(self, value: Any, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"{where} is not an object"
        return next((p for k, v in value.items() if (p := self.value.problem(v, f"{where}.{str(k)[:40]}"))), None)


def _rows(**columns: Spec) -> ListOf:
    """A table kept as a list of row objects."""
    return ListOf(Obj(columns))


_NUM, _TEXT = Num(), Text()
_HOT = _rows(type=_TEXT, input_shapes=_TEXT, count=_NUM, time_us=_NUM, mfu=_NUM, lost_us=_NUM, bw_util=_NUM,
             roof_util=_NUM, bound=_TEXT, time_share=_NUM, klass=_TEXT)
_MEMORY = Obj({"peak_allocated_mb": _NUM, "peak_reserved_mb": _NUM, "process_reserved_mb": _NUM,
               "peak_at_us": _NUM, "capacity_gb": _NUM, "not_released_mb": _NUM, "source": _TEXT,
               "top_live": _rows(name=_TEXT, mb=_NUM, allocated_at_us=_NUM), "allocator": _TEXT,
               "peak_step": Scalar(), "peak_from": _TEXT, "footprint_mb": _NUM, "footprint_basis": _TEXT,
               "share": _NUM, "headroom_gb": _NUM, "capacity_source": _TEXT, "components_mb": MapOf(_NUM),
               "static_peak_mb": _NUM, "notes": ListOf(_TEXT)}, nullable=True)
_RANGE = ListOf(_NUM, nullable=True, length=2)

#: A rank document (:func:`mfu_desktop.core.cluster.rank_document.rank_document`): what the cached command
#: line, the cluster figures, the console and the window read.
RANK_DOCUMENT = Obj({
    "document_version": Int(DOCUMENT_VERSION, DOCUMENT_VERSION), "rank": Int(-(2**31), 2**31 - 1),
    "path": Text(nullable=False), "vendor": _TEXT, "format": _TEXT, "chip": _TEXT, "peak_source": _TEXT,
    "kernels": Int(0), "countable_kernels": Int(0), "steps": Int(0), "steps_source": _TEXT, "flops": _NUM,
    "countable_time_us": _NUM, "achieved_tflops": _NUM, "mfu_ops": _NUM, "step_time_us": _NUM, "mfu_step": _NUM,
    "cube_utilization": _NUM, "tier": Int(0, 9),
    "by_type": _rows(type=_TEXT, count=_NUM, flops=_NUM, time_us=_NUM, achieved_tflops=_NUM, mfu=_NUM),
    "excluded": _rows(type=_TEXT, reason=_TEXT, count=_NUM, time_us=_NUM),
    "step_breakdown": Obj({k: _NUM for k in BREAKDOWN}), "comm_transfer_us": _NUM, "comm_wait_us": _NUM,
    "memory": _MEMORY, "memory_reason": _TEXT, "mfu_ops_range": _RANGE, "mfu_step_range": _RANGE,
    "tier_label": _TEXT, "tier_value": _NUM, "tier_why": ListOf(_TEXT), "device_busy_proxy": _NUM,
    "hw_flops_ratio": _NUM, "roofline": MapOf(_NUM), "kernel_source": _TEXT, "capture": _TEXT,
    "rank_origin": _TEXT, "incomplete": ListOf(_TEXT), "hot_by_time": _HOT, "hot_by_lost": _HOT,
    "warnings": ListOf(_TEXT), "confirmed": Flag(), "chip_id": _TEXT, "notes": ListOf(_TEXT),
}, required=True)

_MEASURED = Obj({"steps": Int(0), "computing_us": _NUM, "comm_not_overlapped_us": _NUM, "transfer_us": _NUM,
                 "wait_us": _NUM, "free_us": _NUM, "notes": ListOf(_TEXT)}, required=True, nullable=True, exact=True)
_PREDICTION = Obj({
    "groups": _rows(unit=_TEXT, precision=_TEXT, type=_TEXT, count=_NUM, duration_us=_NUM, compute_weighted_us=_NUM,
                    memory_weighted_us=_NUM, fallback_compute_us=_NUM, fallback_memory_us=_NUM, roofline_us=_NUM,
                    roofline_memory_us=_NUM, category=_TEXT),
    "excluded": _rows(count=_NUM, time_us=_NUM, **{"class": _TEXT}), "flags": ListOf(_TEXT), "steps": Int(0),
    "measured": _MEASURED,
    # the roofline model's distinct shapes and its fallback notes (absent from summaries made before it)
    "shapes": _rows(group=Int(), category=Int(-128, 127), flops=_NUM, bytes=_NUM, duration_us=_NUM, count=_NUM),
    "fallback_flags": MapOf(Text(nullable=False))},
    required=True, nullable=True, optional=("shapes", "fallback_flags"))

#: What a cluster summary keeps of a rank beyond its document
#: (:func:`mfu_desktop.core.pipeline.summary_document.summary_document`).
SUMMARY_DOCUMENT = Obj({
    **RANK_DOCUMENT.keys,
    "step_rows": ListOf(MapOf(Scalar())), "by_shape": ListOf(MapOf(Scalar())),
    "collectives": _rows(step=_TEXT, kind=_TEXT, op=_TEXT, link=_TEXT, transport=_TEXT, transit_time_ms=_NUM,
                         transit_size_mb=_NUM),
    "prediction": _PREDICTION, "inputs": ListOf(ListOf(Scalar())), "reader": _TEXT,
}, required=False)


def document_problem(doc: Any, summary: bool = False) -> str | None:
    """Where a rank document does not match its schema (``None``: it does).

    Args:
        doc: The parsed document.
        summary: Check a summary's document (the rank document's keys required, the summary's typed).
    """
    problem = RANK_DOCUMENT.problem(doc, "document")
    if problem is None and summary:
        problem = SUMMARY_DOCUMENT.problem(doc, "document")
    return problem
