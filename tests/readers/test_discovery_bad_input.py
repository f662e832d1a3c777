"""Discovery where one path is bad: it fails alone, by name; nothing outside the dropped folder is read.

Each case failed before (issue 22 §2): a folder that cannot be listed raised out of
discovery (every rank lost), a link to ``/`` walked out of the root, a FIFO hung the read, a
damaged ``.json.gz`` killed the run, an empty ``*_ascend_pt`` vanished from the rank count.
"""

from __future__ import annotations

import gzip
import os
import threading

import pytest

from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.discovery import discover
from tests.helpers import kernel_row, make_rank

ROW = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512", "DT_BF16;DT_BF16",
                 "128,512", "DT_BF16")
SECRET = "aws_secret_access_key=AKIAEXAMPLESECRET"


def _deny(monkeypatch, denied):
    """Make ``denied`` behave like a folder without read/execute rights (as for a user who is not root)."""
    real_scandir, real_stat = os.scandir, os.stat
    denied = str(denied)

    def under(path) -> bool:
        text = os.fspath(path)
        return text.startswith(denied + os.sep)

    def scandir(path="."):
        if os.fspath(path) == denied or under(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def stat(path, *args, **kwargs):
        if not isinstance(path, int) and under(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)


def test_a_rank_folder_that_cannot_be_listed_is_one_failed_rank(tmp_path, monkeypatch):
    make_rank(tmp_path, "good_ascend_pt", 0, [ROW])
    bad = make_rank(tmp_path, "bad_ascend_pt", 1, [ROW])
    _deny(monkeypatch, bad)
    result = analyze_paths([tmp_path], use_cache=False)  # before: PermissionError out of discovery
    assert [r.rank for r in result.ranks] == [0]
    assert len(result.failures) == 1
    assert result.failures[0].folder.path == bad and "cannot be listed (Permission denied)" in result.failures[0].reason


def test_a_plain_folder_that_cannot_be_listed_is_one_failed_rank(tmp_path, monkeypatch):
    make_rank(tmp_path, "good_ascend_pt", 0, [ROW])
    node = tmp_path / "node3"
    make_rank(node, "r_ascend_pt", 5, [ROW])
    _deny(monkeypatch, node)
    found = discover([tmp_path])
    assert [r.rank for r in found.ranks] == [0, None]
    assert found.ranks[1].unreadable == f"{node} cannot be listed (Permission denied)"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="file modes do not stop root")
def test_real_permissions(tmp_path):
    make_rank(tmp_path, "good_ascend_pt", 0, [ROW])
    bad = make_rank(tmp_path, "bad_ascend_pt", 1, [ROW])
    bad.chmod(0)
    try:
        result = analyze_paths([tmp_path], use_cache=False)
    finally:
        bad.chmod(0o755)
    assert [r.rank for r in result.ranks] == [0] and "cannot be listed" in result.failures[0].reason


def test_links_out_of_the_dropped_folder_are_not_followed(tmp_path):
    root, outside = tmp_path / "cluster", tmp_path / "elsewhere"
    make_rank(root, "r0_ascend_pt", 0, [ROW])
    make_rank(outside, "r9_ascend_pt", 9, [ROW])
    (root / "to_root").symlink_to("/")  # before: the walk went into /proc, /sys …
    (root / "to_elsewhere").symlink_to(outside)
    found = discover([root])
    assert [r.rank for r in found.ranks] == [0]  # before: rank 9 from outside the root too
    warning = next(w for w in found.warnings if "lead outside" in w)
    assert warning.startswith(f"2 link(s) under {root}") and "to_root" in warning and "to_elsewhere" in warning
    # a link that stays inside the root is followed (once)
    (root / "alias").symlink_to(root / "r0_ascend_pt")
    assert [r.rank for r in discover([root]).ranks] == [0]


def test_a_file_linked_from_outside_is_not_read_nor_quoted(tmp_path):
    secret = tmp_path / "credentials"
    secret.write_text(f"{SECRET},user\nx,y\n")
    root = tmp_path / "cluster"
    rank = make_rank(root, "r0_ascend_pt", 0, [ROW])
    csv = rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    csv.unlink()
    csv.symlink_to(secret)
    result = analyze_paths([root], use_cache=False)
    assert not result.ranks
    text = repr(result.document())
    assert "links outside" in text and "AKIA" not in text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX (no mkfifo on Windows)")
def test_a_fifo_is_never_opened(tmp_path):
    make_rank(tmp_path, "good_ascend_pt", 0, [ROW])
    bad = make_rank(tmp_path, "bad_ascend_pt", 1, [ROW])
    fifo = bad / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    fifo.unlink()
    os.mkfifo(fifo)
    results = []
    worker = threading.Thread(target=lambda: results.append(analyze_paths([tmp_path], use_cache=False)), daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # before: blocked forever in open(); unblock it so the test run can end
        with open(fifo, "wb"):
            pass
        worker.join(10)
        pytest.fail("reading a FIFO named kernel_details.csv blocked")
    result = results[0]
    assert [r.rank for r in result.ranks] == [0]
    assert "not a regular file" in repr(result.document())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX (no mkfifo on Windows)")
def test_a_dropped_fifo_is_a_warning(tmp_path):
    fifo = tmp_path / "trace.pt.trace.json"
    os.mkfifo(fifo)
    found = discover([fifo])
    assert not found.ranks and "neither a folder nor a regular file" in found.warnings[0]


def test_a_damaged_gzip_trace_fails_alone_and_by_name(tmp_path):
    make_rank(tmp_path, "good_ascend_pt", 0, [ROW])
    packed = bytearray(gzip.compress(b'{"traceEvents": [' + b'{"ph": "X", "cat": "kernel", "ts": 1, "dur": 2},' * 500
                                     + b"{}]}"))
    packed[40:60] = bytes(20)  # corrupt deflate data: zlib.error, not an OSError
    (tmp_path / "gpu.json.gz").write_bytes(bytes(packed))  # sniffed (no .pt.trace name): raised out of discovery
    (tmp_path / "gpu1.pt.trace.json.gz").write_bytes(bytes(packed))
    result = analyze_paths([tmp_path], use_cache=False)
    assert [r.rank for r in result.ranks] == [0]
    reasons = {f.folder.path.name: f.reason for f in result.failures}
    assert set(reasons) == {"gpu.json.gz", "gpu1.pt.trace.json.gz"}
    assert all("gpu" in reason for reason in reasons.values())


def test_an_empty_rank_folder_is_a_failed_rank_not_a_missing_one(tmp_path):
    make_rank(tmp_path, "good_ascend_pt", 0, [ROW])
    (tmp_path / "empty_ascend_pt").mkdir()
    result = analyze_paths([tmp_path], use_cache=False)
    assert [r.rank for r in result.ranks] == [0]
    assert [f.folder.path.name for f in result.failures] == ["empty_ascend_pt"]  # before: not counted at all
    assert "no kernel_details.csv" in result.failures[0].reason


def test_a_reader_that_raises_on_one_folder_is_a_warning(tmp_path, monkeypatch):
    from mfu_desktop.core.readers.kineto.reader import KinetoReader

    make_rank(tmp_path, "good_ascend_pt", 0, [ROW])
    (tmp_path / "odd").mkdir()
    real = KinetoReader.ranks_in_dir

    def flaky(self, path, root):
        if path.name == "odd":
            raise RuntimeError("reader bug")
        return real(self, path, root)

    monkeypatch.setattr(KinetoReader, "ranks_in_dir", flaky)
    found = discover([tmp_path])
    assert [r.rank for r in found.ranks] == [0]
    assert any(w.startswith(f"{tmp_path / 'odd'} cannot be read (unexpected RuntimeError: reader bug)")
               for w in found.warnings)
