"""``mfu summarize`` checks every input before it makes a folder or starts Dask, and loses nothing it did not write.

Before (issue 22): ``--out`` into an existing folder that is not a summary deleted its
``ranks/*.json`` and overwrote ``manifest.json`` and ``*.parquet``; a path without ranks
still made the summary folder (and started Dask); a ``--scheduler`` endpoint that accepted the
connection and never answered hung; ``udp://`` or garbage addresses gave tracebacks; a
scheduler without workers was reported as "cannot write OUT"; losing the workers mid-run
exited 0 with most ranks failed.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from pathlib import Path

import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.pipeline import runners
from mfu_desktop.core.pipeline.runners import Runner, SchedulerError, probe_scheduler
from tests.helpers import kernel_row, make_rank

ROW = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512", "DT_BF16;DT_BF16",
                 "128,512", "DT_BF16")


def _hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _job(tmp_path: Path, ranks: int = 2) -> Path:
    for r in range(ranks):
        make_rank(tmp_path / "job", f"r{r}_ascend_pt", r, [ROW])
    return tmp_path / "job"


def test_a_folder_that_is_not_a_summary_is_never_touched(tmp_path, capsys):
    mine = tmp_path / "mine"
    (mine / "ranks").mkdir(parents=True)
    (mine / "ranks" / "notes.json").write_text('{"mine": true}')
    (mine / "manifest.json").write_text('{"my": "manifest"}')
    (mine / "table.parquet").write_bytes(b"PAR1 my data")
    before = _hashes(mine)
    assert mfu(["summarize", str(_job(tmp_path)), "--out", str(mine)]) == 2
    assert "is not empty and is not an MFU Desktop summary" in capsys.readouterr().err
    assert _hashes(mine) == before  # before: ranks/notes.json deleted, manifest.json and *.parquet overwritten


def test_a_summary_is_updated_and_keeps_files_it_did_not_write(tmp_path, capsys):
    job = _job(tmp_path)
    out = tmp_path / "summary"
    assert mfu(["summarize", str(job), "--out", str(out)]) == 0
    (out / "ranks" / "my-notes.json").write_text("{}")  # not listed by the manifest: not ours
    csv = job / "r1_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    csv.write_text(csv.read_text() + ROW + "\n")  # rank 1 changed: its old document is stale
    old = {p.name for p in (out / "ranks").iterdir()}
    assert mfu(["summarize", str(job), "--out", str(out)]) == 0
    assert "1 summarised, 1 unchanged" in capsys.readouterr().out
    now = {p.name for p in (out / "ranks").iterdir()}
    assert "my-notes.json" in now and len(old - now) == 1  # the stale document went, the user's file stayed


@pytest.mark.parametrize("where", ["inside", "root", "above", "prof"])
def test_never_into_or_above_a_profile(tmp_path, capsys, where):
    job = _job(tmp_path)
    (job / "PROF_000001_x").mkdir()
    out = {"inside": job / "r0_ascend_pt" / "summary", "root": job, "above": tmp_path,
           "prof": job / "PROF_000001_x" / "s"}[where]
    before = _hashes(tmp_path)
    assert mfu(["summarize", str(job / "r1_ascend_pt"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "argument --out: refusing to write into" in err and "write to" in err
    assert _hashes(tmp_path) == before


def test_inputs_are_checked_before_a_folder_or_dask(tmp_path, capsys, monkeypatch):
    def no_runner(*args, **kwargs):
        raise AssertionError("Dask started for nothing")

    monkeypatch.setattr(runners, "make_runner", no_runner)
    out = tmp_path / "summary"
    assert mfu(["summarize", str(tmp_path / "missing"), "--out", str(out), "--workers", "2"]) == 1
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert mfu(["summarize", str(tmp_path / "empty"), "--out", str(out), "--workers", "2"]) == 1
    assert "no profiler ranks found" in capsys.readouterr().err
    assert not out.exists()  # before: a summary folder with an empty manifest


class _Lossy(Runner):
    """A runner whose odd tasks never come back (their worker was lost)."""

    def __init__(self) -> None:
        super().__init__(workers=1)
        self.calls = 0

    def result(self, future):
        self.calls += 1
        if self.calls % 2:
            raise RuntimeError("KilledWorker: the worker running it died")
        return future.result()


def test_lost_ranks_are_recorded_and_exit_non_zero(tmp_path, capsys, monkeypatch):
    job = _job(tmp_path, ranks=4)
    monkeypatch.setattr(runners, "make_runner", lambda scheduler, workers: _Lossy())
    out = tmp_path / "summary"
    assert mfu(["summarize", str(job), "--out", str(out)]) == 3  # before: 0
    io = capsys.readouterr()
    assert "2 rank(s) lost" in io.err and "run again" in io.err
    statuses = sorted(r["status"] for r in json.loads((out / "manifest.json").read_text())["ranks"])
    assert statuses == ["lost", "lost", "ok", "ok"]
    monkeypatch.setattr(runners, "make_runner", lambda scheduler, workers: Runner())
    assert mfu(["summarize", str(job), "--out", str(out)]) == 0  # a re-run completes it
    assert "2 summarised, 2 unchanged" in capsys.readouterr().out


# --- schedulers -----------------------------------------------------------------------------


@pytest.fixture
def silent_endpoint():
    """A TCP port that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_an_endpoint_that_never_answers_times_out(silent_endpoint, tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(runners, "CONNECT_TIMEOUT_S", 2.0)
    started = time.monotonic()
    code = mfu(["summarize", str(_job(tmp_path)), "--out", str(tmp_path / "s"), "--scheduler", silent_endpoint])
    assert code == 1 and time.monotonic() - started < 15  # before: hung for good (Dask's timeout misses it)
    assert "did not answer within 2 s" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("address", ["udp://127.0.0.1:8786", "garbage", "inproc://x"])
def test_an_address_that_is_not_a_schedulers(address, tmp_path, capsys):
    pytest.importorskip("distributed")
    assert mfu(["summarize", str(_job(tmp_path)), "--out", str(tmp_path / "s"), "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert "argument --scheduler:" in err and "is not a Dask scheduler address" in err and "Traceback" not in err


def test_a_closed_port_is_unreachable(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(runners, "CONNECT_TIMEOUT_S", 2.0)
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    assert mfu(["summarize", str(_job(tmp_path)), "--out", str(tmp_path / "s"), "--scheduler",
                f"tcp://127.0.0.1:{port}"]) == 1
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_a_scheduler_without_workers_says_so(tmp_path, capsys, monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(runners, "WORKERS_TIMEOUT_S", 1.0)
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        assert probe_scheduler(cluster.scheduler_address) == 0
        code = mfu(["summarize", str(_job(tmp_path)), "--out", str(tmp_path / "s"), "--scheduler",
                    cluster.scheduler_address])
    assert code == 1
    err = capsys.readouterr().err
    assert "has no workers (waited 1 s)" in err and "cannot write" not in err  # before: "cannot write OUT"


def test_pending_tasks_are_lost_when_no_worker_is_left(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(runners, "NO_WORKERS_TIMEOUT_S", 1.0)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        runner = runners.DaskRunner(cluster.scheduler_address)
        try:
            futures = [runner.submit(time.sleep, 0.01), *(runner.submit(time.sleep, 2 + i / 10) for i in range(3))]
            finished = []
            for future in runner.completed(futures):
                finished.append(future)
                if len(finished) == 1:  # the quick task is back: the only worker goes away
                    cluster.scale(0)
            lost = finished[1:]
            assert len(finished) == 4 and all(f.cancelled() for f in lost)  # before: waited forever
        finally:
            runner.close()


def test_probe_refuses_a_peer_that_is_not_dask():
    pytest.importorskip("distributed")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def answer() -> None:
        conn, _ = server.accept()
        conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 64)
        conn.close()

    threading.Thread(target=answer, daemon=True).start()
    with pytest.raises(SchedulerError, match="answered, but not as a Dask scheduler"):
        probe_scheduler(f"tcp://127.0.0.1:{server.getsockname()[1]}", timeout=3)
    server.close()
