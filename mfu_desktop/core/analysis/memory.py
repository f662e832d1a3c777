"""Memory of one rank: the peak, when in the step it happens, what holds it, and whether it fits.

From a rank's :class:`~mfu_desktop.core.readers.records.MemoryData` (the memory enricher,
profiler-formats.md §14):

* **peak allocated / peak reserved** of the framework allocator — ``PTA+GE`` when the capture has
  it, else ``PTA`` (else the one component there is); the CUDA caching allocator for traces;
* **process reserved** — the whole process's peak (``APP``: allocator, runtime, HCCL buffers …);
* **when**: the peak's time from the start of the step it falls in (``peak_at_us``); a step starts
  at the source's own step record (the database's ``STEP_TIME``, a trace's ``ProfilerStep#``),
  else at the step's first kernel;
* **what holds it**: the allocations live at the peak (allocated before, released after or never),
  largest first, with the operator that made them;
* **not released**: the allocations with no release within the capture;
* **fits?** the footprint (process reserved when known, else the allocator's reserved) against the
  chip's ``memory_gb`` — as a share and as headroom. MB are the profilers' (2**20 bytes); a
  catalog GB is taken as 2**30 bytes (HBM sizes are binary).

:func:`rank_memory` computes it; :func:`memory_of` caches it on an analysed rank (the window and
the rank document call it); :func:`memory_fields` is the rank document's ``memory`` object.
Vectorised: a few numpy reductions over each frame, never a Python loop over rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mfu_desktop.core.numbers import finite_number
from mfu_desktop.core.readers import columns as C

if TYPE_CHECKING:
    from mfu_desktop.core.analysis.chip_resolution import ChipResolution
    from mfu_desktop.core.analysis.rank import RankAnalysis
    from mfu_desktop.core.readers.records import MemoryData

#: Allocator components of the Ascend export, preferred first (PTA+GE is the framework's whole allocator).
ALLOCATOR_PREFERENCE = ("PTA+GE", "PTA", "GE")
#: Live allocations kept per rank (the JSON shows the first ``top_n``).
TOP_LIVE = 20
#: MB per catalog GB.
MB_PER_GB = 1024.0
#: Why a rank read from a summary made before memory was read has no memory object.
NOT_IN_SUMMARY = "no memory data in this summary (it was made before memory was read: summarise again)"
#: The assumption behind every "fits on another chip" (prediction, user guide).
SAME_ALLOCATOR = ("the same allocator on another chip is assumed: the footprint measured here (process reserved "
                  "when recorded, else the allocator's reserved) is set against the target's memory_gb")


@dataclass
class LiveAllocation:
    """One allocation live at the peak.

    Attributes:
        name: The operator that made it.
        size_mb: Its size.
        allocated_at_us: When it was allocated, from the start of the peak's step (negative: before).
        allocated_ts_us: The same on the capture's clock.
    """

    name: str
    size_mb: float
    allocated_at_us: float | None
    allocated_ts_us: float | None


@dataclass
class RankMemory:
    """A rank's memory figures and curves (see the module docstring); ``reason`` says why there are none.

    The curves share one time axis, µs from :attr:`origin_us` (the start of the peak's step, else
    of the first step, else the capture's first memory record): :attr:`curve` (the allocator's
    allocated and reserved), :attr:`process_curve` (APP reserved), :attr:`component_curves`
    (reserved per runtime component, long format) and :attr:`steps` (each step's window).
    """

    reason: str | None = None
    source: str = ""
    allocator: str = ""
    peak_allocated_mb: float | None = None
    peak_reserved_mb: float | None = None
    process_reserved_mb: float | None = None
    peak_ts_us: float | None = None
    peak_at_us: float | None = None
    peak_step: str | None = None
    peak_from: str = ""
    capacity_gb: float | None = None
    capacity_source: str = ""
    not_released_mb: float | None = None
    top_live: list[LiveAllocation] = field(default_factory=list)
    components_mb: dict[str, float] = field(default_factory=dict)
    static_peak_mb: float | None = None
    origin_us: float | None = None
    #: False when the timestamps are unusable (the curves then have no meaningful time axis).
    timed: bool = True
    curve: pd.DataFrame = field(default_factory=pd.DataFrame)
    process_curve: pd.DataFrame = field(default_factory=pd.DataFrame)
    component_curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    steps: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: list[str] = field(default_factory=list)

    @property
    def available(self) -> bool:
        """True when the rank has memory figures."""
        return self.reason is None

    @property
    def footprint_mb(self) -> float | None:
        """What must fit on a chip: the process's reserved peak, else the allocator's reserved (else allocated)."""
        for value in (self.process_reserved_mb, self.peak_reserved_mb, self.peak_allocated_mb):
            if value is not None:
                return value
        return None

    @property
    def footprint_basis(self) -> str:
        """Which figure :attr:`footprint_mb` is."""
        if self.process_reserved_mb is not None:
            return "process reserved (APP)"
        if self.peak_reserved_mb is not None:
            return f"{self.allocator or 'allocator'} reserved"
        return f"{self.allocator or 'allocator'} allocated" if self.peak_allocated_mb is not None else ""

    @property
    def share(self) -> float | None:
        """Footprint / capacity (0.033 = 3.3 % of the chip's memory)."""
        fp = self.footprint_mb
        return fp / (self.capacity_gb * MB_PER_GB) if fp is not None and self.capacity_gb else None

    @property
    def headroom_gb(self) -> float | None:
        """Capacity − footprint, in GB (negative: does not fit)."""
        fp = self.footprint_mb
        return self.capacity_gb - fp / MB_PER_GB if fp is not None and self.capacity_gb is not None else None

    def curve_points(self, max_points: int = 4000) -> pd.DataFrame:
        """:attr:`curve` thinned for drawing: per time bin its highest allocated and reserved (peaks survive)."""
        return thinned(self.curve, ("allocated_mb", "reserved_mb"), max_points)


def thinned(frame: pd.DataFrame, values: tuple[str, ...], max_points: int) -> pd.DataFrame:
    """At most ``max_points`` rows: the rows of each equal time bin reduced to their maxima (vectorised)."""
    if frame.empty or len(frame) <= max_points or "time_us" not in frame.columns:
        return frame
    t = frame["time_us"].to_numpy(np.float64)
    lo, hi = np.nanmin(t), np.nanmax(t)
    bins = np.minimum(((t - lo) / max(hi - lo, 1e-9) * (max_points - 1)).astype(np.int64), max_points - 1)
    grouped = frame.assign(_bin=bins).groupby("_bin", sort=True)
    out = grouped[list(values)].max()
    out.insert(0, "time_us", grouped["time_us"].min())
    return out.reset_index(drop=True)


# --- the allocator curve and its peak -----------------------------------------------------------


def _is(column: pd.Series, value: object) -> np.ndarray:
    """``column == value`` without turning a categorical's million rows into strings."""
    return (column == value).to_numpy(dtype=bool)


def choose_allocator(records: pd.DataFrame | None) -> str | None:
    """``PTA+GE`` when present, else ``PTA``, else ``GE``, else the component with most rows."""
    if records is None or records.empty:
        return None
    counts = records["component"].value_counts()
    names = {str(k) for k, v in counts.items() if v > 0}
    for name in ALLOCATOR_PREFERENCE:
        if name in names:
            return name
    return str(counts.index[0])


def _argmax(values: np.ndarray) -> int | None:
    ok = np.isfinite(values)
    return int(np.flatnonzero(ok)[np.argmax(values[ok])]) if ok.any() else None


def _max(values: np.ndarray | pd.Series | None) -> float | None:
    if values is None:
        return None
    arr = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(arr)
    return float(arr[ok].max()) if ok.any() else None


# --- step windows -----------------------------------------------------------------------------------


def step_windows(md: MemoryData, kernels: pd.DataFrame | None) -> tuple[list[tuple[str, float, float]], str]:
    """Steps (label, start µs, end µs) on the memory clock, and what their start is."""
    if md.steps:
        return sorted(md.steps, key=lambda s: s[1]), "start"
    if kernels is None or kernels.empty or C.START_NS not in kernels.columns:
        return [], ""
    start = kernels[C.START_NS].to_numpy(dtype=np.float64)
    dur = (kernels[C.DURATION_US].to_numpy(dtype=np.float64) if C.DURATION_US in kernels.columns
           else np.zeros(len(start)))
    ok = (start >= 0) & np.isfinite(start)
    if not ok.any():
        return [], ""
    frame = pd.DataFrame({"start": start[ok] / 1000.0, "end": start[ok] / 1000.0 + np.nan_to_num(dur[ok])})
    if C.STEP_ID in kernels.columns and kernels[C.STEP_ID].notna().any():
        frame["step"] = pd.to_numeric(kernels[C.STEP_ID], errors="coerce").to_numpy(np.float64)[ok]
        spans = frame.dropna(subset=["step"]).groupby("step", sort=True).agg(start=("start", "min"),
                                                                               end=("end", "max"))
        windows = [(f"{step:g}", float(s), float(e)) for step, s, e in spans.itertuples()]  # a handful of steps
        return sorted(windows, key=lambda w: w[1]), "first kernel"
    return [("", float(frame["start"].min()), float(frame["end"].max()))], "first kernel"


def _place(ts: float, windows: list[tuple[str, float, float]]) -> tuple[str, float] | None:
    """The step a time falls in (else the last one started before it): its label and start."""
    started = [w for w in windows if w[1] <= ts]
    if not started:
        return None
    inside = [w for w in started if ts <= w[2]]
    label, start, _ = (inside or started)[-1]
    return label, start


# --- the rank -----------------------------------------------------------------------------------


def chip_capacity(chip: ChipResolution | None, device: Any = None) -> tuple[float | None, str]:
    """The chip's memory (catalog ``memory_gb``, GB) and where it comes from."""
    if chip is not None and chip.chip is not None and chip.chip.value("memory_gb"):
        row = chip.chip
        gb = float(row.value("memory_gb"))
        name = row.display_name
        if "910C" in row.identifier and "die" not in row.identifier.lower():
            return gb / 2, f"{name} memory_gb {gb:g} / 2 (a rank is one die of the package)"
        return gb, f"{name} memory_gb" + ("" if chip.confirmed else " (chip not confirmed)")
    if chip is not None and chip.candidates:
        values = [float(v) for c in chip.candidates if (v := c.value("memory_gb"))]
        if values:
            low = min(values)
            if low == max(values):
                return low, f"memory_gb of every candidate chip ({', '.join(c.model for c in chip.candidates)})"
            return low, (f"the smallest memory_gb of the candidate chips ({min(values):g}–{max(values):g} GB; chip "
                         "not confirmed)")
    mem = getattr(device, "memory_gb", None)
    if mem:
        return float(mem), "the trace's deviceProperties totalGlobalMem"
    return None, "no memory_gb for this chip"


def rank_memory(md: MemoryData | None, kernels: pd.DataFrame | None = None, chip: ChipResolution | None = None,
                device: Any = None) -> RankMemory:
    """A rank's memory figures from its memory data, kernels (step windows) and chip (capacity)."""
    if md is None:
        from mfu_desktop.core.readers.memory.records import CAPTURE_HINT

        return RankMemory(reason=f"no memory data: memory was not read for this rank ({CAPTURE_HINT})")
    if md.reason is not None:
        return RankMemory(reason=md.reason, notes=list(md.notes))
    out = RankMemory(source=md.source, notes=list(md.notes))
    out.capacity_gb, out.capacity_source = chip_capacity(chip, device)
    records = md.records if md.records is not None and not md.records.empty else None
    allocations = md.allocations if md.allocations is not None and not md.allocations.empty else None
    peak_ts = _allocator_peak(out, md, records, allocations)
    if md.process is not None and not md.process.empty:
        out.process_reserved_mb = _max(md.process["reserved_mb"])
    out.timed = md.timed
    windows, how = step_windows(md, kernels) if md.timed else ([], "")
    out.peak_ts_us = peak_ts
    origin = _origin(out, md, records, allocations, windows, how, peak_ts)
    out.origin_us = origin
    out.top_live = _live(allocations, peak_ts, origin, out)
    if allocations is not None:
        released = allocations["release_us"].to_numpy(np.float64)
        out.not_released_mb = float(np.nansum(allocations["size_mb"].to_numpy(np.float64)[~np.isfinite(released)]))
    out.components_mb = _components(md.modules)
    out.static_peak_mb = static_peak(md.static_ops)
    if out.static_peak_mb is not None:
        out.notes.append(f"static graph memory (graph mode, planned by GE): peak {out.static_peak_mb:,.1f} MB over "
                         f"{len(md.static_ops):,} operators; not part of the allocator's peak")
    _curves(out, md, records, windows, origin)
    return out


def _allocator_peak(out: RankMemory, md: MemoryData, records: pd.DataFrame | None,
                    allocations: pd.DataFrame | None) -> float | None:
    """Peak allocated/reserved of the framework allocator; returns the peak's time (``None``: unknown)."""
    if records is not None:
        chosen = choose_allocator(records)
        sub = records[_is(records["component"], chosen)]
        out.allocator = md.allocator or str(chosen)
        allocated = sub["allocated_mb"].to_numpy(np.float64)
        reserved = sub["reserved_mb"].to_numpy(np.float64)
        out.peak_allocated_mb, out.peak_reserved_mb = _max(allocated), _max(reserved)
        at = _argmax(allocated)
        if at is None:
            at = _argmax(reserved)
        return float(sub["ts_us"].iloc[at]) if at is not None and md.timed else None
    if allocations is not None:
        out.allocator = md.allocator or "operator_memory totals"
        values = np.concatenate([allocations["total_allocated_mb"].to_numpy(np.float64),
                                 allocations["release_total_allocated_mb"].to_numpy(np.float64)])
        times = np.concatenate([allocations["alloc_us"].to_numpy(np.float64),
                                allocations["release_us"].to_numpy(np.float64)])
        out.peak_allocated_mb = _max(values)
        out.peak_reserved_mb = _max(np.concatenate([allocations["total_reserved_mb"].to_numpy(np.float64),
                                                    allocations["release_total_reserved_mb"].to_numpy(np.float64)]))
        at = _argmax(values)
        return float(times[at]) if at is not None else None
    return None


def _origin(out: RankMemory, md: MemoryData, records: pd.DataFrame | None, allocations: pd.DataFrame | None,
            windows: list[tuple[str, float, float]], how: str, peak_ts: float | None) -> float | None:
    """Set when the peak happens (step, µs from its start); return the curves' time origin."""
    first_record = None
    for frame, column in ((records, "ts_us"), (allocations, "alloc_us")):
        if frame is not None:
            first_record = _min(frame[column])
            if first_record is not None:
                break
    if not md.timed:
        out.notes.append("the memory timestamps are unusable: when the peak happens is unknown")
        return first_record
    if peak_ts is None:
        return windows[0][1] if windows else first_record
    placed = _place(peak_ts, windows)
    if placed is not None:
        label, start = placed
        out.peak_step, out.peak_at_us = label or None, peak_ts - start
        step = f"step {label}" if label else "the step"
        out.peak_from = f"the start of {step}" if how == "start" else f"the first kernel of {step} (device time)"
        return start
    if windows:
        out.notes.append("the peak comes before the first step starts (warm-up, or the host running ahead of the "
                         "device): its time is from the capture's first memory record")
    out.peak_from = "the capture's first memory record"
    out.peak_at_us = peak_ts - first_record if first_record is not None else None
    return first_record


def _min(values: pd.Series) -> float | None:
    arr = values.to_numpy(np.float64)
    ok = np.isfinite(arr)
    return float(arr[ok].min()) if ok.any() else None


def _live(allocations: pd.DataFrame | None, peak_ts: float | None, origin: float | None,
          out: RankMemory) -> list[LiveAllocation]:
    """The largest allocations live at the peak (allocated by then, released after it or never)."""
    if allocations is None:
        return []
    alloc = allocations["alloc_us"].to_numpy(np.float64)
    release = allocations["release_us"].to_numpy(np.float64)
    at = peak_ts
    if at is None:
        i = _argmax(allocations["total_allocated_mb"].to_numpy(np.float64))
        if i is None:
            return []
        at = float(alloc[i])
        out.notes.append("live allocations taken at operator_memory's own peak (the allocator curve has no usable "
                         "time)")
    live = (alloc <= at) & ~(release <= at)
    if not live.any():
        return []
    idx = np.flatnonzero(live)
    sizes = allocations["size_mb"].to_numpy(np.float64)[idx]
    top = idx[np.argsort(-np.nan_to_num(sizes), kind="stable")[:TOP_LIVE]]
    names = [str(n) for n in allocations["name"].iloc[top]]  # the top few only
    timed = origin is not None and peak_ts is not None  # no usable peak time: no step to count from
    return [LiveAllocation(str(n), float(s), finite_number(t - origin) if timed else None, finite_number(t))
            for n, s, t in zip(names, allocations["size_mb"].to_numpy(np.float64)[top], alloc[top])]


def _components(modules: pd.DataFrame | None) -> dict[str, float]:
    """Peak reserved memory of each runtime component that reserved any (largest first)."""
    if modules is None or modules.empty:
        return {}
    peaks = modules.groupby("component", sort=False, observed=True)["reserved_mb"].max()
    peaks = peaks[peaks > 0].sort_values(ascending=False, kind="stable")
    return {str(k): float(v) for k, v in peaks.items()}


def static_peak(static_ops: pd.DataFrame | None) -> float | None:
    """Peak static-graph memory: per graph, the most memory of operators alive at one node index."""
    if static_ops is None or static_ops.empty or not static_ops["start"].notna().any():
        return None
    f = static_ops.dropna(subset=["start", "end", "size_mb"])
    if f.empty:
        return None
    events = pd.DataFrame({"graph": np.concatenate([f["graph"].to_numpy(), f["graph"].to_numpy()]),
                           "at": np.concatenate([f["start"].to_numpy(np.float64), f["end"].to_numpy(np.float64) + 1]),
                           "delta": np.concatenate([f["size_mb"].to_numpy(np.float64),
                                                    -f["size_mb"].to_numpy(np.float64)])})
    events = events.sort_values(["graph", "at", "delta"], kind="stable")
    level = events.groupby("graph", sort=False)["delta"].cumsum()
    return float(level.max())


def _curves(out: RankMemory, md: MemoryData, records: pd.DataFrame | None,
            windows: list[tuple[str, float, float]], origin: float | None) -> None:
    base = origin if origin is not None else 0.0
    if records is not None:
        sub = records[_is(records["component"], choose_allocator(records))]
        sub = sub.sort_values("ts_us", kind="stable")
        out.curve = pd.DataFrame({"time_us": sub["ts_us"].to_numpy(np.float64) - base,
                                  "allocated_mb": sub["allocated_mb"].to_numpy(np.float64),
                                  "reserved_mb": sub["reserved_mb"].to_numpy(np.float64)})
    if md.process is not None and not md.process.empty:
        p = md.process.sort_values("ts_us", kind="stable")
        out.process_curve = pd.DataFrame({"time_us": p["ts_us"].to_numpy(np.float64) - base,
                                          "reserved_mb": p["reserved_mb"].to_numpy(np.float64)})
    if md.modules is not None and not md.modules.empty:
        keep = md.modules[md.modules["component"].isin(list(out.components_mb))]
        keep = keep.sort_values(["component", "ts_us"], kind="stable")
        out.component_curves = pd.DataFrame({"component": keep["component"].astype(str).to_numpy(),
                                             "time_us": keep["ts_us"].to_numpy(np.float64) - base,
                                             "reserved_mb": keep["reserved_mb"].to_numpy(np.float64)})
    out.steps = pd.DataFrame({"step": [w[0] for w in windows], "start_us": [w[1] - base for w in windows],
                              "end_us": [w[2] - base for w in windows]})


# --- an analysed rank ---------------------------------------------------------------------------


def memory_of(r: RankAnalysis) -> RankMemory | None:
    """The memory of an analysed rank (computed once, kept on it); ``None`` for a rank read from a summary."""
    if r.document is not None:
        return None
    cached = r.__dict__.get("_memory")
    if cached is None:
        cached = rank_memory(r.data.memory, r.data.kernels, r.chip, r.data.device)
        r.__dict__["_memory"] = cached
    return cached


def memory_json(m: RankMemory, top: int = 10) -> dict[str, Any] | None:
    """The ``memory`` object of the JSON contract (``None`` when the rank has no memory data)."""
    if not m.available:
        return None
    return {
        "peak_allocated_mb": finite_number(m.peak_allocated_mb),
        "peak_reserved_mb": finite_number(m.peak_reserved_mb),
        "process_reserved_mb": finite_number(m.process_reserved_mb),
        "peak_at_us": _us(m.peak_at_us),
        "capacity_gb": finite_number(m.capacity_gb),
        "not_released_mb": finite_number(m.not_released_mb),
        "source": m.source,
        "top_live": [{"name": a.name, "mb": finite_number(a.size_mb), "allocated_at_us": _us(a.allocated_at_us)}
                     for a in m.top_live[:top]],
        # extras beyond the contract
        "allocator": m.allocator,
        "peak_step": m.peak_step,
        "peak_from": m.peak_from,
        "footprint_mb": finite_number(m.footprint_mb),
        "footprint_basis": m.footprint_basis,
        "share": finite_number(m.share),
        "headroom_gb": finite_number(m.headroom_gb),
        "capacity_source": m.capacity_source,
        "components_mb": {k: finite_number(v) for k, v in m.components_mb.items()},
        "static_peak_mb": finite_number(m.static_peak_mb),
        "notes": list(m.notes),
    }


def _us(value: float | None) -> float | None:
    """A time in µs to the ns (the capture clock's float64 leaves digits beyond it)."""
    v = finite_number(value)
    return None if v is None else round(v, 3)


def memory_fields(r: RankAnalysis, top: int = 10) -> dict[str, Any]:
    """``memory`` and ``memory_reason`` of a rank document (a summarised rank keeps its own)."""
    if r.document is not None:
        if "memory" not in r.document:
            return {"memory": None, "memory_reason": NOT_IN_SUMMARY}
        return {"memory": r.document.get("memory"), "memory_reason": r.document.get("memory_reason")}
    m = memory_of(r)
    assert m is not None
    return {"memory": memory_json(m, top), "memory_reason": m.reason}
