"""Where ``mfu summarize`` runs its tasks: a thread pool here, or a Dask cluster — with a deadline on every wait.

Executors: ``scheduler="tcp://host:8786"`` joins an existing Dask cluster (started by
dask-jobqueue under Slurm, the Dask Kubernetes operator, or ``dask scheduler`` / ``dask
worker`` by hand); ``workers=N`` starts a ``LocalCluster`` of N single-threaded worker
processes; neither runs on a thread pool in this process. Dask is the optional extra
``mfu-desktop[cluster]``.

A scheduler is probed before the client joins it: an address that is not one
(``udp://…``, garbage), a port that does not answer, an endpoint that accepts the connection
and never answers (Dask's own connect timeout does not cover that handshake), a scheduler
without workers — each is one :class:`SchedulerError` saying which, within
:data:`CONNECT_TIMEOUT_S` / :data:`WORKERS_TIMEOUT_S`. While tasks run, a cluster left without
workers for :data:`NO_WORKERS_TIMEOUT_S` gives up its pending tasks: they are *lost*, which
the summary records and the exit code says.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import as_completed as futures_completed
from pathlib import Path
from typing import Any

#: Seconds to reach a scheduler and hear it answer.
CONNECT_TIMEOUT_S = 30.0
#: Seconds to wait for a scheduler without workers to get one.
WORKERS_TIMEOUT_S = 60.0
#: Seconds a running summary waits for workers once the cluster has none left; its pending tasks are then lost.
NO_WORKERS_TIMEOUT_S = 120.0
#: Seconds between two looks at the cluster while nothing finishes.
_POLL_S = 0.2


def cluster_extra_hint() -> str:
    """How to install Dask into the environment this MFU Desktop runs from (the package is on no index).

    From a checkout (the package's own folder holds ``pyproject.toml``): the ``cluster`` extra of
    that checkout; otherwise Dask itself, with the interpreter running ``mfu`` so that it lands in
    the same environment; the frozen bundle cannot take Dask.
    """
    if getattr(sys, "frozen", False):
        return ("Dask is not installed and the bundled app cannot take it: run mfu summarize from a pip install "
                "(in a checkout: pip install \".[cluster]\"), or drop --scheduler/--workers")
    python = sys.executable or "python3"
    checkout = Path(__file__).resolve().parents[3]
    if (checkout / "pyproject.toml").is_file():
        return (f'Dask is not installed: {python} -m pip install -e "{checkout}[cluster]" '
                "(or drop --scheduler/--workers)")
    return (f'Dask is not installed: {python} -m pip install "dask[distributed]>=2024.1" (what the cluster extra '
            'holds; from a checkout: pip install ".[cluster]"), or drop --scheduler/--workers')


class MissingExtra(RuntimeError):
    """An optional dependency is not installed (the message says what to install)."""


class SchedulerError(RuntimeError):
    """A scheduler that cannot be used (the message says why); ``bad_address`` for an address that is not one."""

    def __init__(self, message: str, bad_address: bool = False) -> None:
        super().__init__(message)
        self.bad_address = bad_address


class Runner:
    """Submit tasks and collect them as they finish (a thread pool, or a Dask client)."""

    description = "a thread pool in this process"

    def __init__(self, workers: int | None = None) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers or min(8, os.cpu_count() or 2)))

    def share(self, value: Any) -> Any:
        """An argument every task gets (a Dask cluster ships it to each worker once)."""
        return value

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Start ``fn(*args)``; returns a future."""
        return self._pool.submit(fn, *args)

    def forget(self, future: Any) -> None:
        """A collected future: let its result go (the client's memory stays flat)."""

    def completed(self, futures: list[Any]) -> Iterator[Any]:
        """The futures, as they finish (a future whose task was lost raises from :meth:`result`)."""
        return futures_completed(futures)

    @staticmethod
    def result(future: Any) -> Any:
        """A finished future's value."""
        return future.result()

    def cancel(self, futures: list[Any]) -> None:
        """Cancel what has not run yet."""
        for f in futures:
            f.cancel()

    def close(self) -> None:
        """Release the executor."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class DaskRunner(Runner):
    """Tasks on a Dask distributed cluster (an existing scheduler, or a LocalCluster started here)."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise MissingExtra(cluster_extra_hint()) from None
        self._cluster = None
        if scheduler:
            workers_now = probe_scheduler(scheduler)
            try:
                self._client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")
            except (OSError, ValueError) as exc:
                raise SchedulerError(f"cannot join the Dask scheduler at {scheduler} ({exc})") from None
            if not workers_now:
                self._wait_for_workers(scheduler)
            self.description = f"the Dask scheduler at {scheduler}"
        else:
            self._cluster = LocalCluster(n_workers=max(1, workers or 1), threads_per_worker=1, processes=True,
                                         dashboard_address=None)
            self._client = Client(self._cluster)
            self.description = f"a local Dask cluster of {max(1, workers or 1)} worker process(es)"

    def _wait_for_workers(self, scheduler: str) -> None:
        """Wait up to :data:`WORKERS_TIMEOUT_S` for a first worker (the client is closed when none comes)."""
        try:
            self._client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except (TimeoutError, OSError):
            self._client.close()
            raise SchedulerError(f"the Dask scheduler at {scheduler} has no workers (waited {WORKERS_TIMEOUT_S:g} s): "
                                 "start them (dask worker " + scheduler + ", or the job that runs them)") from None

    def share(self, value: Any) -> Any:
        return self._client.scatter(value, broadcast=True)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self._client.submit(fn, *args, pure=False)

    def forget(self, future: Any) -> None:
        future.release()

    def completed(self, futures: list[Any]) -> Iterator[Any]:
        """The futures as they finish; when the cluster stays without workers, the pending ones as lost.

        A task on a lost worker is rescheduled by Dask, or fails (``KilledWorker``); with no worker
        left it would wait forever: after :data:`NO_WORKERS_TIMEOUT_S` without any, the pending
        futures are cancelled and handed out (their :meth:`result` raises).
        """
        from distributed import as_completed

        pending = as_completed(futures)
        handed: set[str] = set()
        alone_since: float | None = None
        while not pending.is_empty():
            batch = pending.next_batch(block=False)
            if batch:
                alone_since = None
                handed.update(f.key for f in batch)
                yield from batch
                continue
            if self._worker_count() > 0:
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > NO_WORKERS_TIMEOUT_S:
                # a result already handed out may be pending again (its worker held it): never twice
                lost = [f for f in futures if f.key not in handed]
                self._client.cancel(lost)
                yield from lost
                return
            time.sleep(_POLL_S)

    def _worker_count(self) -> int:
        """Workers the scheduler knows now (0 when it cannot be asked)."""
        try:
            return len(self._client.nthreads())
        except Exception:  # the scheduler is gone: no worker either
            return 0

    def cancel(self, futures: list[Any]) -> None:
        self._client.cancel(futures)

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def probe_scheduler(address: str, timeout: float | None = None) -> int:
    """Check that ``address`` is a Dask scheduler that answers; returns how many workers it has.

    Raises:
        SchedulerError: When the address is not one, cannot be reached, does not answer in time,
            or answers as something else.
    """
    timeout = CONNECT_TIMEOUT_S if timeout is None else timeout
    try:
        identity = asyncio.run(asyncio.wait_for(_identity(address, timeout), timeout + 1))
    except (ValueError, TypeError) as exc:
        raise SchedulerError(f"{address!r} is not a Dask scheduler address (tcp://HOST:PORT): {exc}",
                             bad_address=True) from None
    except TimeoutError:
        raise SchedulerError(f"the scheduler at {address} did not answer within {timeout:g} s: is it a Dask "
                             "scheduler (not its dashboard port, not a proxy)?") from None
    except OSError as exc:
        raise SchedulerError(f"cannot reach the Dask scheduler at {address} ({exc})") from None
    except Exception:  # a peer that is not Dask answers garbage (any decoding error)
        raise SchedulerError(f"{address} answered, but not as a Dask scheduler") from None
    if not isinstance(identity, dict) or identity.get("type") != "Scheduler":
        raise SchedulerError(f"{address} answered, but not as a Dask scheduler")
    workers = identity.get("workers")
    return len(workers) if isinstance(workers, dict) else 0


async def _identity(address: str, timeout: float) -> object:
    """The scheduler's ``identity`` answer (connection, handshake and answer bounded by ``timeout``)."""
    from distributed.comm import connect

    comm = await connect(address, timeout=timeout)
    try:
        await comm.write({"op": "identity"})
        return await comm.read()
    finally:
        comm.abort()


def make_runner(scheduler: str | None = None, workers: int | None = None) -> Runner:
    """The executor the options ask for (see the module docstring).

    Raises:
        MissingExtra: When Dask is asked for and not installed.
        SchedulerError: When the scheduler cannot be used.
    """
    if scheduler or workers:
        return DaskRunner(scheduler, workers)
    return Runner()
