"""PyTorch profiler (Kineto) traces of CUDA and ROCm runs (profiler-formats.md §13).

Files: ``*.pt.trace.json[.gz]`` (``tensorboard_trace_handler``), or any ``*.json[.gz]`` whose
content is a Chrome trace with ``traceEvents`` (``export_chrome_trace``); one file per rank
(``distributedInfo.rank``), a folder of them is a cluster.

* **Streaming.** The file is read in chunks and decoded one event at a time; only the events
  the analysis needs are kept, as compact columns (never the whole JSON and the frames at once).
* **Kernels → ops.** A kernel's ``External id`` is its launching ``cpu_op``'s (else its
  ``correlation`` → the runtime launch → the innermost op on that thread around the launch).
  Its FLOPs belong to the innermost op *with a FLOP rule* at or above the launching op
  (``aten::addmm`` under ``aten::linear``; ``aten::_scaled_dot_product_flash_attention`` above
  ``aten::_flash_attention_forward``), spread over that op's kernels by time.
* **Classes.** Kernels of ops with a FLOP rule are matrix work (``GPU_MATRIX``), NCCL/RCCL
  kernels communication, memcpy/memset copies, everything else vector.
* **Steps** from ``ProfilerStep#N`` (the GPU range when traced, else the CPU range of the
  launching ops): computing / communication not overlapped / free by the same interval
  arithmetic as Ascend's step trace.
* **Chip** from ``deviceProperties`` (:func:`mfu_desktop.core.chip_detect.resolve_chip`).
"""

from __future__ import annotations

import gzip
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mfu_desktop.core.flops_aten import RULED_OPS
from mfu_desktop.core.flops_registry import rule_for
from mfu_desktop.core.profiler import columns as C
from mfu_desktop.core.profiler.info import CaptureConfig
from mfu_desktop.core.profiler.step_trace import StepTrace
from mfu_desktop.core.readers.base import RankFolder
from mfu_desktop.core.readers.files import list_dir, safe_is_file

if TYPE_CHECKING:
    from mfu_desktop.core.loader import RankData

#: File names written by the PyTorch profiler (any name with a Kineto body is accepted too).
TRACE_NAME = re.compile(r"\.pt\.trace\.json(\.gz)?$")
#: Other JSON files are read when their head looks like a Kineto trace.
JSON_NAME = re.compile(r"\.json(\.gz)?$")
#: How much of a file's (decompressed) head is sniffed for the Kineto markers.
SNIFF_BYTES = 1 << 18
#: Characters decoded per read (the buffer grows when one event is larger).
CHUNK_CHARS = 1 << 22
#: Event categories kept; every other event (python_function, instant events, flows …) is skipped.
KERNEL_CATS = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})
LAUNCH_CATS = frozenset({"cuda_runtime", "cuda_driver"})
#: Kernels of collective communication libraries.
COMM_KERNEL = re.compile(r"nccl|rccl", re.IGNORECASE)
#: Matrix-unit kernels recognised by name when no op says so (GPU-only traces).
MATRIX_KERNEL = re.compile(r"gemm|cutlass|xmma|cublas|hipblaslt|Cijk_|flash|fmha|conv", re.IGNORECASE)
#: FP32 matmul kernels that ran on TF32 tensor cores say so in their names.
TF32_KERNEL = re.compile(r"tf32|xf32", re.IGNORECASE)
STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")


# --- streaming JSON -------------------------------------------------------------------------


class TraceFormatError(ValueError):
    """The file is not a readable Chrome/Kineto trace; the message says why."""


class _JsonStream:
    """Decode a top-level JSON object key by key, and an array element by element, from chunks of text."""

    _WS = re.compile(r"[ \t\n\r]*")

    def __init__(self, fh: io.TextIOBase) -> None:
        self.fh = fh
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.decoder = json.JSONDecoder()

    def _fill(self) -> bool:
        if self.eof:
            return False
        chunk = self.fh.read(CHUNK_CHARS)
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        while True:
            self.pos = self._WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._fill():
                return ""

    def expect(self, char: str) -> None:
        got = self.peek()
        if got != char:
            if not got:
                raise TraceFormatError(f"truncated: the file ends where {char!r} was expected (was it still being "
                                       "written?)")
            raise TraceFormatError(f"malformed JSON: expected {char!r}, found {got!r}")
        self.pos += 1

    def value(self) -> Any:
        """The next JSON value (an event, a header value)."""
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if not self._fill():
                    raise TraceFormatError(f"truncated or malformed JSON: {exc.msg} at character {exc.pos}") from None
                continue
            if end >= len(self.buf) and not self.eof and not isinstance(value, (dict, list, str)):
                self._fill()  # a number at the buffer's end may continue in the next chunk
                continue
            self.pos = end
            return value


@dataclass
class TraceEvents:
    """What a trace holds for the analysis, as compact columns (no per-event dicts kept)."""

    header: dict[str, Any] = field(default_factory=dict)
    # cpu ops
    op_name: list[str] = field(default_factory=list)
    op_thread: list[int] = field(default_factory=list)
    op_ts: list[float] = field(default_factory=list)
    op_dur: list[float] = field(default_factory=list)
    op_ext: list[int] = field(default_factory=list)
    op_args: dict[int, tuple[str, str, str]] = field(default_factory=dict)  # op index → (dims, types, concrete)
    # kernels
    k_name: list[str] = field(default_factory=list)
    k_cat: list[str] = field(default_factory=list)
    k_ts: list[float] = field(default_factory=list)
    k_dur: list[float] = field(default_factory=list)
    k_ext: list[int] = field(default_factory=list)
    k_corr: list[int] = field(default_factory=list)
    k_device: list[int] = field(default_factory=list)
    k_stream: list[int] = field(default_factory=list)
    # launches (correlation → thread, time)
    launch: dict[int, tuple[int, float]] = field(default_factory=dict)
    # ProfilerStep ranges: (step, start, end)
    cpu_steps: list[tuple[int, float, float]] = field(default_factory=list)
    gpu_steps: list[tuple[int, float, float]] = field(default_factory=list)
    skipped: int = 0


def _thread_key(event: dict[str, Any]) -> int:
    """One number per (pid, tid); ids of the wrong type (lists, objects) are taken by their text."""
    pid, tid = event.get("pid"), event.get("tid")
    return hash((pid if isinstance(pid, (int, str)) else repr(pid), tid if isinstance(tid, (int, str)) else repr(tid)))


def _shape_cell(dims: Any) -> str:
    """``[[768], [788, 768], []]`` → ``"768;788,768;"`` (the profiler's shape notation)."""
    if not isinstance(dims, list):
        return ""
    parts = []
    for d in dims:
        if isinstance(d, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in d):
            parts.append(",".join(str(x) for x in d))
        else:
            parts.append("")  # tensor lists and non-tensors: no shape
    return ";".join(parts)


def _cell(values: Any) -> str:
    if not isinstance(values, list):
        return ""
    return ";".join(str(v).replace(";", ",") for v in values)


def _id(value: Any) -> int:
    """An integer id (External id, correlation, device, stream), −1 when absent or not a sane integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) and -(2**62) < value < 2**62 else -1


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _keep(out: TraceEvents, e: Any) -> None:
    if not isinstance(e, dict) or e.get("ph") != "X":
        out.skipped += 1
        return
    cat = e.get("cat")
    args = e.get("args") if isinstance(e.get("args"), dict) else {}
    ts, dur = e.get("ts"), e.get("dur")
    if not isinstance(cat, str) or not _finite_number(ts) or not _finite_number(dur) or dur < 0:
        out.skipped += 1
        return
    if cat in KERNEL_CATS:
        out.k_name.append(str(e.get("name", "")))
        out.k_cat.append(cat)
        out.k_ts.append(float(ts))
        out.k_dur.append(float(dur))
        out.k_ext.append(_id(args.get("External id")))
        out.k_corr.append(_id(args.get("correlation")))
        out.k_device.append(_id(args.get("device")))
        out.k_stream.append(_id(args.get("stream")))
    elif cat == "cpu_op":
        name = str(e.get("name", ""))
        index = len(out.op_name)
        out.op_name.append(name)
        out.op_thread.append(_thread_key(e))
        out.op_ts.append(float(ts))
        out.op_dur.append(float(dur))
        out.op_ext.append(_id(args.get("External id")))
        if name in RULED_OPS or (rule_for(name) is not None and "::" in name):
            out.op_args[index] = (_shape_cell(args.get("Input Dims")), _cell(args.get("Input type")),
                                  _cell(args.get("Concrete Inputs")))
    elif cat in LAUNCH_CATS:
        corr = _id(args.get("correlation"))
        if corr >= 0:
            out.launch[corr] = (_thread_key(e), float(ts))
    elif cat in ("user_annotation", "gpu_user_annotation"):
        m = STEP_NAME.match(str(e.get("name", "")))
        if m:
            (out.gpu_steps if cat == "gpu_user_annotation" else out.cpu_steps).append(
                (int(m.group(1)), float(ts), float(ts) + float(dur)))
    else:
        out.skipped += 1


def _open_text(path: Path) -> io.TextIOBase:
    raw = path.open("rb")
    head = raw.read(2)
    raw.seek(0)
    stream = gzip.GzipFile(fileobj=raw) if head == b"\x1f\x8b" else raw
    return io.TextIOWrapper(stream, encoding="utf-8", errors="replace")


def read_trace(path: Path) -> TraceEvents:
    """Stream a trace file into :class:`TraceEvents`.

    Raises:
        TraceFormatError: When the file is not a JSON object with a ``traceEvents`` array.
        OSError: When the file cannot be read.
    """
    out = TraceEvents()
    with _open_text(path) as fh:
        try:
            stream = _JsonStream(fh)
            stream.expect("{")
            seen_events = False
            while stream.peek() not in ("}", ""):
                key = stream.value()
                stream.expect(":")
                if key == "traceEvents":
                    seen_events = True
                    stream.expect("[")
                    while stream.peek() not in ("]", ""):
                        _keep(out, stream.value())
                        if stream.peek() == ",":
                            stream.pos += 1
                    stream.expect("]")
                elif key == "metadata":
                    stream.value()  # environment dumps (can hold secrets): never kept
                else:
                    out.header[str(key)] = stream.value()
                if stream.peek() == ",":
                    stream.pos += 1
            stream.expect("}")
        except (EOFError, gzip.BadGzipFile, OSError, UnicodeError) as exc:
            raise TraceFormatError(f"cannot read {path.name}: {exc}") from None
    if not seen_events:
        raise TraceFormatError(f"{path.name} has no traceEvents array: not a PyTorch profiler trace")
    return out


def sniff(path: Path) -> bool:
    """True when the file's head looks like a Kineto/Chrome trace."""
    try:
        with _open_text(path) as fh:
            head = fh.read(SNIFF_BYTES)
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeError):
        return False
    return head.lstrip().startswith("{") and ('"traceEvents"' in head or '"deviceProperties"' in head
                                             or '"schemaVersion"' in head)


# --- ops, kernels and steps -----------------------------------------------------------------


def _parents(ts: np.ndarray, end: np.ndarray, thread: np.ndarray) -> np.ndarray:
    """Parent op of every op (−1 for roots): ops nest by time on one thread."""
    n = len(ts)
    parent = np.full(n, -1, dtype=np.int64)
    order = np.lexsort((-(end - ts), ts, thread))  # by thread, start, longest first
    stack: list[int] = []
    last_thread = None
    for i in order.tolist():
        if thread[i] != last_thread:
            stack, last_thread = [], thread[i]
        while stack and end[stack[-1]] < ts[i]:
            stack.pop()
        parent[i] = stack[-1] if stack else -1
        stack.append(i)
    return parent


def _nearest_ruled(names: list[str], parent: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """For each op, itself or its nearest ancestor that has a FLOP rule (−1 when none)."""
    ruled = np.array([n in RULED_OPS for n in names], dtype=bool)
    nearest = np.full(len(names), -1, dtype=np.int64)
    for i in np.argsort(ts, kind="stable").tolist():  # parents start first
        nearest[i] = i if ruled[i] else (nearest[parent[i]] if parent[i] >= 0 else -1)
    return nearest


def _launching_ops(ev: TraceEvents, op_ts: np.ndarray, op_end: np.ndarray, op_thread: np.ndarray,
                   parent: np.ndarray) -> np.ndarray:
    """The op that launched each kernel (−1 when none is found)."""
    by_ext = {ext: i for i, ext in enumerate(ev.op_ext) if ext >= 0}
    out = np.array([by_ext.get(ext, -1) for ext in ev.k_ext], dtype=np.int64)
    missing = np.flatnonzero(out < 0)
    if len(missing) and len(op_ts):
        threads: dict[int, np.ndarray] = {}
        for k in missing.tolist():
            launch = ev.launch.get(ev.k_corr[k])
            if launch is None:
                continue
            thread, t = launch
            rows = threads.get(thread)
            if rows is None:
                rows = np.flatnonzero(op_thread == thread)
                rows = rows[np.argsort(op_ts[rows], kind="stable")]
                threads[thread] = rows
            pos = int(np.searchsorted(op_ts[rows], t, side="right")) - 1
            i = int(rows[pos]) if pos >= 0 else -1
            while i >= 0 and op_end[i] < t:  # the latest-starting op around t is the innermost
                i = int(parent[i])
            out[k] = i
    return out


def union_length(starts: np.ndarray, ends: np.ndarray) -> float:
    """Total length covered by intervals (overlaps counted once)."""
    if len(starts) == 0:
        return 0.0
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.concatenate([[True], s[1:] > reach[:-1]])
    block_start = s[new]
    block_end = np.maximum.reduceat(e, np.flatnonzero(new))
    return float((block_end - block_start).sum())


def step_breakdown(steps: list[tuple[int, float, float]], start: np.ndarray, end: np.ndarray,
                   comm: np.ndarray, step_of: np.ndarray) -> pd.DataFrame:
    """Per step: computing, communication (not overlapped, overlapped), free and the step time (µs).

    ``steps`` gives each step's window; kernels are clipped to it. Computing = union of the
    non-communication kernels; not-overlapped communication = union of all − computing;
    free = window − union of all (profiler-formats.md §13).
    """
    rows = []
    for step, lo, hi in steps:
        mine = step_of == step
        s, e = np.clip(start[mine], lo, hi), np.clip(end[mine], lo, hi)
        is_comm = comm[mine]
        computing = union_length(s[~is_comm], e[~is_comm])
        everything = union_length(s, e)
        communication = union_length(s[is_comm], e[is_comm])
        not_overlapped = everything - computing
        span = hi - lo
        rows.append({"step": str(step), "computing": computing, "comm_not_overlapped": not_overlapped,
                     "overlapped": communication - not_overlapped, "communication": communication,
                     "free": max(span - everything, 0.0), "stage": span, "bubble": 0.0,
                     "step_time_us": computing + not_overlapped + max(span - everything, 0.0)})
    return pd.DataFrame(rows)


def _steps(ev: TraceEvents, start: np.ndarray, end: np.ndarray, launching: np.ndarray,
           op_ts: np.ndarray) -> tuple[list[tuple[int, float, float]], np.ndarray, str]:
    """Step windows, each kernel's step (−1 outside), and where the steps came from."""
    step_of = np.full(len(start), -1, dtype=np.int64)
    if ev.gpu_steps:
        windows = sorted(ev.gpu_steps, key=lambda s: s[1])
        lo = np.array([w[1] for w in windows])
        hi = np.array([w[2] for w in windows])
        pos = np.searchsorted(lo, start, side="right") - 1
        ok = (pos >= 0) & (start <= hi[np.clip(pos, 0, None)])
        step_of[ok] = np.array([w[0] for w in windows])[pos[ok]]
        return windows, step_of, "ProfilerStep# on the GPU timeline"
    if ev.cpu_steps and len(op_ts):
        windows = sorted(ev.cpu_steps, key=lambda s: s[1])
        lo = np.array([w[1] for w in windows])
        hi = np.array([w[2] for w in windows])
        has_op = launching >= 0
        t = np.where(has_op, op_ts[np.clip(launching, 0, None)], np.nan)
        pos = np.searchsorted(lo, t, side="right") - 1
        ok = has_op & (pos >= 0) & (t <= hi[np.clip(pos, 0, None)])
        step_of[ok] = np.array([w[0] for w in windows])[pos[ok]]
        gpu_windows = []
        for step, _, _ in windows:
            mine = step_of == step
            if mine.any():
                gpu_windows.append((step, float(start[mine].min()), float(end[mine].max())))
        return gpu_windows, step_of, "ProfilerStep# on the CPU (GPU span of the kernels it launched)"
    return [], step_of, "no ProfilerStep ranges"


@dataclass
class GpuDevice:
    """One GPU as ``deviceProperties`` describes it."""

    name: str
    vendor: str
    sms: int | None = None
    memory_gb: float | None = None
    compute: str = ""


def device_of(header: dict[str, Any], device_ids: np.ndarray) -> GpuDevice | None:
    """The GPU most kernels ran on, from ``deviceProperties``."""
    props = header.get("deviceProperties")
    if not isinstance(props, list) or not props:
        return None
    ids = device_ids[device_ids >= 0]
    main = int(np.bincount(ids).argmax()) if len(ids) else None
    chosen = next((p for p in props if isinstance(p, dict) and p.get("id") == main), None) or props[0]
    if not isinstance(chosen, dict):
        return None
    name = str(chosen.get("name", "unknown GPU"))
    vendor = "AMD" if "AMD" in name.upper() or "hip_runtime_version" in header else (
        "NVIDIA" if "NVIDIA" in name.upper() or "cuda_runtime_version" in header else "GPU")
    mem = chosen.get("totalGlobalMem")
    sms = chosen.get("numSms")
    return GpuDevice(name, vendor, int(sms) if isinstance(sms, int) else None,
                     float(mem) / 2**30 if isinstance(mem, (int, float)) else None,
                     f"{chosen.get('computeMajor', '')}.{chosen.get('computeMinor', '')}")


def kernel_frame(ev: TraceEvents) -> tuple[pd.DataFrame, StepTrace | None, list[str]]:
    """The canonical kernel frame of a trace, its step trace and notes on what was (not) found."""
    notes: list[str] = []
    n = len(ev.k_name)
    op_ts = np.array(ev.op_ts, dtype=np.float64)
    op_end = op_ts + np.array(ev.op_dur, dtype=np.float64)
    op_thread = np.array(ev.op_thread, dtype=np.int64)
    parent = _parents(op_ts, op_end, op_thread) if len(op_ts) else np.zeros(0, dtype=np.int64)
    nearest = _nearest_ruled(ev.op_name, parent, op_ts) if len(op_ts) else np.zeros(0, dtype=np.int64)
    launching = _launching_ops(ev, op_ts, op_end, op_thread, parent) if n else np.zeros(0, dtype=np.int64)
    ruled = np.where(launching >= 0, nearest[np.clip(launching, 0, None)] if len(nearest) else -1, -1)
    start = np.array(ev.k_ts, dtype=np.float64)
    dur = np.array(ev.k_dur, dtype=np.float64)
    names = np.array(ev.k_name, dtype=object)
    cats = np.array(ev.k_cat, dtype=object)
    is_comm = np.array([bool(COMM_KERNEL.search(x)) for x in ev.k_name], dtype=bool) if n else np.zeros(0, bool)
    copy = cats != "kernel"
    matrix = (ruled >= 0) | np.array([bool(MATRIX_KERNEL.search(x)) for x in ev.k_name], dtype=bool)
    core = np.where(is_comm, "GPU_COMM", np.where(copy, "GPU_COPY", np.where(matrix, "GPU_MATRIX", "GPU_VECTOR")))
    op_names = np.array([*ev.op_name, ""], dtype=object)
    op_type = np.where(ruled >= 0, op_names[ruled], np.where(launching >= 0, op_names[launching], None))
    # FLOPs of an op are spread over its kernels by time
    share = np.ones(n, dtype=np.float64)
    if (ruled >= 0).any():
        total = np.bincount(ruled[ruled >= 0], weights=dur[ruled >= 0], minlength=len(op_ts))
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(ruled >= 0, dur / total[np.clip(ruled, 0, None)], 1.0)
        share = np.where(np.isfinite(share), share, 0.0)
    shapes = np.full(n, None, dtype=object)
    types = np.full(n, None, dtype=object)
    attrs = np.full(n, None, dtype=object)
    tf32_ops = {int(r) for r, name in zip(ruled.tolist(), ev.k_name) if r >= 0 and TF32_KERNEL.search(name)}
    for op in np.unique(ruled[ruled >= 0]).tolist():
        dims, dtypes, concrete = ev.op_args.get(op, ("", "", ""))
        if op in tf32_ops and dtypes.split(";", 1)[0].strip().lower() == "float":
            dtypes = "TF32;" + dtypes.split(";", 1)[-1]  # FP32 inputs that ran on TF32 tensor cores
        mine = ruled == op
        shapes[mine], types[mine], attrs[mine] = dims or None, dtypes or None, concrete or None
    windows, step_of, step_source = _steps(ev, start, start + dur, launching, op_ts)
    frame = pd.DataFrame({
        C.STEP_ID: np.where(step_of >= 0, step_of, np.nan).astype(np.float32),
        C.NAME: pd.Categorical(names),
        C.OP_TYPE: pd.Categorical(op_type),
        C.CORE_TYPE: pd.Categorical(core),
        C.START_NS: np.round(start * 1000.0).astype(np.int64),
        C.DURATION_US: dur,
        C.INPUT_SHAPES: pd.Categorical(shapes),
        C.INPUT_DTYPES: pd.Categorical(types),
        C.ATTRIBUTES: pd.Categorical(attrs),
        C.FLOPS_SHARE: share,  # float64: FLOPs × share must add up to the op's FLOPs exactly
        C.STREAM_ID: np.array(ev.k_stream, dtype=np.int64),
    })
    if not len(op_ts):
        notes.append("no CPU ops in the trace (GPU-only capture): no shapes, so no FLOPs-based MFU — capture with "
                     "activities CPU + CUDA and record_shapes=True")
    elif not ev.op_args:
        notes.append("no op with a FLOP rule recorded its shapes: capture with record_shapes=True")
    unlinked = int((launching < 0).sum())
    if unlinked and len(op_ts):
        notes.append(f"{unlinked:,} of {n:,} GPU kernels could not be linked to a CPU op")
    trace = None
    if windows:
        table = step_breakdown(windows, start, start + dur, is_comm, step_of)
        trace = StepTrace(table, f"Kineto {step_source}")
    else:
        notes.append("no ProfilerStep# range: step time and step MFU unavailable (use torch.profiler.schedule / "
                     "prof.step())")
    return frame, trace, notes


# --- the reader -----------------------------------------------------------------------------


def _rank_folder(path: Path, root: Path) -> RankFolder:
    folder = RankFolder(path=path, root=root, producer="kineto", reader=KinetoReader.name, vendor="GPU",
                        output_dir=path.parent)
    folder.files["trace"] = [path]
    folder.analyse_done = True  # a trace file is written whole by export_chrome_trace
    return folder


def _is_trace_file(path: Path) -> bool:
    if TRACE_NAME.search(path.name):
        return True
    return bool(JSON_NAME.search(path.name)) and sniff(path)


class KinetoReader:
    """PyTorch profiler (Kineto) traces of NVIDIA (CUDA) and AMD (ROCm) GPUs."""

    name = "kineto"
    looks_for = "PyTorch profiler traces (*.pt.trace.json[.gz], Kineto *.json[.gz])"
    claims_folder = False

    def ranks_in_dir(self, path: Path, root: Path) -> list[RankFolder] | None:
        traces = [Path(e.path) for e in list_dir(path) if safe_is_file(e) and _is_trace_file(Path(e.path))]
        return [_rank_folder(p, root) for p in traces] or None

    def ranks_in_file(self, path: Path) -> list[RankFolder] | None:
        return [_rank_folder(path, path)] if _is_trace_file(path) else None

    def is_cluster_output(self, path: Path) -> bool:
        return False

    def resolve_rank(self, folder: RankFolder) -> None:
        """Rank from ``distributedInfo.rank`` (read from the file's head; never from the file name)."""
        try:
            with _open_text(folder.path) as fh:
                head = fh.read(SNIFF_BYTES)
        except (OSError, EOFError, gzip.BadGzipFile, UnicodeError):
            return
        m = re.search(r'"distributedInfo"\s*:\s*\{[^{}]*"rank"\s*:\s*(\d+)', head)
        if m:
            folder.rank, folder.rank_origin = int(m.group(1)), f"{folder.path.name} distributedInfo.rank"

    def read(self, folder: RankFolder, data: RankData) -> None:
        path = folder.file("trace") or folder.path
        try:
            ev = read_trace(path)
        except (TraceFormatError, OSError) as exc:
            data.error = f"{path.name}: {exc}"
            return
        frame, trace, notes = kernel_frame(ev)
        if frame.empty:
            data.error = f"{path.name} has no GPU kernels (was the CUDA/ROCm activity profiled?)"
            return
        data.kernels = frame
        data.step_trace = trace
        device = device_of(ev.header, np.array(ev.k_device, dtype=np.int64))
        data.device = device
        if device is not None:
            data.device_name = device.name
            folder.vendor = device.vendor
        record_shapes = ev.header.get("record_shapes")
        runtime = "ROCm" if "hip_runtime_version" in ev.header else ("CUDA" if "cuda_runtime_version" in ev.header
                                                                      else "GPU")
        folder.config = CaptureConfig(
            profiler_level=f"PyTorch profiler ({runtime})", aic_metrics="no hardware counters",
            record_shapes=None if record_shapes is None else bool(record_shapes),
            with_flops=None if ev.header.get("with_flops") is None else bool(ev.header.get("with_flops")),
            export_type=["trace"], rank_id=folder.rank)
        data.kernel_source = (f"kernels from {path.name} ({len(frame):,} GPU kernels, {len(ev.op_name):,} CPU ops"
                              f"{', ' + device.name if device else ''})")
        data.problems.extend(notes)
        if not ev.op_name:
            data.missing_columns = [C.INPUT_SHAPES]
