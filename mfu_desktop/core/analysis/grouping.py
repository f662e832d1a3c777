"""Fast grouping of millions of kernel rows by a few categorical columns.

Groups are formed from integer category codes (never from strings) and summed with
``numpy.bincount``: a million rows group in tens of milliseconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def codes_of(series: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (−1 = missing; the categorical's own small int dtype) and categories of a column."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.cat.codes.to_numpy(), series.cat.categories
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    return codes, pd.Index(uniques)


def slots(codes: np.ndarray, missing: int) -> np.ndarray:
    """Category codes as table indexes: ``missing`` for −1, widened to ``intp`` first.

    Categorical codes come in the narrowest integer type (``int8`` up to 126 categories);
    any arithmetic on them (offsets, a missing slot past the end) must happen on a wide type,
    or it overflows once a rank has enough distinct values (issue: 124 shape groups).
    """
    wide = np.asarray(codes, dtype=np.intp)
    return np.where(wide < 0, missing, wide)


def lookup(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``table[code]`` per row; the table's last entry is the value for a missing code (−1)."""
    return np.asarray(table)[slots(codes, len(table) - 1)]


def group_ids(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Group id per row for the combination of several code columns.

    Args:
        columns: Integer code arrays (−1 allowed) of equal length.

    Returns:
        ``(ids, first)``: ids in ``0..g-1`` in order of first appearance, and the row index of
        each group's first row.
    """
    n = len(columns[0]) if columns else 0
    key = np.zeros(n, dtype=np.int64)
    span = 1  # upper bound of key values so far
    for codes in columns:
        shifted = np.asarray(codes, dtype=np.int64) + 1
        width = int(shifted.max()) + 1 if n else 1
        if span * width >= 1 << 62:  # compress before the mixed-radix key could overflow
            key, uniques = pd.factorize(key)
            key = key.astype(np.int64)
            span = len(uniques)
        key = key * width + shifted
        span *= width
    key, _ = pd.factorize(key)
    key = key.astype(np.int64)
    groups = int(key.max()) + 1 if n else 0
    first = np.empty(groups, dtype=np.int64)
    first[key[::-1]] = np.arange(n - 1, -1, -1, dtype=np.int64)
    return key, first


def sums(ids: np.ndarray, groups: int, values: np.ndarray) -> np.ndarray:
    """Σ values per group (NaN counts as 0)."""
    return np.bincount(ids, weights=np.nan_to_num(np.asarray(values, dtype=np.float64)), minlength=groups)


def counts(ids: np.ndarray, groups: int) -> np.ndarray:
    """Rows per group."""
    return np.bincount(ids, minlength=groups)


def categorical(values: list[str], codes: np.ndarray) -> pd.Categorical:
    """A Categorical from a small table of strings and per-row indexes into it (−1 = missing).

    Equal strings in ``values`` are merged so categories stay unique.
    """
    cat_codes, uniques = pd.factorize(pd.Index(values, dtype=object))
    table = np.append(cat_codes, -1).astype(np.int32)
    idx = slots(codes, len(values))
    return pd.Categorical.from_codes(table[idx], categories=pd.Index(uniques, dtype=object))


def _equal_mask(column: pd.Series, text: str) -> np.ndarray:
    """Rows whose text is ``text`` (``""`` matches a missing cell), compared once per category."""
    codes, cats = codes_of(column)
    table = np.array([str(c) == text for c in cats] + [text == ""], dtype=bool)
    return lookup(table, codes)


def group_rows(kernels: pd.DataFrame, op_type: str, shapes: str | None = None, klass: str | None = None) -> np.ndarray:
    """The kernel rows of an operator group of the tables and charts (a by-type, by-shape or hot-operator row).

    A group's type is the kernel's type, or its name where the type is missing (Level0 kernels,
    as the tables show them). ``shapes`` and ``klass`` narrow the group when given.

    Args:
        kernels: The rank's kernel frame.
        op_type: The group's type (or kernel name).
        shapes: Its input shapes (``""``: none recorded), ``None``: any.
        klass: Its kernel class, ``None``: any.
    """
    from mfu_desktop.core.readers import columns as C

    n = len(kernels)
    if C.OP_TYPE in kernels.columns:
        mask = _equal_mask(kernels[C.OP_TYPE], op_type)
        untyped = _equal_mask(kernels[C.OP_TYPE], "") | _equal_mask(kernels[C.OP_TYPE], "N/A")
    else:
        mask, untyped = np.zeros(n, dtype=bool), np.ones(n, dtype=bool)
    if C.NAME in kernels.columns:
        mask |= untyped & _equal_mask(kernels[C.NAME], op_type)
    if shapes is not None and C.INPUT_SHAPES in kernels.columns:
        mask &= _equal_mask(kernels[C.INPUT_SHAPES], shapes)
    if klass is not None and "klass" in kernels.columns:
        mask &= _equal_mask(kernels["klass"], klass)
    return np.flatnonzero(mask)
