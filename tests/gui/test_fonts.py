"""Chinese renders on every machine: the shipped Noto Sans CJK SC subset, used only when the system has none."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtGui import QFont, QFontMetrics

from mfu_desktop.gui import fonts

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "mfu_desktop_zh_CN.ts"
CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")

pytestmark = pytest.mark.gui


def translation_characters() -> set[str]:
    chars: set[str] = set()
    for message in ET.parse(TS).getroot().iter("message"):
        chars.update(c for c in (message.findtext("translation") or "") if ord(c) > 0x7F and not c.isspace())
    return chars


def ui_cjk_characters() -> set[str]:
    """Chinese in the English UI ("算子达成率"), the engine's messages and the help pages."""
    chars: set[str] = set()
    for path in [*ROOT.glob("mfu_desktop/**/*.py"), *ROOT.glob("resources/docs/*.md")]:
        chars.update(CJK.findall(path.read_text(encoding="utf-8")))
    return chars


def test_every_character_of_the_translation_resolves_in_the_window_font(make_window, qtbot):
    from PySide6.QtWidgets import QApplication

    window = make_window("--lang", "zh_CN")
    app = QApplication.instance()
    assert app.property("cjk_font")  # the start-up said which font draws Chinese
    chars = translation_characters() | ui_cjk_characters()
    assert len(chars) > 300
    for font in (app.font(), window.profiler.card_step.value.font(), window.tabs.font()):
        metrics = QFontMetrics(font)
        missing = sorted(c for c in chars if not metrics.inFontUcs4(ord(c)))
        assert not missing, f"{len(missing)} characters would show as boxes: {''.join(missing[:60])}"


def test_the_shipped_font_is_a_fallback_only(qapp, monkeypatch):
    before = qapp.font()
    monkeypatch.setattr(fonts, "system_cjk_families", lambda: ["Some System CJK"])
    result = fonts.install_cjk_fallback(qapp)
    assert not result.shipped and result.family == "Some System CJK"
    assert qapp.font().families() == before.families()  # a system CJK font wins: nothing changed
    monkeypatch.setattr(fonts, "system_cjk_families", lambda: [])
    result = fonts.install_cjk_fallback(qapp)
    try:
        assert result.shipped and result.family == "Noto Sans CJK SC"
        families = qapp.font().families()
        assert families[-1] == "Noto Sans CJK SC" and families[0] != "Noto Sans CJK SC"  # the UI font first
        assert QFontMetrics(qapp.font()).inFontUcs4(ord("算"))
        primary = QFont(qapp.font())
        primary.setFamilies([families[0]])
        # Latin text is still drawn by the UI font
        assert QFontMetrics(qapp.font()).horizontalAdvance("MFU") == QFontMetrics(primary).horizontalAdvance("MFU")
    finally:
        qapp.setFont(before)


def test_the_subset_ships_with_its_licence():
    folder = ROOT / "resources" / "fonts"
    assert (folder / "NotoSansCJKsc-MFUDesktop.otf").stat().st_size < 3_000_000
    assert "SIL Open Font License" in (folder / "OFL.txt").read_text(encoding="utf-8")


def test_the_subset_draws_the_names_users_write_beyond_gb2312_level_1(qapp):
    """昇腾 (Ascend) is in no UI string, but in users' folder and file names: 昇 is GB2312 level 2."""
    from PySide6.QtGui import QRawFont

    font = QRawFont(str(ROOT / "resources" / fonts.FONT_FILE), 12)
    assert font.isValid()
    glyphs = {character: font.glyphIndexesForString(character)[0] for character in "昇腾鲲鹏昇思龘"}
    assert all(glyphs[c] != 0 for c in "昇腾鲲鹏昇思"), glyphs
    assert glyphs["龘"] == 0  # a subset, not the whole font: glyph 0 (.notdef) is what a missing one gets
