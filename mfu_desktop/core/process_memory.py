"""Keep the memory of million-row loads in check.

pyarrow's default allocator (jemalloc/mimalloc) and glibc's per-thread arenas keep freed memory
for reuse; while parsing and annotating a large profile that turns hundreds of MB of temporary
buffers into resident memory. MFU Desktop uses the system allocator for Arrow and trims the
heap after the big steps.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import pyarrow as pa

#: The allocator every Arrow buffer of the engine comes from.
MEMORY_POOL = pa.system_memory_pool()
pa.set_memory_pool(MEMORY_POOL)


def _load_trim() -> object:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _load_trim()


def release_memory() -> None:
    """Give freed heap memory back to the OS (no-op where glibc's ``malloc_trim`` is absent)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
