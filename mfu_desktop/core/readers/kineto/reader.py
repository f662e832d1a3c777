"""PyTorch profiler (Kineto) traces of CUDA and ROCm runs (profiler-formats.md §13).

Files: ``*.pt.trace.json[.gz]`` (``tensorboard_trace_handler``), or any ``*.json[.gz]`` whose
content is a Chrome trace with ``traceEvents`` (``export_chrome_trace``); one file per rank
(``distributedInfo.rank``), a folder of them is a cluster.

* **Decoding** (:mod:`.read`, :mod:`.decoder`, :mod:`.to_columns`): msgspec decodes the events in
  slices into typed structs, turned into typed arrays (:class:`.events.TraceEvents`); several
  traces decode in parallel processes (:mod:`.parallel`).
* **Kernels → ops, classes, steps** (:mod:`.frame`): the canonical kernel frame.
* **Chip** from ``deviceProperties`` (:func:`mfu_desktop.core.analysis.chip_resolution.resolve_chip`).

This module is the reader the registry knows (which files are traces, the rank id); it imports
no numpy, so that discovery stays light — reading imports the two modules above.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.base import RankFolder
from mfu_desktop.core.readers.files import list_dir, safe_is_file
from mfu_desktop.core.readers.kineto.files import READ_ERRORS, SNIFF_BYTES, is_trace_file, open_text
from mfu_desktop.core.readers.records import CaptureConfig

if TYPE_CHECKING:
    from mfu_desktop.core.readers.base import RankData


# --- the reader -----------------------------------------------------------------------------


def _trace_candidate(path: Path) -> bool:
    """Whether a file is a trace; a damaged compressed ``*.json.gz`` is one too, so that it fails as a rank by name.

    Sniffing a file whose deflate data is corrupt raises (``zlib.error``): skipping it silently
    would leave "no profiler ranks found" as the only trace of it.
    """
    try:
        return is_trace_file(path)
    except Exception:
        return True


def _rank_folder(path: Path, root: Path) -> RankFolder:
    folder = RankFolder(path=path, root=root, producer="kineto", reader=KinetoReader.name, vendor="GPU",
                        output_dir=path.parent)
    folder.files["trace"] = [path]
    folder.analyse_done = True  # a trace file is written whole by export_chrome_trace
    return folder


class KinetoReader:
    """PyTorch profiler (Kineto) traces of NVIDIA (CUDA) and AMD (ROCm) GPUs."""

    name = "kineto"
    looks_for = "PyTorch profiler traces (*.pt.trace.json[.gz], Kineto *.json[.gz])"
    claims_folder = False

    def ranks_in_dir(self, path: Path, root: Path) -> list[RankFolder] | None:
        traces = [Path(e.path) for e in list_dir(path) if safe_is_file(e) and _trace_candidate(Path(e.path))]
        return [_rank_folder(p, root) for p in traces] or None

    def ranks_in_file(self, path: Path) -> list[RankFolder] | None:
        return [_rank_folder(path, path)] if _trace_candidate(path) else None

    def is_cluster_output(self, path: Path) -> bool:
        return False

    def resolve_rank(self, folder: RankFolder) -> None:
        """Rank from ``distributedInfo.rank`` (read from the file's head; never from the file name)."""
        try:
            with open_text(folder.path) as fh:
                head = fh.read(SNIFF_BYTES)
        except READ_ERRORS:  # damaged (zlib.error …): no id here; reading the rank says what is wrong
            return
        m = re.search(r'"distributedInfo"\s*:\s*\{[^{}]*"rank"\s*:\s*(\d+)', head)
        if m:
            folder.rank, folder.rank_origin = int(m.group(1)), f"{folder.path.name} distributedInfo.rank"

    def read(self, folder: RankFolder, data: RankData) -> None:
        import numpy as np

        from mfu_desktop.core.readers.kineto.byte_stream import TraceFormatError
        from mfu_desktop.core.readers.kineto.device import device_of
        from mfu_desktop.core.readers.kineto.frame import kernel_frame
        from mfu_desktop.core.readers.kineto.parallel import decode_trace
        from mfu_desktop.core.readers.kineto.read import decode_notes

        path = folder.file("trace") or folder.path
        try:
            ev = decode_trace(path)
        except (TraceFormatError, OSError) as exc:
            data.error = f"{path.name}: {exc}"
            return
        from mfu_desktop.core.readers.memory.kineto import trace_memory

        data.raw["kineto_memory"] = trace_memory(ev, path.name)  # for the memory enricher
        device = device_of(ev.header, np.frombuffer(ev.k_device, dtype=np.int64))
        traced = kernel_frame(ev, device)
        frame = traced.kernels
        if frame.empty:
            data.error = f"{path.name} has no GPU kernels (was the CUDA/ROCm activity profiled?)"
            return
        data.kernels = frame
        data.step_trace = traced.steps
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
        data.problems.extend(decode_notes(ev) + traced.warnings)
        data.notes.extend(traced.notes)
        if not ev.ops:
            data.missing_columns = [C.INPUT_SHAPES]
