"""A short display name for every kernel: the one function behind every console row, table cell and chart label.

GPU kernel names are C++ signatures with their template arguments (a single PyTorch
element-wise kernel runs to 400–1,000 characters) or generated names that encode every tuning
parameter (a Tensile GEMM: 450 characters). The display name keeps what tells kernels apart
for a performance engineer and drops the rest:

* **C++ names** (demangled, or mangled ``_Z…`` names read first): the function's own name
  without namespaces, return type and parameters; of its template arguments only the
  operation (a ``…Functor``, ``…Ops``/``…_functor``, or the function a lambda was defined in)
  and the first element type, e.g. ``void at::native::elementwise_kernel<128, 4, …
  BUnaryFunctor<c10::BFloat16, …, MulFunctor<float>>>(…)`` →
  ``elementwise_kernel<MulFunctor<bf16>>``. A generic wrapper (``cutlass::Kernel2<X>``) shows
  the kernel it wraps.
* **Long generated names** (underscore tokens): the leading tokens up to 40 characters and
  the tile token, e.g. ``Cijk_Alik_Bljk_…_MT128x224x64_MI16x16x1_…`` → ``Cijk_…MT128x224x64``.
* Everything else (operator types, short kernel names) is returned as it is.

The full name stays where the user needs it (the kernel detail pane, the exports' full-name
column). :func:`short_name` is pure Python (the cached command line prints without pandas);
:func:`short_names` applies it once per category of a categorical column.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

#: Names up to this length are shown as they are (unless they are C++ signatures).
KEEP_LENGTH = 56
#: Leading tokens kept of a long generated name.
HEAD_LENGTH = 44

#: Element types in template arguments → the short dtype shown (first match in the arguments wins).
_DTYPES = (
    (re.compile(r"\b(?:c10::)?BFloat16\b|__nv_bfloat16|\bbfloat16_t\b|__hip_bfloat16|\bhip_bfloat16\b|\bDF16b"),
     "bf16"),
    (re.compile(r"\b(?:c10::)?Half\b|\b__half\b|\bhalf_t\b|\bDF16_"), "fp16"),
    (re.compile(r"\bFloat8_e4m3\w*"), "fp8_e4m3"),
    (re.compile(r"\bFloat8_e5m2\w*"), "fp8_e5m2"),
    (re.compile(r"(?<![\w:])float\b"), "fp32"),
    (re.compile(r"(?<![\w:])double\b"), "fp64"),
    (re.compile(r"(?<![\w:])(?:long|int64_t)\b(?! long)"), "int64"),
    (re.compile(r"(?<![\w:])bool\b"), "bool"),
)
#: Wrappers around the operation, never the operation itself.
_WRAPPERS = frozenset({
    "BinaryFunctor", "UnaryFunctor", "AUnaryFunctor", "BUnaryFunctor", "ReduceOp", "func_wrapper_t",
    "gpu_kernel_impl", "gpu_kernel_impl_nocast", "OpaqueType", "operator",
})
#: Template names that only wrap the real kernel (its first template argument).
_GENERIC_KERNELS = frozenset({"Kernel", "Kernel2", "kernel", "device_kernel", "Kernel_Wrapper"})
_OPERATION = re.compile(r"[A-Za-z_]\w*(?:Functor\w*|Ops|_functor|Op)\b")
_LAMBDA_HOME = re.compile(r"([A-Za-z_]\w*)(?:<[^<>]*>)?\([^(){}]*\)(?: const)?::\{lambda")
_TILE = re.compile(r"^[A-Za-z]{0,8}\d+x\d+(?:x\d+)*$")
_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}


@lru_cache(maxsize=65536)
def short_name(name: str) -> str:
    """The display name of a kernel or operator (see the module docstring); never empty for a non-empty name.

    Args:
        name: The full name as the profiler recorded it.

    Returns:
        The short display name (``name`` itself when there is nothing to shorten).
    """
    text = str(name).strip()
    if not text:
        return text
    try:
        if text.startswith("_Z"):
            text = _from_mangled(text) or text
        if "<" in text or ("(" in text and "::" in text):
            short = _cpp_short(text)
            if short:
                return short
        if len(text) > KEEP_LENGTH and "_" in text and "/" not in text and " " not in text:
            return _flat_short(text)
    except (ValueError, IndexError):  # a truncated or odd name: show it as it is
        return text
    return text


def short_names(values: Any) -> Any:
    """:func:`short_name` of a pandas Series or Categorical, computed once per distinct value.

    Returns:
        A categorical Series (for a Series) or a Categorical, aligned with ``values``; missing stays missing.
    """
    import numpy as np
    import pandas as pd

    series = values if isinstance(values, pd.Series) else pd.Series(values)
    cat = series if isinstance(series.dtype, pd.CategoricalDtype) else series.astype("category")
    labels = [short_name(str(c)) for c in cat.cat.categories]
    codes, uniques = pd.factorize(pd.Index(labels, dtype=object))
    table = np.append(codes, -1).astype(np.int64)  # the last slot: a missing value stays missing
    old = cat.cat.codes.to_numpy().astype(np.int64)
    out = pd.Categorical.from_codes(table[np.where(old < 0, len(codes), old)],
                                    categories=pd.Index(uniques, dtype=object))
    return pd.Series(out, index=series.index, name=series.name) if isinstance(values, pd.Series) else out


# --- C++ names ------------------------------------------------------------------------------


def _top_level(text: str, stop: str) -> int:
    """Position of the first ``stop`` character outside any bracket (−1 when none)."""
    depth = 0
    for i, ch in enumerate(text):
        if depth == 0 and ch in stop:
            return i
        if ch in _OPEN:
            depth += 1
        elif ch in ")>]}" and depth > 0:
            depth -= 1
    return -1


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` where it is outside every bracket."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            i += len(sep)
            start = i
            continue
        if ch in _OPEN:
            depth += 1
        elif ch in ")>]}" and depth > 0:
            depth -= 1
        i += 1
    parts.append(text[start:])
    return parts


def _cpp_short(text: str) -> str | None:
    """``base<operation<dtype>>`` of a C++ signature, or ``None`` when it does not look like one."""
    text = text.replace("(anonymous namespace)::", "")
    params = _top_level(text, "(")
    qualified = text[:params] if params > 0 else text
    words = _split_top(qualified.strip(), " ")
    qualified = words[-1] if words else qualified
    last = _split_top(qualified, "::")[-1].strip()
    if not last:
        return None
    open_at = last.find("<")
    if open_at <= 0:
        return last if params > 0 or "::" in qualified else None
    base, args = last[:open_at], last[open_at + 1:last.rfind(">")] if ">" in last else last[open_at + 1:]
    if base in _GENERIC_KERNELS:
        inner = _split_top(args, ",")[0].strip()
        if inner:
            return short_name(inner.split("::")[-1] if "<" not in inner else inner)
    operation = _operation(args)
    dtype = _dtype(args)
    if operation and dtype:
        return f"{base}<{operation}<{dtype}>>"
    if operation or dtype:
        return f"{base}<{operation or dtype}>"
    return base


def _operation(args: str) -> str | None:
    """The operation a kernel's template arguments name: a functor/ops type, else a lambda's enclosing function."""
    for match in _OPERATION.finditer(args):
        word = match.group(0)
        if word not in _WRAPPERS:
            return word
    for match in _LAMBDA_HOME.finditer(args):
        if match.group(1) not in _WRAPPERS:
            return match.group(1)
    return None


def _dtype(args: str) -> str | None:
    """The first element type among the template arguments, as a short dtype."""
    best: tuple[int, str] | None = None
    for pattern, label in _DTYPES:
        match = pattern.search(args)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), label)
    return best[1] if best else None


# --- mangled names --------------------------------------------------------------------------


def _source_names(text: str, start: int) -> tuple[list[str], int]:
    """The ``<length><identifier>`` names from ``start`` on (stopping at the first other character)."""
    names, i = [], start
    while i < len(text):
        if text[i] in "rVK" and not names:
            i += 1
            continue
        digits = re.match(r"\d+", text[i:])
        if not digits:
            break
        size = int(digits.group(0))
        begin = i + len(digits.group(0))
        word = text[begin:begin + size]
        if len(word) != size or not re.match(r"[A-Za-z_]", word):
            break
        names.append(word)
        i = begin + size
    return names, i


def _from_mangled(text: str) -> str | None:
    """An Itanium-mangled name read far enough to shorten: ``ns::name<identifiers of its arguments>``."""
    i = 2
    if text[i:i + 1] == "N":
        i += 1
    names, i = _source_names(text, i)
    if not names:
        return None
    qualified = "::".join(names)
    if text[i:i + 1] != "I":
        return qualified
    words = _argument_words(text[i + 1:])
    return f"{qualified}<{', '.join(words)}>"


def _argument_words(rest: str) -> list[str]:
    """Identifiers (and bf16/fp16 builtin types) among a mangled name's template arguments, in order."""
    words: list[str] = []
    i = 0
    while i < len(rest):
        literal = re.match(r"L[a-z]n?\d+E", rest[i:])
        if literal:  # an integer template argument (Li128E)
            i += len(literal.group(0))
            continue
        builtin = {"DF16b": "BFloat16", "DF16_": "Half"}.get(rest[i:i + 5])
        if builtin:
            words.append(builtin)
            i += 5
            continue
        digits = re.match(r"\d+", rest[i:])
        if digits:
            size, begin = int(digits.group(0)), i + len(digits.group(0))
            word = rest[begin:begin + size]
            if len(word) == size and re.fullmatch(r"[A-Za-z_]\w*", word):
                words.append(word)
                i = begin + size
                continue
            i = begin
            continue
        i += 1
    return words


# --- generated names ------------------------------------------------------------------------


def _flat_short(text: str) -> str:
    """The leading tokens (Tensile ``Cijk``: the first only) and the tile token of a long generated name."""
    tokens = [t for t in text.split("_") if t]
    head = [tokens[0]]
    if tokens[0] != "Cijk":
        for token in tokens[1:]:
            if len("_".join([*head, token])) > HEAD_LENGTH:
                break
            head.append(token)
    rest = tokens[len(head):]
    tile = next((t for t in rest if _TILE.match(t)), None)
    return "_".join(head) + "_…" + (tile or "")
