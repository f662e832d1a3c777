"""Which chip ran a profile, and therefore which peak divides its FLOPs.

Evidence, strongest first (profiler-formats.md §5, §3.7; mfu.md §4):

1. ``PROF_*/device_*/info.json.*``: AI core count × clock → the exact cube peak
   (``cores × MHz × 8192`` FLOP/µs for FP16/BF16).
2. Hardware counters in the kernel data: ``aicore_time = aic_total_cycles / (f · Block Dim)``
   gives the clock f, ``cube_utilization = 100 · cycles / (f · N_AIC · Duration)`` gives the
   core count.
3. ``NPU_INFO.name`` of the database: a SKU name fixes the chip; ``Ascend910B`` alone is only
   the family.
4. The user's choice (``--chip``, the assumptions panel) — it overrides detection, with a
   warning when they disagree.
5. Nothing: MFU is reported as a range over the 910B1–B4 peaks, marked "chip not confirmed".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mfu_desktop.core.chips.catalog import (
    COLUMN_LABELS,
    UNCONFIRMED_910B_RANGE,
    CatalogError,
    Chip,
    ChipCatalog,
    Peak,
    UnknownChipError,
    chip_peak,
    normalize_name,
)
from mfu_desktop.core.chips.dtypes import ComputeDtype, dtype_column
from mfu_desktop.core.chips.vendor_terms import vendor_terms
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.records import DeviceInfo

#: FP16 FLOPs per AI core per cycle on the Ascend cube (16×16×16 MACs × 2).
CUBE_FLOPS_PER_CYCLE = 8192
#: Counter-derived clocks within this many MHz of a catalog clock match it.
CLOCK_TOLERANCE_MHZ = 5.0
#: A user-chosen peak that differs more than this from the counters' exact peak is flagged.
PEAK_MISMATCH = 0.01
#: Rows used for the counter identities (medians are robust; a few thousand rows suffice).
IDENTITY_SAMPLE = 20000


@dataclass
class ChipResolution:
    """The chip (or chip range) a rank's MFU uses.

    Attributes:
        chip: Catalog row whose peaks are used, or ``None`` (range mode or unknown row).
        confirmed: True when the evidence fixes the peak.
        source: Where it came from, for the peak_source field and the derivation.
        cores: AI core count, when known. mhz: cube clock, when known.
        exact_fp16_tflops: Peak computed from cores × clock (overrides the row's FP16/BF16 value
            and scales its other cube columns).
        candidates: Rows spanning the range when not confirmed.
        warnings: Disagreements and caveats.
    """

    chip: Chip | None
    confirmed: bool
    source: str
    cores: int | None = None
    mhz: float | None = None
    exact_fp16_tflops: float | None = None
    candidates: list[Chip] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str | None:
        """Chip identifier, or ``None`` when not confirmed."""
        if self.chip is not None and self.confirmed:
            return self.chip.display_name
        if self.confirmed and self.cores and self.mhz:
            return f"Ascend ({self.cores} AI cores × {self.mhz:g} MHz)"
        return None

    def _scale(self) -> float:
        if self.exact_fp16_tflops is None or self.chip is None:
            return 1.0
        base = self.chip.value("cube_fp16_tflops") or self.chip.value("cube_bf16_tflops")
        return self.exact_fp16_tflops / base if base else 1.0

    def peak(self, dtype: ComputeDtype) -> tuple[Peak | None, str]:
        """The peak for a dtype, or ``(None, reason)``."""
        if not self.confirmed:
            return None, "chip not confirmed"
        if self.chip is None:
            if self.exact_fp16_tflops and dtype in (ComputeDtype.FP16, ComputeDtype.BF16):
                return Peak(self.exact_fp16_tflops, dtype, self.name, None, self.source, "A"), ""
            return None, f"no {dtype.value} peak: the chip is not in the catalog ({self.source})"
        try:
            peak = chip_peak(self.chip, dtype)
        except CatalogError as exc:
            return None, str(exc)
        scale = self._scale()
        if abs(scale - 1.0) > 1e-6:
            label = COLUMN_LABELS.get(dtype_column(dtype), dtype.value)
            peak = Peak(peak.tflops * scale, dtype, peak.chip, peak.column,
                        f"{self.source}; {label} scaled from the catalog by {scale:.4f}", peak.confidence)
        elif self.source and not self.source.startswith("catalog"):
            peak = Peak(peak.tflops, dtype, peak.chip, peak.column, f"{self.source}; {peak.source}", peak.confidence)
        return peak, ""

    def peak_range(self, dtype: ComputeDtype) -> tuple[float, float] | None:
        """(lowest, highest) peak over the candidates, for the "chip not confirmed" range."""
        values = []
        for chip in self.candidates:
            try:
                values.append(chip_peak(chip, dtype).tflops)
            except CatalogError:
                continue
        if not values:
            return None
        return min(values), max(values)


def counters_identity(frame: pd.DataFrame) -> tuple[float | None, int | None]:
    """Clock (MHz) and AI core count from the hardware-counter identities (§3.7), vectorised."""
    if frame.empty or C.CORE_TYPE not in frame.columns:
        return None, None
    core = frame[C.CORE_TYPE].astype(object)
    block = pd.to_numeric(frame.get(C.BLOCK_DIM), errors="coerce").astype(float) if C.BLOCK_DIM in frame else None
    mix = pd.to_numeric(frame.get(C.MIX_BLOCK_DIM), errors="coerce").astype(float) \
        if C.MIX_BLOCK_DIM in frame else None
    clocks: list[np.ndarray] = []
    if block is not None and {"aic_total_cycles", "aicore_time_us"} <= set(frame.columns):
        cyc, t = frame["aic_total_cycles"].to_numpy(float), frame["aicore_time_us"].to_numpy(float)
        ok = core.isin(["AI_CORE", "MIX_AIC"]).to_numpy() & (cyc > 0) & (t > 0) & (block.to_numpy() > 0)
        clocks.append((cyc[ok] / (t[ok] * block.to_numpy()[ok]))[:IDENTITY_SAMPLE])
    if block is not None and {"aiv_total_cycles", "aiv_time_us"} <= set(frame.columns):
        cyc, t = frame["aiv_total_cycles"].to_numpy(float), frame["aiv_time_us"].to_numpy(float)
        vec = core.isin(["AI_VECTOR_CORE", "MIX_AIV"]).to_numpy()
        blocks = block.to_numpy()
        if mix is not None:
            blocks = np.where(core.eq("MIX_AIC").to_numpy(), mix.to_numpy(), blocks)
            vec = vec | core.eq("MIX_AIC").to_numpy()
        ok = vec & (cyc > 0) & (t > 0) & (blocks > 0)
        clocks.append((cyc[ok] / (t[ok] * blocks[ok]))[:IDENTITY_SAMPLE])
    values = np.concatenate(clocks) if clocks else np.array([])
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return None, None
    mhz = float(np.round(np.median(values)))
    cores = None
    if {"cube_utilization_pct", "aic_total_cycles"} <= set(frame.columns):
        cu = frame["cube_utilization_pct"].to_numpy(float)
        cyc = frame["aic_total_cycles"].to_numpy(float)
        dur = frame[C.DURATION_US].to_numpy(float)
        ok = (cu > 0) & (cyc > 0) & (dur > 0)
        if ok.any():
            n = 100.0 * cyc[ok] / (mhz * dur[ok] * cu[ok])
            n = n[np.isfinite(n)][:IDENTITY_SAMPLE]
            if len(n):
                cores = int(np.round(np.median(n)))
    return mhz, cores


def _ascend(catalog: ChipCatalog) -> list[Chip]:
    return [c for c in catalog.chips if c.vendor.lower() == "huawei" and c.value("ai_core_count")]


def _by_counters(catalog: ChipCatalog, cores: int | None, mhz: float | None) -> list[Chip]:
    out = []
    for chip in _ascend(catalog):
        c, f = chip.value("ai_core_count"), chip.value("cube_freq_mhz")
        if mhz is not None and (f is None or abs(f - mhz) > CLOCK_TOLERANCE_MHZ):
            continue
        if cores is not None and int(c) != cores:
            continue
        out.append(chip)
    return out


def _unconfirmed(catalog: ChipCatalog, candidates: list[Chip], why: str) -> ChipResolution:
    if not candidates:
        candidates = []
        for name in UNCONFIRMED_910B_RANGE:
            try:
                candidates.append(catalog.find(name))
            except UnknownChipError:
                continue
    names = ", ".join(c.model for c in candidates)
    return ChipResolution(None, False, f"chip not confirmed ({why}): MFU shown as a range over {names}",
                          candidates=candidates)


#: Name tokens of GPU variants (the catalog's model names carry them).
_GPU_VARIANTS = ("SXM", "PCIE", "NVL")
#: Board codes in device names that name a variant: NVIDIA's driver lists ``A100-PG509-200`` with the PCI
#: device id of ``A100-SXM4-40GB`` (20B0; the PCIe card is 20B1).
_BOARD_VARIANTS = {"PG509": "SXM"}
#: Variants whose device names always say so (``NVIDIA H100 NVL``, ``NVIDIA H200 NVL``): a name without
#: the word is not that variant.
_NAMED_VARIANTS = ("NVL",)
#: Per family, the SM counts of its variants. A family not listed has the same SM count in every
#: variant (A100 SXM and PCIe: 108), so its SM count tells nothing about the variant.
_SM_VARIANTS: dict[str, dict[str, frozenset[int]]] = {
    "H100": {"PCIE": frozenset({114}), "SXM": frozenset({132}), "NVL": frozenset({132})},
    "H800": {"PCIE": frozenset({114}), "SXM": frozenset({132})},
}


def gpu_candidates(catalog: ChipCatalog, name: str, sms: int | None, memory_gb: float | None) -> list[Chip]:
    """Catalog rows a GPU's ``deviceProperties`` fit, most specific first.

    ``NVIDIA H100 80GB HBM3`` with 132 SMs → ``H100 SXM`` (the PCIe card has 114 SMs, the NVL
    94 GB); ``NVIDIA A100-SXM4-80GB`` → ``A100 SXM 80GB``; ``NVIDIA A100-PG509-200`` (a board
    code) → ``A100 SXM 40GB``; ``AMD Instinct MI300X VF`` → ``MI300X``. Each family has its own
    rules (:data:`_SM_VARIANTS`): an A100's 108 SMs say nothing about its form factor.
    """
    text = name.upper().replace("-", " ").replace("_", " ")
    tokens = set(text.split())
    family = _gpu_family(catalog, tokens)
    if not family:
        return []
    family = _narrow_by_variant(family, tokens, sms)
    if len(family) > 1 and memory_gb:
        family = _narrow_by_memory(family, memory_gb)
    return family


def _gpu_family(catalog: ChipCatalog, tokens: set[str]) -> list[Chip]:
    """Rows of the GPU's vendor whose model's first word (``H100``, ``MI300X``) is one of the name's tokens.

    Args:
        catalog: The chip catalog.
        tokens: The device name's words, upper case, hyphens and underscores as spaces.
    """
    vendor = "AMD" if "AMD" in tokens else ("NVIDIA" if "NVIDIA" in tokens else "")
    rows = [c for c in catalog.chips if (not vendor or c.vendor.upper() == vendor)]
    return [c for c in rows if c.model.split()[0].upper() in tokens]


def _variant_of(model: str) -> str | None:
    """The variant a catalog model names (``SXM``, ``PCIE``, ``NVL``), or ``None``."""
    words = model.upper().replace("-", " ").split()
    return next((v for v in _GPU_VARIANTS if any(w.startswith(v) for w in words)), None)


def _narrow_by_variant(family: list[Chip], tokens: set[str], sms: int | None) -> list[Chip]:
    """Keep the rows of the variant the name names (SXM, PCIe, NVL, or a board code), else the one the SMs imply.

    Args:
        family: The rows of the GPU's family.
        tokens: The device name's words.
        sms: The device's SM count, when known.
    """
    variant = next((v for v in _GPU_VARIANTS if any(t.startswith(v) for t in tokens)), None)
    variant = variant or next((_BOARD_VARIANTS[t] for t in sorted(tokens) if t in _BOARD_VARIANTS), None)
    if variant:
        same = [c for c in family if _variant_of(c.model) == variant]
        return same or family
    family = [c for c in family if _variant_of(c.model) not in _NAMED_VARIANTS] or family
    if len(family) > 1 and sms:
        return _narrow_by_sms(family, sms)
    return family


def _narrow_by_sms(family: list[Chip], sms: int) -> list[Chip]:
    """Keep the rows whose variant has the device's SM count, by the family's own rule (none: all rows)."""
    rule = _SM_VARIANTS.get(family[0].model.split()[0].upper())
    if rule is None:
        return family
    kept = [c for c in family if sms in rule.get(_variant_of(c.model) or "", frozenset())]
    return kept or family


def _narrow_by_memory(family: list[Chip], memory_gb: float) -> list[Chip]:
    """Keep the rows whose memory is within 1 GB of the closest to the device's."""
    def distance(c: Chip) -> float:
        mem = c.value("memory_gb")
        return abs(mem - memory_gb) if mem else float("inf")

    best = min(distance(c) for c in family)
    return [c for c in family if distance(c) <= best + 1.0]


#: How a user names a chip the catalog does not recognise, on the command line and in the window alike.
NAME_THE_CHIP = ("name the chip to get an MFU (--chip NAME, `mfu chips` lists the names; in the window: "
                 "Assumptions → Chip) or add a row for it (--catalog FILE or the user catalog file `mfu chips` names; "
                 "in the window: Tools → Chip catalog)")


def _resolve_gpu(catalog: ChipCatalog, device: object) -> ChipResolution:
    name = str(getattr(device, "name", ""))
    sms = getattr(device, "sms", None)
    mem_gib = getattr(device, "memory_gb", None)
    memory_gb = mem_gib * 2**30 / 1e9 if mem_gib else None  # deviceProperties count bytes; the catalog counts GB
    matches = gpu_candidates(catalog, name, sms, memory_gb)
    cores = vendor_terms(getattr(device, "vendor", None) or "GPU").cores
    described = f"deviceProperties: {name}" + (f", {sms} {cores}" if sms else "") + (
        f", {memory_gb:.0f} GB" if memory_gb else "")
    if len(matches) == 1:
        return ChipResolution(matches[0], True, f"{described} → {matches[0].display_name}")
    if matches:
        return ChipResolution(None, False, f"chip not confirmed ({described} fits "
                              f"{', '.join(c.model for c in matches)}): MFU shown as a range", candidates=matches)
    return ChipResolution(None, False, f"{described}: no catalog row — {NAME_THE_CHIP}", candidates=[])


def resolve_chip(
    catalog: ChipCatalog,
    user_choice: str | None = None,
    device_infos: list[DeviceInfo] | None = None,
    npu_name: str | None = None,
    db_mhz: float | None = None,
    frame: pd.DataFrame | None = None,
    gpu: object | None = None,
) -> ChipResolution:
    """Decide the chip of one rank from all the evidence (see the module docstring).

    Args:
        catalog: The chip catalog.
        user_choice: The chip the user named (overrides detection).
        device_infos: Ascend ``info.json`` evidence.
        npu_name: ``NPU_INFO.name`` of an Ascend database.
        db_mhz: ``AICORE_FREQ`` of an Ascend database.
        frame: The kernels (hardware-counter identities).
        gpu: A GPU's ``deviceProperties`` (name, SM count, memory) from a PyTorch profiler trace.

    Raises:
        UnknownChipError: When ``user_choice`` names no catalog row.
    """
    if gpu is not None and not user_choice:
        return _resolve_gpu(catalog, gpu)
    cores, mhz, evidence = _core_clock_evidence(device_infos, frame, db_mhz)
    exact = cores * mhz * CUBE_FLOPS_PER_CYCLE / 1e6 if cores and mhz else None
    if user_choice:
        return _resolve_chosen(catalog, user_choice, cores, mhz, exact, evidence)
    sku = _npu_sku(catalog, npu_name)
    if sku is not None:
        return ChipResolution(sku, True, f"NPU_INFO: {npu_name}", cores, mhz, exact)
    if cores is not None and mhz is not None:
        return _resolve_cores_and_clock(catalog, cores, mhz, exact, evidence)
    if mhz is not None:
        resolved = _resolve_clock_alone(catalog, mhz, npu_name, evidence)
        if resolved is not None:
            return resolved
    why = f"NPU_INFO says only {npu_name}" if npu_name else "no info.json, NPU_INFO or hardware counters"
    return _unconfirmed(catalog, [], why)


def _core_clock_evidence(device_infos: list[DeviceInfo] | None, frame: pd.DataFrame | None,
                         db_mhz: float | None) -> tuple[int | None, float | None, str]:
    """AI core count and cube clock from the strongest evidence, and that evidence in words.

    ``info.json`` first, then the hardware counters (the clock, and the core count when
    measurable), then the database's ``AICORE_FREQ`` (the clock only).

    Args:
        device_infos: Ascend ``info.json`` evidence.
        frame: The kernels (hardware-counter identities).
        db_mhz: ``AICORE_FREQ`` of an Ascend database.

    Returns:
        ``(cores, mhz, evidence)``; unknown values are ``None`` and the evidence ``""``.
    """
    for info in device_infos or []:
        if info.ai_core_num and info.aic_frequency_mhz:
            cores, mhz = info.ai_core_num, info.aic_frequency_mhz
            return cores, mhz, f"info.json: {cores} AI cores × {mhz:g} MHz"
    if frame is not None:
        f, n = counters_identity(frame)
        if f is not None:
            return n, f, (f"hardware counters: {n} AI cores × {f:g} MHz" if n
                          else f"hardware counters: clock {f:g} MHz (core count not measurable)")
    if db_mhz:
        return None, db_mhz, f"AICORE_FREQ: {db_mhz:g} MHz"
    return None, None, ""


def _resolve_chosen(catalog: ChipCatalog, user_choice: str, cores: int | None, mhz: float | None,
                    exact: float | None, evidence: str) -> ChipResolution:
    """The user's chip, with a warning when its peak disagrees with the profile's cores × clock.

    Raises:
        UnknownChipError: When ``user_choice`` names no catalog row.
    """
    chip = catalog.find(user_choice)
    res = ChipResolution(chip, True, f"chosen: {chip.display_name}", cores, mhz)
    if exact is not None:
        chosen = chip.value("cube_fp16_tflops") or chip.value("cube_bf16_tflops")
        if chosen and abs(chosen - exact) / exact > PEAK_MISMATCH:
            res.warnings.append(
                f"the chosen chip {chip.display_name} ({chosen:g} TFLOP/s) disagrees with the profile's "
                f"{evidence} = {exact:.1f} TFLOP/s"
            )
    return res


#: ``NPU_INFO`` names of a whole family: they do not fix the core count.
_FAMILY_NAMES = {"ascend910b", "ascend910", "ascend910c", "ascend950"}


def _npu_sku(catalog: ChipCatalog, npu_name: str | None) -> Chip | None:
    """The catalog row ``NPU_INFO.name`` fixes, or ``None`` (no name, no row, or a bare family name)."""
    if not npu_name:
        return None
    try:
        candidate = catalog.find(npu_name)
    except UnknownChipError:
        return None
    # A bare family name ("Ascend910B") does not fix the core count.
    if normalize_name(npu_name) in _FAMILY_NAMES:
        return None
    return candidate


def _resolve_cores_and_clock(catalog: ChipCatalog, cores: int, mhz: float, exact: float | None,
                             evidence: str) -> ChipResolution:
    """Cores × clock fix the peak; the catalog row they match (if any) gives the other dtypes."""
    matches = _by_counters(catalog, cores, mhz)
    chip = matches[0] if matches else None
    res = ChipResolution(chip, True, evidence + f" → {exact:.1f} TFLOP/s FP16/BF16", cores, mhz, exact)
    if len(matches) > 1:
        res.source += f" ({' / '.join(c.model for c in matches)}-class)"
    if chip is None:
        res.warnings.append(f"{cores} AI cores × {mhz:g} MHz matches no catalog row: only the FP16/BF16 peak "
                            "is known; choose the chip for other dtypes")
    return res


def _resolve_clock_alone(catalog: ChipCatalog, mhz: float, npu_name: str | None,
                         evidence: str) -> ChipResolution | None:
    """The chip from its clock alone: confirmed when every row at that clock has the same core count.

    Returns:
        The resolution, unconfirmed over the rows at that clock when their core counts differ,
        or ``None`` when no row runs at that clock.
    """
    matches = _by_counters(catalog, None, mhz)
    family = [c for c in matches if "910B" in c.model] if npu_name and "910b" in npu_name.lower() else matches
    matches = family or matches
    core_counts = {int(c.value("ai_core_count")) for c in matches}
    if len(core_counts) == 1:
        n = core_counts.pop()
        exact = n * mhz * CUBE_FLOPS_PER_CYCLE / 1e6
        res = ChipResolution(matches[0], True, f"{evidence}: only {' / '.join(c.model for c in matches)} run at "
                             f"{mhz:g} MHz ({n} AI cores) → {exact:.1f} TFLOP/s", n, mhz, exact)
        res.warnings.append("chip identified by its clock alone; choose the chip to confirm")
        return res
    if matches:
        return _unconfirmed(catalog, matches, f"{evidence} fits {', '.join(c.model for c in matches)}")
    return None
