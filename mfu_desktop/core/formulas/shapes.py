"""Shape strings of the Ascend profiler (profiler-formats.md §3.4).

A shape cell lists tensors separated by ``;`` and dims by ``,``; empty segments are absent
optional inputs or scalars and are kept so positions stay meaningful; ``N/A`` means "not
collected". Cells are parsed once per distinct string (a profile has few), never per row.
"""

from __future__ import annotations

from functools import lru_cache

Shape = tuple[int, ...]

#: Largest dimension accepted from a profile. Bigger values are garbage, not tensors:
#: 2**40 elements in one dimension would already be 4 TiB of BF16.
MAX_DIM = 1 << 40


class ShapeError(ValueError):
    """A shape string that cannot be parsed; the message says why."""


@lru_cache(maxsize=65536)
def parse_shapes(cell: str | None) -> tuple[Shape, ...] | None:
    """Parse one ``Input Shapes`` / ``Output Shapes`` cell.

    Args:
        cell: The cell text. Outer quotes (``"4096,12288;4608,12288"``) are stripped.

    Returns:
        One tuple of dims per tensor (``()`` for an empty segment), or ``None`` when the cell
        is missing or ``N/A``.

    Raises:
        ShapeError: When a dim is not a non-negative integer or is implausibly large.
    """
    if cell is None:
        return None
    text = cell.strip().strip('"').strip()
    if text.upper() in {"N/A", "NA", "NONE"}:
        return None
    if text == "":
        return ((),)
    tensors: list[Shape] = []
    for segment in text.split(";"):
        segment = segment.strip()
        if not segment:
            tensors.append(())
            continue
        dims: list[int] = []
        for part in segment.split(","):
            part = part.strip()
            if not (part.isascii() and part.isdigit()):
                raise ShapeError(f"dimension {part!r} in {cell!r} is not a non-negative integer")
            value = int(part)
            if value > MAX_DIM:
                raise ShapeError(f"dimension {value} in {cell!r} is implausibly large")
            dims.append(value)
        tensors.append(tuple(dims))
    return tuple(tensors)


@lru_cache(maxsize=4096)
def parse_dtypes(cell: str | None) -> tuple[str, ...]:
    """Split an ``Input Data Types`` cell into entries (``""`` for absent ones)."""
    if not cell:
        return ()
    text = cell.strip().strip('"')
    if text.upper() == "N/A":
        return ()
    return tuple(part.strip() for part in text.split(";"))


def numel(shape: Shape) -> int:
    """Number of elements of a shape (1 for a scalar ``()``), as a Python int."""
    total = 1
    for dim in shape:
        total *= dim
    return total


def format_shape(shape: Shape) -> str:
    """Write a shape back in the profiler's notation (``4096,12288``)."""
    return ",".join(str(d) for d in shape)


def parse_dims(text: str) -> Shape:
    """Parse a user-typed shape (``"2,4,4096,128"``, ``"2x4x4096x128"``, ``"(2, 4)"``).

    Raises:
        ShapeError: When the text is not a list of positive integers.
    """
    cleaned = text.strip().strip("()[]").replace("x", ",").replace("×", ",").replace(" ", ",")
    parts = [p for p in cleaned.split(",") if p]
    if not parts:
        raise ShapeError(f"{text!r} has no dimensions")
    dims = []
    for part in parts:
        if not (part.isascii() and part.isdigit()) or int(part) <= 0:
            raise ShapeError(f"dimension {part!r} in {text!r} is not a positive integer")
        dims.append(int(part))
    return tuple(dims)
