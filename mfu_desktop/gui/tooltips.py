"""Tooltips that fit the screen: long plain-text lines wrapped before Qt shows them.

Qt shows a plain-text tooltip on one line per line of text: a rank's warning (a 300-character
sentence) ran past the right edge of a 1280 px screen. :func:`wrap_tip` folds each long line at
its spaces (Chinese text, which has none, at a character count of half the width).
"""

from __future__ import annotations

import textwrap

#: Characters per tooltip line (Latin text; Chinese lines get half, their characters being twice as wide).
TIP_WIDTH = 90
#: Lines a tooltip shows at most (an 8,600-character C++ kernel name would fill the screen); then "…".
TIP_MAX_LINES = 30


def _mostly_wide(line: str) -> bool:
    """True when most characters of ``line`` are CJK (each as wide as two Latin ones)."""
    wide = sum(1 for ch in line if ord(ch) >= 0x2E80)
    return wide * 2 > len(line)


def wrap_tip(text: str, width: int = TIP_WIDTH, max_lines: int = TIP_MAX_LINES) -> str:
    """``text`` with every line longer than ``width`` characters folded (existing line breaks kept).

    At most ``max_lines`` lines: a longer text ends with "…" (the whole of it is in the detail pane or the export).
    """
    out = []
    for line in text.split("\n"):
        room = width // 2 if _mostly_wide(line) else width
        if len(line) <= room:
            out.append(line)
            continue
        out.extend(textwrap.wrap(line, width=room, break_on_hyphens=False, drop_whitespace=True) or [line])
    if len(out) > max_lines:
        out = [*out[:max_lines - 1], "…"]
    return "\n".join(out)
