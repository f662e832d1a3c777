"""Build the Chinese font the app ships: a subset of Noto Sans CJK SC (SIL Open Font License 1.1).

Usage::

    python -m pip install ".[fonts]"        # fontTools + noto-cjk-sans-otc (the OFL font, from PyPI)
    python tools/build_font_subset.py       # writes resources/fonts/NotoSansCJKsc-MFUDesktop.otf + OFL.txt
    python tools/build_font_subset.py --check   # exit 1 when a character the UI uses is not in the subset

The subset holds every non-ASCII character of the zh_CN translation, of the GUI sources (the
Chinese terms of the English UI, "算子达成率" …), of the engine's messages and of the bundled
help pages, plus the 3,755 common characters of GB2312 level 1 and CJK punctuation, so that
Chinese folder and kernel names render too. Re-run it after adding Chinese text; the test
``tests/gui/test_fonts.py`` fails until the subset covers it.

The app registers the file at start-up only when no system font covers Simplified Chinese
(a system CJK font still wins): see ``mfu_desktop/gui/fonts.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FONT_DIR = ROOT / "resources" / "fonts"
FONT_FILE = FONT_DIR / "NotoSansCJKsc-MFUDesktop.otf"
#: Index of "Noto Sans CJK SC" in NotoSansCJK-Regular.ttc (JP, KR, SC, TC, HK, then the Mono faces).
SC_INDEX = 2
#: Text sources whose characters the subset must cover.
SOURCES = ("resources/translations/*.ts", "mfu_desktop/**/*.py", "resources/docs/*.md")
#: Always kept: names users write in their folder, file and kernel names that GB2312 level 1 lacks
#: (昇腾 Ascend, 鲲鹏 Kunpeng, 昇思 MindSpore).
DOMAIN_TEXT = "昇腾鲲鹏昇思"
#: Always kept: CJK punctuation, full-width forms, arrows and symbols the UI draws.
EXTRA_RANGES = ((0x3000, 0x303F), (0xFF00, 0xFFEF), (0x2000, 0x206F), (0x2190, 0x21FF), (0x2200, 0x22FF),
                (0x00A0, 0x00FF), (0x0370, 0x03FF), (0x2070, 0x209F), (0x25A0, 0x25FF))


def gb2312_level1() -> set[str]:
    """The 3,755 most common simplified characters (GB2312 level 1, rows 16–55)."""
    out = set()
    for high in range(0xB0, 0xD8):
        for low in range(0xA1, 0xFF):
            try:
                out.add(bytes([high, low]).decode("gb2312"))
            except UnicodeDecodeError:
                continue
    return out


def used_characters() -> set[str]:
    """Every non-ASCII character of the UI's text sources."""
    chars: set[str] = set()
    for pattern in SOURCES:
        for path in ROOT.glob(pattern):
            chars.update(c for c in path.read_text(encoding="utf-8") if ord(c) > 0x7F)
    return chars


def wanted_characters() -> set[str]:
    """What the subset keeps."""
    chars = used_characters() | gb2312_level1() | set(DOMAIN_TEXT)
    for lo, hi in EXTRA_RANGES:
        chars.update(chr(c) for c in range(lo, hi + 1))
    chars.update(chr(c) for c in range(0x20, 0x7F))
    return {c for c in chars if not (0xD800 <= ord(c) <= 0xDFFF)}


def source_font() -> Path:
    """NotoSansCJK-Regular.ttc from the noto-cjk-sans-otc package."""
    try:
        import noto_cjk_sans_otc  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit('noto-cjk-sans-otc is not installed: python -m pip install ".[fonts]"') from None
    return Path(noto_cjk_sans_otc.__file__).parent / "NotoSansCJK-Regular.ttc"


def build() -> tuple[int, int]:
    """Write the subset and the licence; returns (characters asked, glyphs kept)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    chars = wanted_characters()
    font = TTFont(source_font(), fontNumber=SC_INDEX)
    options = subset.Options()  # fontTools' default layout features (kerning, ligatures, locl …)
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.hinting = False
    options.desubroutinize = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    FONT_DIR.mkdir(parents=True, exist_ok=True)
    font.save(FONT_FILE)
    license_src = next(source_font().parent.parent.glob("noto_cjk_sans_otc-*.dist-info/licenses/LICENSE"), None)
    if license_src is not None:
        (FONT_DIR / "OFL.txt").write_text(license_src.read_text(encoding="utf-8"), encoding="utf-8")
    return len(chars), len(font.getGlyphOrder())


def is_cjk(c: str) -> bool:
    """Characters this font is responsible for (Latin, Greek and symbols come from the UI font)."""
    code = ord(c)
    return (0x2E80 <= code <= 0x9FFF) or (0xF900 <= code <= 0xFAFF) or (0xFF00 <= code <= 0xFFEF) or \
        (0x3000 <= code <= 0x303F) or (0x20000 <= code <= 0x2FFFF)


def missing_from_subset() -> list[str]:
    """CJK characters the UI uses that the shipped subset lacks (needs fontTools)."""
    from fontTools.ttLib import TTFont

    cmap = TTFont(FONT_FILE).getBestCmap()
    return sorted(c for c in used_characters() if is_cjk(c) and ord(c) not in cmap)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--check", action="store_true", help="only check that the shipped subset covers the UI")
    args = parser.parse_args(argv)
    if args.check:
        missing = missing_from_subset()
        if missing:
            print(f"{len(missing)} character(s) missing from {FONT_FILE.name}: {''.join(missing[:80])}")
            return 1
        print(f"{FONT_FILE.name} covers every character the UI uses")
        return 0
    asked, glyphs = build()
    print(f"wrote {FONT_FILE.relative_to(ROOT)}: {glyphs:,} glyphs for {asked:,} characters, "
          f"{FONT_FILE.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
