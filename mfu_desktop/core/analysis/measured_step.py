"""A rank's measured step: communication not overlapped, split into real transfer and waiting (prediction.md §4.1)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mfu_desktop.core.readers.records import CommMatrix
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
