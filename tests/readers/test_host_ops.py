"""Host operators read for the timeline: a trace's cpu_ops and the db's PYTORCH_API, each kernel linked to its op."""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.host_ops import read_host_ops
from tests.helpers import kernel_row, make_rank, snapshot, write_profiler_db


def _rank(path):
    result = analyze_paths([path], AnalysisOptions(), use_cache=False)
    assert result.ranks, result.warnings
    return result.ranks[0]


def write_trace(path) -> None:
    """Two threads of ops: linear ⊃ addmm (External id 1) and mm launched by correlation only; a loader thread."""
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "args": {}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 10, "dur": 40,
         "args": {"External id": 1, "Input Dims": [[64], [32, 48], [48, 64]], "Input type": ["float", "float",
                                                                                             "float"]}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 60, "dur": 30, "args": {}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 70, "dur": 2,
         "args": {"correlation": 77}},
        {"ph": "X", "cat": "cpu_op", "name": "loader", "pid": 1, "tid": 2, "ts": 5, "dur": 20, "args": {}},
        {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 120, "dur": 8,
         "args": {"External id": 1, "correlation": 5, "stream": 7, "device": 0}},
        {"ph": "X", "cat": "kernel", "name": "gemm_b", "pid": 0, "tid": 7, "ts": 130, "dur": 6,
         "args": {"correlation": 77, "stream": 7, "device": 0}},
        {"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": 8, "ts": 140, "dur": 1,
         "args": {"stream": 8, "device": 0}},
    ]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}), encoding="utf-8")


def test_trace_ops_are_linked_by_external_id_and_by_correlation(tmp_path):
    trace = tmp_path / "w.pt.trace.json"
    write_trace(trace)
    r = _rank(trace)
    host = read_host_ops(r.folder, r.kernels)
    assert host is not None and len(host) == 4
    names = list(host.name.astype(str))
    assert names == ["aten::linear", "aten::addmm", "aten::mm", "loader"]
    assert host.depth.tolist() == [0, 1, 1, 0]
    assert host.start_ns.tolist() == [0, 10_000, 60_000, 5_000]  # µs → ns on the kernels' clock
    kernel_names = r.kernels[C.NAME].astype(str).tolist()
    linked = {kernel_names[i]: names[op] if op >= 0 else None for i, op in enumerate(host.kernel_op)}
    assert linked == {"gemm_a": "aten::addmm", "gemm_b": "aten::mm", "orphan": None}
    assert len(set(host.thread.tolist())) == 2


def test_a_trace_that_changed_since_it_was_analysed_is_not_linked(tmp_path):
    trace = tmp_path / "w.pt.trace.json"
    write_trace(trace)
    r = _rank(trace)
    host = read_host_ops(r.folder, r.kernels.iloc[:2])
    assert (host.kernel_op == -1).all() and "the file changed" in host.notes[0]


def test_db_operators_are_linked_through_connection_ids(tmp_path):
    folder = tmp_path / "r0_ascend_pt"
    out = folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (folder / "profiler_info_0.json").write_text(json.dumps({"rank_id": 0}), encoding="utf-8")
    t = 1_736_000_000_000_000_000
    kernel = {"dur_ns": 4_000, "type": "MatMulV2", "inputs": "64,128;128,256", "in_types": "DT_BF16;DT_BF16",
              "outputs": "64,256", "out_types": "DT_BF16"}
    ops = [{"start_ns": t, "tid": 11, "name": "aten::mm", "kernels": [
               {**kernel, "start_ns": t + 50_000, "name": "MatMul_a"}, {**kernel, "start_ns": t + 60_000,
                                                                       "name": "MatMul_b"}]},
           {"start_ns": t + 20_000, "tid": 11, "name": "aten::add", "kernels": [
               {"start_ns": t + 70_000, "dur_ns": 1_000, "name": "Add_c", "type": "Add", "core": "AI_VECTOR_CORE"}]}]
    db = write_profiler_db(out / "ascend_pytorch_profiler_0.db", ops, steps=[(1, t, t + 100_000)])
    before = snapshot(folder)
    r = _rank(folder)
    host = read_host_ops(r.folder, r.kernels)
    assert host is not None and list(host.name.astype(str)) == ["aten::mm", "aten::add"]
    assert host.dur_us.tolist() == [5.0, 5.0]  # the helper's ops last 5 µs
    by_name = dict(zip(r.kernels[C.NAME].astype(str), host.kernel_op))
    assert by_name == {"MatMul_a": 0, "MatMul_b": 0, "Add_c": 1}
    assert snapshot(folder) == before  # read-only
    # a database without framework operators has none
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE PYTORCH_API")
    conn.commit()
    conn.close()
    assert read_host_ops(r.folder, r.kernels) is None


def test_a_corrupt_database_gives_no_host_ops(tmp_path):
    folder = tmp_path / "r0_ascend_pt"
    out = folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    t = 1_736_000_000_000_000_000
    write_profiler_db(out / "ascend_pytorch_profiler_0.db", [{"start_ns": t, "tid": 1, "name": "aten::mm", "kernels": [
        {"start_ns": t + 10, "dur_ns": 1000, "name": "MatMul", "type": "MatMulV2"}]}])
    r = _rank(folder)
    (out / "ascend_pytorch_profiler_0.db").write_bytes(b"not a database at all" * 100)
    assert read_host_ops(r.folder, r.kernels) is None


def test_a_text_export_has_no_host_ops(tmp_path):
    folder = make_rank(tmp_path, "r0_ascend_pt", 0, [kernel_row("Add_1", "Add", "AI_VECTOR_CORE",
                                                                "1736000000000000.000", 5.0)])
    r = _rank(folder)
    assert read_host_ops(r.folder, r.kernels) is None
    assert np.asarray(r.kernels[C.STREAM_ID]).tolist() == [2]  # Stream ID is read from kernel_details.csv


def test_public_samples(samples):
    db = _rank(samples / "msinsight/test/data/pytorch/db/level2/rank0_ascend_pt")
    host = read_host_ops(db.folder, db.kernels)
    # every compute task of the Level2 database reaches a PYTORCH_API operator; the 4 HCCL operators do not
    assert len(host) == 860 and int((host.kernel_op >= 0).sum()) == 187 and len(db.kernels) == 191
    trace = _rank(samples / "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz")
    host = read_host_ops(trace.folder, trace.kernels)
    assert len(host) == 479 and (host.kernel_op >= 0).all()  # the 60 kernels + 1 memcpy all have their op
