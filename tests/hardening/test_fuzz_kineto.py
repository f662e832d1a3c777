"""The PyTorch profiler (Kineto) reader and the MSTX enrichment under fuzzing.

Seeds: the TraceLens H100/MI300X/MI210 traces in ../shared/samples and a generated trace (so the
reader is fuzzed even without the samples). Mutations at the event level (keys dropped, values
replaced by nasty ones, events duplicated, reordered, cut; kernel times made non-finite, negative,
absurd or text; numbers of 5,001 digits; nesting 100,000 deep in an event or the metadata; a 1.5
MiB event; PyTorch ≤ 1.10 category names), at the file level (truncation, gzip cut short or with
its deflate data flipped, wrong top level, random bytes, zeros after ``traceEvents``) — every case
must end in a value or a reason, the invariants of
:func:`tests.hardening.test_fuzz_parsers.check_analysis` hold, and no kernel goes missing
silently: every kernel of the file is in the frame, in the "excluded" warning, or in an event
the warning on undecodable values counts. The decoder reads in slices: half the cases are also decoded
in slices of 4 or 64 KiB (every mutation then meets slice and chunk boundaries, events larger than
a chunk, cuts inside strings) and must give the same columns, or the same refusal.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.kineto.byte_stream import TraceFormatError
from mfu_desktop.core.readers.kineto.read import read_trace
from mfu_desktop.demo import write_kineto_trace
from tests.conftest import SAMPLES
from tests.hardening.conftest import CASES
from tests.hardening.test_fuzz_parsers import FUZZ, NASTY, check_analysis, json_values
from tests.readers.test_kineto_decoder import columns

TRACE_SEEDS = ["tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz",
               "tracelens/mi300/Falconsai_nsfw_image_detection__1016002.json.gz",
               "tracelens/mi210/gpu_only_trace.json.gz"]
#: Keys the reader looks at, and the values it may find there instead.
EVENT_KEYS = ["ph", "cat", "name", "ts", "dur", "pid", "tid", "args", "id"]
ARG_KEYS = ["External id", "correlation", "Input Dims", "Input type", "Concrete Inputs", "device", "stream",
            "Sequence number", "Fwd thread id"]
NASTY_VALUES = [None, "", "N/A", -1, 0, 1e300, float("nan"), "abc", [], {}, [[1, 2], "x"], [[-1, 4096]], "性能",
                2**63, -(2**63), True]
#: Fresh copies each draw (a shared ``{}`` mutated by a later step would make a cycle).
nasty = st.sampled_from(NASTY_VALUES).map(copy.deepcopy)
#: Times a kernel may carry: not numbers, non-finite, negative, absurd, beyond any clock.
BAD_TIMES = [float("nan"), float("inf"), -float("inf"), -1.0, -1e9, 1e300, 1e16, "12", None, [], True]
KERNEL_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
OLD_CATEGORIES = {"kernel": "Kernel", "gpu_memcpy": "Memcpy", "gpu_memset": "Memset", "cuda_runtime": "Runtime",
                  "cpu_op": "Operator"}
#: Placeholders replaced in the JSON text (json.dumps cannot write these values).
HUGE, DEEP = "__huge_number__", "__deep_nesting__"


class Seeds(dict):
    """Parsed seed traces, with a short repr (a failing case would otherwise print megabytes of them)."""

    def __repr__(self) -> str:
        return f"<seed traces: {', '.join(self)}>"


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, dict]:
    """Parsed seed traces: the samples when present, and a generated one."""
    out = Seeds()
    for rel in TRACE_SEEDS:
        if (SAMPLES / rel).exists():
            with gzip.open(SAMPLES / rel, "rt", encoding="utf-8") as fh:
                out[rel] = json.load(fh)
    generated = tmp_path_factory.mktemp("seed") / "gen.pt.trace.json"
    write_kineto_trace(generated, steps=2, layers=2, rank=1)
    out["generated"] = json.loads(generated.read_text(encoding="utf-8"))
    return out


def category(event: object) -> str | None:
    """An event's ``cat`` when it is a text (a mutation may have made it a list, which cannot be looked up)."""
    cat = event.get("cat") if isinstance(event, dict) else None
    return cat if isinstance(cat, str) else None


def _mutate_events(draw, trace: dict, kind: str) -> None:
    events = trace.get("traceEvents")
    if not isinstance(events, list) or not events:
        return
    i = draw(st.integers(0, len(events) - 1))
    event = events[i]
    if kind == "drop_key" and isinstance(event, dict) and event:
        event.pop(draw(st.sampled_from(sorted(event))), None)
    elif kind == "event_value" and isinstance(event, dict):
        event[draw(st.sampled_from(EVENT_KEYS))] = draw(nasty | json_values)
    elif kind == "arg_value" and isinstance(event, dict):
        args = event.setdefault("args", {}) if isinstance(event.get("args", {}), dict) else {}
        args[draw(st.sampled_from(ARG_KEYS))] = draw(nasty | st.sampled_from(NASTY))
    elif kind == "all_args":  # one key garbled in every event that has it (a systematic producer bug)
        key, value = draw(st.sampled_from(ARG_KEYS)), draw(nasty)
        for e in events:
            if isinstance(e, dict) and isinstance(e.get("args"), dict) and key in e["args"]:
                e["args"][key] = value
    elif kind == "duplicate":
        events.insert(i, json.loads(json.dumps(event)))
    elif kind == "shuffle":
        trace["traceEvents"] = draw(st.permutations(events))
    elif kind == "cut_events":
        del events[i:]
    elif kind == "not_an_event":
        events[i] = draw(nasty)
    elif kind == "device_props":
        trace["deviceProperties"] = draw(nasty | json_values)
    elif kind == "bad_kernel_time":
        kernels = [e for e in events if category(e) in KERNEL_CATS]
        if kernels:
            draw(st.sampled_from(kernels))[draw(st.sampled_from(["ts", "dur"]))] = draw(st.sampled_from(BAD_TIMES))
    elif kind in ("huge_number", "deep_nesting") and isinstance(event, dict):
        where = draw(st.sampled_from(["ts", "dur", "args", "unknown key"]))
        placeholder = HUGE if kind == "huge_number" else DEEP
        if where == "args" and isinstance(event.get("args"), dict):
            event["args"]["External id"] = placeholder
        else:
            event["ts" if where == "ts" else "dur" if where == "dur" else "zz"] = placeholder
    elif kind == "deep_metadata":
        trace["metadata"] = {"env": DEEP, "n": HUGE}
    elif kind == "long_event" and isinstance(event, dict):
        event["note"] = "x" * (3 << 19)  # 1.5 MiB on one line
    elif kind == "old_categories":
        for e in events:
            if category(e) in OLD_CATEGORIES:
                e["cat"] = OLD_CATEGORIES[e["cat"]]


class Case(bytes):
    """Trace bytes with a short repr (a failing case names its seed and mutations, not 1 MB of JSON)."""

    label = ""
    gz = False
    kernels_in_file: int | None = None

    def __repr__(self) -> str:
        return f"<{len(self)} bytes: {self.label}>"


@st.composite
def mutated_trace(draw, seeds: dict[str, dict]) -> Case:
    """A seed trace with 1–3 mutations; returns the bytes and whether to gzip them."""
    seed = draw(st.sampled_from(sorted(seeds)))
    trace = json.loads(json.dumps(seeds[seed]))
    file_kind = None
    kinds = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["drop_key", "event_value", "arg_value", "all_args", "duplicate", "shuffle",
                                     "cut_events", "not_an_event", "device_props", "bad_kernel_time", "huge_number",
                                     "deep_nesting", "deep_metadata", "long_event", "old_categories", "truncate",
                                     "wrong_top", "random_bytes", "gzip_cut", "gzip_flip", "zero_padding"]))
        kinds.append(kind)
        if kind in ("truncate", "wrong_top", "random_bytes", "gzip_cut", "gzip_flip", "zero_padding"):
            file_kind = kind
        else:
            _mutate_events(draw, trace, kind)
    raw = json.dumps(trace, allow_nan=True).replace(f'"{HUGE}"', "9" * 5001).replace(
        f'"{DEEP}"', "[" * 100_000 + "]" * 100_000).encode("utf-8")
    if file_kind == "truncate":
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif file_kind == "wrong_top":
        raw = json.dumps(draw(st.sampled_from([[], 1, "x", None, {"traceEvents": 5}, [trace]]))).encode()
    elif file_kind == "random_bytes":
        raw = draw(st.binary(max_size=200))
    elif file_kind == "zero_padding":
        raw = b'{"traceEvents": [' + b"0" * draw(st.integers(1, 1 << 20))
    gz = draw(st.booleans()) or file_kind in ("gzip_cut", "gzip_flip")
    if gz:
        raw = gzip.compress(raw)
        if file_kind == "gzip_cut":
            raw = raw[: draw(st.integers(0, len(raw)))]
        elif file_kind == "gzip_flip" and len(raw) > 30:
            at = draw(st.integers(10, len(raw) - 20))
            raw = raw[:at] + bytes(b ^ 0xFF for b in raw[at:at + 8]) + raw[at + 8:]
    case = Case(raw)
    case.label, case.gz = f"{seed} + {', '.join(kinds)}{' (gzip)' if gz else ''}", gz
    case.kernels_in_file = None if file_kind else sum(
        1 for e in trace.get("traceEvents", []) if isinstance(e, dict) and e.get("ph") == "X"
        and category(e) in KERNEL_CATS)
    return case


def check_no_kernel_lost(result, kernels_in_file: int | None) -> None:
    """Every kernel event of the file is in the frame, counted as excluded, or among the undecodable events."""
    if kernels_in_file is None or not result.ranks:
        return
    rank = result.ranks[0]
    text = " ".join(rank.warnings)
    m = re.search(r"([\d,]+) of ([\d,]+) GPU kernels excluded", text)
    excluded = int(m.group(1).replace(",", "")) if m else 0
    u = re.search(r"([\d,]+) value\(s\) that no JSON decoder can read", text)
    undecodable = int(u.group(1).replace(",", "")) if u else 0
    assert len(rank.kernels) + excluded <= kernels_in_file <= len(rank.kernels) + excluded + undecodable


def decoded(path: Path, chunk_bytes: int | None = None) -> dict | str:
    """The trace's columns read in slices of about ``chunk_bytes`` (the default when None), or why it was refused."""
    try:
        return columns(read_trace(path) if chunk_bytes is None else read_trace(path, chunk_bytes=chunk_bytes))
    except TraceFormatError as exc:
        return f"refused: {exc}"


def check_any_slicing_reads_the_same(path: Path, chunk_bytes: int, gz: bool) -> None:
    """Small slices give the default slicing's columns, texts, exclusions and undecodable count, or its refusal.

    A damaged gzip file is refused either way, but the reason may differ: reading less ahead, the
    small slices can meet the garbage's malformed JSON before the gzip stream's own check fails.
    """
    whole, sliced = decoded(path), decoded(path, chunk_bytes)
    if isinstance(whole, str) or isinstance(sliced, str):
        assert isinstance(sliced, str) and isinstance(whole, str) and (gz or sliced == whole), (whole, sliced)
        return
    for name, values in whole.items():
        assert sliced[name] == values, f"{name} differs when read in {chunk_bytes}-byte chunks"


@settings(FUZZ, max_examples=150)
@given(data=st.data())
def test_kineto_reader_survives_mutations(seeds, tmp_path_factory, data):
    """Any mutation of a real or generated trace: a value or a reason, no impossible figure, whatever the slicing."""
    case = data.draw(mutated_trace(seeds))
    raw, gz = bytes(case), case.gz
    CASES["PyTorch profiler trace (Kineto) → analysis"] += 1
    folder = tmp_path_factory.mktemp("kineto") / "性能 数据"
    folder.mkdir()
    path = folder / ("rank0.pt.trace.json.gz" if gz else "rank0.pt.trace.json")
    path.write_bytes(raw)
    result = analyze_paths([folder], AnalysisOptions(), use_cache=False)
    check_analysis(result)
    check_no_kernel_lost(result, case.kernels_in_file)
    chunk_bytes = data.draw(st.sampled_from([0, 0, 1 << 12, 1 << 16]), "chunk bytes")  # half the cases (time)
    if chunk_bytes:
        check_any_slicing_reads_the_same(path, chunk_bytes, gz)
    shutil.rmtree(folder.parent, ignore_errors=True)


# --- MSTX marks --------------------------------------------------------------------------------

MESSAGES = ["1000-op", "0-op", "-5-op", "1e30-op", "99999999999999999999999-op", "abc", "", "-", "12-", "性能",
            '{"input_layout": "TND", "sparse_mode": 3, "actual_seq_qlen": [128, 384], "actual_seq_kvlen": [128, 384]}',
            '{"input_layout": "TND", "actual_seq_qlen": [384, 128], "actual_seq_kvlen": [384, 128]}',  # decreasing
            '{"input_layout": "TND", "actual_seq_qlen": [99999], "actual_seq_kvlen": [99999]}',  # > T
            '{"input_layout": "XYZ", "sparse_mode": "x"}', '{"actual_seq_qlen": "1,2"}', "[1, 2]", "null", "{"]


@settings(FUZZ, max_examples=60)
@given(marks=st.lists(st.tuples(st.sampled_from(["mfu_flops", "flash_attn_args"]),
                                st.integers(-10_000_000, 10_000_000), st.integers(-1_000_000, 10_000_000),
                                st.sampled_from([100, 999, -1]), st.sampled_from(MESSAGES)), max_size=12))
def test_mstx_marks_survive_nonsense(tmp_path_factory, marks):
    """Marks anywhere in time, with nonsense messages, ends before starts, on unknown threads."""
    from tests.helpers import write_profiler_db
    from tests.readers.test_mstx import OPS, B

    CASES["MSTX marks in the profiler db → analysis"] += 1
    root = tmp_path_factory.mktemp("mstx")
    out = root / "w0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    rows = [(domain, B + start, B + start + length, tid, message) for domain, start, length, tid, message in marks]
    write_profiler_db(out / "ascend_pytorch_profiler_0.db", OPS, rows)
    check_analysis(analyze_paths([root], AnalysisOptions(), use_cache=False))


def test_generated_seed_round_trips(seeds, tmp_path: Path):
    """The unmutated generated seed analyses cleanly (the fuzz base case)."""
    path = tmp_path / "rank1.pt.trace.json"
    path.write_text(json.dumps(seeds["generated"]), encoding="utf-8")
    result = analyze_paths([tmp_path], AnalysisOptions(), use_cache=False)
    assert not result.failures and result.ranks[0].summary.flops > 0
    check_analysis(result)
