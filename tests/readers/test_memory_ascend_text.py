"""Memory files of the Ascend text export: generated files with hand-computed peaks, quirks, bad input, samples."""

from __future__ import annotations

import pytest

from mfu_desktop.core.analysis.aggregates import AnalysisOptions
from mfu_desktop.core.analysis.memory import memory_of
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.readers.load import read_rank
from mfu_desktop.core.readers.memory.tables import header_key
from tests import memory_files as mf
from tests.helpers import snapshot

CHIP = AnalysisOptions(chip="Ascend 910B2")


def analyse(path, options=CHIP):
    result = analyze_paths([path], options, use_cache=False)
    assert not result.failures, [f.reason for f in result.failures]
    return result


def test_headers_name_their_units():
    assert header_key("Total Reserved(MB)") == ("total reserved", "mb")
    assert header_key("\ufeffSize(KB)") == ("size", "kb")
    assert header_key("Device_id") == ("device id", "")
    assert header_key(" Allocation  Time(us) ") == ("allocation time", "us")


def test_generated_rank_hand_computed_figures(tmp_path):
    path = mf.ascend_memory_rank(tmp_path)
    result = analyse(path)
    doc = result.documents[0]
    m = doc["memory"]
    assert doc["memory_reason"] is None
    assert m["peak_allocated_mb"] == pytest.approx(mf.PEAK_ALLOCATED_MB)  # PTA+GE, not PTA's 400
    assert m["peak_reserved_mb"] == pytest.approx(mf.PEAK_RESERVED_MB)
    assert m["process_reserved_mb"] == pytest.approx(mf.PROCESS_MB)
    assert m["peak_at_us"] == pytest.approx(mf.PEAK_AT_US)  # 1 000 300 − the step's first kernel at 1 000 050
    assert m["peak_step"] == "1"
    assert m["not_released_mb"] == pytest.approx(mf.NOT_RELEASED_MB)
    assert m["allocator"] == "PTA+GE"
    assert m["capacity_gb"] == 64.0
    assert m["footprint_mb"] == pytest.approx(mf.PROCESS_MB) and m["footprint_basis"] == "process reserved (APP)"
    assert m["share"] == pytest.approx(mf.PROCESS_MB / (64 * 1024))
    assert m["headroom_gb"] == pytest.approx(64 - mf.PROCESS_MB / 1024)
    assert [(a["name"], a["mb"], a["allocated_at_us"]) for a in m["top_live"]] == [
        (n, pytest.approx(s), pytest.approx(t)) for n, s, t in mf.TOP_LIVE]
    assert m["components_mb"] == {"HCCL": 300.0, "RUNTIME": 50.0}
    assert "memory_record.csv" in m["source"] and "operator_memory.csv" in m["source"]


def test_curves_share_the_step_axis(tmp_path):
    r = analyse(mf.ascend_memory_rank(tmp_path)).ranks[0]
    mem = memory_of(r)
    curve = mem.curve
    assert list(curve.columns) == ["time_us", "allocated_mb", "reserved_mb"]
    assert curve["time_us"].is_monotonic_increasing
    assert curve.loc[curve["allocated_mb"].idxmax(), "time_us"] == pytest.approx(mf.PEAK_AT_US)
    assert curve["allocated_mb"].isna().sum() == 1  # the blank row is kept as a gap
    assert mem.steps.iloc[0]["start_us"] == pytest.approx(0.0)
    assert set(mem.component_curves["component"]) == {"HCCL", "RUNTIME"}
    assert mem.process_curve["reserved_mb"].max() == pytest.approx(mf.PROCESS_MB)
    assert len(mem.curve_points(3)) <= 3 and mem.curve_points(3)["allocated_mb"].max() == mf.PEAK_ALLOCATED_MB


def test_memory_files_are_inputs_of_the_rank(tmp_path):
    path = mf.ascend_memory_rank(tmp_path)
    folder = discover(path).ranks[0]
    names = {p.name for p in folder.input_files()}
    assert {"memory_record.csv", "operator_memory.csv", "npu_module_mem.csv"} <= names


def test_rank_without_memory_files_is_null_with_the_reason(tmp_path):
    result = analyse(mf.ascend_rank(tmp_path))
    doc = result.documents[0]
    assert doc["memory"] is None
    assert doc["memory_reason"].startswith("no memory data")
    assert "capture with profile_memory=True" in doc["memory_reason"]
    assert result.to_json()["ranks"][0]["memory"] is None
    assert result.to_json()["cluster"]["memory"] is None


def test_profile_memory_false_is_named(tmp_path):
    doc = analyse(mf.ascend_rank(tmp_path, profile_memory=False)).documents[0]
    assert "profile_memory=False" in doc["memory_reason"]


def test_only_pta_and_no_operator_memory(tmp_path):
    path = mf.ascend_rank(tmp_path)
    rows = [r for r in mf.RECORD_ROWS if r.startswith("PTA,")]
    mf.write_csv(path / "ASCEND_PROFILER_OUTPUT" / "memory_record.csv", mf.RECORD_HEADER, rows)
    m = analyse(path).documents[0]["memory"]
    assert m["allocator"] == "PTA" and m["peak_allocated_mb"] == 400.0 and m["peak_reserved_mb"] == 512.0
    assert m["process_reserved_mb"] is None and m["footprint_basis"] == "PTA reserved"
    assert m["not_released_mb"] is None and m["top_live"] == []
    assert any("operator_memory file absent" in n for n in m["notes"])


def test_operator_memory_alone_gives_the_peak(tmp_path):
    path = mf.ascend_rank(tmp_path)
    mf.write_csv(path / "ASCEND_PROFILER_OUTPUT" / "operator_memory.csv", mf.OPERATOR_HEADER, mf.OPERATOR_ROWS)
    m = analyse(path).documents[0]["memory"]
    assert m["peak_allocated_mb"] == 430.0  # the largest total seen at an allocation or a release
    assert m["peak_reserved_mb"] == 540.0
    assert m["peak_at_us"] == pytest.approx(350.0)  # aten::relu's allocation at 1 000 400
    assert any("memory_record file absent" in n for n in m["notes"])


def test_spreadsheet_rounded_timestamps(tmp_path):
    path = mf.ascend_rank(tmp_path)
    rows = [",".join([r.split(",")[0], "1.00003E+06", *r.split(",")[2:]]) for r in mf.RECORD_ROWS]
    mf.write_csv(path / "ASCEND_PROFILER_OUTPUT" / "memory_record.csv", mf.RECORD_HEADER, rows)
    result = analyse(path)
    m = result.documents[0]["memory"]
    assert m["peak_allocated_mb"] == mf.PEAK_ALLOCATED_MB and m["peak_at_us"] is None
    assert any("timestamps are rounded" in w for w in result.documents[0]["warnings"])


def test_header_only_and_garbage_files_never_crash(tmp_path):
    path = mf.ascend_rank(tmp_path)
    out = path / "ASCEND_PROFILER_OUTPUT"
    mf.write_csv(out / "memory_record.csv", mf.RECORD_HEADER, [])
    (out / "operator_memory.csv").write_bytes(b"\x00\xff\xfe garbage \x00\n\x01,\x02\n")
    (out / "npu_module_mem.csv").write_text("not,a\nmemory,file\n", encoding="utf-8")
    before = snapshot(path)
    result = analyse(path)
    doc = result.documents[0]
    assert doc["memory"] is None and doc["memory_reason"].startswith("no memory data")
    assert snapshot(path) == before  # nothing written into the profile


def test_a_partial_file_keeps_the_rows_it_has(tmp_path):
    path = mf.ascend_memory_rank(tmp_path)
    out = path / "ASCEND_PROFILER_OUTPUT"
    rows = [*mf.RECORD_ROWS, "PTA+GE,1000700.000\t,not-a-number,541.0,1,11,NPU:0", "PTA+GE,1000800"]
    mf.write_csv(out / "memory_record.csv", mf.RECORD_HEADER, rows)
    doc = analyse(path).documents[0]
    assert doc["memory"]["peak_allocated_mb"] == mf.PEAK_ALLOCATED_MB
    assert doc["memory"]["peak_reserved_mb"] == 541.0
    assert any("not numbers" in w for w in doc["warnings"])


def test_unreadable_memory_file_keeps_the_kernels(tmp_path, monkeypatch):
    from mfu_desktop.core.readers.memory import ascend_text

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(ascend_text, "memory_from_files", broken)
    path = mf.ascend_memory_rank(tmp_path)
    data = read_rank(discover(path).ranks[0])
    assert data.error is None and data.kernels is not None
    assert data.memory.reason.startswith("no memory data: the memory files could not be read (RuntimeError")


def test_two_devices_in_one_file_keep_the_main_one(tmp_path):
    path = mf.ascend_memory_rank(tmp_path)
    rows = [*mf.RECORD_ROWS, "PTA+GE,1000300.000\t,9999.0,9999.0,1,11,NPU:1"]
    mf.write_csv(path / "ASCEND_PROFILER_OUTPUT" / "memory_record.csv", mf.RECORD_HEADER, rows)
    doc = analyse(path).documents[0]
    assert doc["memory"]["peak_allocated_mb"] == mf.PEAK_ALLOCATED_MB
    assert any("2 devices" in w for w in doc["warnings"])


# --- the public samples ------------------------------------------------------------------------


def test_public_text_samples(samples):
    base = samples / "msinsight/test/data/pytorch/text"
    expected = {"level0": (1188.1064453125, 1526.75, 2109.6015625, 39774.0),
                "level2": (1261.04296875, 1526.75, 2113.73046875, 38246.75)}
    for level, (alloc, reserved, app, at) in expected.items():
        doc = analyse(base / level, AnalysisOptions()).documents[0]
        m = doc["memory"]
        assert (m["peak_allocated_mb"], m["peak_reserved_mb"], m["process_reserved_mb"]) == (alloc, reserved, app)
        assert m["peak_at_us"] == pytest.approx(at) and m["peak_step"] == "50"
        assert m["allocator"] == "PTA+GE"
        assert m["top_live"][0]["name"] == "aten::mm" and m["top_live"][0]["mb"] == pytest.approx(144.00048828125)
        assert m["not_released_mb"] == pytest.approx(252.6474609375)
        assert m["components_mb"]["HCCL"] == pytest.approx(404.0625)


def test_public_server_samples(samples):
    result = analyse(samples / "msinsight/server/src/test/test_data", AnalysisOptions())
    by_rank = {d["rank"]: d for d in result.documents}
    r0, r1 = by_rank[0]["memory"], by_rank[1]["memory"]
    assert (r0["peak_allocated_mb"], r0["peak_reserved_mb"], r0["process_reserved_mb"]) == (
        4599.86572265625, 8664.0, 11224.375)
    assert r0["peak_at_us"] == pytest.approx(8219.0) and r0["top_live"] == []
    # rank 1's memory_record.csv was saved by a spreadsheet (1.69512E+15): peaks read, no time
    assert r1["peak_reserved_mb"] == 8582.0 and r1["peak_at_us"] is None
    assert r1["static_peak_mb"] == pytest.approx(27.74117374420215)
    cluster = result.to_json()["cluster"]["memory"]
    assert cluster["peak_reserved_mb"] == 8664.0 and cluster["peak_reserved_rank"] == 0
    assert cluster["ranks"] == 2


def test_truncated_and_flipped_files_never_raise(tmp_path):
    """Every cut of the three files, and bytes flipped in them: a memory record or a reason, never an exception."""
    import random

    from mfu_desktop.core.readers.memory.ascend_text import memory_from_files

    path = mf.ascend_memory_rank(tmp_path)
    out = path / "ASCEND_PROFILER_OUTPUT"
    files = {role: [out / f"{role}.csv"] for role in ("memory_record", "operator_memory", "npu_module_mem")}
    originals = {role: paths[0].read_bytes() for role, paths in files.items()}
    rng = random.Random(27)
    for role, raw in originals.items():
        for cut in range(0, len(raw), max(1, len(raw) // 40)):
            files[role][0].write_bytes(raw[:cut])
            md = memory_from_files(files, "ASCEND_PROFILER_OUTPUT", True)
            assert md.available or md.reason
        for _ in range(30):
            data = bytearray(raw)
            for _ in range(5):
                data[rng.randrange(len(data))] = rng.choice(b",\t\r\n\"\x00\xffE+-.9")
            files[role][0].write_bytes(bytes(data))
            md = memory_from_files(files, "ASCEND_PROFILER_OUTPUT", True)
            assert md.available or md.reason
        files[role][0].write_bytes(raw)
