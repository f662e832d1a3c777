"""A cluster folder whose members are damaged in the ways file systems damage them, fuzzed.

Each case is a cluster root with one good rank and 1–4 members damaged by a mutation drawn
from the classes of issue 22: a FIFO where the kernel file should be, a folder that cannot be
listed, links out of the root (to a folder of ranks, to a secret file), a dangling link, a link
loop, an empty rank folder, a damaged ``.json.gz`` trace, a rank id beyond int64, and a
same-size edit of a cached rank with its mtime restored. Invariants: the run ends (a FIFO never
blocks it), the good rank is analysed, every damaged member is a failed rank, a warning or an
analysed rank — never an exception —, nothing outside the root is read or quoted, the JSON is
valid, and a cached result always equals a fresh one.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.numbers import json_text
from mfu_desktop.core.pipeline.analyze import analyze_paths
from tests.hardening.conftest import CASES
from tests.hardening.test_fuzz_parsers import FUZZ
from tests.helpers import kernel_row, make_rank

SECRET = "AKIA-NEVER-QUOTE-ME"
MUTATIONS = ["fifo", "unlistable", "link_to_ranks", "link_to_secret", "dangling", "loop", "empty", "gzip",
             "huge_rank", "same_size_edit"]


def _row(dur: str = "800.0") -> str:
    return kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.000", dur, "4096,4096;4096,4096",
                      "DT_BF16;DT_BF16", "4096,4096", "DT_BF16")


def _damage(root: Path, outside: Path, index: int, kind: str, denied: list[str]) -> None:
    """Make member ``index`` of the cluster under ``root`` damaged in the way ``kind`` says."""
    name = f"m{index}_ascend_pt"
    if kind == "fifo" and hasattr(os, "mkfifo"):
        csv = make_rank(root, name, index, [_row()]) / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
        csv.unlink()
        os.mkfifo(csv)
    elif kind == "unlistable":
        denied.append(str(make_rank(root, name, index, [_row()])))
    elif kind == "link_to_ranks":
        (root / f"link{index}").symlink_to(outside)
    elif kind == "link_to_secret":
        csv = make_rank(root, name, index, [_row()]) / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
        csv.unlink()
        csv.symlink_to(outside / "secret.csv")
    elif kind == "dangling":
        (root / f"gone{index}").symlink_to(root / "nowhere")
    elif kind == "loop":
        (root / f"loop{index}").symlink_to(root)
    elif kind == "empty":
        (root / name).mkdir()
    elif kind == "gzip":
        packed = bytearray(gzip.compress(b'{"traceEvents": [' + b'{"ph": "X", "ts": 1, "dur": 2},' * 300 + b"{}]}"))
        packed[30:50] = bytes(20)
        (root / f"gpu{index}.json.gz").write_bytes(bytes(packed))
    elif kind == "huge_rank":
        make_rank(root, name, 2**63 + index, [_row()])
    else:  # same_size_edit: a rank like the good one (the edit happens after the first, cached, run)
        make_rank(root, name, index, [_row()])


def _analyse(root: Path, use_cache: bool):
    """The analysis, in a thread that must end (a FIFO opened for reading would block it for good)."""
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(analyze_paths([root], AnalysisOptions(chip="910B2"),
                                                                       use_cache=use_cache)), daemon=True)
    worker.start()
    worker.join(120)
    if worker.is_alive():
        for rank in root.glob("m*_ascend_pt"):
            fifo = rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
            if fifo.is_fifo():
                with open(fifo, "wb"):
                    pass
        pytest.fail("the analysis blocked")
    assert done, "the analysis raised"
    return done[0]


def _denying(denied: list[str]):
    """os.scandir/os.stat as for a user without rights on the ``denied`` folders (as root sees none)."""
    real_scandir, real_stat = os.scandir, os.stat

    def blocked(path) -> bool:
        text = os.fspath(path)
        return any(text == d or text.startswith(d + os.sep) for d in denied)

    def scandir(path="."):
        if blocked(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def stat(path, *args, **kwargs):
        if not isinstance(path, int) and any(os.fspath(path).startswith(d + os.sep) for d in denied):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    return scandir, stat


@settings(FUZZ, max_examples=15)
@given(plan=st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=4))
def test_a_cluster_with_damaged_members(tmp_path_factory, plan):
    CASES["cluster folders with damaged members"] += 1
    base = tmp_path_factory.mktemp("fs")
    root, outside = base / "cluster", base / "outside"
    make_rank(outside, "x9_ascend_pt", 9, [_row()])
    (outside / "secret.csv").write_text(f"{SECRET},token\n1,2\n")
    make_rank(root, "m0_ascend_pt", 0, [_row()])
    denied: list[str] = []
    for i, kind in enumerate(plan, start=1):
        _damage(root, outside, i, kind, denied)
    with pytest.MonkeyPatch.context() as patch:
        scandir, stat = _denying(denied)
        patch.setattr(os, "scandir", scandir)
        patch.setattr(os, "stat", stat)
        cached = _analyse(root, use_cache=True)
        if "same_size_edit" in plan:  # 800 → 400 µs, same size, mtime restored: never served stale
            csv = root / f"m{plan.index('same_size_edit') + 1}_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / \
                "kernel_details.csv"
            st_before = csv.stat()
            csv.write_bytes(csv.read_bytes().replace(b",800.0,", b",400.0,"))
            os.utime(csv, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))
            cached = _analyse(root, use_cache=True)
        fresh = _analyse(root, use_cache=False) if "same_size_edit" in plan else cached
    doc = json.loads(json_text(cached.document(), default=str), parse_constant=lambda c: pytest.fail(c))
    assert 0 in [r.rank for r in cached.ranks]  # the good rank
    assert 9 not in [r.rank for r in cached.ranks]  # nothing from outside the root
    assert SECRET not in json.dumps(doc)
    assert all(f.reason for f in cached.failures)
    assert not any("(unexpected " in f.reason for f in cached.failures)
    assert [(r.rank, r.summary.mfu_ops) for r in cached.ranks] == [(r.rank, r.summary.mfu_ops) for r in fresh.ranks]
    shutil.rmtree(base, ignore_errors=True)
