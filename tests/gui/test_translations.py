"""zh_CN: every UI string is translated, placeholders survive, the window speaks Chinese."""

from __future__ import annotations

import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "mfu_desktop_zh_CN.ts"
sys.path.insert(0, str(ROOT / "tools"))

pytestmark = pytest.mark.gui


def lupdate_available() -> bool:
    return Path(sys.executable).with_name("pyside6-lupdate").exists() or shutil.which("pyside6-lupdate") is not None


@pytest.mark.skipif(not lupdate_available(), reason="pyside6-lupdate not installed (comes with PySide6)")
def test_every_ui_string_is_translated_and_the_qm_is_current(capsys):
    import update_translations

    status = update_translations.main(["--check"])
    out = capsys.readouterr().out
    assert status == 0, f"untranslated strings or stale .qm — run python tools/update_translations.py:\n{out}"


def test_translations_keep_placeholders_and_use_the_glossary():
    messages = []
    for context in ET.parse(TS).getroot().iter("context"):
        for m in context.iter("message"):
            messages.append((context.findtext("name"), m.findtext("source"), m.find("translation").text or ""))
    assert len(messages) > 400
    for context, source, translation in messages:
        assert sorted(re.findall(r"\{\w*\}", source)) == sorted(re.findall(r"\{\w*\}", translation)), (context, source)
    zh = {(c, s): t for c, s, t in messages}
    assert zh[("ProfilerTab", "End-to-end step MFU")] == "端到端 step MFU"
    assert zh[("Columns", "Comm not overlapped (µs)")] == "未掩盖通信 (µs)"
    assert zh[("Columns", "Operator MFU")] == "算子达成率"
    assert zh[("StepBreakdownChart", "free")] == "空闲时间"
    assert zh[("HotOpsChart", "Hot operators")] == "热点算子"
    assert zh[("CatalogEditor", "Chip catalog")] == "芯片规格库"


def test_window_in_chinese(make_window, qtbot):
    from tests.gui.conftest import wait_idle

    window = make_window("--lang", "zh_CN", "--demo")
    wait_idle(qtbot, window, timeout=120000)
    assert [window.tabs.tabText(i) for i in range(3)] == ["计算器", "Profiling 分析", "跨芯片预估"]
    assert window.menuBar().actions()[0].text() == "文件(&F)"
    assert window.profiler.card_step.caption.text() == "端到端 step MFU"
    assert window.calculator.card_mfu.caption.text() == "MFU"
    assert "公式" in window.calculator.derivation.toPlainText()


def test_help_pages_in_both_languages(qtbot):
    from mfu_desktop.gui.dialogs.help_dialogs import about_dialog, formulas_dialog, user_guide_dialog

    en = formulas_dialog("en")
    zh = formulas_dialog("zh_CN")
    for dialog in (en, zh):
        qtbot.addWidget(dialog)
    assert "Formulas and conventions" in en.browser.toPlainText() and "45.7 %" in en.browser.toPlainText()
    assert "公式与口径" in zh.browser.toPlainText() and "端到端 step MFU" in zh.browser.toPlainText()
    guide = user_guide_dialog()
    qtbot.addWidget(guide)
    text = guide.browser.toPlainText()
    assert "Capturing a profile" in text and "Troubleshooting" in text
    image = guide.browser.document().resource(2, "screenshots/en-profiler.png")  # 2 = ImageResource
    assert image is not None and not image.isNull(), "the guide's screenshots do not resolve"
    about = about_dialog()
    qtbot.addWidget(about)
    assert "MFU Desktop" in about.browser.toPlainText()
