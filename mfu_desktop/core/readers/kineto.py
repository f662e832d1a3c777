"""PyTorch profiler (Kineto) traces of CUDA and ROCm runs (profiler-formats.md §13).

Files: ``*.pt.trace.json[.gz]`` (``tensorboard_trace_handler``), or any ``*.json[.gz]`` whose
content is a Chrome trace with ``traceEvents`` (``export_chrome_trace``); one file per rank
(``distributedInfo.rank``), a folder of them is a cluster.

* **Streaming** (:mod:`.kineto_events`): decoded one event at a time into typed arrays.
* **Kernels → ops, classes, steps** (:mod:`.kineto_frame`): the canonical kernel frame.
* **Chip** from ``deviceProperties`` (:func:`mfu_desktop.core.chip_detect.resolve_chip`).

This module is the reader the registry knows: which files are traces, the rank id, the device.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mfu_desktop.core.flops_aten import RULED_OPS
from mfu_desktop.core.flops_registry import rule_for
from mfu_desktop.core.profiler import columns as C
from mfu_desktop.core.profiler.info import CaptureConfig
from mfu_desktop.core.readers.base import RankFolder
from mfu_desktop.core.readers.files import list_dir, safe_is_file
from mfu_desktop.core.readers.kineto_events import (
    SNIFF_BYTES,
    TraceEvents,
    TraceFormatError,
    open_text,
    read_trace,
    sniff,
)
from mfu_desktop.core.readers.kineto_frame import kernel_frame, step_breakdown, union_length

if TYPE_CHECKING:
    from mfu_desktop.core.loader import RankData

#: File names written by the PyTorch profiler (any name with a Kineto body is accepted too).
TRACE_NAME = re.compile(r"\.pt\.trace\.json(\.gz)?$")
#: Other JSON files are read when their head looks like a Kineto trace.
JSON_NAME = re.compile(r"\.json(\.gz)?$")
__all__ = [
    "GpuDevice",
    "KinetoReader",
    "TraceEvents",
    "TraceFormatError",
    "device_of",
    "keeps_shapes",
    "kernel_frame",
    "read_trace",
    "sniff",
    "step_breakdown",
    "union_length",
]


def keeps_shapes(op_name: str) -> bool:
    """True for the ops whose shapes the reader keeps: the ATen/custom ops with a FLOP rule."""
    return op_name in RULED_OPS or (rule_for(op_name) is not None and "::" in op_name)


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
            with open_text(folder.path) as fh:
                head = fh.read(SNIFF_BYTES)
        except (OSError, EOFError, gzip.BadGzipFile, UnicodeError):
            return
        m = re.search(r'"distributedInfo"\s*:\s*\{[^{}]*"rank"\s*:\s*(\d+)', head)
        if m:
            folder.rank, folder.rank_origin = int(m.group(1)), f"{folder.path.name} distributedInfo.rank"

    def read(self, folder: RankFolder, data: RankData) -> None:
        path = folder.file("trace") or folder.path
        try:
            ev = read_trace(path, keeps_shapes)
        except (TraceFormatError, OSError) as exc:
            data.error = f"{path.name}: {exc}"
            return
        frame, trace, notes = kernel_frame(ev)
        if frame.empty:
            data.error = f"{path.name} has no GPU kernels (was the CUDA/ROCm activity profiled?)"
            return
        data.kernels = frame
        data.step_trace = trace
        device = device_of(ev.header, np.frombuffer(ev.k_device, dtype=np.int64))
        data.device = device
        if device is not None:
            data.device_name = device.name
            folder.vendor = data.vendor = device.vendor
        record_shapes = ev.header.get("record_shapes")
        runtime = "ROCm" if "hip_runtime_version" in ev.header else ("CUDA" if "cuda_runtime_version" in ev.header
                                                                      else "GPU")
        folder.config = data.config = CaptureConfig(
            profiler_level=f"PyTorch profiler ({runtime})", aic_metrics="no hardware counters",
            record_shapes=None if record_shapes is None else bool(record_shapes),
            with_flops=None if ev.header.get("with_flops") is None else bool(ev.header.get("with_flops")),
            export_type=["trace"], rank_id=folder.rank)
        data.kernel_source = (f"kernels from {path.name} ({len(frame):,} GPU kernels, {ev.ops:,} CPU ops"
                              f"{', ' + device.name if device else ''})")
        data.problems.extend(notes)
        if not ev.ops:
            data.missing_columns = [C.INPUT_SHAPES]
