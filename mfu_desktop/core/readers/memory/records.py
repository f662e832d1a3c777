"""The memory record's columns and units (:class:`~mfu_desktop.core.readers.records.MemoryData`, §14).

Units are fixed here, once: memory in **MB of 2**20 bytes** (the profilers' "MB"; KB and bytes
are converted), times in **µs** on the capture's own clock (Unix µs on Ascend, the trace's µs for
Kineto). Light: pandas only for type checking.
"""

from __future__ import annotations

from mfu_desktop.core.readers.records import MemoryData

__all__ = ["ALLOCATION_COLUMNS", "CAPTURE_HINT", "MODULE_COLUMNS", "PROCESS_COLUMNS", "RECORD_COLUMNS",
           "STATIC_COLUMNS", "MemoryData", "missing"]

#: Columns of :attr:`MemoryData.records` (one row per allocator event or sample).
RECORD_COLUMNS = ("component", "ts_us", "allocated_mb", "reserved_mb", "active_mb")
#: Columns of :attr:`MemoryData.allocations` (one row per tensor allocation; NaN release = not released).
ALLOCATION_COLUMNS = ("name", "size_mb", "alloc_us", "release_us", "total_allocated_mb", "total_reserved_mb",
                      "release_total_allocated_mb", "release_total_reserved_mb")
#: Columns of :attr:`MemoryData.modules` and :attr:`MemoryData.process`.
MODULE_COLUMNS = ("component", "ts_us", "reserved_mb")
PROCESS_COLUMNS = ("ts_us", "reserved_mb")
#: Columns of :attr:`MemoryData.static_ops` (graph mode: lifetimes in node indices, no times).
STATIC_COLUMNS = ("name", "graph", "start", "end", "size_mb")

#: The message of a rank without memory data (the user guide quotes it).
CAPTURE_HINT = "capture with profile_memory=True"


def missing(reason: str) -> MemoryData:
    """A rank without memory data, and why (the reason ends with how to get it)."""
    return MemoryData(reason=reason)
