"""Builders of small synthetic profiler folders for tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mfu_desktop.demo import HEADER as DEMO_HEADER

#: The Level1/PipeUtilization kernel_details header (variant B), as the demo generator writes it.
HEADER_B = ",".join(DEMO_HEADER)

STEP_TRACE = (
    "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
    "Communication(Not Overlapped and Exclude Receive),Preparing\n"
    "1,1000.0,200.0,50.0,250.0,300.0,1500.0,0,200.0,10.0\n"
)


def kernel_row(name: str, op_type: str, core: str, start_us: str, dur: float, inputs: str = "N/A",
               in_types: str = "N/A", outputs: str = "N/A", out_types: str = "N/A", block: int = 24,
               step: int = 1, pmu: dict[str, float] | None = None, wait: float = 0.0, hf32_eligible: str = "NO") -> str:
    """One header-B row; shapes are quoted the way torch_npu writes them (``wait``: its Wait Time(us))."""
    def q(shapes: str) -> str:
        return shapes if shapes == "N/A" else f'"""{shapes}"""'

    values = {
        "aicore_time(us)": 0, "aic_total_cycles": 0, "aic_mac_time(us)": 0, "aic_mac_ratio": 0,
        "aic_scalar_time(us)": 0, "aic_scalar_ratio": 0, "aic_mte1_time(us)": 0, "aic_mte1_ratio": 0,
        "aic_mte2_time(us)": 0, "aic_mte2_ratio": 0, "aic_fixpipe_time(us)": 0, "aic_fixpipe_ratio": 0,
        "aic_icache_miss_rate": 0, "aiv_time(us)": 0, "aiv_total_cycles": 0, "aiv_vec_time(us)": 0,
        "aiv_vec_ratio": 0, "aiv_scalar_time(us)": 0, "aiv_scalar_ratio": 0, "aiv_mte2_time(us)": 0,
        "aiv_mte2_ratio": 0, "aiv_mte3_time(us)": 0, "aiv_mte3_ratio": 0, "aiv_icache_miss_rate": 0,
        "cube_utilization(%)": 0,
    }
    values.update(pmu or {})
    base = [str(step), "4294967295", "1", "2", name, op_type, "dynamic", core, f"{start_us}\t", f"{dur}", f"{wait:g}",
            str(block), "0", hf32_eligible, q(inputs), in_types, "ND", q(outputs), out_types, "ND", "N/A"]
    return ",".join(base + [str(v) for v in values.values()])


def make_rank(root: Path, folder: str, rank: int | None, rows: list[str], header: str = HEADER_B,
              step_trace: str | None = STEP_TRACE, info: dict | None = None, done: bool = True) -> Path:
    """A ``*_ascend_pt`` folder with profiler_info, kernel_details.csv and (optionally) a step trace."""
    path = root / folder
    out = path / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernel_details.csv").write_text(header + "\n" + "\n".join(rows) + ("\n" if rows else ""),
                                            encoding="utf-8")
    if step_trace is not None:
        (out / "step_trace_time.csv").write_text(step_trace, encoding="utf-8")
    if done:
        (out / "analyse.done").write_text("")
    payload = info if info is not None else {
        "config": {"common_config": {"record_shapes": True},
                   "experimental_config": {"_profiler_level": "Level1",
                                           "_aic_metrics": "ACL_AICORE_PIPE_UTILIZATION", "_export_type": "text"}},
    }
    if rank is not None:
        payload = dict(payload, rank_id=rank)
    name = f"profiler_info_{rank}.json" if rank is not None else "profiler_info.json"
    (path / name).write_text(json.dumps(payload), encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file under ``folder`` with size, mtime and content (for read-only checks)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[str(p.relative_to(folder))] = (st.st_size, st.st_mtime_ns, p.read_bytes())
    return out


def brute_mask_count(sq: int, skv: int, mode: int, pre: int | None = None, nxt: int | None = None) -> int:
    """Unmasked FlashAttention score elements by enumerating the S_q × S_kv grid (the test oracle)."""
    i = np.arange(sq)[:, None]
    j = np.arange(skv)[None, :]
    if mode in (0, 1):
        keep = np.ones((sq, skv), bool)
    elif mode == 2:
        keep = j <= i
    elif mode == 3:
        keep = j <= i + (skv - sq)
    else:
        d = i + (skv - sq)
        keep = (j >= d - pre) & (j <= d + nxt)
    return int(keep.sum())


# --- a profiler database (profiler-formats.md §8) -------------------------------------------------


def write_profiler_db(path: Path, ops: list[dict], marks: list[tuple[str, int, int, int, str]] = (),
                      steps: list[tuple[int, int, int]] = (), rank: int = 0, npu: str = "Ascend910B2") -> Path:
    """An ``ascend_pytorch_profiler_{rank}.db`` following the documented schema 1.0.0 (text via STRING_IDS).

    Args:
        path: File to write.
        ops: Framework ops, each ``{"start_ns", "tid", "name", "kernels": [kernel, …]}`` where a kernel is
            ``{"start_ns", "dur_ns", "name", "type", "core", "inputs", "in_types", "outputs", "out_types"}``.
            One PYTORCH_API row per op, one TASK + COMPUTE_TASK_INFO per kernel, tied through CONNECTION_IDS.
        marks: MSTX events ``(domain, start_ns, end_ns, tid, message)``.
        steps: STEP_TIME rows ``(id, start_ns, end_ns)``.
        rank: RANK_DEVICE_MAP rank id.
        npu: NPU_INFO name.
    """
    import sqlite3

    strings: dict[str, int] = {}

    def sid(text: str) -> int:
        return strings.setdefault(text, len(strings) + 1)

    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
        CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,
            globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER,
            taskId INTEGER, modelId INTEGER);
        CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER,
            mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER,
            inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER, outputShapes INTEGER,
            attrInfo INTEGER);
        CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER,
            sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER,
            callchainId INTEGER, type INTEGER);
        CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);
        CREATE TABLE MSTX_EVENTS (startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER,
            category INTEGER, message INTEGER, globalTid INTEGER, endGlobalTid INTEGER, domainId INTEGER,
            connectionId INTEGER);
        CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);
        CREATE TABLE NPU_INFO (id INTEGER, name TEXT);
        CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);
        CREATE TABLE META_DATA (name TEXT, value TEXT);
    """)
    task_id = connection = 0
    for n, op in enumerate(ops):
        conn.execute("INSERT INTO PYTORCH_API VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                     (str(op["start_ns"]), str(op["start_ns"] + 5_000), op["tid"], n + 1, sid(op["name"]), n, 0,
                      sid(""), sid(""), 0, 50001))
        for k in op["kernels"]:
            task_id += 1
            connection += 1
            conn.execute("INSERT INTO CONNECTION_IDS VALUES (?,?)", (n + 1, connection))
            conn.execute("INSERT INTO TASK VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         (k["start_ns"], k["start_ns"] + k["dur_ns"], 0, connection, task_id, 1, sid("KERNEL_AICORE"),
                          0, 2, task_id, 0))
            conn.execute("INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         (sid(k["name"]), task_id, 24, 0, sid(k.get("core", "AI_CORE")), sid(k["type"]), sid("ND"),
                          sid(k.get("in_types", "N/A")), sid(f'"{k["inputs"]}"' if "inputs" in k else "N/A"),
                          sid("ND"), sid(k.get("out_types", "N/A")),
                          sid(f'"{k["outputs"]}"' if "outputs" in k else "N/A"), sid("N/A")))
    for domain, start, end, tid, message in marks:
        conn.execute("INSERT INTO MSTX_EVENTS VALUES (?,?,?,?,?,?,?,?,?,?)",
                     (start, end, 2, 0, 0, sid(message), tid, tid, sid(domain), 4000000000))
    conn.executemany("INSERT INTO STEP_TIME VALUES (?,?,?)", list(steps))
    conn.execute("INSERT INTO NPU_INFO VALUES (0, ?)", (npu,))
    conn.execute("INSERT INTO RANK_DEVICE_MAP VALUES (?, 0)", (rank,))
    conn.execute("INSERT INTO META_DATA VALUES ('SCHEMA_VERSION', '1.0.0')")
    conn.executemany("INSERT INTO STRING_IDS VALUES (?,?)", [(i, v) for v, i in strings.items()])
    conn.commit()
    conn.close()
    return path


# --- the Trace Event Format (Chrome trace JSON) ----------------------------------------------------

#: Metadata event names of the Trace Event Format and the argument each carries.
TRACE_METADATA = {"process_name": "name", "process_labels": "labels", "process_sort_index": "sort_index",
                  "thread_name": "name", "thread_sort_index": "sort_index"}


def check_trace_event_format(data: dict) -> dict[str, int]:
    """Check a Chrome trace against the Trace Event Format's documented keys; return the count per phase.

    The JSON Object Format: ``traceEvents`` (a list), optional ``displayTimeUnit`` ("ms" or "ns") and
    ``otherData``. Every event: ``name`` and ``ph``, an integer ``pid``; complete events (``X``) ``ts``,
    ``dur`` ≥ 0 and ``tid``; counters (``C``) ``ts`` and numeric ``args``; flows (``s``/``f``) ``id``, ``ts``,
    ``tid``; metadata (``M``) one of the five documented names with its argument.
    """
    assert isinstance(data, dict) and isinstance(data.get("traceEvents"), list)
    assert data.get("displayTimeUnit", "ms") in ("ms", "ns")
    counts: dict[str, int] = {}
    for e in data["traceEvents"]:
        ph = e["ph"]
        counts[ph] = counts.get(ph, 0) + 1
        assert isinstance(e["name"], str) and isinstance(e["pid"], int), e
        if ph in ("X", "C", "s", "f"):
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        if ph == "X":
            assert isinstance(e["tid"], int) and isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
        elif ph == "C":
            assert e["args"] and all(isinstance(v, (int, float)) or v is None for v in e["args"].values()), e
        elif ph in ("s", "f"):
            assert isinstance(e["id"], int) and isinstance(e["tid"], int), e
        elif ph == "M":
            assert e["name"] in TRACE_METADATA and TRACE_METADATA[e["name"]] in e["args"], e
        else:
            raise AssertionError(f"unexpected phase {ph!r}")
    return counts
