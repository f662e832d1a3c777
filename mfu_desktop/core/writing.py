"""Writing files safely: atomically, with spreadsheet formulas neutralised, never inside or above a profile.

Every file MFU Desktop writes (exports, the user catalog, calibrations, summaries) goes through
these helpers: a crash leaves the old file or the new one, never half of one. Every export,
from the command line or the window, first passes :func:`refuse_profile_destination` (never
into or above a profile) and :func:`check_output_folder` (never over what it did not write),
then records what it wrote (:func:`mark_output_folder`).
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from mfu_desktop.core.numbers import json_text
from mfu_desktop.core.paths import file_mode

#: Characters that make a spreadsheet cell a formula (OWASP CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


#: Characters that change what Markdown shows (links, images, HTML, emphasis, table cells, headings).
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~])")

#: Excel's sheet limit.
XLSX_MAX_ROWS = 1_048_575


class ExportError(Exception):
    """An export that could not be written; the message says where and why."""


def neutralize(frame: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells that start like a formula with ``'`` (numbers are left alone)."""
    out = frame.copy(deep=False)
    for col in out.columns:
        series = out[col]
        if isinstance(series.dtype, pd.CategoricalDtype):
            fixed = _neutral_categories(series)
        elif _is_text(series):
            fixed = _neutral_text(series)
        else:
            fixed = None
        if fixed is not None:
            out[col] = fixed
    if any(_is_formula(c) for c in out.columns):
        out.columns = [neutral_cell(c) for c in out.columns]
    return out


def _is_formula(value: object) -> bool:
    """Whether a value is text a spreadsheet would read as a formula."""
    return isinstance(value, str) and value.startswith(FORMULA_PREFIXES)


def neutral_cell(value: object) -> object:
    """The value with ``'`` in front when it reads as a formula, else unchanged (CSV, XLSX, the clipboard)."""
    return ("'" + value) if _is_formula(value) else value


def _is_text(values: pd.Series | pd.Index) -> bool:
    """Whether a column (or a categorical's categories) holds text: object or a string dtype."""
    return values.dtype == object or pd.api.types.is_string_dtype(values.dtype)


def _neutral_categories(series: pd.Series) -> pd.Series | None:
    """A categorical column with its formula-like text categories escaped, or ``None`` when none is."""
    cats = series.cat.categories
    if not _is_text(cats):
        return None
    fixed = [neutral_cell(c) for c in cats]
    if fixed == list(cats):
        return None
    return series.cat.rename_categories(dict(zip(cats, fixed)))


def _neutral_text(series: pd.Series) -> np.ndarray | None:
    """A text column's values with the formula-like cells escaped, or ``None`` when none is."""
    values = series.to_numpy(dtype=object)
    mask = np.array([_is_formula(v) for v in values], dtype=bool)
    if not mask.any():
        return None
    values = values.copy()
    values[mask] = np.array(["'" + v for v in values[mask]], dtype=object)
    return values


def markdown_text(value: object) -> str:
    """Text from a profile (an operator name, a reason, a path) shown literally in Markdown, on one line.

    A reason or a name can hold ``|`` (which splits a table row), ``[x](javascript:…)``, ``<img …>``
    or ``# `` at a line start: every character that changes what Markdown shows is escaped.
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))


def markdown_code(value: object) -> str:
    """Text as an inline code span inside a table cell (a shape string), whatever backticks or pipes it holds."""
    text = " ".join(str(value).split()).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


#: Folders that are a profile, or part of one, by their name (the names the readers look for:
#: readers/ascend/reader.py, readers/kineto/files.py). Nothing is ever written inside them.
PROFILE_FOLDER = re.compile(r"^(.+_ascend_(pt|ms)|ASCEND_PROFILER_OUTPUT|PROF_.+|mindstudio_profiler_output|"
                            r"cluster_analysis_output)$")
#: Files that make the folder holding them a profile (rank data, PyTorch profiler traces).
PROFILE_FILE = re.compile(r"^(kernel_details\.csv|op_summary_.*\.csv|step_trace_time\.csv|analyse\.done|"
                          r"profiler_info.*\.json|(ascend_pytorch|ascend_mindspore)_profiler(_\d+)?\.db|"
                          r"msprof_.*\.db|.*\.pt\.trace\.json(\.gz)?)$")
#: The file MFU Desktop leaves in every export folder it writes: what it wrote there.
OUTPUT_MARKER = ".mfu-desktop-output.json"


class OverwriteRefused(ExportError):
    """A folder that holds an earlier export of MFU Desktop whose files would be replaced (``--force`` allows it)."""

    def __init__(self, message: str, files: list[str]) -> None:
        super().__init__(message)
        self.files = files


def refuse_profile_destination(target: Path, sources: Iterable[Path], file: bool = False) -> None:
    """Refuse a destination inside or above a profile, saying where to write instead.

    Refused: a folder inside, equal to or above (an ancestor of) any analysed path; a folder
    whose name, or an ancestor's, is a profile folder's (``*_ascend_pt``, ``ASCEND_PROFILER_OUTPUT``,
    ``PROF_*`` …); an existing folder that holds rank folders (a cluster root), profiler files
    or PyTorch profiler traces itself. A new folder beside rank folders that are not analysed
    (``~/report`` when ``~/rank0_ascend_pt`` is elsewhere in the home folder) is fine: nothing of
    a profile is written into.

    With ``file``, ``target`` is one file (a Chrome trace): its folder is refused when it is
    inside a profile, an analysed path itself, a profiler folder or holds rank folders, profiler
    files or traces; a folder far above the profile (the home folder) is fine, since one file
    written there is not written into the profile.

    Args:
        target: The folder to write into (it may not exist yet), or with ``file`` the file to write.
        sources: The paths analysed (dropped roots and rank folders or files).
        file: ``target`` is a file, not a folder.

    Raises:
        ExportError: Naming the profile and a folder (or file) to write to instead.
    """
    sources = list(sources)
    why = _profile_reason(target.parent if file else target, sources, above=not file)
    if why is None:
        return
    where, outermost = why
    message = f"refusing to write into {target}: {where} (a profiler folder is never written to)"
    instead = outermost.parent / (target.name if file else f"{outermost.name}-mfu-report")
    if _profile_reason(instead.parent if file else instead, sources, above=not file) is None:
        message += f"; write to {instead} instead"
    raise ExportError(message)


def _profile_reason(target: Path, sources: list[Path], above: bool = True) -> tuple[str, Path] | None:
    """Why ``target`` is inside (or, with ``above``, above) a profile, and the outermost profile folder involved.

    ``None``: it is neither.
    """
    resolved = target.expanduser().resolve()
    for source in sources:
        src = Path(source).expanduser().resolve()
        if not src.exists():  # nothing there to protect (the command says the path does not exist)
            continue
        base = src if src.is_dir() else src.parent
        if resolved == base or base in resolved.parents:
            return f"it is inside the profile {base}", _outermost(base)
        if above and resolved in base.parents:
            return f"the profile {base} is inside it", _outermost(base)
    for folder in (resolved, *resolved.parents):
        if PROFILE_FOLDER.match(folder.name):
            return f"{folder} is a profiler folder", _outermost(folder)
    if _holds(resolved, PROFILE_FOLDER):
        return "it holds profiler rank folders (a cluster root)", _outermost(resolved)
    if _holds(resolved, PROFILE_FILE):
        return "it holds profiler files", _outermost(resolved)
    return None


def _holds(folder: Path, names: re.Pattern[str]) -> bool:
    """Whether ``folder`` directly holds an entry whose name matches ``names`` (an unreadable folder holds none)."""
    try:
        with os.scandir(folder) as entries:
            return any(names.match(e.name) for e in entries)
    except OSError:
        return False


def _outermost(folder: Path) -> Path:
    """The outermost profile folder around ``folder``: up while the parent is one or holds rank folders."""
    out = folder
    while out.parent != out and (PROFILE_FOLDER.match(out.parent.name) or _holds(out.parent, PROFILE_FOLDER)):
        out = out.parent
    return out


def check_output_folder(folder: Path, names: Iterable[str], force: bool = False) -> None:
    """Refuse an export that would replace what MFU Desktop did not write, or its own earlier export unforced.

    Writes go only into a new or empty folder, or into one this tool made (its
    :data:`OUTPUT_MARKER` is there); replacing the files of an earlier export takes ``force``.
    Nothing is ever deleted.

    Args:
        folder: The export folder.
        names: The file names the export writes there.
        force: Replace the files of an earlier export of MFU Desktop.

    Raises:
        OverwriteRefused: When an earlier export's files would be replaced without ``force``.
        ExportError: When the folder is a file, or holds anything not written by MFU Desktop.
    """
    folder = folder.expanduser()
    if not folder.exists():
        return
    if not folder.is_dir():
        raise ExportError(f"{folder} is a file, not a folder")
    try:
        present = {e.name for e in os.scandir(folder)}
    except OSError as exc:
        raise ExportError(f"cannot write to {folder}: {exc.strerror or exc}") from None
    if not present:
        return
    if OUTPUT_MARKER not in present:
        raise ExportError(f"{folder} is not empty and was not written by MFU Desktop: choose a new or empty folder "
                          "(nothing in it is replaced)")
    replaced = sorted(present & set(names))
    if replaced and not force:
        raise OverwriteRefused(f"{folder} holds an earlier export ({', '.join(replaced[:4])}"
                               f"{' …' if len(replaced) > 4 else ''}): add --force to replace it, or choose another "
                               "folder", replaced)


def check_output_file(path: Path, signature: bytes, force: bool = False) -> None:
    """Refuse a one-file export that would replace a file MFU Desktop did not write, or its own one unforced.

    Args:
        path: The file to write.
        signature: How a file MFU Desktop wrote there begins (its first bytes).
        force: Replace such a file (the command line's ``--force``, the window's confirmed save dialog).

    Raises:
        OverwriteRefused: When an earlier export would be replaced without ``force``.
        ExportError: When ``path`` is a folder, or an existing file MFU Desktop did not write.
    """
    path = path.expanduser()
    if not path.exists():
        return
    if not path.is_file():
        raise ExportError(f"{path} exists and is not a file: choose a new file name")
    try:
        with path.open("rb") as fh:
            ours = fh.read(len(signature)) == signature
    except OSError as exc:
        raise ExportError(f"cannot write to {path}: {exc.strerror or exc}") from None
    if not ours:
        raise ExportError(f"{path} exists and was not written by MFU Desktop: choose a new file name "
                          "(it is not replaced)")
    if not force:
        raise OverwriteRefused(f"{path} holds an earlier export: add --force to replace it, or choose another "
                               "file name", [path.name])


def mark_output_folder(folder: Path, kind: str, written: Iterable[Path]) -> Path:
    """Record in the folder's :data:`OUTPUT_MARKER` that MFU Desktop wrote these files there (an export of ``kind``).

    Returns:
        The marker (a file written too: exports list it with the others).

    Raises:
        ExportError: When the marker cannot be written.
    """
    marker = folder / OUTPUT_MARKER
    try:
        earlier = json.loads(marker.read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError, RecursionError):
        earlier = []
    files = sorted({*(str(f) for f in earlier if isinstance(f, str)), *(Path(p).name for p in written)})
    from mfu_desktop import __version__

    return write_json({"written_by": f"MFU Desktop {__version__}", "kind": kind, "files": files}, marker)


def atomic_write(path: Path, writer: Callable[[Path], None]) -> Path:
    """Write through a temporary file in the same folder, then rename into place.

    The file gets the permissions the user's umask gives (:func:`file_mode`).

    Raises:
        ExportError: When the folder cannot be created or written; no partial file remains.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
    except OSError as exc:
        raise ExportError(f"cannot write to {path.parent}: {exc.strerror or exc}") from None
    tmp = Path(tmp_name)
    try:
        writer(tmp)
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise ExportError(f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    return path


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    """CSV (UTF-8 with BOM so spreadsheets show Chinese text), formulas neutralised."""
    safe = neutralize(frame)
    return atomic_write(path, lambda p: safe.to_csv(p, index=False, encoding="utf-8-sig"))


#: Rows per chunk of :func:`write_fast_csv` (a chunk is formatted in memory, a few MB each).
FAST_CSV_CHUNK_ROWS = 200_000


def write_fast_csv(frame: pd.DataFrame, path: Path) -> Path:
    """A large CSV through Arrow's writer: :func:`write_csv`'s values (numbers shortest: 2, not 2.0), strings quoted.

    Used for the per-kernel detail files (millions of rows). Chunks of rows are formatted on
    the CPU's cores (Arrow releases the GIL) and written in order; at most two chunks per core
    are held in memory. Numbers should be rounded by the caller; missing values are empty cells.
    """
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    table = pa.Table.from_pandas(neutralize(frame), preserve_index=False)
    workers = max(1, min(4, os.cpu_count() or 1))

    def render(index: int) -> bytes:
        buffer = io.BytesIO()
        part = table.slice(index * FAST_CSV_CHUNK_ROWS, FAST_CSV_CHUNK_ROWS)
        pa_csv.write_csv(part, buffer, pa_csv.WriteOptions(include_header=index == 0))
        return buffer.getvalue()

    def writer(p: Path) -> None:
        chunks = max(1, -(-table.num_rows // FAST_CSV_CHUNK_ROWS))
        with open(p, "wb") as fh, ThreadPoolExecutor(max_workers=workers) as pool:
            fh.write("\ufeff".encode())  # BOM: spreadsheets then show Chinese text
            pending: deque[Future[bytes]] = deque()
            for index in range(chunks):
                pending.append(pool.submit(render, index))
                if len(pending) >= 2 * workers:
                    fh.write(pending.popleft().result())
            while pending:
                fh.write(pending.popleft().result())

    return atomic_write(path, writer)


def write_parquet(frame: pd.DataFrame, path: Path) -> Path:
    """Parquet (typed; categoricals kept as dictionaries; columns compressed on Arrow's threads)."""
    return atomic_write(path, lambda p: frame.to_parquet(p, index=False, compression="lz4"))


def write_xlsx(sheets: dict[str, pd.DataFrame], path: Path) -> tuple[Path, list[str]]:
    """One XLSX workbook with a sheet per frame; frames over Excel's row limit are truncated (reported)."""
    notes: list[str] = []

    def writer(p: Path) -> None:
        with pd.ExcelWriter(p, engine="openpyxl") as xl:
            for name, frame in sheets.items():
                if len(frame) > XLSX_MAX_ROWS:
                    notes.append(f"sheet {name}: {len(frame):,} rows truncated to Excel's {XLSX_MAX_ROWS:,}")
                    frame = frame.head(XLSX_MAX_ROWS)
                neutralize(frame).to_excel(xl, sheet_name=name[:31], index=False)

    return atomic_write(path, writer), notes


def write_json(data: object, path: Path) -> Path:
    """Pretty JSON."""
    return atomic_write(path, lambda p: p.write_text(json_text(data, indent=2, ensure_ascii=False, default=str),
                                                     encoding="utf-8"))


def write_text(text: str, path: Path) -> Path:
    """A text file (Markdown reports)."""
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
