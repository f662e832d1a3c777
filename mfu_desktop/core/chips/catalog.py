"""The chip catalog: accelerator peaks, bandwidths and interconnects with their sources.

Rows come from the shipped ``devices_info.csv`` (seed layout plus product columns, filled
from ``shared/spec/chips.csv``), then from the user catalog in the per-user data folder,
which extends or overrides rows by identifier. Other catalog files can be loaded too and
are recognised by their columns: the product layout, the original predictor script's
layout (``hbm_bandwidth`` in TB/s) and the reference ``chips.csv`` layout.

A blank cell means "not published" and stays unknown: it never becomes 0, a ratio of 1 or
another column's value (chips.md section d).
"""

from __future__ import annotations

import csv
import difflib
import io
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from mfu_desktop.core.chips.dtypes import ComputeDtype, dtype_column
from mfu_desktop.core.paths import shipped_catalog_path, user_catalog_path

#: Numeric columns of the product layout.
NUMERIC_COLUMNS = (
    "cube_fp16_tflops", "cube_bf16_tflops", "cube_fp8_tflops", "cube_int8_tflops",
    "cube_fp32_tflops", "cube_hf32_tflops", "vector_fp16_tflops", "vector_fp32_tflops",
    "hbm_bandwidth_gbs", "memory_gb", "interconnect_bandwidth", "tdp_w", "cpu",
    "ai_core_count", "cube_freq_mhz", "vector_core_count",
    # the achievable basis (validation.md §1): measured, not advertised; blank = not measured
    "mamf_fp16_tflops", "mamf_bf16_tflops", "mamf_fp32_tflops", "mamf_fp8_tflops", "achievable_hbm_gbs",
)
TEXT_COLUMNS = (
    "vendor", "model", "architecture_type", "notes", "interconnect_direction", "host_cpu",
    "aliases", "alternatives", "confidence", "source", "achievable_source", "achievable_date",
    "die",
)
#: Achievable matmul throughput (MAMF) columns by compute precision.
MAMF_COLUMNS = {"fp16": "mamf_fp16_tflops", "bf16": "mamf_bf16_tflops", "fp32": "mamf_fp32_tflops",
                "fp8": "mamf_fp8_tflops"}
#: Achievable HBM bandwidth column.
ACHIEVABLE_BW_COLUMN = "achievable_hbm_gbs"
#: Every measured (achievable-basis) column: blank means "not measured", and its source is its own.
ACHIEVABLE_COLUMNS = (*MAMF_COLUMNS.values(), ACHIEVABLE_BW_COLUMN)

#: Column spellings of other layouts → product column.
_COLUMN_ALIASES = {
    "interconnect_gbs": "interconnect_bandwidth",
    "cpu_coefficient": "cpu",
    "cube_hf32_or_tf32_tflops": "cube_hf32_tflops",
}

#: Human names of the peak columns (for messages).
COLUMN_LABELS = {
    "cube_fp16_tflops": "Cube FP16",
    "cube_bf16_tflops": "Cube BF16",
    "cube_fp8_tflops": "Cube FP8",
    "cube_int8_tflops": "Cube INT8 (TOPS)",
    "cube_fp32_tflops": "Cube FP32 (HF32/TF32 off)",
    "cube_hf32_tflops": "Cube HF32/TF32",
    "vector_fp16_tflops": "Vector FP16",
    "vector_fp32_tflops": "Vector FP32",
    "hbm_bandwidth_gbs": "HBM bandwidth (GB/s)",
    "interconnect_bandwidth": "Interconnect (GB/s)",
    "cpu": "CPU coefficient (assumption)",
    "memory_gb": "Memory (GB)",
    "tdp_w": "Power (W)",
    "ai_core_count": "AI cores / SMs",
    "cube_freq_mhz": "Cube clock (MHz)",
    "vector_core_count": "Vector cores (AIV)",
    "mamf_fp16_tflops": "Achievable matmul FP16 (MAMF)",
    "mamf_bf16_tflops": "Achievable matmul BF16 (MAMF)",
    "mamf_fp32_tflops": "Achievable matmul FP32 (MAMF)",
    "mamf_fp8_tflops": "Achievable matmul FP8 (MAMF)",
    "achievable_hbm_gbs": "Achievable HBM bandwidth (GB/s)",
}

#: What the source codes of the catalog stand for (shared/spec/chips.md, section g, has the full references).
SOURCE_LEGEND = {
    "CFG": "CANN platform configuration files (hicann/runtime)",
    "C81": "CANN 8.1.RC1 toolkit platform configs (mirror)",
    "ISS": "Huawei CANN issue threads quoting the Ascend 950 whitepaper and the A2 formulas",
    "A2P": "Huawei Atlas 800T/800I/300I A2 product pages",
    "A3P": "Huawei Atlas 800T/800I A3 product pages",
    "350P": "Huawei Atlas 350 card product page",
    "950P": "Atlas 950 SuperPoD specifications (hiascend.com)",
    "HC25": "Huawei Connect 2025 keynote, as reported by the press",
    "CM384": "Zuo et al., Serving LLMs on Huawei CloudMatrix384 (arXiv 2506.12708)",
    "A910": "Ascend 910 launch / Hot Chips 2019 coverage",
    "CCTV": "CCTV comparison chart of 2025-09-16, as reported",
    "MEAS": "measured GEMM peaks (gameofdimension/limulidae)",
    "MLE": "stas00/ml-engineering accelerator tables (each row cites the vendor page)",
    "MLN": "stas00/ml-engineering network tables",
    "NVP": "NVIDIA product pages",
    "NVDS": "NVIDIA datasheets (Tesla V100 PCIe, P100 PCIe, P4, T4; L4), as copied by spec databases",
    "ANDT": "AnandTech's copy of AMD's Instinct table (MI250, MI210, MI100), 2022-03-22",
    "GKW": "glennklockwood.com processor pages (NVIDIA whitepapers)",
    "HPT": "copy of NVIDIA's H100 specification table (hpctech)",
    "ZDS": "copy of NVIDIA's HGX B200 / GB200 tables",
    "HMC": "hmc-tech.com non-Tensor FP16/BF16 and TF32 figures",
    "WDB": "RTX 4090 figures from the Ada whitepaper",
    "H20S": "H20 specification pages",
    "L20S": "L20 specification page (topcpu.net)",
    "V100S": "V100 figures (Cornell CVW)",
    "NVL": "H100 NVL figures (clawkipedia)",
    "RFL": "H800 reference figures",
    "CNS": "A800/H800 China-market specifications",
    "MLP": "MLCommons inference v4.1 system descriptions",
    "MIM": "alpharomercoma/MI300X-vs-H200 methodology",
    "AMDP": "AMD Instinct product pages and ROCm docs",
    "GCP": "Google Cloud TPU documentation",
    "SPP": "the seed predictor's devices_info.csv (Ascend/DrivingSDK)",
    "SMFU": "the seed op-mfu-calculator's peak table",
    "DER": "derived (formula or architecture ratio; see the row's notes)",
}
#: Confidence letters of the catalog (shared/spec/chips.md, section a).
CONFIDENCE_LEGEND = {
    "A": "read directly in an official vendor document or configuration file",
    "B": "a secondary source citing the vendor, or arithmetic on A/B inputs reproducing a vendor total",
    "C": "a single secondary or press report, a rumour, or one side of an unresolved conflict",
    "D": "derived here (formula or architecture ratio); the vendor does not publish it",
}


class CatalogError(LookupError):
    """A chip or a value that the catalog cannot supply; the message says why."""


class UnknownChipError(CatalogError):
    """No catalog row matches a chip name."""

    def __init__(self, name: str, suggestions: list[str], ambiguous: bool = False):
        self.name = name
        self.suggestions = suggestions
        if ambiguous:
            message = f"chip {name!r} is ambiguous: which one? {', '.join(suggestions)} (give the full name)"
        elif suggestions:
            message = f"unknown chip {name!r}; did you mean {', '.join(suggestions)}?"
        else:
            message = f"unknown chip {name!r}; run `mfu chips` for the list"
        super().__init__(message)


def _name_words(text: str) -> list[str]:
    """The lower-case words of a chip name (split at spaces, ``-``, ``_``, ``/`` and brackets)."""
    return [w for w in re.split(r"[\s\-_()/\[\].,]+", text.strip().lower()) if w]


def normalize_name(text: str) -> str:
    """Normalise a chip name for matching: case, spaces, ``-``, ``_``, brackets and ``/`` ignored."""
    return re.sub(r"[\s\-_()/\[\].,]+", "", text.strip().lower())


@dataclass(frozen=True)
class Chip:
    """One catalog row.

    Attributes:
        vendor: ``Huawei``, ``NVIDIA`` …
        model: ``Ascend 910B2``, ``H100 SXM`` …
        architecture: ``NPU``, ``GPU`` or ``TPU``.
        values: Numeric columns; ``None`` where the cell is blank (not published).
        text: Text columns (notes, source, confidence, host_cpu …).
        aliases: Other names that identify this row (SoC names such as ``Ascend910B2``).
        alternatives: Named alternative values (``{"seed MFU table": {"cube_fp16_tflops": 378.88}}``).
        origin: ``shipped``, ``user`` or the file it came from.
        alternative: The alternative applied to ``values``, if any.
    """

    vendor: str
    model: str
    architecture: str
    values: dict[str, float | None]
    text: dict[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    alternatives: dict[str, dict[str, float]] = field(default_factory=dict)
    origin: str = "shipped"
    alternative: str | None = None

    @property
    def identifier(self) -> str:
        """``vendor model`` — the identifier the seed predictor builds."""
        return f"{self.vendor} {self.model}".strip()

    @property
    def display_name(self) -> str:
        """Identifier plus the applied alternative (``Huawei Ascend 910B1 @ seed MFU table``)."""
        return self.identifier + (f" @ {self.alternative}" if self.alternative else "")

    @property
    def source(self) -> str:
        """Source labels of the row (section g of chips.md)."""
        return self.text.get("source", "")

    @property
    def die(self) -> str:
        """The silicon the chip is cut from (``GA100``); chips on one die share the prediction model's fits."""
        return self.text.get("die", "")

    @property
    def confidence(self) -> str:
        """Confidence letter of the row's MFU denominator."""
        return self.text.get("confidence", "")

    @property
    def notes(self) -> str:
        """Row notes (derivations, alternatives, conflicts)."""
        return self.text.get("notes", "")

    def value(self, column: str) -> float | None:
        """A numeric value, ``None`` when not published."""
        return self.values.get(column)

    def with_alternative(self, name: str) -> Chip:
        """This row with a named alternative's values applied.

        Raises:
            CatalogError: When the row has no alternative of that name.
        """
        for alt_name, overrides in self.alternatives.items():
            if normalize_name(alt_name) == normalize_name(name):
                values = dict(self.values)
                values.update(overrides)
                return replace(self, values=values, alternative=alt_name)
        known = ", ".join(self.alternatives) or "none"
        raise CatalogError(f"{self.identifier} has no alternative {name!r} (known: {known})")

    def value_source(self, column: str) -> str:
        """Where one column's value comes from.

        The row's source codes, or for a measured (achievable-basis) column its measurement
        source and date.
        """
        if column in ACHIEVABLE_COLUMNS:
            date = self.text.get("achievable_date", "")
            source = self.text.get("achievable_source", "")
            return f"measured: {source}" + (f" ({date})" if date else "") if source else ""
        return self.source

    def describe_value(self, column: str) -> str:
        """``353.9 [CFG;ISS·B]``-style text for one value, with source and confidence."""
        value = self.value(column)
        if value is None:
            return "not measured" if column in ACHIEVABLE_COLUMNS else "not published"
        suffix = f" @ {self.alternative}" if self.alternative else ""
        if column in ACHIEVABLE_COLUMNS:
            return f"{value:g} [{self.value_source(column)}]{suffix}"
        tag = self.source
        if self.confidence:
            tag = f"{tag}·{self.confidence}" if tag else self.confidence
        return f"{value:g} [{tag}]{suffix}" if tag else f"{value:g}{suffix}"


@dataclass(frozen=True)
class Peak:
    """A peak throughput used as an MFU denominator, with where it came from.

    Attributes:
        tflops: Peak in TFLOP/s (TOPS for INT8).
        dtype: The compute dtype it applies to.
        chip: Chip identifier, or ``None`` for a user-entered peak.
        column: Catalog column, or ``None``.
        source: Human text: catalog row + sources, "user-entered", "info.json", "PMU counters" …
        confidence: Confidence letter when known.
    """

    tflops: float
    dtype: ComputeDtype
    chip: str | None = None
    column: str | None = None
    source: str = "user-entered"
    confidence: str | None = None

    @property
    def flops_per_s(self) -> float:
        """The peak in FLOP/s."""
        return self.tflops * 1e12


#: The smallest value a catalog number may have: a peak, a bandwidth or a count below it (0, a denormal) would
#: make every MFU it divides infinite or absurd.
MIN_CATALOG_VALUE = 1e-6


def _parse_number(text: str | None) -> float | None:
    """A catalog cell: ``None`` when blank or N/A; a finite number ≥ :data:`MIN_CATALOG_VALUE` otherwise.

    Raises:
        ValueError: Saying what the cell is instead (reported by the loader; the row is skipped).
    """
    if text is None:
        return None
    text = text.strip()
    if text == "" or text.upper() in {"N/A", "NA", "-", "–"}:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError("is not a number") from None
    if not math.isfinite(value) or value < MIN_CATALOG_VALUE:
        raise ValueError(f"is not a positive number of at least {MIN_CATALOG_VALUE:g} (leave it blank when not "
                         "published)")
    return value


def _parse_alternatives(text: str) -> dict[str, dict[str, float]]:
    """Parse ``label|col=value,col=value;label2|col=value``."""
    out: dict[str, dict[str, float]] = {}
    for entry in (e.strip() for e in text.split(";")):
        if not entry or "|" not in entry:
            continue
        label, assignments = entry.split("|", 1)
        values: dict[str, float] = {}
        for assignment in assignments.split(","):
            if "=" not in assignment:
                continue
            column, value = assignment.split("=", 1)
            column = _COLUMN_ALIASES.get(column.strip(), column.strip())
            parsed = _parse_number(value)
            if parsed is not None:
                values[column] = parsed
        out[label.strip()] = values
    return out


@dataclass
class CatalogLoad:
    """Rows read from one catalog file and the problems found in it."""

    chips: list[Chip]
    problems: list[str]
    layout: str


def read_catalog_text(text: str, origin: str) -> CatalogLoad:
    """Parse catalog CSV text in any supported layout.

    Args:
        text: CSV text with a header row.
        origin: Label for the rows' ``origin`` and for problem messages.

    Returns:
        The rows that parsed and one message per malformed row (with its line number); a
        malformed row is skipped, never fatal.
    """
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        header = next(reader)
    except StopIteration:
        return CatalogLoad([], [f"{origin}: empty file"], "empty")
    except csv.Error as exc:
        return CatalogLoad([], [f"{origin}: line 1: {exc}"], "unreadable")
    columns = [c.strip() for c in header]
    lowered = {c.lower() for c in columns}
    layout = _catalog_layout(lowered)
    if "vendor" not in lowered or "model" not in lowered:
        return CatalogLoad([], [f"{origin}: line 1: header has no vendor/model columns"], layout)
    chips: list[Chip] = []
    problems: list[str] = []
    for line, row, error in _numbered_rows(reader):
        if error is not None:
            problems.append(f"{origin}: line {line}: {error}; row skipped")
            continue
        parsed = _parse_row(columns, row, line, origin)
        if isinstance(parsed, Chip):
            chips.append(parsed)
        elif parsed is not None:
            problems.append(parsed)
    return CatalogLoad(chips, problems, layout)


#: Header test → catalog layout, tried in order; a header that matches none is the product layout.
_LAYOUT_RULES: tuple[tuple[Callable[[set[str]], bool], str], ...] = (
    (lambda cols: "hbm_bandwidth" in cols and "hbm_bandwidth_gbs" not in cols, "seed script (hbm_bandwidth in TB/s)"),
    (lambda cols: "interconnect_gbs" in cols, "reference chips.csv"),
)


def _catalog_layout(lowered: set[str]) -> str:
    """The catalog layout a header (its lower-cased column names) belongs to."""
    for matches, layout in _LAYOUT_RULES:
        if matches(lowered):
            return layout
    return "devices_info.csv"


def _numbered_rows(reader: Iterator[list[str]]) -> Iterator[tuple[int, list[str], csv.Error | None]]:
    """The data rows after the header with their line numbers: ``(line, row, None)``, or ``(line, [], error)``.

    A row the CSV reader cannot parse is numbered one past the previous row and reading goes on.
    """
    line = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            line += 1
            yield line, [], exc
            continue
        line = reader.line_num
        yield line, row, None


def _parse_row(columns: list[str], row: list[str], line: int, origin: str) -> Chip | str | None:
    """One data row as a chip, as the problem that skips it, or ``None`` for a blank row.

    Args:
        columns: The header's column names (stripped).
        row: The row's cells.
        line: The row's line number (for problem messages).
        origin: The catalog's label.
    """
    if not any(cell.strip() for cell in row):
        return None
    if len(row) != len(columns):
        return f"{origin}: line {line}: {len(row)} fields, header has {len(columns)}; row skipped"
    record = {}
    for name, cell in zip(columns, row):
        key = _COLUMN_ALIASES.get(name.lower(), name.lower())
        record[key] = cell
    vendor, model = record.get("vendor", "").strip(), record.get("model", "").strip()
    if not model:
        return f"{origin}: line {line}: empty model; row skipped"
    values, bad = _numeric_values(record, line, origin)
    if bad:
        return bad
    return _chip(vendor, model, record, values, origin)


def _numeric_values(record: dict[str, str], line: int, origin: str) -> tuple[dict[str, float | None], str | None]:
    """The numeric columns of a row (the seed layout's TB/s bandwidth converted to GB/s).

    Args:
        record: The row by product column name.
        line: The row's line number (for problem messages).
        origin: The catalog's label.

    Returns:
        ``(values, problem)``; ``problem`` names the first cell that is not a number, else ``None``.
    """
    values: dict[str, float | None] = {}
    for column in NUMERIC_COLUMNS:
        try:
            values[column] = _parse_number(record.get(column))
        except ValueError as exc:
            return values, f"{origin}: line {line}: {column} = {_cell(record.get(column))} {exc}; row skipped"
    if "hbm_bandwidth" in record and "hbm_bandwidth_gbs" not in record:
        try:
            tbs = _parse_number(record.get("hbm_bandwidth"))
        except ValueError as exc:
            return values, f"{origin}: line {line}: hbm_bandwidth = {_cell(record.get('hbm_bandwidth'))} {exc}; " \
                           "row skipped"
        values["hbm_bandwidth_gbs"] = None if tbs is None else tbs * 1000.0
    return values, None


def _cell(text: str | None) -> str:
    """A cell quoted in a message, cut to 40 characters (a field may be huge)."""
    text = text or ""
    return repr(text if len(text) <= 40 else text[:40] + "…")


def _chip(vendor: str, model: str, record: dict[str, str], values: dict[str, float | None], origin: str) -> Chip:
    """The chip of a parsed row: its numbers, text columns, aliases and named alternatives.

    Args:
        vendor: The vendor cell (stripped).
        model: The model cell (stripped, not empty).
        record: The row by product column name.
        values: The row's numeric columns.
        origin: The catalog's label.
    """
    text_values = {c: record.get(c, "").strip() for c in TEXT_COLUMNS if c not in ("vendor", "model")}
    aliases = tuple(a.strip() for a in text_values.get("aliases", "").split(";") if a.strip())
    return Chip(
        vendor=vendor,
        model=model,
        architecture=text_values.get("architecture_type", ""),
        values=values,
        text=text_values,
        aliases=aliases,
        alternatives=_parse_alternatives(text_values.get("alternatives", "")),
        origin=origin,
    )


def read_catalog_file(path: Path, origin: str | None = None) -> CatalogLoad:
    """Read a catalog file; an unreadable file is one reported problem, not an exception."""
    origin = origin or str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return CatalogLoad([], [f"{origin}: cannot read ({exc.strerror or exc})"], "unreadable")
    return read_catalog_text(decode_catalog(raw), origin)


def decode_catalog(raw: bytes) -> str:
    """A catalog file's text: UTF-8, else GB18030 (a spreadsheet on a Chinese Windows saves GBK)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("gb18030", errors="replace")


class ChipCatalog:
    """All known chips, with name matching and peak lookup.

    Later sources override earlier ones row by row (same identifier): shipped, then the user
    catalog, then any extra files.
    """

    def __init__(self, chips: list[Chip], problems: list[str] | None = None):
        merged: dict[str, Chip] = {}
        for chip in chips:
            merged[normalize_name(chip.identifier)] = chip
        self.chips: list[Chip] = list(merged.values())
        self.problems: list[str] = list(problems or [])
        self._index: dict[str, list[Chip]] = {}
        for chip in self.chips:
            for key in self._keys(chip):
                bucket = self._index.setdefault(key, [])
                if chip not in bucket:
                    bucket.append(chip)

    @staticmethod
    def _keys(chip: Chip) -> set[str]:
        keys = {normalize_name(chip.identifier), normalize_name(chip.model)}
        model = chip.model
        for prefix in ("ascend ", "huawei "):
            if model.lower().startswith(prefix):
                keys.add(normalize_name(model[len(prefix):]))
        for alias in chip.aliases:
            keys.add(normalize_name(alias))
            keys.add(normalize_name(f"{chip.vendor} {alias}"))
        return {k for k in keys if k}

    @classmethod
    def load(
        cls,
        include_user: bool = True,
        extra_files: list[Path] | None = None,
        shipped_path: Path | None = None,
    ) -> ChipCatalog:
        """Load the shipped catalog, the user catalog and optional extra files.

        Args:
            include_user: Read the per-user catalog (``user_catalog_path()``) when it exists.
            extra_files: Further catalogs (``--catalog FILE``), applied last.
            shipped_path: Override the shipped file (tests).

        Returns:
            The catalog; ``problems`` lists every malformed row or unreadable file.
        """
        chips: list[Chip] = []
        problems: list[str] = []
        shipped = read_catalog_file(shipped_path or shipped_catalog_path(), "shipped devices_info.csv")
        chips.extend(shipped.chips)
        problems.extend(shipped.problems)
        if include_user:
            user_path = user_catalog_path()
            if user_path.exists():
                user = read_catalog_file(user_path, f"user catalog {user_path}")
                chips.extend(replace(c, origin="user") for c in user.chips)
                problems.extend(user.problems)
        for path in extra_files or []:
            extra = read_catalog_file(Path(path))
            chips.extend(extra.chips)
            problems.extend(extra.problems)
        return cls(chips, problems)

    def names(self) -> list[str]:
        """Identifiers of every chip, in catalog order."""
        return [c.identifier for c in self.chips]

    def find(self, name: str) -> Chip:
        """Find a chip by name, case-insensitively, with or without vendor prefix.

        ``910B2``, ``Ascend 910B2``, ``Huawei Ascend 910B2`` and ``Ascend910B2`` all match.
        ``NAME@ALTERNATIVE`` applies a named alternative (``910B1@seed MFU table``).

        Raises:
            UnknownChipError: With close suggestions, or the candidates when ambiguous.
        """
        alternative = None
        if "@" in name:
            name, alternative = (part.strip() for part in name.rsplit("@", 1))
        key = normalize_name(name)
        matches = self._index.get(key, [])
        family = self.named_family(name)
        if not matches:
            if family:  # the leading words of one or more models: ask which
                raise UnknownChipError(name, [c.identifier for c in family], ambiguous=len(family) > 1)
            raise UnknownChipError(name, self._suggestions(key))
        if len(matches) > 1:
            exact = [c for c in matches if normalize_name(c.identifier) == key or normalize_name(c.model) == key]
            if len(exact) == 1:
                matches = exact
            else:
                raise UnknownChipError(name, [c.identifier for c in matches], ambiguous=True)
        chip = matches[0]
        if len(family) > 1 and chip in family and key not in self._model_keys(chip):
            # an alias that is also the start of other models' names (H100: SXM, PCIe or NVL?)
            raise UnknownChipError(name, [c.identifier for c in family], ambiguous=True)
        return chip.with_alternative(alternative) if alternative else chip

    def _suggestions(self, key: str) -> list[str]:
        """Close names for an unknown one (at most 6)."""
        suggestions: list[str] = []
        for k in difflib.get_close_matches(key, list(self._index), n=5, cutoff=0.6):
            for chip in self._index[k]:
                if chip.identifier not in suggestions:
                    suggestions.append(chip.identifier)
        for ident in (c.identifier for c in self.chips if key and key in normalize_name(c.identifier)):
            if ident not in suggestions:
                suggestions.append(ident)
        return suggestions[:6]

    @staticmethod
    def _model_keys(chip: Chip) -> set[str]:
        """The names that are the row itself (not an alias): identifier, model, model without ``Ascend``/``Huawei``."""
        keys = {normalize_name(chip.identifier), normalize_name(chip.model)}
        for prefix in ("ascend ", "huawei "):
            if chip.model.lower().startswith(prefix):
                keys.add(normalize_name(chip.model[len(prefix):]))
        return keys

    def named_family(self, name: str) -> list[Chip]:
        """Rows whose model name begins with the words of ``name`` (``H100`` → H100 SXM, H100 PCIe, H100 NVL).

        A leading vendor word (``NVIDIA H100``) and ``Ascend`` are ignored on both sides.
        """
        vendors = {c.vendor.lower() for c in self.chips} | {"huawei", "ascend"}
        words = _name_words(name)
        while words and words[0] in vendors:
            words = words[1:]
        if not words:
            return []
        out = []
        for chip in self.chips:
            model = _name_words(chip.model)
            while model and model[0] in vendors:
                model = model[1:]
            if model[:len(words)] == words:
                out.append(chip)
        return out

    def peak(self, chip: Chip | str, dtype: ComputeDtype | str) -> Peak:
        """The matrix-unit peak of a chip for a compute dtype.

        Args:
            chip: A chip or its name.
            dtype: Compute dtype (``bf16``, ``fp16``, ``fp32``, ``hf32``, ``int8``, ``fp8``).

        Returns:
            The peak with its source and confidence.

        Raises:
            CatalogError: When the chip has no published peak for that dtype (never a
                silent fallback to another column).
        """
        chip = self.find(chip) if isinstance(chip, str) else chip
        return chip_peak(chip, ComputeDtype(dtype))

    def match_cores_clock(self, cores: int, mhz: float, tolerance_mhz: float = 5.0) -> list[Chip]:
        """Catalog rows whose AI core count and cube clock match a measured pair."""
        out = []
        for chip in self.chips:
            c, f = chip.value("ai_core_count"), chip.value("cube_freq_mhz")
            if c is not None and f is not None and int(c) == int(cores) and abs(f - mhz) <= tolerance_mhz:
                out.append(chip)
        return out


def chip_peak(chip: Chip, dtype: ComputeDtype) -> Peak:
    """The peak of ``chip`` for ``dtype`` (see :meth:`ChipCatalog.peak`)."""
    column = dtype_column(dtype)
    value = chip.value(column)
    if value is None or value <= 0:
        label = COLUMN_LABELS.get(column, column)
        hint = ""
        if dtype is ComputeDtype.HF32:
            hint = "; turn HF32/TF32 off to use the FP32 peak, or enter the peak yourself"
        elif dtype is ComputeDtype.FP32:
            hint = "; enable HF32/TF32 if the run used it, or enter the peak yourself"
        elif dtype in (ComputeDtype.BF16, ComputeDtype.FP16):
            hint = "; BF16 and FP16 peaks are never substituted for each other"
        raise CatalogError(f"{chip.display_name}: {label} peak is not published ({column} is blank){hint}")
    return Peak(
        tflops=float(value),
        dtype=dtype,
        chip=chip.display_name,
        column=column,
        source=f"{chip.display_name} · {COLUMN_LABELS.get(column, column)} = {chip.describe_value(column)}",
        confidence=chip.confidence or None,
    )


_DEFAULT_CATALOG: ChipCatalog | None = None


def default_catalog(reload: bool = False) -> ChipCatalog:
    """The shipped + user catalog, loaded once per process."""
    global _DEFAULT_CATALOG
    if _DEFAULT_CATALOG is None or reload:
        _DEFAULT_CATALOG = ChipCatalog.load()
    return _DEFAULT_CATALOG


#: The 910B SKUs spanned when a profile does not say which chip ran it (mfu.md §4, seed).
UNCONFIRMED_910B_RANGE = ("Ascend 910B1", "Ascend 910B2", "Ascend 910B3", "Ascend 910B4")
