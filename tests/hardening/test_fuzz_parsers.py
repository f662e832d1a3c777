"""Parsers under fuzzing, seeded from the real files in ../shared/samples.

Every case must end in a value or a reported reason — never an unhandled exception — and
no impossible number may be presented as valid: a counted kernel has a positive duration,
positive FLOPs and 0 < MFU ≤ 1; every aggregate MFU is in (0, 1]; step times are finite.
Hypothesis shrinks any failure to a minimal mutation.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mfu_desktop.core.analysis.annotate import Status
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.formulas.shapes import ShapeError, parse_dims, parse_shapes
from mfu_desktop.core.numbers import json_text
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.ascend.communication import read_comm_matrix
from mfu_desktop.core.readers.step_trace import read_step_trace_csv
from tests.conftest import SAMPLES, requires_samples
from tests.hardening.conftest import CASES

KERNEL_SEEDS = [
    "msprof-analyze/test/ut/advisor/compute_advice/data/kernel_details.csv",  # FlashAttention, PipeUtilization
    "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",  # CRLF, tabs
    "msinsight/test/data/pytorch/text/level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",  # Level0
    "msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/kernel_details.csv",  # 2023, short row
]
STEP_SEEDS = [
    "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
    "msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
]
COMM_SEEDS = [
    "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json",
    "msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/communication_matrix.json",
]
DB_SEED = "msinsight/test/data/pytorch/db/level2/rank0_ascend_pt"
#: Deterministic by default (CI must not turn red by chance); MFU_FUZZ_RANDOM=1 explores new cases.
FUZZ = settings(deadline=None, derandomize=not os.environ.get("MFU_FUZZ_RANDOM"), database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])
#: Cells the fuzzer writes into numeric and shape columns.
NASTY = ["", "N/A", "nan", "-1", "0", "-0.0", "1e30", "-1e9", "inf", "10000000", "10000000,10000000",
         "4096,6144;6144,1024", "1,2,3;;", "\"", "abc", "１２３", "性能", "=1+1", "12,\t34", "9" * 40,
         # non-finite and absurd numbers, ids beyond int64 (issue 22)
         "1e309", "-inf", "1e308", "NaN", "-1e309", "100000000000000000000000", "9" * 26 + ".500", "1e23", "\x00"]


def rows_of(raw: bytes) -> list[list[str]]:
    """The rows of a (mutated) file; none when the csv module cannot split it (a cell over its 128 KB limit)."""
    try:
        return list(csv.reader(io.StringIO(raw.decode("utf-8", errors="replace").lstrip("\ufeff"), newline="")))
    except csv.Error:
        return []


def to_bytes(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode("utf-8")


def _bump_first_dim(cell: str, by: int) -> str:
    """``"4096,128;…"`` → ``"4096+by,128;…"`` (keeps torch_npu's literal quotes; non-numeric cells unchanged)."""
    quote = '"' if cell.startswith('"') else ""
    head, sep, rest = cell[len(quote):].partition(",")
    return f"{quote}{int(head) + by}{sep}{rest}" if head.strip().isdigit() else cell


def shape_variety(rows: list[list[str]], copies: int) -> list[list[str]]:
    """Repeat the rows that have shapes with the first dim of the first input and output grown by 1 per copy.

    Real MoE / varlen / dynamic-shape ranks have thousands of distinct shapes; the samples have a
    handful. (A transposed layout may become inconsistent: it must then be excluded with a reason.)
    """
    if not rows or "Input Shapes" not in rows[0] or "Output Shapes" not in rows[0]:
        return rows
    i_in, i_out = rows[0].index("Input Shapes"), rows[0].index("Output Shapes")
    shaped = [r for r in rows[1:] if len(r) > max(i_in, i_out) and r[i_in] not in ("", "N/A")]
    out = [rows[0], *rows[1:]]
    for j in range(1, copies + 1):
        if not shaped:
            break
        r = list(shaped[j % len(shaped)])
        r[i_in] = _bump_first_dim(r[i_in], j)
        r[i_out] = _bump_first_dim(r[i_out], j)
        out.append(r)
    return out


@st.composite
def mutated_csv(draw, seeds: list[str]) -> bytes:
    """A seed file with 1–3 mutations: structure (columns, cells), encoding and truncation."""
    raw = (SAMPLES / draw(st.sampled_from(seeds))).read_bytes()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "drop_col", "dup_col", "rename_col", "cell", "cells_col", "bom",
                                     "crlf", "bad_utf8", "empty", "shuffle_header", "extra_field", "shape_variety",
                                     "gbk", "nul_pad", "long_cell", "no_final_newline"]))
        rows = rows_of(raw)
        if kind in ("gbk", "nul_pad", "long_cell", "no_final_newline"):
            CASES["… of which encoding/padding/size mutations"] += 1
            raw = _byte_mutation(draw, kind, raw, rows)
        elif kind == "shape_variety":
            CASES["… of which shape-variety mutations"] += 1
            raw = to_bytes(shape_variety(rows, draw(st.integers(100, 3_000))))
        elif kind == "truncate":
            raw = raw[: draw(st.integers(0, len(raw)))]
        elif kind == "empty":
            raw = b""
        elif kind == "bom":
            raw = b"\xef\xbb\xbf" + raw
        elif kind == "crlf":
            raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        elif kind == "bad_utf8":
            pos = draw(st.integers(0, len(raw)))
            raw = raw[:pos] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x80\x80", b"\xe6\x80"])) + raw[pos:]
        elif rows and rows[0]:
            width = len(rows[0])
            col = draw(st.integers(0, width - 1))
            if kind == "drop_col":
                rows = [r[:col] + r[col + 1:] for r in rows]
            elif kind == "dup_col":
                rows = [r[: col + 1] + r[col:] for r in rows]
            elif kind == "rename_col":
                rows[0][col] = draw(st.sampled_from(["", "Duration", "Type ", "类型", "Input Shapes", "x"]))
            elif kind == "shuffle_header":
                rows[0] = draw(st.permutations(rows[0]))
            elif kind == "extra_field" and len(rows) > 1:
                r = draw(st.integers(1, len(rows) - 1))
                rows[r] = [*rows[r], "surplus"]
            elif kind in ("cell", "cells_col") and len(rows) > 1:
                value = draw(st.sampled_from(NASTY) | st.text(max_size=12))
                targets = range(1, len(rows)) if kind == "cells_col" else [draw(st.integers(1, len(rows) - 1))]
                for r in targets:
                    if col < len(rows[r]):
                        rows[r][col] = value
            raw = to_bytes(rows)
    return raw


def _byte_mutation(draw, kind: str, raw: bytes, rows: list[list[str]]) -> bytes:
    """Mutations of the file's bytes: another encoding, NUL padding, a cell over 1 MiB, no final newline."""
    if kind == "gbk" and len(rows) > 1:  # a Chinese operator name, the whole file saved as GBK by a spreadsheet
        rows[1][min(1, len(rows[1]) - 1)] = "矩阵乘法_性能"
        return to_bytes(rows).decode("utf-8").encode("gbk", errors="replace")
    if kind == "nul_pad":
        return raw + b"\x00" * draw(st.integers(1, 3 << 19))
    if kind == "long_cell" and len(rows) > 1:
        rows[-1][0] = "x" * draw(st.integers(1 << 20, (1 << 20) + 4096))
        return to_bytes(rows)
    return raw.rstrip(b"\r\n")


def check_analysis(result) -> None:
    """The invariants: a value or a reason, and no impossible number presented as valid."""
    assert len(result.ranks) + len(result.failures) <= 1
    text = json_text(result.document(), default=str)  # always valid JSON: no NaN or Infinity token
    json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    if result.failures:
        reason = result.failures[0].reason
        assert reason  # a reason, in words
        # the safety nets that turn an exception into a failed rank are for bugs, not for input
        assert not reason.startswith("analysis failed:") and "(unexpected " not in reason, reason
    for r in result.ranks:
        k = r.kernels
        dur = k["duration_us"].to_numpy(dtype=float) if "duration_us" in k else np.zeros(0)
        assert not np.any(np.isinf(dur) | (dur < 0)), "an impossible duration reached the analysis"
        if "status" in k and len(k):
            counted = (k["status"] == Status.COUNTED.value).to_numpy()
            if counted.any():
                dur = k["duration_us"].to_numpy(dtype=float)[counted]
                flops = k["flops"].to_numpy(dtype=float)[counted]
                assert np.all(np.isfinite(dur) & (dur > 0)), "a counted kernel has a non-positive duration"
                assert np.all(np.isfinite(flops) & (flops > 0)), "a counted kernel has no FLOPs"
                if r.chip.confirmed:
                    mfu = k["mfu"].to_numpy(dtype=float)[counted]
                else:  # a range over the candidate chips: its low end (the fastest candidate) must be possible
                    mfu = k["mfu_lo"].to_numpy(dtype=float)[counted]
                    assert np.all(k["mfu_hi"].to_numpy(dtype=float)[counted] >= mfu)
                assert np.all((mfu > 0) & (mfu <= 1.0 + 1e-9)), "a counted kernel has an impossible MFU"
        s = r.summary
        for value in (s.mfu_ops, s.mfu_step):
            assert value is None or (math.isfinite(value) and 0 < value <= 1.0 + 1e-9)
        if s.step_time_us is not None:
            assert math.isfinite(s.step_time_us) and s.step_time_us > 0
        for lo_hi in (s.mfu_ops_range, s.mfu_step_range):
            assert lo_hi is None or (0 < lo_hi[0] <= 1.0 + 1e-9 and lo_hi[0] <= lo_hi[1])
        check_chrome_trace(r)


def check_chrome_trace(r) -> None:
    """The rank's Chrome trace (mfu timeline) is built whatever the input, every event strict JSON."""
    from mfu_desktop.core.report.chrome_trace import trace_lines

    chunks, info = trace_lines(r)
    lines = [line for chunk in chunks for line in (chunk if isinstance(chunk, list) else chunk.to_pylist())]
    for line in lines:
        event = json.loads(line, parse_constant=lambda c, line=line: pytest.fail(f"{c} in a trace event: {line[:200]}"))
        assert event["ph"] in {"X", "M", "C", "s", "f", "i"}, line[:200]
        if event["ph"] == "X":
            assert math.isfinite(event["ts"]) and event["dur"] >= 0, line[:200]
    assert info["kernels"] <= len(r.kernels)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    # a non-ASCII (Chinese) path for every case
    return tmp_path_factory.mktemp("fuzz") / "性能 数据"


@requires_samples
@settings(FUZZ, max_examples=220)
@given(data=mutated_csv(KERNEL_SEEDS))
def test_kernel_details_reader_survives_mutations(workdir, data):
    CASES["kernel_details.csv → analysis"] += 1
    rank = workdir / "rank0_ascend_pt"
    shutil.rmtree(rank, ignore_errors=True)
    out = rank / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "kernel_details.csv").write_bytes(data)
    (out / "analyse.done").write_text("")
    check_analysis(analyze_paths([rank], AnalysisOptions(), use_cache=False))


@requires_samples
@settings(FUZZ, max_examples=80)
@given(data=mutated_csv(["msinsight/server/src/test/test_data/test_kernel_parse/op_summary_1.csv"]))
def test_op_summary_reader_survives_mutations(workdir, data):
    CASES["op_summary_*.csv (msprof) → analysis"] += 1
    folder = workdir / "msprof" / "PROF_000001_x" / "device_0" / "summary"
    shutil.rmtree(workdir / "msprof", ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "op_summary_1.csv").write_bytes(data)
    check_analysis(analyze_paths([workdir / "msprof"], AnalysisOptions(), use_cache=False))


@requires_samples
@settings(FUZZ, max_examples=300)
@given(data=mutated_csv(STEP_SEEDS))
def test_step_trace_reader_survives_mutations(workdir, data):
    CASES["step_trace_time.csv"] += 1
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "step_trace_time.csv"
    path.write_bytes(data)
    trace = read_step_trace_csv(path)
    assert trace is not None
    frame = getattr(trace, "frame", None)
    if frame is not None and "step_time_us" in frame:
        values = frame["step_time_us"].dropna().to_numpy(dtype=float)
        assert np.all(np.isfinite(values) & (values >= 0))


json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@st.composite
def mutated_json(draw) -> bytes:
    seed = json.loads((SAMPLES / draw(st.sampled_from(COMM_SEEDS))).read_text(encoding="utf-8"))
    kind = draw(st.sampled_from(["truncate", "replace_value", "random", "wrong_top", "as_is"]))
    if kind == "random":
        return json.dumps(draw(json_values)).encode()
    if kind == "wrong_top":
        return json.dumps(draw(st.sampled_from([[], 1, "x", None, [seed]]))).encode()
    if kind == "replace_value":
        def walk(node):
            if isinstance(node, dict) and node:
                key = draw(st.sampled_from(sorted(node)))
                if draw(st.booleans()) or not isinstance(node[key], (dict, list)):
                    node[key] = draw(json_values)
                else:
                    walk(node[key])
            elif isinstance(node, list) and node:
                walk(node[draw(st.integers(0, len(node) - 1))])
        walk(seed)
    raw = json.dumps(seed, allow_nan=True).encode()
    if kind == "truncate":
        raw = raw[: draw(st.integers(0, len(raw)))]
    return raw


@requires_samples
@settings(FUZZ, max_examples=300)
@given(data=mutated_json())
def test_communication_matrix_reader_survives_mutations(workdir, data):
    CASES["communication_matrix.json"] += 1
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "communication_matrix.json"
    path.write_bytes(data)
    matrix = read_comm_matrix(path)
    for step in matrix.steps():
        real, wait, n = matrix.real_communication(step)
        assert math.isfinite(real) and real >= 0 and n >= 0
        assert wait is None or math.isfinite(wait)


@requires_samples
@settings(FUZZ, max_examples=40)
@given(drop=st.sets(st.sampled_from(["COMPUTE_TASK_INFO", "TASK", "STRING_IDS", "TASK_PMU_INFO", "STEP_TIME",
                                     "RANK_DEVICE_MAP", "NPU_INFO", "META_DATA", "COMMUNICATION_OP"]), max_size=4),
       truncate=st.one_of(st.none(), st.integers(0, 200_000)))
def test_database_with_missing_tables_or_truncated(workdir, drop, truncate):
    CASES["ascend_pytorch_profiler_*.db"] += 1
    rank = workdir / "db_rank0_ascend_pt"
    shutil.rmtree(rank, ignore_errors=True)
    shutil.copytree(SAMPLES / DB_SEED, rank)
    db = next((rank / "ASCEND_PROFILER_OUTPUT").glob("ascend_pytorch_profiler_*.db"))
    if drop:
        conn = sqlite3.connect(db)
        existing = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for table in drop & existing:
            conn.execute(f"DROP TABLE {table}")
        conn.commit()
        conn.close()
    if truncate is not None:
        raw = db.read_bytes()
        db.write_bytes(raw[: min(truncate, len(raw))])
    check_analysis(analyze_paths([rank], AnalysisOptions(), use_cache=False))


@settings(FUZZ, max_examples=2000)
@given(text=st.one_of(st.text(max_size=40), st.sampled_from(NASTY),
                      st.lists(st.integers(-5, 10**12).map(str), max_size=5).map(",".join)))
def test_shape_parsers_return_a_value_or_a_shape_error(text):
    CASES["shape strings"] += 1
    try:
        shapes = parse_shapes(text)
    except ShapeError:
        shapes = None
    if shapes is not None:
        assert all(all(isinstance(d, int) and d >= 0 for d in s) for s in shapes)
    try:
        dims = parse_dims(text)
    except ShapeError:
        return
    assert all(isinstance(d, int) and d > 0 for d in dims)


def test_huge_dims_do_not_overflow(tmp_path):
    """1e7-sized dims: FLOPs in Python ints / float64, an impossible MFU flagged, never counted."""
    from tests.helpers import kernel_row, make_rank

    big = "10000000,10000000"
    row = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, f"{big};{big}", "DT_BF16;DT_BF16",
                     big, "DT_BF16")
    make_rank(tmp_path, "a_ascend_pt", 0, [row])
    result = analyze_paths([tmp_path / "a_ascend_pt"], AnalysisOptions(chip="910B2"), use_cache=False)
    k = result.ranks[0].kernels
    assert k["flops"].iloc[0] == pytest.approx(2e21)
    assert k["status"].iloc[0] == Status.SUSPICIOUS.value  # 2e21 FLOPs in 10 µs: far above any peak
    assert result.ranks[0].summary.mfu_ops is None
    check_analysis(result)


@st.composite
def profiler_info(draw) -> bytes:
    """A profiler_info.json with a damaged rank id, absurd numbers or deep nesting (issue 22: huge ids)."""
    rank = draw(st.sampled_from([2**63, 10**23, -1, 2**31, "3", 3.0, True, None, [1], 7]))
    info = {"rank_id": rank, "config": {"common_config": {"record_shapes": draw(st.sampled_from([True, "x", 1]))}}}
    text = json.dumps(info)
    kind = draw(st.sampled_from(["as_is", "huge_number", "deep", "truncate"]))
    if kind == "huge_number":
        text = text[:-1] + ', "end_info": {"collectionTimeEnd": ' + "9" * draw(st.integers(4000, 6000)) + "}}"
    elif kind == "deep":
        depth = draw(st.integers(500, 50_000))
        text = text[:-1] + ', "junk": ' + "[" * depth + "]" * depth + "}"
    elif kind == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    return text.encode()


@settings(FUZZ, max_examples=60)
@given(data=profiler_info())
def test_profiler_info_never_gives_an_impossible_rank(workdir, data):
    """A rank id is an integer in 0 … 2**31-1 or none (a placeholder); the rank is read whatever the file."""
    from tests.helpers import kernel_row, make_rank

    CASES["profiler_info.json (rank ids, absurd JSON)"] += 1
    folder = workdir / "info"
    shutil.rmtree(folder, ignore_errors=True)
    row = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512",
                     "DT_BF16;DT_BF16", "128,512", "DT_BF16")
    rank = make_rank(folder, "r_ascend_pt", None, [row])
    (rank / "profiler_info.json").write_bytes(data)
    result = analyze_paths([folder], AnalysisOptions(), use_cache=False)
    check_analysis(result)
    assert len(result.ranks) == 1
    rank_id = result.ranks[0].data.folder.rank
    assert rank_id is None or (type(rank_id) is int and 0 <= rank_id < 2**31)

