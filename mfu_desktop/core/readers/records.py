"""The records a reader fills besides the kernel frame.

Capture configuration, device evidence, parallel groups, the communication matrix and the
database's extras: every reader may fill them, the analysis reads them. Light (no pandas at
import time): discovery builds :class:`CaptureConfig` objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd



#: The largest rank id accepted (int32: clusters have thousands of ranks; ids beyond are damage, not ranks).
MAX_RANK_ID = 2**31 - 1


def valid_rank_id(value: object) -> int | None:
    """``value`` as a rank id (an integer in 0 … :data:`MAX_RANK_ID`, never a bool), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_RANK_ID else None


@dataclass
class CaptureConfig:
    """How the profile was captured (so the UI can explain missing metrics).

    Attributes:
        profiler_level: ``Level0``/``Level1``/``Level2`` or ``None`` when unknown.
        aic_metrics: ``PipeUtilization``, ``ArithmeticUtilization``, ``MemoryL0`` … or ``None``.
        record_shapes: The framework-side switch (kernel shapes at Level1+ are collected anyway).
        with_flops: torch_npu's FLOPs hook switch.
        export_type: ``["text"]``, ``["db"]`` or both.
        rank_id: ``rank_id`` from the file, when present.
        worker_name: ``_worker_name`` (2023 files).
        versions: torch_npu / CANN versions when recorded.
    """

    profiler_level: str | None = None
    aic_metrics: str | None = None
    record_shapes: bool | None = None
    with_flops: bool | None = None
    profile_memory: bool | None = None
    export_type: list[str] = field(default_factory=list)
    msprof_tx: bool | None = None
    data_simplification: bool | None = None
    rank_id: int | None = None
    worker_name: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    end_ns: int | None = None

    def describe(self) -> str:
        """One line for reports: ``Level1, PipeUtilization, record_shapes on, text``."""
        parts = [self.profiler_level or "level unknown", self.aic_metrics or "aic_metrics unknown"]
        if self.record_shapes is not None:
            parts.append(f"record_shapes {'on' if self.record_shapes else 'off'}")
        if self.export_type:
            parts.append("+".join(self.export_type))
        return ", ".join(parts)


@dataclass
class DeviceInfo:
    """``PROF_*/device_*/info.json.*`` → ``DeviceInfo[0]`` (AI core count and clock)."""

    ai_core_num: int | None = None
    aiv_num: int | None = None
    aic_frequency_mhz: float | None = None
    rank_id: int | None = None
    path: Path | None = None


@dataclass
class ParallelGroups:
    """``profiler_metadata.json`` → parallel groups (TP/PP/DP) when present."""

    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    distributed_args: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """``TP2 × PP2 × DP2`` from distributed_args, or the group names."""
        args = self.distributed_args
        labels = {"tensor": "TP", "pipeline": "PP", "data": "DP", "context": "CP", "expert": "EP"}
        parts = []
        for key, label in labels.items():
            value = args.get(f"{key}_model_parallel_size", args.get(f"{key}_parallel_size"))
            if isinstance(value, int):
                parts.append(f"{label}{value}")
        if parts:
            return " × ".join(parts)
        names = sorted({str(g.get("group_name")) for g in self.groups.values() if isinstance(g, dict)})
        return ", ".join(names)


@dataclass(frozen=True)
class CommOp:
    """One communication operator's longest link in one step."""

    step: str
    kind: str  # collective | p2p
    op: str
    link: str
    transport: str
    transit_time_ms: float
    transit_size_mb: float


@dataclass
class CommMatrix:
    """Longest links per operator and step, ready for the step composite."""

    layout: str  # "aggregated (-total keys)" | "per operator (2023)" | "empty"
    ops: list[CommOp] = field(default_factory=list)
    source: str = ""
    problems: list[str] = field(default_factory=list)

    def steps(self) -> list[str]:
        """Step labels in the file (``"50"``, or ``""`` without steps), in file order."""
        seen: list[str] = []
        for op in self.ops:
            if op.step not in seen:
                seen.append(op.step)
        return seen

    def real_communication(self, step: str | None = None, include_p2p: bool = False) -> tuple[float, float, int]:
        """Σ longest-link transit time (µs) and size (MB) over the operators of one step.

        Args:
            step: The step label; ``None`` takes the last step (prediction.md §4.1).
            include_p2p: Add point-to-point operators (the seed uses collectives only).

        Returns:
            ``(time_us, size_mb, operator_count)``.
        """
        steps = self.steps()
        if not steps:
            return 0.0, 0.0, 0
        if step is None or step not in steps:
            step = steps[-1]
        chosen = [op for op in self.ops if op.step == step and (include_p2p or op.kind == "collective")]
        return (sum(op.transit_time_ms for op in chosen) * 1000.0, sum(op.transit_size_mb for op in chosen),
                len(chosen))


@dataclass
class DbExtras:
    """What else the database says about the rank."""

    npu_name: str | None = None
    aicore_mhz: float | None = None
    rank_id: int | None = None
    steps: pd.DataFrame = field(default_factory=lambda: _empty_steps())
    schema: str | None = None


def _empty_steps() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(columns=["step", "start_ns", "end_ns"])


@dataclass
class MemoryData:
    """What a rank's memory files hold, normalised (see the module docstring for the units).

    Attributes:
        source: The files or tables read ("memory_record.csv, operator_memory.csv"), or ``""``.
        reason: Why there is no memory data (``None`` when there is).
        records: The allocators' totals over time, per component (``PTA``, ``GE``, ``PTA+GE``,
            ``CUDA`` …); the whole-process rows (``APP``) are in :attr:`process`.
        allocations: Tensor allocations with the operator that made them.
        modules: Reserved memory of runtime components over time (``HCCL``, ``RUNTIME`` …).
        process: The whole process's reserved memory over time (``APP``).
        static_ops: Static-graph operator memory (graph mode).
        steps: Step windows the source records (label, start µs, end µs), same clock as the rest.
        allocator: The framework allocator the source describes by default (Kineto: ``CUDA``).
        timed: False when the timestamps cannot be used (rounded by a spreadsheet …).
        notes: What was read and how (shown with the rank's notes).
        problems: Missing or partial files, unreadable rows (shown as warnings).
    """

    source: str = ""
    reason: str | None = None
    records: pd.DataFrame | None = None
    allocations: pd.DataFrame | None = None
    modules: pd.DataFrame | None = None
    process: pd.DataFrame | None = None
    static_ops: pd.DataFrame | None = None
    steps: list[tuple[str, float, float]] = field(default_factory=list)
    allocator: str = ""
    timed: bool = True
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def available(self) -> bool:
        """True when some allocator total or allocation was read."""
        return self.reason is None and any(f is not None and not f.empty for f in (self.records, self.allocations))
