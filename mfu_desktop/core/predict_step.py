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

from mfu_desktop.core.chips.catalog import Chip
from mfu_desktop.core.readers.ascend.communication import CommMatrix
from mfu_desktop.core.readers.step_trace import StepTrace


@dataclass
class MeasuredStep:
    """The measured step of one rank, as means per complete step of its step trace.

    ``transfer_us`` is the real communication (Σ longest link per collective of that step, from
    the communication matrix), ``wait_us`` = not-overlapped communication − transfer (clamped at
    0 per step). Without a matrix all not-overlapped communication counts as waiting.
    """

    steps: int
    computing_us: float
    comm_not_overlapped_us: float
    transfer_us: float
    wait_us: float
    free_us: float
    notes: list[str] = field(default_factory=list)

    @property
    def step_us(self) -> float:
        """Computing + not-overlapped communication + free (mfu.md §4.2)."""
        return self.computing_us + self.comm_not_overlapped_us + self.free_us


def measured_step(trace: StepTrace | None, comm: CommMatrix | None) -> tuple[MeasuredStep | None, list[str]]:
    """Means per step of the step trace, with each step's real transfer from its own matrix step.

    A trace step whose label is not in the matrix uses the matrix's last step (prediction.md
    §4.1) and a note says so.
    """
    if trace is None or trace.empty:
        return None, ["no step trace: step-level prediction unavailable"]
    valid = trace.frame[trace.frame["step_time_us"].notna()]
    if valid.empty:
        return None, ["step trace has no complete row"]
    notes: list[str] = []
    matrix_steps = comm.steps() if comm is not None and comm.ops else []
    totals = {"computing": 0.0, "comm": 0.0, "transfer": 0.0, "wait": 0.0, "free": 0.0}
    clamped = unmatched = 0
    n_ops = 0
    rows = zip(valid["step"].astype(str), valid["computing"], valid["comm_not_overlapped"], valid["free"])
    for label, computing, comm_no, free in rows:
        real = 0.0
        if matrix_steps:
            if label not in matrix_steps:
                unmatched += 1
            real, _, ops = comm.real_communication(label if label in matrix_steps else None)
            n_ops = max(n_ops, ops)
        wait = float(comm_no) - real
        if wait < 0:
            clamped += 1
            real, wait = float(comm_no), 0.0
        totals["computing"] += float(computing)
        totals["comm"] += float(comm_no)
        totals["transfer"] += real
        totals["wait"] += wait
        totals["free"] += float(free)
    steps = len(valid)
    if matrix_steps:
        notes.append(f"real communication: Σ longest link over up to {n_ops} collective operator(s) per step "
                     f"({comm.layout}), mean over {steps} step(s)")
        if unmatched:
            notes.append(f"{unmatched} traced step(s) not in the communication matrix: its last step was used for them")
    else:
        notes.append("no communication matrix: all not-overlapped communication counted as waiting")
    if clamped:
        notes.append(f"in {clamped} step(s) the real transfer exceeds the not-overlapped communication: wait clamped "
                     "to 0 and transfer to the not-overlapped time")
    mean = {k: v / steps for k, v in totals.items()}
    return MeasuredStep(steps, mean["computing"], mean["comm"], mean["transfer"], mean["wait"], mean["free"],
                        notes), notes


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
