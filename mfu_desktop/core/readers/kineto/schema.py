"""The trace events the reader uses, as msgspec structs tagged by their category, and the same from any value.

msgspec decodes a slice of events straight into these structs: the ``cat`` of each event picks
its struct (:data:`KNOWN_CATEGORIES`), and each struct holds only what the reader needs of that
kind — a ``python_function`` event becomes an empty struct, a kernel its name, times and launch
ids; every other key is skipped without building an object. Shapes, dtypes and concrete inputs
stay raw JSON (a few distinct texts, turned into cells once each).

An event of another category, without one, or with a value of an unexpected type (a text where
a time should be) does not fit: it is decoded loosely and :func:`loose_event` brings it to the
same structs with the same meaning (a time that is not a number becomes NaN, an id that is not
one −1), so that both paths fill the columns identically.
"""

from __future__ import annotations

import json
import math
import operator
from functools import reduce
from typing import Any

import msgspec

NAN = math.nan
#: A raw JSON ``null``: what an absent shape/type/value list reads as.
RAW_NULL = msgspec.Raw(b"null")
#: The pid/tid an event without one has (the text the earlier reader keyed it by).
NO_ID = "None"
#: Integer ids (External id, correlation, device, stream, address) outside ±2**62 are not ids.
ID_LIMIT = 2**62


# --- args -----------------------------------------------------------------------------------


class KernelArgs(msgspec.Struct, gc=False, frozen=True,
                 rename={"external_id": "External id", "external_id_old": "external id"}):
    """A kernel's (or launch's) ids: its op, its launch, where it ran (−1 = absent)."""

    external_id: int = -1
    external_id_old: int = -1  # PyTorch ≤ 1.10 wrote "external id" on kernels and launches
    correlation: int = -1
    device: int = -1
    stream: int = -1


class OpArgs(msgspec.Struct, gc=False, frozen=True, rename={
        "external_id": "External id", "external_id_old": "external id", "input_dims": "Input Dims",
        "input_type": "Input type", "concrete_inputs": "Concrete Inputs"}):
    """An op's id and, as raw JSON, its input shapes, dtypes and concrete (scalar) inputs."""

    external_id: int = -1
    external_id_old: int = -1
    input_dims: msgspec.Raw = RAW_NULL
    input_type: msgspec.Raw = RAW_NULL
    concrete_inputs: msgspec.Raw = RAW_NULL


class MemoryArgs(msgspec.Struct, gc=False, frozen=True, rename={
        "nbytes": "Bytes", "addr": "Addr", "total_allocated": "Total Allocated", "total_reserved": "Total Reserved",
        "device_type": "Device Type", "device_id": "Device Id"}):
    """A ``[memory]`` event's allocation (bytes, negative = free) and the allocator's totals after it."""

    nbytes: float = NAN
    addr: int = -1
    total_allocated: float = NAN
    total_reserved: float = NAN
    device_type: int = -1
    device_id: int = -1


NO_KERNEL_ARGS, NO_OP_ARGS, NO_MEMORY_ARGS = KernelArgs(), OpArgs(), MemoryArgs()


# --- events, one struct per kind, one subclass per category ---------------------------------


class _Tagged(msgspec.Struct, gc=False, tag_field="cat"):
    """An event whose struct is chosen by its ``cat``."""


class KernelEvent(_Tagged, tag="kernel"):
    """A GPU kernel (or, in the subclasses, a memcpy or memset): name, start and duration (µs), ids."""

    ph: str = ""
    name: str = ""
    ts: float = NAN
    dur: float = NAN
    args: KernelArgs = NO_KERNEL_ARGS


class OpEvent(_Tagged, tag="cpu_op"):
    """A CPU op (ATen or custom): name, thread, start and duration (µs), id and inputs."""

    ph: str = ""
    name: str = ""
    pid: int | str = NO_ID
    tid: int | str = NO_ID
    ts: float = NAN
    dur: float = NAN
    args: OpArgs = NO_OP_ARGS


class LaunchEvent(_Tagged, tag="cuda_runtime"):
    """A runtime/driver call (a kernel launch when it has a correlation): thread, start, duration."""

    ph: str = ""
    pid: int | str = NO_ID
    tid: int | str = NO_ID
    ts: float = NAN
    dur: float = NAN
    args: KernelArgs = NO_KERNEL_ARGS


class AnnotationEvent(_Tagged, tag="user_annotation"):
    """A ``record_function`` range on the CPU (``ProfilerStep#N`` among them)."""

    ph: str = ""
    name: str = ""
    ts: float = NAN
    dur: float = NAN


class InstantEvent(_Tagged, tag="cpu_instant_event"):
    """An instant event (``[memory]`` among them)."""

    ph: str = ""
    name: str = ""
    pid: int | str = NO_ID
    tid: int | str = NO_ID
    ts: float = NAN
    args: MemoryArgs = NO_MEMORY_ARGS


class SkippedEvent(_Tagged, tag="python_function"):
    """An event of a kind the reader does not use: nothing of it is decoded."""


class OtherEvent(msgspec.Struct, gc=False):
    """An event of a category no struct above knows (read loosely): kept only if it is a ``[memory]`` instant."""

    ph: str = ""
    name: str = ""
    pid: int | str = NO_ID
    tid: int | str = NO_ID
    ts: float = NAN
    args: MemoryArgs = NO_MEMORY_ARGS


def _category(base: type, cat: str) -> type:
    return type(f"{base.__name__}_{cat}", (base,), {}, tag=cat)


#: Category → struct. PyTorch ≤ 1.10 wrote Kernel/Memcpy/Memset/Runtime/Operator (spec §13).
KNOWN_CATEGORIES: dict[str, type] = {
    "kernel": KernelEvent, "cpu_op": OpEvent, "cuda_runtime": LaunchEvent, "user_annotation": AnnotationEvent,
    "cpu_instant_event": InstantEvent, "python_function": SkippedEvent,
    **{cat: _category(KernelEvent, cat) for cat in ("gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset")},
    "Operator": _category(OpEvent, "Operator"),
    **{cat: _category(LaunchEvent, cat) for cat in ("cuda_driver", "Runtime")},
    "gpu_user_annotation": _category(AnnotationEvent, "gpu_user_annotation"),
    **{cat: _category(SkippedEvent, cat) for cat in (
        "ac2g", "Trace", "overhead", "cuda_sync", "cuda_profiler_range", "external_correlation", "fwdbwd",
        "xpu_runtime", "mtia_runtime", "privateuse1_runtime", "privateuse1_driver", "collective_comm")},
}
#: Struct → the category it was decoded from.
CATEGORY_OF = {cls: cat for cat, cls in KNOWN_CATEGORIES.items()}

#: Decodes ``[event, …]`` bytes into the tagged structs.
SLICE_DECODER = msgspec.json.Decoder(list[reduce(operator.or_, KNOWN_CATEGORIES.values())])  # type: ignore[misc]
#: Decodes any JSON (the loose path).
ANY_DECODER = msgspec.json.Decoder()


# --- the loose path -------------------------------------------------------------------------


def number(value: Any) -> float:
    """A JSON number as a float (huge integers become ±inf); NaN for anything else (text, bool, null, lists)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return NAN
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def identifier(value: Any) -> int:
    """An integer id, −1 when absent or not a sane integer (a bool, a float, a text, beyond ±2**62)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and -ID_LIMIT < value < ID_LIMIT else -1


def _loose_id(value: Any) -> int | str:
    return value if isinstance(value, (int, str)) else repr(value)


def _raw(value: Any) -> msgspec.Raw:
    """A decoded value back as raw JSON (what the typed path keeps), so both paths make the same cells."""
    if value is None:
        return RAW_NULL
    try:
        return msgspec.Raw(json.dumps(value, allow_nan=True).encode("utf-8"))
    except (ValueError, TypeError, RecursionError):
        return RAW_NULL


def _args(cls: type, args: Any) -> Any:
    """The args struct ``cls`` from a decoded ``args`` (an object, else none)."""
    if cls is OpEvent or issubclass(cls, OpEvent):
        if not isinstance(args, dict):
            return NO_OP_ARGS
        return OpArgs(identifier(args.get("External id")), identifier(args.get("external id")),
                      _raw(args.get("Input Dims")), _raw(args.get("Input type")), _raw(args.get("Concrete Inputs")))
    if issubclass(cls, (KernelEvent, LaunchEvent)):
        if not isinstance(args, dict):
            return NO_KERNEL_ARGS
        return KernelArgs(*(identifier(args.get(k)) for k in ("External id", "external id", "correlation", "device",
                                                              "stream")))
    if not isinstance(args, dict):
        return NO_MEMORY_ARGS
    return MemoryArgs(number(args.get("Bytes")), identifier(args.get("Addr")), number(args.get("Total Allocated")),
                      number(args.get("Total Reserved")), identifier(args.get("Device Type")),
                      identifier(args.get("Device Id")))


def loose_event(value: Any) -> Any:
    """Any decoded JSON value as the struct of its category (None when it is not an object).

    Mirrors the typed decode: texts where texts are expected (a name that is not one is written
    as text), NaN for a time that is not a number, −1 for an id that is not one; a category the
    structs do not know (or none) gives an :class:`OtherEvent`.
    """
    if not isinstance(value, dict):
        return None
    get = value.get
    cat = get("cat")
    cls = KNOWN_CATEGORIES.get(cat, OtherEvent) if isinstance(cat, str) else OtherEvent
    if issubclass(cls, SkippedEvent):
        return cls()
    ph, name = get("ph"), get("name", "")
    fields = {"ph": ph if isinstance(ph, str) else "", "name": name if isinstance(name, str) else str(name),
              "pid": _loose_id(get("pid", NO_ID)), "tid": _loose_id(get("tid", NO_ID)), "ts": number(get("ts")),
              "dur": number(get("dur")), "args": _args(cls, get("args"))}
    return cls(**{f: v for f, v in fields.items() if f in cls.__struct_fields__})
