"""Reading memory CSVs whatever their variant: headers with units, slices, blank cells, trailing tabs.

Every memory file names its unit in its header (``Size(KB)``, ``Total Reserved(MB)``,
``Timestamp(us)``): a column is found by its name without the unit, and its values are scaled to
MB and µs (:mod:`.records`). Cells are stripped (torch_npu writes timestamps with a trailing tab),
blank and ``N/A`` cells become NaN, and a file saved by a spreadsheet (``1.69512E+15``) is
recognised: its timestamps are not usable. Vectorised: one ``pyarrow.csv`` read per file (texts
only), then Arrow kernels per column (trim, number check, cast) — no Python per row.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

#: Memory units → MB (2**20 bytes).
MEMORY_SCALE = {"b": 1 / 2**20, "byte": 1 / 2**20, "bytes": 1 / 2**20, "kb": 1 / 1024, "mb": 1.0, "gb": 1024.0}
#: Time units → µs.
TIME_SCALE = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "ms": 1e3, "s": 1e6}
#: Largest memory file read (a bigger one is skipped with a problem: a capture of hours).
MAX_FILE_BYTES = 2 << 30

_UNIT = re.compile(r"\(\s*([^()]*?)\s*\)\s*$")
_NUMBER = r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$"


def header_key(header: str) -> tuple[str, str]:
    """``"Total Reserved(MB)"`` → ``("total reserved", "mb")``; no unit → ``""``."""
    text = " ".join(str(header).strip().lstrip("\ufeff").lower().replace("_", " ").split())
    m = _UNIT.search(text)
    if not m:
        return text, ""
    return text[: m.start()].strip(), m.group(1).strip()


@dataclass
class Column:
    """A column a memory reader needs: its canonical name and kind (``text``, ``memory``, ``time``, ``number``)."""

    name: str
    kind: str = "number"


@dataclass
class Table:
    """The columns read from one file or from slices concatenated.

    Attributes:
        frame: Canonical columns (numbers scaled to MB/µs, texts stripped); the columns a file
            lacks are absent.
        source: File names.
        problems: Unreadable files, skipped rows, cells that are not numbers.
        rounded_times: True when some timestamp was written in exponent notation (a spreadsheet saved it).
    """

    frame: pd.DataFrame
    source: str
    problems: list[str] = field(default_factory=list)
    rounded_times: bool = False

    @property
    def empty(self) -> bool:
        """True when no row was read."""
        return self.frame.empty


def _header(raw: bytes) -> list[str]:
    first = re.split(rb"\r\n|\n|\r", raw, maxsplit=1)[0].decode("utf-8-sig", errors="replace")
    try:
        return next(csv.reader([first]), [])
    except csv.Error:
        return first.split(",")


def _arrow_table(raw: bytes, names: list[str], wanted: list[str], skipped: list[int]) -> pa.Table:
    def on_invalid(row: pacsv.InvalidRow) -> str:
        skipped.append(1)
        return "skip"

    read = pacsv.ReadOptions(column_names=names, skip_rows=1, use_threads=True)
    parse = pacsv.ParseOptions(invalid_row_handler=on_invalid)
    convert = pacsv.ConvertOptions(include_columns=wanted, column_types=dict.fromkeys(wanted, pa.string()),
                                   strings_can_be_null=False)
    return pacsv.read_csv(io.BytesIO(raw), read_options=read, parse_options=parse, convert_options=convert)


def _numbers(arr: pa.ChunkedArray) -> tuple[np.ndarray, int]:
    """Trimmed text → float64 (blank, ``N/A`` and non-numbers → NaN) and how many cells were not numbers."""
    try:  # the common case: numbers and blanks only (one cast, no regex)
        values = pc.cast(pc.if_else(pc.equal(arr, ""), pa.scalar(None, pa.string()), arr), pa.float64())
        return values.to_numpy(zero_copy_only=False).astype(np.float64, copy=False), 0
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    ok = pc.match_substring_regex(arr, _NUMBER)
    blank = pc.or_(pc.equal(arr, ""), pc.match_substring_regex(arr, r"^(?i:n/?a|nan|none|null)$"))
    bad = int(pc.sum(pc.and_(pc.invert(ok), pc.invert(blank))).as_py() or 0)
    values = pc.cast(pc.if_else(ok, arr, pa.scalar(None, pa.string())), pa.float64())
    return values.to_numpy(zero_copy_only=False).astype(np.float64, copy=False), bad


def _read_one(path: Path, spec: dict[str, Column], problems: list[str]) -> tuple[pd.DataFrame | None, bool]:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            problems.append(f"{path.name} is {size / 2**30:.1f} GB: not read (memory files above "
                            f"{MAX_FILE_BYTES >> 30} GB are skipped)")
            return None, False
        raw = path.read_bytes()
    except OSError as exc:
        problems.append(f"{path.name} cannot be read ({exc.strerror or exc})")
        return None, False
    if not raw.strip():
        problems.append(f"{path.name} is empty")
        return None, False
    headers = _header(raw)
    names = [f"c{i}" for i in range(len(headers))]
    chosen: dict[str, tuple[str, Column, str]] = {}
    seen: set[str] = set()
    for name, header in zip(names, headers):
        key, unit = header_key(header)
        col = spec.get(key)
        if col is not None and col.name not in seen:
            seen.add(col.name)
            chosen[name] = (header.strip(), col, unit)
    if not chosen:
        return pd.DataFrame(), False
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:  # Arrow would fail on them (in its invalid-row handler too): replaced, and said
        raw = raw.decode("utf-8", errors="replace").encode("utf-8")
        problems.append(f"{path.name} holds bytes that are not UTF-8 (read as replacement characters)")
    skipped: list[int] = []
    try:
        table = _arrow_table(raw, names, list(chosen), skipped)
    except (pa.ArrowException, ValueError) as exc:
        problems.append(f"{path.name} cannot be parsed ({exc})")
        return None, False
    if skipped:
        problems.append(f"{path.name}: {len(skipped)} malformed row(s) skipped")
    out: dict[str, object] = {}
    rounded = False
    for name, (header, col, unit) in chosen.items():
        cells = pc.utf8_trim(table.column(name), characters=" \t\"\r")
        if col.kind == "text":  # few distinct values (components, operators): a categorical
            out[col.name] = pd.Categorical(pc.dictionary_encode(cells).combine_chunks().to_pandas())
            continue
        values, bad = _numbers(cells)
        if bad:
            problems.append(f"{path.name}: {bad} cell(s) of {header} are not numbers (read as blank)")
        if col.kind == "memory":
            values = values * MEMORY_SCALE.get(unit, 1.0)
        elif col.kind == "time":
            rounded = rounded or bool(pc.any(pc.match_substring(cells, "e+", ignore_case=True)).as_py())
            values = values * TIME_SCALE.get(unit, 1.0)
        out[col.name] = values
    return pd.DataFrame(out), rounded


def read_table(paths: list[Path], spec: dict[str, Column]) -> Table:
    """The ``spec`` columns of one file, or of slices concatenated in the order given."""
    problems: list[str] = []
    parts = []
    rounded = False
    for path in paths:
        frame, was_rounded = _read_one(path, spec, problems)
        rounded = rounded or was_rounded
        if frame is not None:
            parts.append(frame)
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    names = ", ".join(p.name for p in paths[:3]) + (f" … ({len(paths)} slices)" if len(paths) > 3 else "")
    return Table(frame, names, problems, rounded)


def need(table: Table, columns: tuple[str, ...], label: str) -> str | None:
    """Why ``table`` cannot be used (a needed column missing), or ``None``."""
    absent = [c for c in columns if c not in table.frame.columns]
    if table.frame.empty:
        return f"{table.source} has no rows"
    if absent:
        return f"{table.source} has no {', '.join(absent)} column: {label} not read"
    return None


def main_device(frame: pd.DataFrame, problems: list[str], source: str) -> pd.DataFrame:
    """The rows of the device most rows belong to (a rank is one device), when a ``device`` column says."""
    if "device" not in frame.columns or frame.empty:
        return frame
    every = frame["device"].astype(str)
    devices = every[every.ne("")]
    if devices.nunique() <= 1:
        return frame
    main = devices.value_counts().index[0]
    problems.append(f"{source}: rows of {devices.nunique()} devices; only {main}'s are read")
    return frame[every.eq(main) | every.eq("")]


def pair_events(ts: np.ndarray, addr: np.ndarray, nbytes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Allocations from signed allocate/free events: the allocating events' indices and their release times.

    An allocation is released by the next event on its address (a free; or a new allocation,
    which means the free was not recorded); an allocation with no later event is not released
    within the capture (NaN).
    """
    n = len(ts)
    if not n:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    order = np.lexsort((np.arange(n), ts, addr))
    a, t, b = addr[order], ts[order], nbytes[order]
    same_next = np.r_[a[1:] == a[:-1], False]
    next_ts = np.r_[t[1:], np.nan]
    alloc = b > 0
    release = np.where(same_next, next_ts, np.nan)
    return order[alloc], release[alloc]
