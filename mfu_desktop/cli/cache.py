"""``mfu cache``: where the cache of parsed profiles is and how big; ``mfu cache clear`` empties it."""

from __future__ import annotations

import argparse

from mfu_desktop.cli.common import EXIT_OK
from mfu_desktop.core.paths import user_cache_dir
from mfu_desktop.core.store.cache import cache_size, clear


def size_text(size: int) -> str:
    """Bytes in the unit a person reads (``1.2 GB``, ``340 KB``)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def cache_line() -> str:
    """One line: where the cache is, its size, and how to empty it (``mfu --help``'s epilog and ``mfu cache``)."""
    size, files = cache_size()
    return (f"cache of parsed profiles: {user_cache_dir()} ({size_text(size)} in {files} files; "
            "mfu cache clear empties it; MFU_DESKTOP_CACHE_DIR moves it)")


def cmd_cache(args: argparse.Namespace) -> int:
    """``mfu cache [clear]``."""
    if args.action == "clear":
        size, _ = cache_size()
        removed = clear()
        print(f"removed {removed} files ({size_text(size)}) from {user_cache_dir()}")
        return EXIT_OK
    print(cache_line())
    return EXIT_OK


def add_command(sub: argparse._SubParsersAction) -> None:
    """Register ``cache`` on the ``mfu`` parser."""
    p = sub.add_parser("cache", help="where the cache of parsed profiles is and its size; 'clear' empties it")
    p.add_argument("action", nargs="?", choices=["clear"], help="clear: delete every cached rank and analysis "
                   "(they are rebuilt when next opened)")
    p.set_defaults(func=cmd_cache)
