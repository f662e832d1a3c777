"""The cache never serves a stale or damaged entry, and can be seen and emptied from the command line.

Before (issue 22): a file edited with its size kept and its mtime restored (``touch -r``) was
served from the cache; the "analyse.done marker absent" warning stayed after the marker
appeared; a damaged pickle raising KeyError/AssertionError/OverflowError/NotImplementedError
crashed every later run; ``.tmp`` files of interrupted writes were never pruned; nothing told
where the cache was or cleared it from the command line.
"""

from __future__ import annotations

import os
import pickle
import time

import pytest

from mfu_desktop.cli.main import main as mfu
from mfu_desktop.core.analysis.options import AnalysisOptions
from mfu_desktop.core.paths import user_cache_dir
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.readers.discovery import discover
from mfu_desktop.core.store import cache
from tests.helpers import kernel_row, make_rank

SHAPES = ("4096,4096;4096,4096", "DT_BF16;DT_BF16", "4096,4096", "DT_BF16")


def _rank(tmp_path, dur: str = "800.0", done: bool = True):
    rows = [kernel_row(f"mm{i}", "MatMulV2", "AI_CORE", f"{1767225600000000 + i * 1000}.000", dur, *SHAPES)
            for i in range(2)]
    return make_rank(tmp_path, "r_ascend_pt", 0, rows, done=done)


def _mfu(path) -> float:
    return analyze_paths([path], AnalysisOptions(chip="910B2")).ranks[0].summary.mfu_ops


def test_a_same_size_edit_with_the_mtime_restored_is_seen(tmp_path):
    rank = _rank(tmp_path)
    csv = rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    before = _mfu(tmp_path)
    assert _mfu(tmp_path) == before  # served from the cache
    st = csv.stat()
    csv.write_bytes(csv.read_bytes().replace(b",800.0,", b",400.0,"))  # same size: twice as fast
    os.utime(csv, ns=(st.st_atime_ns, st.st_mtime_ns))  # what touch -r and copy tools do
    assert csv.stat().st_size == st.st_size and csv.stat().st_mtime_ns == st.st_mtime_ns
    assert _mfu(tmp_path) == pytest.approx(2 * before)  # 2·2·4096³ FLOPs in 800 µs instead of 1600 µs


def test_the_content_sample_sees_an_edit_the_stat_does_not(tmp_path):
    """Only the sampled bytes differ (as on a file system that does not keep ctime): the identity still does."""
    path = tmp_path / "big.csv"
    path.write_bytes(bytes(range(256)) * 40_000)  # 10 MB: its ends and samples are hashed, not the whole file
    st = path.stat()
    first = cache.input_identity(path)
    data = bytearray(path.read_bytes())
    data[-10] ^= 1
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    second = cache.input_identity(path)
    assert first[:4] == second[:4]  # path, size, mtime, inode
    assert first[5] != second[5]


def test_the_finished_marker_is_part_of_the_key(tmp_path):
    rank = _rank(tmp_path, done=False)
    warning = "analyse.done marker absent"
    assert any(warning in w for w in analyze_paths([tmp_path]).ranks[0].warnings)
    (rank / "ASCEND_PROFILER_OUTPUT" / "analyse.done").write_text("")
    assert not any(warning in w for w in analyze_paths([tmp_path]).ranks[0].warnings)  # before: still there


def explode(kind: str) -> None:
    """What a damaged pickle does while it loads (referenced by the crafted entries below)."""
    raise {"KeyError": KeyError, "AssertionError": AssertionError, "OverflowError": OverflowError,
           "NotImplementedError": NotImplementedError, "RecursionError": RecursionError}[kind]("damaged")


class _Damaged:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __reduce__(self):
        return explode, (self.kind,)


@pytest.mark.parametrize("kind", ["KeyError", "AssertionError", "OverflowError", "NotImplementedError",
                                  "RecursionError"])
def test_any_damaged_entry_is_a_miss_and_is_rewritten(tmp_path, kind):
    _rank(tmp_path)
    expected = _mfu(tmp_path)
    folder = discover([tmp_path]).ranks[0]
    key = cache.cache_key(folder)
    entry = cache.entry(key, "ranks", ".pkl")
    entry.write_bytes(pickle.dumps(_Damaged(kind)))
    for path in (user_cache_dir() / "analysis").iterdir():  # the analyses too
        if path.suffix == ".pkl":
            path.write_bytes(pickle.dumps(_Damaged(kind)))
        elif path.suffix == ".json":
            path.write_text("[" * 100_000)
    result = analyze_paths([tmp_path], AnalysisOptions(chip="910B2"))  # before: the exception, at every run
    assert not result.failures and result.ranks[0].summary.mfu_ops == pytest.approx(expected)
    assert type(pickle.loads(entry.read_bytes())).__name__ == "RankData"  # replaced by a good entry


def test_interrupted_writes_are_pruned(tmp_path):
    folder = user_cache_dir() / "ranks"
    folder.mkdir(parents=True)
    old, fresh = folder / "tmpold.tmp", folder / "tmpfresh.tmp"
    old.write_bytes(b"x" * 100)
    fresh.write_bytes(b"y")
    past = time.time() - 2 * cache.STALE_TMP_SECONDS
    os.utime(old, (past, past))
    cache.write_pickle("k" * 32, "ranks", {"a": 1})  # every write prunes its folder
    assert not old.exists() and fresh.exists()  # a write in progress elsewhere is left alone


def test_cache_command_and_help_say_where_and_how_big(tmp_path, capsys):
    _rank(tmp_path)
    analyze_paths([tmp_path])
    size, files = cache.cache_size()
    assert size > 0 and files >= 4
    with pytest.raises(SystemExit):
        mfu(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"cache of parsed profiles: {user_cache_dir()} (" in help_text and "mfu cache clear empties it" in help_text
    assert mfu(["cache"]) == 0
    assert f"in {files} files" in capsys.readouterr().out
    assert mfu(["cache", "clear"]) == 0
    assert capsys.readouterr().out.startswith(f"removed {files} files (")
    assert cache.cache_size() == (0, 0)
