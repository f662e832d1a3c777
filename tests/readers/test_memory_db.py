"""Memory tables of the profiler database: bytes and ns, names through STRING_IDS / ENUM_MODULE, STEP_TIME."""

from __future__ import annotations

import sqlite3

import pytest

from mfu_desktop.core.analysis.aggregates import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.memory.db import read_db_memory
from tests.helpers import snapshot, write_profiler_db

MB = 2**20
MS = 1_000_000  # ns


def db_rank(tmp_path, memory: bool = True):
    """A db-only rank: one kernel in step 7 (STEP_TIME 1 000 000 000 – 1 010 000 000 ns) and memory tables."""
    out = tmp_path / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    db = write_profiler_db(out / "ascend_pytorch_profiler_0.db", [
        {"start_ns": 1_000_100_000, "tid": 1, "name": "aten::mm",
         "kernels": [{"start_ns": 1_000_200_000, "dur_ns": 50_000, "name": "MatMul", "type": "MatMulV2",
                      "inputs": "64,64;64,64", "in_types": "FLOAT16;FLOAT16", "outputs": "64,64",
                      "out_types": "FLOAT16"}]}], steps=[(7, 1_000_000_000, 1_010_000_000)])
    if memory:
        conn = sqlite3.connect(db)
        ids = {v: i for i, v in conn.execute("SELECT id, value FROM STRING_IDS")}
        nxt = max(ids.values()) + 1
        for text in ("PTA", "PTA+GE", "aten::empty", "aten::mm", "app", "device"):
            if text not in ids:
                ids[text] = nxt
                conn.execute("INSERT INTO STRING_IDS VALUES (?,?)", (nxt, text))
                nxt += 1
        conn.executescript("""
            CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER,
                totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);
            CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER,
                activeReleaseTime INTEGER, duration INTEGER, activeDuration INTEGER,
                allocationTotalAllocated INTEGER, allocationTotalReserved INTEGER, allocationTotalActive INTEGER,
                releaseTotalAllocated INTEGER, releaseTotalReserved INTEGER, releaseTotalActive INTEGER,
                streamPtr INTEGER, deviceId INTEGER);
            CREATE TABLE NPU_MODULE_MEM (moduleId INTEGER, timestampNs INTEGER, totalReserved INTEGER,
                deviceId INTEGER);
            CREATE TABLE ENUM_MODULE (id INTEGER, name TEXT);
            CREATE TABLE NPU_MEM (type INTEGER, ddr INTEGER, hbm INTEGER, timestampNs INTEGER, deviceId INTEGER);
        """)
        rec = [(ids["PTA"], 1_001 * MS, 100 * MB, 256 * MB), (ids["PTA+GE"], 1_001 * MS, 120 * MB, 300 * MB),
               (ids["PTA"], 1_004 * MS, 600 * MB, 700 * MB), (ids["PTA+GE"], 1_004 * MS, 640 * MB, 800 * MB),
               (ids["PTA+GE"], 1_008 * MS, 200 * MB, 800 * MB)]
        conn.executemany("INSERT INTO MEMORY_RECORD VALUES (?,?,?,?,?,1,0)", [(*r, r[2]) for r in rec])
        conn.executemany("INSERT INTO OP_MEMORY VALUES (?,?,?,?,NULL,NULL,NULL,?,?,NULL,NULL,NULL,NULL,1,0)", [
            (ids["aten::empty"], 300 * MB, 1_002 * MS, 1_006 * MS, 420 * MB, 800 * MB),
            (ids["aten::mm"], 200 * MB, 1_003 * MS, None, 620 * MB, 800 * MB)])
        conn.executemany("INSERT INTO ENUM_MODULE VALUES (?,?)", [(3, "HCCL"), (7, "RUNTIME")])
        conn.executemany("INSERT INTO NPU_MODULE_MEM VALUES (?,?,?,0)", [
            (3, 1_001 * MS, 128 * MB), (3, 1_005 * MS, 256 * MB), (7, 1_001 * MS, 64 * MB), (0, 1_001 * MS, 0)])
        conn.executemany("INSERT INTO NPU_MEM VALUES (?,?,?,?,0)", [
            (ids["app"], 0, 2048 * MB, 1_001 * MS), (ids["app"], 0, 3072 * MB, 1_005 * MS),
            (ids["device"], 0, 9000 * MB, 1_005 * MS)])
        conn.commit()
        conn.close()
    return out.parent, db


def test_db_memory_hand_computed(tmp_path):
    path, _ = db_rank(tmp_path)
    before = snapshot(path)
    result = analyze_paths([path], AnalysisOptions(chip="Ascend 910B2"), use_cache=False)
    assert not result.failures, [f.reason for f in result.failures]
    m = result.documents[0]["memory"]
    assert (m["peak_allocated_mb"], m["peak_reserved_mb"], m["process_reserved_mb"]) == (640.0, 800.0, 3072.0)
    assert m["peak_at_us"] == pytest.approx(4000.0) and m["peak_step"] == "7"  # from STEP_TIME's start
    assert m["peak_from"] == "the start of step 7"
    assert [(a["name"], a["mb"], a["allocated_at_us"]) for a in m["top_live"]] == [
        ("aten::empty", 300.0, 2000.0), ("aten::mm", 200.0, 3000.0)]
    assert m["not_released_mb"] == 200.0
    assert m["components_mb"] == {"HCCL": 256.0, "RUNTIME": 64.0}
    assert m["source"].startswith("ascend_pytorch_profiler_0.db (MEMORY_RECORD, OP_MEMORY")
    assert snapshot(path) == before


def test_db_without_memory_tables(tmp_path):
    path, db = db_rank(tmp_path, memory=False)
    md = read_db_memory(db, None)
    assert md.reason.startswith("no memory data") and "MEMORY_RECORD" in md.reason
    doc = analyze_paths([path], use_cache=False).documents[0]
    assert doc["memory"] is None and "profile_memory=True" in doc["memory_reason"]


def test_not_a_database(tmp_path):
    bad = tmp_path / "x.db"
    bad.write_bytes(b"not sqlite at all" * 10)
    md = read_db_memory(bad, None)
    assert md.reason is not None and md.reason.startswith("no memory data")


def test_public_db_samples(samples):
    result = analyze_paths([samples / "msinsight/test/data/pytorch/db/level2"], use_cache=False)
    for doc in result.documents:
        m = doc["memory"]
        assert (m["peak_allocated_mb"], m["peak_reserved_mb"]) == (1261.04296875, 1526.75)
        assert m["process_reserved_mb"] == pytest.approx(2113.73, abs=0.01)  # NPU_MEM app rows
        assert m["peak_step"] == "50" and m["peak_from"] == "the start of step 50"
        assert m["components_mb"]["HCCL"] == pytest.approx(404.0625)  # moduleId 3 through ENUM_MODULE
        assert m["top_live"][0]["name"] == "aten::mm"
