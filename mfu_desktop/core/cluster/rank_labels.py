"""Which rank is which: one display label per rank, told apart everywhere a rank is named.

Six folders each holding a "rank 0" showed six identical "rank 0" rows, traces without a rank
id showed as "rank −1 … −5 (no id)", and the step chart's x-axis read "0 0 0 0 0 0 1 1". Every
front end names ranks through :func:`rank_labels`: a rank with an id is "rank N", one without
is named by its file or folder; where two labels would be equal the shortest part of the path
(relative to the opened root) that tells them apart is added. The source line says where a rank
comes from, its format (text / db / msprof / trace) and its capture level.

Pure Python over rank documents (``path``, ``rank``, ``format``, ``kernel_source``, ``capture``,
``rank_origin``): the window, the exports and the cached command line share it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

#: Suffixes of trace files left out of a name ("worker0.pt.trace.json.gz" → "worker0").
_TRACE_SUFFIXES = (".gz", ".json", ".trace", ".pt")


@dataclass(frozen=True)
class RankLabel:
    """How a rank is named.

    Attributes:
        label: In lists and titles: ``rank 3``, ``rank 3 · job_a`` (a duplicate), ``bert_h100`` (no id).
        axis: On a crowded chart axis: ``3``, ``3 · job_a``, ``bert_h100``.
        source: Where it comes from: ``job_a/node0_ascend_pt · text · Level1``.
        where: Its folder or file relative to the opened root.
        format: ``text``, ``db``, ``msprof``, ``trace`` (or the reader's name).
        level: The capture level (``Level1``), or ``""`` when not recorded.
    """

    label: str
    axis: str
    source: str
    where: str
    format: str
    level: str


def rank_format(doc: Mapping[str, Any]) -> str:
    """The format a rank was read from: ``trace``, ``msprof``, ``db`` or ``text``."""
    reader = str(doc.get("format") or "")
    if reader == "kineto":
        return "trace"
    if reader == "ascend":
        match = re.match(r"kernels from (\S+)", str(doc.get("kernel_source") or ""))
        return "db" if match and match.group(1).endswith(".db") else "text"
    return reader


def capture_level(doc: Mapping[str, Any]) -> str:
    """The capture level (``Level0`` … ``Level2``) the rank's capture line names, or ``""``."""
    first = str(doc.get("capture") or "").split(",")[0].strip()
    return first if first.startswith("Level") else ""


def relative_place(path: str, roots: Sequence[str]) -> str:
    """``path`` relative to the opened root that holds it (the root's own name when it is the root)."""
    p = PurePath(path)
    best = None
    for root in roots:
        r = PurePath(root)
        if p == r:
            candidate = PurePath(r.name or str(r))
        elif r in p.parents:
            candidate = PurePath(r.name) / p.relative_to(r) if r.name else p.relative_to(r)
        else:
            continue
        if best is None or len(candidate.parts) < len(best.parts):
            best = candidate
    return (best or PurePath(p.name or str(p))).as_posix()


def file_stem(name: str) -> str:
    """A trace file's name without its ``.pt.trace.json.gz`` suffixes."""
    stem = name
    while True:
        for suffix in _TRACE_SUFFIXES:
            if stem.lower().endswith(suffix) and len(stem) > len(suffix):
                stem = stem[: -len(suffix)]
                break
        else:
            return stem


def distinct_tails(places: Sequence[str]) -> list[str]:
    """For each path, the fewest trailing components that no other path ends with (whole when needed)."""
    parts = [PurePath(p).parts for p in places]
    out = []
    for i, own in enumerate(parts):
        others = [q for j, q in enumerate(parts) if j != i]
        for n in range(1, len(own) + 1):
            tail = own[-n:]
            if all(q[-n:] != tail for q in others):
                break
        out.append("/".join(own[-n:]) if own else "")
    return out


def rank_labels(documents: Sequence[Mapping[str, Any]], roots: Sequence[str]) -> list[RankLabel]:
    """Every rank's :class:`RankLabel`, in document order, ranks that share an id told apart.

    Args:
        documents: Rank documents (or any mappings with ``rank``, ``path``, ``rank_origin``, ``format``,
            ``kernel_source``, ``capture``).
        roots: The paths the user opened.
    """
    places = [relative_place(str(d.get("path") or ""), roots) for d in documents]
    known = [str(d.get("rank_origin") or "") != "unknown" for d in documents]
    bases = [f"rank {d.get('rank')}" if k else file_stem(PurePath(place).name)
             for d, k, place in zip(documents, known, places)]
    labels, axes = list(bases), [str(d.get("rank")) if k else b for d, k, b in zip(documents, known, bases)]
    groups: dict[str, list[int]] = {}
    for i, base in enumerate(bases):
        groups.setdefault(base, []).append(i)
    for members in (m for m in groups.values() if len(m) > 1):
        tails = distinct_tails([_parent_first(places[i], known[i]) for i in members])
        for i, tail in zip(members, tails):
            labels[i] = f"{bases[i]} · {tail}" if tail else bases[i]
            axes[i] = f"{axes[i]} · {PurePath(tail).parts[0] if tail else ''}".rstrip(" ·")
    _number_remaining(labels, axes)
    out = []
    for d, place, label, axis in zip(documents, places, labels, axes):
        fmt, level = rank_format(d), capture_level(d)
        source = " · ".join(part for part in (place, fmt, level) if part)
        out.append(RankLabel(label, axis, source, place, fmt, level))
    return out


def _parent_first(place: str, known: bool) -> str:
    """The part of a place that tells equal labels apart: a rank with an id by its folders, else by its parents."""
    parts = PurePath(place).parts
    return "/".join(parts if known else parts[:-1]) or place


def _number_remaining(labels: list[str], axes: list[str]) -> None:
    """Labels still equal after the paths (the same folder opened twice) get "#2", "#3" … (in place)."""
    seen: dict[str, int] = {}
    for i, label in enumerate(labels):
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            labels[i] = f"{label} #{seen[label]}"
            axes[i] = f"{axes[i]} #{seen[label]}"
