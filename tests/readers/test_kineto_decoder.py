"""The msgspec trace decoder: columns by hand, any slicing gives the same columns, the typed and loose paths
agree, and bad values are skipped and counted with what and where (issue 22 §2, §3)."""

from __future__ import annotations

import gzip
import io
import json
import math
from pathlib import Path

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfu_desktop.core.readers.kineto import event_array
from mfu_desktop.core.readers.kineto.byte_stream import TraceFormatError
from mfu_desktop.core.readers.kineto.decoder import TraceDecoder
from mfu_desktop.core.readers.kineto.json_scan import Malformed, Scan, advance
from mfu_desktop.core.readers.kineto.read import decode_notes, read_trace
from mfu_desktop.demo import write_kineto_trace
from tests.hardening.test_fuzz_parsers import FUZZ

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132, "totalGlobalMem": 85018279936}
ARRAYS = ["op_name", "op_thread", "op_ts", "op_dur", "op_ext", "op_dims", "op_types", "op_concrete", "k_name",
          "k_cat", "k_ts", "k_dur", "k_ext", "k_corr", "k_device", "k_stream", "l_corr", "l_thread", "l_ts", "m_ts",
          "m_bytes", "m_addr", "m_allocated", "m_reserved", "m_device_type", "m_device", "m_thread", "x_ext",
          "x_corr"]


def columns(ev) -> dict:
    """Every column of a TraceEvents (NaN made comparable), its texts, steps and header.

    Threads are ids compared for equality only: they are numbered here in their order in the three columns.
    """
    out = {name: [None if isinstance(v, float) and math.isnan(v) else v for v in getattr(ev, name)] for name in ARRAYS}
    numbers: dict[int, int] = {}
    for name in ("op_thread", "l_thread", "m_thread"):
        out[name] = [numbers.setdefault(v, len(numbers)) for v in out[name]]
    out.update(strings=list(ev.strings.values), cpu=ev.cpu_steps, gpu=ev.gpu_steps, header=ev.header,
               excluded={k: dict(v) for k, v in ev.excluded.items()}, undecodable=ev.undecodable)
    return out


def write(path: Path, events: list, **top) -> Path:
    path.write_text(json.dumps({"deviceProperties": [H100], **top, "traceEvents": events}, allow_nan=True))
    return path


def texts(ev, column: str) -> list:
    return [ev.strings.values[c] if c >= 0 else None for c in getattr(ev, column)]


# --- columns by hand ------------------------------------------------------------------------


def test_a_small_trace_column_by_column(tmp_path):
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 100, "dur": 50,
         "args": {"External id": 4, "Input Dims": [[256, 512], [512, 1024]], "Input type": ["float", "float"],
                  "Concrete Inputs": ["", ""], "Input Strides": [[512, 1], [1024, 1]]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 110.5, "dur": 5,
         "args": {"correlation": 40, "External id": 4}},
        {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 200.25, "dur": 10,
         "args": {"correlation": 40, "External id": 4, "device": 0, "stream": 7, "grid": [1, 2, 3]}},
        {"ph": "X", "cat": "python_function", "name": "f.py(1): g", "pid": 7, "tid": 7, "ts": 90, "dur": 100},
        {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 215, "dur": 2,
         "args": {"correlation": 41, "device": 0, "stream": 7}},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 7, "tid": 7, "ts": 50, "dur": 400},
        {"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 7, "tid": 7, "ts": 60, "dur": 10},
        {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 7, "tid": 7, "ts": 120, "s": "t",
         "args": {"Bytes": 4096, "Addr": 1234, "Total Allocated": 8192, "Total Reserved": 2097152,
                  "Device Type": 1, "Device Id": 0}},
        {"ph": "s", "cat": "ac2g", "id": 40, "pid": 7, "tid": 7, "ts": 110.5},
        {"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "python"}},
    ]
    ev = read_trace(write(tmp_path / "t.json", events, traceName="x"))
    assert texts(ev, "op_name") == ["aten::mm"] and list(ev.op_ts) == [100.0] and list(ev.op_dur) == [50.0]
    assert texts(ev, "op_dims") == ["256,512;512,1024"] and texts(ev, "op_types") == ["float;float"]
    assert texts(ev, "op_concrete") == [";"] and list(ev.op_ext) == [4]
    assert texts(ev, "k_name") == ["gemm_a", "Memset (Device)"] and texts(ev, "k_cat") == ["kernel", "gpu_memset"]
    assert list(ev.k_ts) == [200.25, 215.0] and list(ev.k_dur) == [10.0, 2.0]
    assert list(ev.k_ext) == [4, -1] and list(ev.k_corr) == [40, 41] and list(ev.k_stream) == [7, 7]
    assert list(ev.l_corr) == [40] and list(ev.l_ts) == [110.5] and list(ev.l_thread) == list(ev.op_thread)
    assert ev.cpu_steps == [(3, 50.0, 450.0)] and ev.gpu_steps == []
    assert list(ev.m_bytes) == [4096.0] and list(ev.m_addr) == [1234] and list(ev.m_reserved) == [2097152.0]
    assert list(ev.m_thread) == list(ev.op_thread)  # the same (pid, tid)
    # python_function, the "forward" range (kept nowhere, not counted), the flow and the metadata event
    assert ev.skipped == 3 and ev.header["traceName"] == "x" and not ev.excluded and not decode_notes(ev)
    assert ev.capture_us == 215 - 50  # first start (the step range) to the last (the memset)


def test_texts_are_numbered_in_file_order_whatever_the_slicing(tmp_path):
    path = tmp_path / "t.pt.trace.json"
    write_kineto_trace(path, steps=2, layers=3, filler_events=2)
    whole = columns(read_trace(path))
    for chunk in (37, 1000, 1 << 16):
        assert columns(read_trace(path, chunk_bytes=chunk)) == whole, chunk
    gz = tmp_path / "t.pt.trace.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert columns(read_trace(gz, chunk_bytes=4096)) == whole
    # the first text is the first event's name: the linear op (ops come before their kernels in the file)
    assert whole["strings"][0] == "aten::linear"


def test_cuts_inside_events_are_retried(tmp_path):
    """Names holding '}, {' and '}]' (what a cut looks for) decode the same with every chunk size."""
    names = ['a}, {"b"', "x}]y", '}, {"ph": "X"}', "}]"]
    events = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": 10.0 + i, "dur": 1.0,
               "args": {"correlation": i, "nested": [{"a": 1}, {"b": [2]}]}} for i, n in enumerate(names * 5)]
    path = write(tmp_path / "t.json", events)
    for chunk in (16, 50, 333, 1 << 20):
        ev = read_trace(path, chunk_bytes=chunk)
        assert texts(ev, "k_name") == names * 5 and list(ev.k_corr) == list(range(20)), chunk


def test_keys_after_the_events_and_old_traces_without_categories(tmp_path):
    events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}, 5, "x", [1],
              {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 9}]
    text = json.dumps({"traceEvents": events, "traceName": "after", "deviceProperties": [H100]})
    (tmp_path / "t.json").write_text(text)
    ev = read_trace(tmp_path / "t.json")
    assert texts(ev, "k_name") == ["k"] and ev.header["traceName"] == "after" and ev.header["deviceProperties"]
    assert ev.skipped == 4  # three elements that are not events, one instant that is not [memory]


# --- typed and loose paths agree --------------------------------------------------------------

scalar = st.one_of(st.integers(-5, 5000), st.floats(-10, 1e4, allow_nan=False), st.sampled_from(
    [None, True, "7", "", 2**63, -(2**63), 10**20, 1e300, float("nan"), float("inf")]))
ident = st.one_of(st.integers(-1, 50), scalar)
dims = st.one_of(st.lists(st.lists(st.integers(0, 4096), max_size=3), max_size=3), scalar,
                 st.just([[1, 2], "x"]), st.just([[True, 2]]))
args = st.fixed_dictionaries({}, optional={
    "External id": ident, "external id": ident, "correlation": ident, "device": ident, "stream": ident,
    "Input Dims": dims, "Input type": st.one_of(st.lists(st.sampled_from(["float", "c10::Half", "a;b", 1]),
                                                         max_size=3), scalar),
    "Concrete Inputs": st.one_of(st.lists(st.sampled_from(["", "1", "True"]), max_size=3), scalar),
    "Bytes": scalar, "Addr": ident, "Total Allocated": scalar, "Device Type": ident, "Device Id": ident})
event = st.fixed_dictionaries(
    {"ph": st.sampled_from(["X", "X", "X", "i", "M", "s", 5]),
     "cat": st.sampled_from(["kernel", "gpu_memcpy", "gpu_memset", "cpu_op", "cuda_runtime", "cuda_driver",
                             "user_annotation", "gpu_user_annotation", "cpu_instant_event", "python_function",
                             "Kernel", "Memset", "Runtime", "Operator", "ac2g", "zzz", 7])},
    optional={"name": st.sampled_from(["aten::mm", "ProfilerStep#2", "[memory]", "k", "", 3, None]),
              "pid": st.one_of(st.integers(0, 3), st.sampled_from(["", "stream 7", None, 1.5])),
              "tid": st.one_of(st.integers(0, 3), st.sampled_from(["stream 7", None])),
              "ts": scalar, "dur": scalar, "args": st.one_of(args, scalar)})


class _NoTypedDecode:
    """Stands in for the typed decoder: every slice takes the loose path."""

    @staticmethod
    def decode(data):
        raise msgspec.ValidationError("forced")


@settings(FUZZ, max_examples=120)
@given(events=st.lists(st.one_of(event, st.sampled_from([1, "x", None, []])), max_size=40),
       chunk=st.sampled_from([64, 700, 1 << 20]))
def test_typed_and_loose_paths_fill_the_same_columns(tmp_path_factory, events, chunk):
    path = write(tmp_path_factory.mktemp("t") / "t.json", events)
    typed = columns(read_trace(path, chunk_bytes=chunk))
    mp = pytest.MonkeyPatch()
    mp.setattr(event_array, "SLICE_DECODER", _NoTypedDecode)
    try:
        loose = columns(read_trace(path, chunk_bytes=chunk))
    finally:
        mp.undo()
    assert typed == loose


# --- what no decoder can read -------------------------------------------------------------------


def _trace_text(tmp_path: Path) -> tuple[str, list[str]]:
    path = tmp_path / "base.json"
    write_kineto_trace(path, steps=1, layers=1)
    text = path.read_text()
    return text, [json.dumps(e) for e in json.loads(text)["traceEvents"]]


def test_a_5001_digit_number_and_deep_nesting_skip_one_event_each_and_say_where(tmp_path):
    text, events = _trace_text(tmp_path)
    first, second = events[0], events[1]
    huge = first.replace('"ts": 1000000.0', '"ts": ' + "9" * 5001)
    deep = second[:-1] + ', "zz": ' + "[" * 100_000 + "]" * 100_000 + "}"
    bad = text.replace(first, huge, 1).replace(second, deep, 1)
    (tmp_path / "bad.json").write_text(bad)
    for chunk in (1 << 12, 1 << 22):
        ev = read_trace(tmp_path / "bad.json", chunk_bytes=chunk)
        good = read_trace(tmp_path / "base.json")
        assert ev.ops == good.ops - 2 and ev.kernels == good.kernels and ev.undecodable == 2
        where_huge, where_deep = bad.index(huge), bad.index(deep)  # ASCII: characters are bytes
        assert ev.problems == [f"an event at byte {where_huge:,}: a number with thousands of digits",
                               f"an event at byte {where_deep:,}: nested deeper than a decoder can follow"]
        assert decode_notes(ev) == ["2 value(s) that no JSON decoder can read were skipped: " + "; ".join(ev.problems)]


def test_a_huge_number_under_a_key_the_reader_ignores_keeps_its_event_at_any_slicing(tmp_path):
    """An event larger than a chunk is read alone: typed first, as in a slice (it was decoded loosely, and
    the 5,001-digit number the typed decode skips unread dropped the whole event — with 4 KiB chunks only)."""
    text, events = _trace_text(tmp_path)
    kernel = next(e for e in events if '"cat": "kernel"' in e)
    padded = kernel[:-1] + ', "zz": ' + "9" * 5001 + ', "note": "' + "x" * 9000 + '"}'
    path = tmp_path / "huge.json"
    path.write_text(text.replace(kernel, padded, 1))
    base = columns(read_trace(tmp_path / "base.json"))
    for chunk in (1 << 12, 1 << 22):  # 4 KiB: the 14 KB event goes alone; 4 MiB: one slice holds it
        assert columns(read_trace(path, chunk_bytes=chunk)) == base


def test_metadata_is_passed_over_undecoded_and_an_unreadable_header_value_is_skipped(tmp_path):
    text, _ = _trace_text(tmp_path)
    deep = "[" * 100_000 + "]" * 100_000
    body = text.rstrip().rstrip("}")
    path = tmp_path / "meta.json"
    path.write_text(body + f', "metadata": {{"a": {deep}, "n": {"1" * 5001}}}, "extra": {deep}}}')
    ev = read_trace(path, chunk_bytes=4096)
    assert ev.kernels == read_trace(tmp_path / "base.json").kernels and "metadata" not in ev.header
    assert ev.undecodable == 1 and ev.problems[0].startswith("the top-level 'extra' at byte ")
    assert ev.problems[0].endswith("nested deeper than a decoder can follow")


def test_an_event_of_3_mib_on_one_line_reads_like_any_other(tmp_path):
    text, events = _trace_text(tmp_path)
    big = events[2][:-1] + ', "note": "' + "x" * (3 << 20) + '"}'
    path = tmp_path / "long.json"
    path.write_text(text.replace(events[2], big, 1).replace("\n", ""))
    assert columns(read_trace(path, chunk_bytes=1 << 20)) == columns(read_trace(tmp_path / "base.json"))


class _Counting(io.BytesIO):
    """A file that counts the bytes read from it."""

    read_bytes = 0

    def read(self, n=-1):
        data = super().read(n)
        self.read_bytes += len(data)
        return data


def test_a_malformed_file_fails_at_its_first_bad_byte_without_reading_on():
    """'{"traceEvents": [' then zeros (issue 22: a 2 GB one took 454 s and 4.3 GB): the error comes from the
    first chunk; the file's remaining 15 MiB are never read."""
    fh = _Counting(b'{"traceEvents": [' + b"0" * (16 << 20))
    # bytes 0–16 are the 17 of '{"traceEvents": [', byte 17 is "0" (a number), byte 18 a second 0: not JSON
    with pytest.raises(TraceFormatError, match=r"malformed JSON at byte 18: an invalid number"):
        TraceDecoder(fh, lambda k, v: None, lambda events: None, chunk_bytes=1 << 16).run()
    assert fh.read_bytes <= 2 * (1 << 16)


@pytest.mark.parametrize(("text", "message"), [
    ('{"traceEvents": [{"ph": "X"}', "truncated"), ('{"traceEvents": [{"ph": "X"},', "truncated"),
    ('{"traceEvents": [{"ph": "X"} {"ph": "X"}]}', "expected ',' or ']' after an event"),
    ('{"traceEvents": 5}', "expected '[' (traceEvents is a list of events)"), ("[1]", "expected '{'"),
    ('{"traceEvents": [], ', "truncated"), ('{"traceEvents": [@]}', "cannot start a JSON value")])
def test_malformed_or_cut_files_say_what(tmp_path, text, message):
    (tmp_path / "t.json").write_text(text)
    with pytest.raises(TraceFormatError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        read_trace(tmp_path / "t.json", chunk_bytes=8)


# --- the scanner ----------------------------------------------------------------------------------

VALUES = ['{"a": [1, 2.5e-3, -0, true, null, NaN, -Infinity], "b": {"c": "x\\"}]\\\\"}}', '"plain"', "12345",
          "[" * 50 + "]" * 50, '[{}, [], "", 0]', "1e400"]


@pytest.mark.parametrize("value", VALUES)
def test_the_scanner_finds_the_end_of_a_value_split_anywhere(value):
    data = (value + " ,").encode()
    for split in range(1, len(data)):
        scan = Scan(0)
        done = advance(data[:split], scan, final=False)
        if not done:
            done = advance(data, scan, final=False)
        assert done and scan.pos == len(value.encode()), split


@pytest.mark.parametrize("data", [b"00", b"[1}", b"]", b"tru ", b"-x", b"1.e5 ", b'"ab', b"{,"])
def test_the_scanner_rejects_what_cannot_be_json(data):
    with pytest.raises(Malformed):
        advance(data, Scan(0), final=True)


def test_the_typed_slices_are_most_of_a_clean_file(tmp_path, monkeypatch):
    """A clean file never goes one event at a time: every event comes from a typed slice."""
    path = tmp_path / "t.pt.trace.json"
    write_kineto_trace(path, steps=2, layers=3, filler_events=2)
    calls = []
    original = event_array.EventArray._one_by_one
    monkeypatch.setattr(event_array.EventArray, "_one_by_one", lambda self, until: calls.append(until) or
                        original(self, until))
    ev = read_trace(path, chunk_bytes=4096)
    assert not calls and ev.kernels == 2 * (3 * 5 + 1)
    assert np.all(np.frombuffer(ev.k_dur, dtype=np.float64) > 0)
