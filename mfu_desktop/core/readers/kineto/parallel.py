"""Several trace files decoded at once: one in the calling process, the others in worker processes.

Decoding is Python work that holds the GIL, so the threads that load ranks concurrently
(:func:`mfu_desktop.core.store.ranks.load_ranks`) would take turns on one core. The first trace
being decoded stays in this process (a single trace pays no process start); while it runs, any
other is sent to a pool of ``cpu_count − 1`` spawned workers, which return its
:class:`~.events.TraceEvents` (typed arrays: cheap to pickle). The pool closes when its last
trace is done (idle workers would hold memory in a long window session), and a worker exits by
itself when the process that started it ends, however it ends (``os._exit``, a crash). Where
worker processes cannot be started, everything is decoded here.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mfu_desktop.core.process_memory import release_memory
from mfu_desktop.core.readers.kineto.byte_stream import TraceFormatError
from mfu_desktop.core.readers.kineto.events import TraceEvents
from mfu_desktop.core.readers.kineto.read import keep_every_op, read_trace

#: Worker processes (one core stays with the calling process).
WORKERS = max(1, (os.cpu_count() or 2) - 1)

_lock = threading.Lock()
_here = 0  # traces being decoded in this process
_pool: ProcessPoolExecutor | None = None
_in_workers = 0  # traces being decoded by the pool
#: How many traces went to a worker process (for tests and the bench).
sent_to_workers = 0


def _decode_in_worker(path: Path, keeps: Callable[[str], Any]) -> TraceEvents:
    """What a worker runs: the trace, then the worker's heap back to the OS."""
    try:
        return read_trace(path, keeps)
    finally:
        release_memory()


def _exit_with_parent() -> None:
    """A worker's initializer: end the worker as soon as the process that started it is gone."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _pool_for_one_more() -> ProcessPoolExecutor:
    """The pool (started when needed), counting one more trace in it."""
    global _pool, _in_workers
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=WORKERS, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_exit_with_parent)
        _in_workers += 1
        return _pool


def _one_less(broken: bool = False) -> None:
    """A trace left the pool; the pool closes when it was the last one (or when its workers died)."""
    global _pool, _in_workers
    with _lock:
        _in_workers -= 1
        pool = _pool if broken or _in_workers == 0 else None
        if pool is not None:
            _pool = None
    if pool is not None:
        pool.shutdown(wait=not broken, cancel_futures=broken)  # joined: nothing left behind at os._exit


@contextmanager
def decoding_here() -> Any:
    """Count a decode in this process for as long as the block runs."""
    global _here
    with _lock:
        _here += 1
    try:
        yield
    finally:
        with _lock:
            _here -= 1


def decode_trace(path: Path, keeps: Callable[[str], Any] = keep_every_op) -> TraceEvents:
    """:func:`~.read.read_trace` — in a worker process when another trace is being decoded in this one.

    Raises:
        TraceFormatError: As :func:`~.read.read_trace` (raised again here when a worker raised it).
    """
    global sent_to_workers
    with _lock:
        elsewhere = _here > 0
    if elsewhere:
        events = _in_worker(path, keeps)
        if events is not None:
            with _lock:
                sent_to_workers += 1
            return events
    with decoding_here():
        return read_trace(path, keeps)


def _in_worker(path: Path, keeps: Callable[[str], Any]) -> TraceEvents | None:
    """The trace decoded by a worker process; None when no worker could do it (it is then decoded here).

    Raises:
        TraceFormatError: The worker's verdict on the file.
    """
    pool = _pool_for_one_more()
    broken = False
    try:
        return pool.submit(_decode_in_worker, path, keeps).result()
    except TraceFormatError:
        raise
    except BrokenProcessPool:
        broken = True
    except Exception:  # no worker processes here (a sandbox, a daemon process, an unpicklable keeps …)
        pass
    finally:
        _one_less(broken)
    return None
