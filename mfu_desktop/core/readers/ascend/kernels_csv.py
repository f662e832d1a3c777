"""Reader of ``kernel_details.csv`` and ``op_summary_*.csv`` (profiler-formats.md §3).

Fast path: pyarrow's multithreaded CSV reader, only the needed columns, typed on the way
in (floats, dictionary-encoded strings). Robust path when a cell does not convert: every
needed column as text, converted cell by cell in vectorised pyarrow compute, garbage
counted and reported. Short or long rows are skipped and reported, never shifted.
"""

from __future__ import annotations

import csv
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from mfu_desktop.core.process_memory import MEMORY_POOL, release_memory
from mfu_desktop.core.readers import columns as C
from mfu_desktop.core.readers.files import is_regular_file, not_regular
from mfu_desktop.core.readers.text_source import TableSource, open_table

#: Strings that mean "missing" in profiler CSVs.
NULL_VALUES = ["N/A", "NA", "n/a", "", "null", "NULL", "None", "nan", "NaN"]
#: pyarrow block size: 1 MiB blocks parse as fast as large ones on wide files and keep far less
#: in flight (a million-row file: 0.72 s and a 314 MB peak with 1 MiB, 0.98 s and 520 MB with 8 MiB).
BLOCK_SIZE = 1 << 20
#: Block size of the last attempt at a file whose rows do not fit :data:`BLOCK_SIZE` (a cell over 1 MiB).
LONG_LINE_BLOCK_SIZE = 64 << 20
#: At most this many skipped rows are listed in the report (the first lines of at most
#: :data:`MAX_LOCATED_ROWS` rows located in the file).
MAX_QUOTED_ROWS = 5
MAX_LOCATED_ROWS = 64

#: The latest start time read (µs since the epoch, the year 2255): ns beyond it overflow int64.
MAX_START_US = 9_000_000_000_000_000

_NUMBER = r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$"
_START = r"^(?P<i>-?\d+)(?:\.(?P<f>\d*))?$"


class KernelFileError(Exception):
    """A kernel file that cannot be read at all; the message says why."""


@dataclass
class KernelTable:
    """A kernel frame in canonical columns and what happened while reading it.

    Attributes:
        frame: Canonical columns (see :mod:`columns`); only those present in the file.
        source: File name(s) it came from.
        header: The original header.
        missing_columns: Canonical columns the file does not have (``input_shapes`` at Level0 …).
        problems: Skipped rows, garbage cells, duplicate columns — one message each.
        rows_skipped: Rows dropped because their field count was wrong.
    """

    frame: pd.DataFrame
    source: str
    header: list[str] = field(default_factory=list)
    missing_columns: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    rows_skipped: int = 0


def _read_header(path: Path) -> tuple[list[str], str, bytes]:
    """The header fields, the text encoding to use and the header line's bytes."""
    if not is_regular_file(path):
        raise KernelFileError(f"{path.name} is not a regular file ({not_regular(path)})")
    with path.open("rb") as fh:
        first = fh.readline(1 << 20)
    if not first.strip(b" \t\r\n\x00"):
        raise KernelFileError(f"{path.name} is empty (0 bytes or no header line)")
    encoding = "utf-8"
    try:
        text = first.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = first.decode("gb18030", errors="replace")
        encoding = "gb18030"
    try:
        header = next(csv.reader([text.rstrip("\r\n")]))
    except (csv.Error, StopIteration) as exc:
        raise KernelFileError(f"{path.name}: header cannot be parsed ({exc})") from None
    return [h.strip().lstrip("\ufeff") for h in header], encoding, first


def _plan(header: list[str]) -> tuple[dict[str, str], list[str]]:
    """Map internal column ids (``c3``) to canonical names; report duplicates."""
    chosen: dict[str, str] = {}
    problems: list[str] = []
    seen: dict[str, str] = {}
    for i, text in enumerate(header):
        canon = C.canonical_name(text)
        if canon is None:
            continue
        if canon in seen:
            problems.append(f"column {text!r} appears twice (as {seen[canon]!r}); the first is used")
            continue
        seen[canon] = text
        chosen[f"c{i}"] = canon
    return chosen, problems


def _arrow_type(canon: str, robust: bool) -> pa.DataType:
    if robust or canon == C.START_NS:
        return pa.string()
    if canon in C.CATEGORY_COLUMNS:
        return pa.dictionary(pa.int32(), pa.string())
    if canon in C.FLOAT32_COLUMNS:
        return pa.float32()
    return pa.float64()


def _quiet_invalid_row_decode_errors() -> None:
    """Silence one known pyarrow quirk, and nothing else.

    When a malformed row also holds bytes that are not UTF-8, pyarrow fails to build the row
    text for our invalid-row handler and reports that as an "Exception ignored" on stderr; it
    then fails the read, and :func:`read_kernel_csv` re-reads the file with the bytes replaced
    (and says so). The hook drops only that report; every other unraisable exception goes to
    the previous hook.
    """
    previous = sys.unraisablehook
    if getattr(previous, "_mfu_quiet", False):
        return

    def hook(unraisable) -> None:
        source = getattr(unraisable.object, "__qualname__", "")
        if source.endswith("_read_table.<locals>.on_invalid") and isinstance(unraisable.exc_value,
                                                                               UnicodeDecodeError):
            return
        previous(unraisable)

    hook._mfu_quiet = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook


def _read_table(source: Path | pa.BufferReader | io.BytesIO, names: list[str], chosen: dict[str, str], robust: bool,
                skipped: list[tuple[int | None, str, int, int]], block_size: int = BLOCK_SIZE) -> pa.Table:
    def on_invalid(row: pacsv.InvalidRow) -> str:
        skipped.append((row.number, row.text or "", row.actual_columns, row.expected_columns))
        return "skip"

    _quiet_invalid_row_decode_errors()
    read = pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=block_size, use_threads=True)
    parse = pacsv.ParseOptions(invalid_row_handler=on_invalid)
    convert = pacsv.ConvertOptions(
        include_columns=list(chosen),
        column_types={cid: _arrow_type(canon, robust) for cid, canon in chosen.items()},
        null_values=NULL_VALUES,
        strings_can_be_null=True,
        quoted_strings_can_be_null=False,
    )
    return pacsv.read_csv(source, read_options=read, parse_options=parse, convert_options=convert,
                          memory_pool=MEMORY_POOL)


def _to_float(arr: pa.ChunkedArray) -> tuple[pa.ChunkedArray, pa.ChunkedArray]:
    """Text → float64; cells that are not numbers become null (returned: the mask of those cells)."""
    arr = pc.utf8_trim(arr, characters=" \t\"\r")
    ok = pc.match_substring_regex(arr, _NUMBER)
    bad = pc.and_(pc.invert(ok), pc.is_valid(arr))
    cleaned = pc.if_else(ok, arr, pa.scalar(None, pa.string()))
    return pc.cast(cleaned, pa.float64()), bad


def _report_bad(mask: pa.ChunkedArray | np.ndarray, label: str, verdict: str, problems: list[str]) -> None:
    """Count the cells of ``mask`` and say where the first are ("data rows" count from 1 below the header)."""
    flags = np.asarray(mask.to_numpy(zero_copy_only=False) if isinstance(mask, pa.ChunkedArray) else mask)
    rows = np.flatnonzero(np.nan_to_num(flags.astype(float)) > 0)
    if not len(rows):
        return
    where = ", ".join(str(r + 1) for r in rows[:MAX_QUOTED_ROWS]) + (" …" if len(rows) > MAX_QUOTED_ROWS else "")
    problems.append(f"{len(rows)} cells in {label} {verdict} (kept as missing; data row {where})")


def _start_ns(arr: pa.ChunkedArray) -> tuple[np.ndarray, pa.ChunkedArray | np.ndarray]:
    """``Start Time(us)`` text (19 digits, trailing TAB, maybe quoted) → int64 ns, exactly.

    float64 steps by 0.25 µs at this magnitude, so the integer and fractional parts are
    parsed separately. Returns the values (``-1`` where unparseable) and the mask of the bad cells.
    """
    fast = _start_ns_fixed_width(arr)
    if fast is not None:
        return fast, np.zeros(0, dtype=bool)
    text = pc.utf8_trim(arr, characters=" \t\"\r")
    parts = pc.extract_regex(text, _START)
    whole = pc.struct_field(parts, "i")
    # beyond 9e15 µs (the year 2255) a start is no time: missing, never an int64 overflow
    whole = pc.if_else(pc.greater(pc.utf8_length(whole), 17), pa.scalar(None, pa.string()), whole)
    whole = pc.cast(whole, pa.int64())
    whole = pc.if_else(pc.greater(pc.abs(whole), MAX_START_US), pa.scalar(None, pa.int64()), whole)
    frac = pc.struct_field(parts, "f")
    frac3 = pc.utf8_slice_codeunits(pc.utf8_rpad(pc.fill_null(frac, ""), 3, "0"), 0, 3)
    ns = pc.add(pc.multiply(whole, 1000), pc.cast(frac3, pa.int64()))
    # Exponent spellings (a spreadsheet round trip) fall back to float: µs resolution is lost,
    # which is fine for ordering and step assignment.
    missing = pc.and_(pc.and_(pc.is_null(ns), pc.is_valid(text)), pc.invert(pc.is_valid(whole)))
    if pc.any(missing).as_py():
        as_float, _ = _to_float(text)
        as_ns = pc.multiply(as_float, 1000.0)
        as_ns = pc.if_else(pc.less(pc.abs(as_ns), MAX_START_US * 1000.0), as_ns, pa.scalar(None, pa.float64()))
        ns = pc.if_else(missing, pc.cast(as_ns, pa.int64(), safe=False), ns)
    bad = pc.and_(pc.is_null(ns), pc.is_valid(text))
    values = pc.fill_null(ns, -1).to_numpy()
    return np.asarray(values, dtype=np.int64), bad


def _start_ns_fixed_width(arr: pa.ChunkedArray) -> np.ndarray | None:
    """Fast path for torch_npu's own start-time format.

    Every cell has the same width, ``<digits>.<3 digits>`` plus optional TAB/quotes. Digits are
    read straight from the Arrow buffers with numpy, chunk by chunk (no temporary strings);
    ``None`` when the column does not have that shape.
    """
    if arr.null_count or len(arr) == 0 or not pa.types.is_string(arr.type):
        return None
    out = np.empty(len(arr), dtype=np.int64)
    layout: _StartLayout | None = None
    pos = 0
    for chunk in arr.chunks:
        n = len(chunk)
        if n == 0:
            continue
        cells = _fixed_width_cells(chunk)
        if cells is None:
            return None
        if layout is None:
            layout = _start_layout(cells[0])
            if layout is None:
                return None
        values = _start_digits(cells, layout)
        if values is None:
            return None
        out[pos:pos + n] = values
        pos += n
    return out


#: Where the digits of a fixed-width start time are: cell width, digit columns, column of the dot.
_StartLayout = tuple[int, list[int], int]


def _fixed_width_cells(chunk: pa.StringArray) -> np.ndarray | None:
    """A non-empty string chunk's bytes as an ``(n, width)`` array, or ``None`` when its cells differ in width."""
    n = len(chunk)
    _, offsets_buf, data_buf = chunk.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int32, count=n + 1, offset=chunk.offset * 4)
    width = int(offsets[1] - offsets[0])
    if width < 5 or offsets[-1] - offsets[0] != width * n:
        return None
    return np.frombuffer(data_buf, dtype=np.uint8, count=width * n, offset=int(offsets[0])).reshape(n, width)


def _start_layout(cell: np.ndarray) -> _StartLayout | None:
    """The layout of the first cell, ``<digits>.<3 digits>`` with optional padding, or ``None`` when it is not that.

    Args:
        cell: The first cell's bytes.
    """
    first = cell.tobytes().decode("ascii", errors="replace")
    core = first.strip(' \t"\r')
    if not core or "." not in core or len(core) - core.index(".") != 4 or not core.replace(".", "").isdigit():
        return None
    lead = first.index(core)
    dot = lead + core.index(".")
    digits = [*range(lead, dot), dot + 1, dot + 2, dot + 3]
    # 19 digits fit int64 while the value stays below 9e18 (years before 2255 in ns).
    if len(digits) > 19 or (len(digits) == 19 and core[0] == "9"):
        return None
    return len(cell), digits, dot


def _start_digits(cells: np.ndarray, layout: _StartLayout) -> np.ndarray | None:
    """The ns values of a chunk's cells laid out as ``layout``, or ``None`` when a cell does not fit it.

    Args:
        cells: The chunk's ``(n, width)`` bytes.
        layout: The layout of the column's first cell.
    """
    width, digits, dot = layout
    if cells.shape[1] != width or (cells[:, dot] != 46).any():
        return None
    if len(digits) == 19 and (cells[:, digits[0]] == 57).any():
        return None
    values = np.zeros(len(cells), dtype=np.int64)
    for col in digits:
        digit = cells[:, col].astype(np.int64) - 48
        if (digit < 0).any() or (digit > 9).any():
            return None
        values = values * 10 + digit
    return values


def _categorical(arr: pa.ChunkedArray | pa.Array) -> pd.Categorical:
    """Arrow (dictionary) strings → pandas Categorical with literal quotes stripped from values."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.unify_dictionaries() if pa.types.is_dictionary(arr.type) else arr
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr)
    dictionary = pc.utf8_trim(arr.dictionary, characters='"\t\r ')
    trimmed = np.asarray(dictionary.to_pylist(), dtype=object)
    # Trimming can merge values ('"a"' and 'a'): factorize the trimmed dictionary and remap.
    code_of_entry, uniques = pd.factorize(trimmed)
    code_of_entry = code_of_entry.astype(np.int32)
    indices = arr.indices
    if len(code_of_entry) == 0:
        codes = np.full(len(indices), -1, dtype=np.int32)
    elif indices.null_count == 0:
        codes = code_of_entry[np.asarray(indices.to_numpy(zero_copy_only=False))]
    else:
        rows = np.asarray(indices.fill_null(0).to_numpy(zero_copy_only=False))
        valid = np.asarray(indices.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        codes = np.where(valid, code_of_entry[rows], np.int32(-1))
    return pd.Categorical.from_codes(codes, categories=pd.Index(uniques, dtype=object), validate=False)


def _int_column(values: np.ndarray, label: str, problems: list[str]) -> tuple[pd.arrays.IntegerArray, np.ndarray]:
    """Float cells → nullable Int64; non-integers and ids beyond 2**62 become missing and are reported.

    Returns:
        The column and the mask of its unreadable cells (a cell that was blank is not one).
    """
    finite = np.isfinite(values)
    integral = finite & (np.floor(values) == values)
    whole = integral & (np.abs(values) < 2**62)
    _report_bad(finite & ~integral, label, "are not integers", problems)
    _report_bad(integral & ~whole, label, "are out of range", problems)
    out = np.where(whole, values, 0).astype(np.int64)
    return pd.arrays.IntegerArray(out, ~whole), finite & ~whole


def _fill_unreadable_steps(frame: pd.DataFrame, bad: np.ndarray, problems: list[str]) -> None:
    """Give each kernel whose Step Id cell is unreadable the step of the kernel before it in time (in place).

    A kernel left without a step drops out of its step's FLOPs (a step id of 1e23 lowered step
    MFU). A kernel whose predecessor has no step (a blank cell: outside the steps) keeps none.
    """
    if not bad.any() or C.START_NS not in frame.columns or not frame[C.STEP_ID].notna().any():
        return
    order = np.argsort(frame[C.START_NS].to_numpy(), kind="stable")
    steps = frame[C.STEP_ID].to_numpy(dtype=np.float64, na_value=np.nan)[order]
    outside = np.isnan(steps) & ~bad[order]  # blank: a kernel outside the steps, never a value to carry on
    filled = pd.Series(np.where(outside, -np.inf, steps)).ffill().to_numpy()
    take = bad[order] & np.isfinite(filled)
    if not take.any():
        return
    steps[take] = filled[take]
    back = np.empty_like(steps)
    back[order] = steps
    known = np.isfinite(back)
    frame[C.STEP_ID] = pd.arrays.IntegerArray(np.where(known, back, 0).astype(np.int64), ~known)
    problems.append(f"{int(take.sum())} kernel(s) with an unreadable Step Id were given the step of the kernel "
                    "before them in time")


def _frame(holder: list[pa.Table], chosen: dict[str, str], labels: dict[str, str], robust: bool,
           problems: list[str]) -> pd.DataFrame:
    """Convert column by column, dropping each Arrow column as soon as it is converted (peak memory).

    ``holder`` is a one-element list so that no caller keeps the full table alive meanwhile.
    """
    table = holder.pop()
    release_memory()
    data: dict[str, object] = {}
    bad_cells: dict[str, np.ndarray] = {}
    # The start-time text column needs the most temporaries: convert it last, when the other
    # Arrow columns are already gone.
    ordered = sorted(chosen.items(), key=lambda item: item[1] == C.START_NS)
    for done, (cid, canon) in enumerate(ordered):
        arr = table.column(cid)
        table = table.drop_columns([cid])
        label = labels[canon]
        if canon == C.START_NS:
            values, bad = _start_ns(arr)
            _report_bad(bad, label, "are not times", problems)
            data[canon] = values
        elif canon in C.CATEGORY_COLUMNS:
            data[canon] = _categorical(arr)
        else:
            if robust:
                arr, bad = _to_float(arr)
                _report_bad(bad, label, "are not numbers", problems)
            # Float Arrow arrays convert nulls to NaN on the way to numpy (no fill_null copy).
            values = np.asarray(arr.to_numpy(), dtype=np.float32 if canon in C.FLOAT32_COLUMNS else np.float64)
            if canon in C.INT_COLUMNS:
                data[canon], bad_cells[canon] = _int_column(values, label, problems)
            else:
                data[canon] = values
        del arr
        if done % 8 == 7:
            release_memory()
    del table
    release_memory()
    order = [c for c in C.KERNEL_COLUMNS if c in data]
    frame = pd.DataFrame({c: data[c] for c in order}, copy=False)
    if C.STEP_ID in bad_cells:
        _fill_unreadable_steps(frame, bad_cells[C.STEP_ID], problems)
    return frame


def _describe_skipped(source: TableSource, skipped: list[tuple[int | None, str, int, int]]) -> str:
    """One message for the skipped rows, with their line numbers (never their text: it may be anything).

    The multithreaded reader does not know line numbers: each row is found in the bytes it
    parsed, at the start of a line, after the rows of the same text already placed.
    """
    data = source.data()
    found: dict[str, int] = {}
    located = []
    for number, text, actual, expected in skipped[:MAX_LOCATED_ROWS]:
        if number is None and text:
            number, found[text] = _line_of(data, text.encode("utf-8", errors="replace"), found.get(text, 0))
        located.append((number if number else 1 << 62, actual, expected))
    located.sort()
    quoted = [f"{'line ' + str(n) if n < 1 << 62 else 'a row'} has {actual} of {expected} fields"
              for n, actual, expected in located[:MAX_QUOTED_ROWS]]
    more = f" and {len(skipped) - MAX_QUOTED_ROWS} more" if len(skipped) > MAX_QUOTED_ROWS else ""
    return f"{len(skipped)} row(s) skipped, never shifted: " + "; ".join(quoted) + more


def _line_of(data: bytes, text: bytes, start: int) -> tuple[int | None, int]:
    """The line number of ``text`` found as a whole line from ``start`` on, and where to look next."""
    def whole_line(pos: int) -> bool:
        after = data[pos + len(text):pos + len(text) + 1]
        return (pos == 0 or data[pos - 1:pos] in (b"\n", b"\r")) and after in (b"", b"\n", b"\r")

    pos = data.find(text, start)
    while pos >= 0 and not whole_line(pos):
        pos = data.find(text, pos + 1)
    if pos < 0:
        return None, start
    return data.count(b"\n", 0, pos) + 1, pos + len(text)


def _no_duration_message(path: Path, header: list[str], chosen: dict[str, str]) -> str:
    """Why a file without a duration column is not a kernel file, quoting only the profiler columns it has.

    The header may be anything (a link to another file): its own text is never quoted.
    """
    known = [header[int(cid[1:])] for cid in chosen]
    have = f"its profiler columns: {', '.join(known[:12])}" + (" …" if len(known) > 12 else "") if known else \
        "none of its columns is a profiler column"
    return f"{path.name} has no Duration(us) / Task Duration(us) column ({have})"


def read_kernel_csv(path: Path) -> KernelTable:
    """Read one kernel_details.csv / op_summary_*.csv into canonical columns.

    Raises:
        KernelFileError: When the file is missing, empty, unreadable or has no
            ``Duration(us)`` column. Anything less is a reported problem.
    """
    try:
        header, encoding, header_bytes = _read_header(path)
        source = open_table(path)
    except OSError as exc:
        raise KernelFileError(f"{path.name} cannot be read ({exc.strerror or exc})") from None
    chosen, problems = _plan(header)
    if C.DURATION_US not in set(chosen.values()):
        raise KernelFileError(_no_duration_message(path, header, chosen))
    labels = {canon: header[int(cid[1:])] for cid, canon in chosen.items()}
    names = [f"c{i}" for i in range(len(header))]
    skipped: list[tuple[int | None, str, int, int]] = []
    try:
        if source.size <= len(header_bytes):  # a header and no row (maybe not even its newline)
            source.source, source.size = io.BytesIO(header_bytes.rstrip(b"\r\n") + b"\n"), len(header_bytes) + 1
        elif encoding != "utf-8":
            source.recode(encoding)
        table, robust = _parse(source, names, chosen, skipped)
    except pa.ArrowInvalid as exc:
        if "straddl" in str(exc):
            raise KernelFileError(f"{path.name} has a line longer than {LONG_LINE_BLOCK_SIZE >> 20} MiB: it cannot "
                                  "be read as a kernel table") from None
        raise KernelFileError(f"{path.name} cannot be parsed as CSV ({str(exc).splitlines()[0]})") from None
    except OSError as exc:
        raise KernelFileError(f"{path.name} cannot be read ({exc.strerror or exc})") from None
    problems = source.notes + problems
    holder = [table]
    del table
    frame = _frame(holder, chosen, labels, robust, problems)
    if skipped:
        problems.append(_describe_skipped(source, skipped))
    missing = [c for c in (C.OP_TYPE, C.CORE_TYPE, C.INPUT_SHAPES, C.OUTPUT_SHAPES, C.INPUT_DTYPES, C.STEP_ID)
               if c not in frame.columns]
    return KernelTable(frame, path.name, header, missing, problems, len(skipped))


def _parse(source: TableSource, names: list[str], chosen: dict[str, str],
           skipped: list[tuple[int | None, str, int, int]]) -> tuple[pa.Table, bool]:
    """The typed fast read, else a robust one (every column as text) after finding the file's encoding.

    Invalid UTF-8 fails the fast read directly, or through a malformed row whose text pyarrow
    cannot hand to the row handler; so does a cell that does not convert. Either way the bytes
    are re-encoded when they are not UTF-8 and the file is read again as text.

    Returns:
        The table and whether it was read robustly (its cells still to be converted).

    Raises:
        pyarrow.ArrowInvalid: When even the robust read fails.
    """
    try:
        return _read_table(source.source, names, chosen, robust=False, skipped=skipped), False
    except pa.ArrowInvalid:
        skipped.clear()
        if source.encoding == "utf-8":
            source.recode()
        source.rewind()
    try:
        return _read_table(source.source, names, chosen, robust=True, skipped=skipped), True
    except pa.ArrowInvalid as exc:
        if "straddl" not in str(exc):
            raise
    # a row longer than a block (1 MiB): once more with blocks that hold it (rare; memory bounded by the block)
    skipped.clear()
    source.rewind()
    source.notes.append(f"{source.path.name} has a line longer than {BLOCK_SIZE >> 20} MiB: read with "
                        f"{LONG_LINE_BLOCK_SIZE >> 20} MiB blocks")
    return _read_table(source.source, names, chosen, robust=True, skipped=skipped,
                       block_size=LONG_LINE_BLOCK_SIZE), True


def read_kernel_csvs(paths: list[Path]) -> KernelTable:
    """Read and concatenate several files of one rank (``op_summary_slice_*.csv``)."""
    if len(paths) == 1:
        return read_kernel_csv(paths[0])
    tables = [read_kernel_csv(p) for p in paths]
    frames = [t.frame for t in tables]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    for col in C.CATEGORY_COLUMNS:
        if col in frame.columns and not isinstance(frame[col].dtype, pd.CategoricalDtype):
            frame[col] = frame[col].astype("category")
    problems = [f"{t.source}: {p}" for t in tables for p in t.problems]
    missing = sorted(set.intersection(*(set(t.missing_columns) for t in tables))) if tables else []
    return KernelTable(frame, ", ".join(t.source for t in tables), tables[0].header, missing, problems,
                       sum(t.rows_skipped for t in tables))
