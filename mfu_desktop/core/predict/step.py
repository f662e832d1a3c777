"""The step composite of the cross-chip prediction (prediction.md §4).

The per-kernel prediction covers compute-class time only. The step adds un-overlapped
communication — real transfer (longest link per collective, from the communication matrix)
scaled by interconnect bandwidth, and waiting kept as is — and free (host-bound) time over the
host CPU coefficient. Composition is by time; the seed README's arithmetic-mean formula is
computed beside it, labelled. Every figure is a mean per step (:mod:`mfu_desktop.core.steps`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mfu_desktop.core.analysis.measured_step import MeasuredStep
from mfu_desktop.core.chips.catalog import Chip


@dataclass
class StepComposite:
    """Predicted step of one rank on one target (prediction.md §4), means per step."""

    measured: MeasuredStep | None = None
    predicted_computing_us: float | None = None
    predicted_transfer_us: float | None = None
    predicted_wait_us: float | None = None
    predicted_free_us: float | None = None
    readme_relative: float | None = None
    notes: list[str] = field(default_factory=list)
    #: Why the step was not predicted (empty when it was).
    not_predicted: str = ""

    @property
    def measured_step_us(self) -> float | None:
        """Measured step time (mean per step)."""
        return self.measured.step_us if self.measured is not None else None

    @property
    def predicted_comm_us(self) -> float | None:
        """Predicted not-overlapped communication: scaled transfer + unchanged wait."""
        if self.predicted_transfer_us is None or self.predicted_wait_us is None:
            return None
        return self.predicted_transfer_us + self.predicted_wait_us

    @property
    def predicted_step_us(self) -> float | None:
        """Predicted step time (mean per step)."""
        parts = (self.predicted_computing_us, self.predicted_comm_us, self.predicted_free_us)
        return None if any(p is None for p in parts) else float(sum(parts))  # type: ignore[arg-type]

    @property
    def relative(self) -> float | None:
        """Measured step / predicted step."""
        pred, meas = self.predicted_step_us, self.measured_step_us
        return meas / pred if pred and meas is not None and pred > 0 else None


def comm_line(not_overlapped_us: float | None, transfer_us: float | None, wait_us: float | None,
              lang: str = "en") -> str:
    """The seed's "未掩盖通信: … (真实通信: …, 等待: …)" line, in English or Chinese (µs)."""
    if not_overlapped_us is None or transfer_us is None or wait_us is None:
        return ""
    if lang.startswith("zh"):
        return (f"未掩盖通信: {not_overlapped_us:,.2f} µs（真实通信: {transfer_us:,.2f} µs, "
                f"等待: {wait_us:,.2f} µs）")
    return (f"Comm (not overlapped): {not_overlapped_us:,.2f} µs (transfer: {transfer_us:,.2f} µs, "
            f"wait: {wait_us:,.2f} µs)")


def _coefficients(source: Chip, target: Chip, default_cpu: float | None, needs_ic: bool,
                  needs_cpu: bool) -> tuple[float | None, float | None, list[str], str]:
    """Interconnect and cpu ratios (source / target), notes, and why the step cannot be predicted."""
    notes: list[str] = []
    src_ic, tgt_ic = source.value("interconnect_bandwidth"), target.value("interconnect_bandwidth")
    cpu_src, cpu_tgt = source.value("cpu"), target.value("cpu")
    if cpu_src is None and default_cpu:
        cpu_src = default_cpu
        notes.append(f"cpu coefficient of {source.display_name} assumed {default_cpu:g} (--assume-cpu)")
    if cpu_tgt is None and default_cpu:
        cpu_tgt = default_cpu
        notes.append(f"cpu coefficient of {target.display_name} assumed {default_cpu:g} (--assume-cpu)")
    missing = []
    if needs_ic and (not src_ic or not tgt_ic):
        missing.append(f"interconnect bandwidth of {target.display_name if not tgt_ic else source.display_name}")
    if needs_cpu and (not cpu_src or not cpu_tgt):
        missing.append(f"cpu coefficient of {target.display_name if not cpu_tgt else source.display_name}")
    if missing:
        return None, None, notes, (f"{' and '.join(missing)} not set (an assumption of the seed model; set it in "
                                   "the catalog or pass --assume-cpu): step not predicted")
    ic_ratio = src_ic / tgt_ic if src_ic and tgt_ic else 1.0
    cpu_ratio = cpu_src / cpu_tgt if cpu_src and cpu_tgt else 1.0
    return ic_ratio, cpu_ratio, notes, ""


def step_composite(measured: MeasuredStep | None, compute_speedup: float | None, source: Chip, target: Chip,
                   default_cpu: float | None = None) -> StepComposite:
    """Compose the predicted step (means per step) from the measured step and the compute speed-up.

    ``compute_speedup`` = measured compute-class time / predicted, over all compute-class
    kernels (the caller keeps unpredictable kernels at their measured time and says so).
    """
    out = StepComposite(measured=measured)
    if measured is None:
        out.not_predicted = "no step trace: step-level prediction unavailable"
        return out
    if compute_speedup is None or not math.isfinite(compute_speedup) or compute_speedup <= 0:
        out.not_predicted = "compute speed-up unknown: step not predicted"
        return out
    ic_ratio, cpu_ratio, notes, why = _coefficients(source, target, default_cpu, measured.transfer_us > 0,
                                                    measured.free_us > 0)
    out.notes.extend(notes)
    if ic_ratio is None or cpu_ratio is None:
        out.not_predicted = why
        return out
    out.predicted_computing_us = measured.computing_us / compute_speedup
    out.predicted_transfer_us = measured.transfer_us * ic_ratio
    out.predicted_wait_us = measured.wait_us
    out.predicted_free_us = measured.free_us * cpu_ratio
    total = measured.step_us
    if total > 0:
        comm_part = (1.0 / ic_ratio) * measured.comm_not_overlapped_us
        out.readme_relative = (compute_speedup * measured.computing_us + comm_part + measured.free_us) / total
    return out
