"""Trace files: a damaged gzip fails its own rank with a message naming it (issue 22 §2), and several traces
decode at once, the others in worker processes, with the same result."""

from __future__ import annotations

import gzip
import json

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.readers.kineto import parallel
from mfu_desktop.core.readers.kineto.read import read_trace
from mfu_desktop.demo import write_kineto_trace
from tests.readers.test_kineto_decoder import columns


def damaged(data: bytes, at: int) -> bytes:
    """Gzip data with 64 bytes of its deflate stream flipped from ``at`` on."""
    raw = bytearray(data)
    for i in range(at, min(at + 64, len(raw) - 8)):
        raw[i] ^= 0xFF
    return bytes(raw)


def test_a_damaged_gzip_fails_its_rank_alone_and_says_which_file(tmp_path):
    """Before: discovery (sniffing a *.json.gz head) and reading raised zlib.error and every rank was lost."""
    write_kineto_trace(tmp_path / "good.pt.trace.json", steps=1, layers=1, rank=0)
    text = json.dumps({"traceEvents": [{"ph": "X", "cat": "python_function", "name": "x" * 40, "ts": i, "dur": 1}
                                       for i in range(20_000)]}).encode()
    packed = gzip.compress(text)
    (tmp_path / "head.json.gz").write_bytes(damaged(packed, 30))  # the head cannot be sniffed
    (tmp_path / "late.pt.trace.json.gz").write_bytes(damaged(packed, len(packed) // 2))  # fails while reading
    found = discover([tmp_path])
    assert sorted(r.path.name for r in found.ranks) == ["good.pt.trace.json", "head.json.gz", "late.pt.trace.json.gz"]
    result = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False)
    assert [r.folder.path.name for r in result.ranks] == ["good.pt.trace.json"]
    reasons = sorted(f.reason for f in result.failures)
    assert len(reasons) == 2 and all("damaged gzip data" in r for r in reasons)
    assert reasons[0].startswith("head.json.gz: ") and reasons[1].startswith("late.pt.trace.json.gz: ")


def test_a_cut_gzip_says_so(tmp_path):
    write_kineto_trace(tmp_path / "t.pt.trace.json.gz", steps=1, layers=1, gzip_output=True)
    data = (tmp_path / "t.pt.trace.json.gz").read_bytes()
    (tmp_path / "t.pt.trace.json.gz").write_bytes(data[: len(data) - 20])
    result = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False)
    assert "gzip data is cut short" in result.failures[0].reason


def test_a_second_trace_decodes_in_a_worker_process_with_the_same_columns(tmp_path):
    path = tmp_path / "t.pt.trace.json"
    write_kineto_trace(path, steps=2, layers=2, filler_events=2)
    before = parallel.sent_to_workers
    with parallel.decoding_here():  # a first trace is being decoded here: this one goes to a worker
        elsewhere = parallel.decode_trace(path)
    assert parallel.sent_to_workers == before + 1
    assert columns(elsewhere) == columns(read_trace(path))
    assert parallel.decode_trace(path) is not None and parallel.sent_to_workers == before + 1  # alone: here
