"""Chinese text on every machine: the shipped Noto Sans CJK SC subset, as a fallback only.

Many Linux machines (containers, fresh installs) have no CJK font; Qt then draws "算子达成率"
as empty boxes and the zh_CN interface is unreadable. The app ships a subset of Noto Sans CJK
SC (SIL OFL 1.1, ``resources/fonts``; ``tools/build_font_subset.py`` makes it). At start-up it
is registered **only when no system font covers Simplified Chinese**, and then only as the
fallback of the interface font (a system CJK font, when present, still wins).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

from mfu_desktop.core.paths import resources_dir

#: The shipped subset (see tools/build_font_subset.py).
FONT_FILE = "fonts/NotoSansCJKsc-MFUDesktop.otf"


@dataclass(frozen=True)
class CjkFont:
    """Which font draws Chinese text, and why."""

    family: str | None
    shipped: bool
    note: str


def system_cjk_families() -> list[str]:
    """Font families of the system that cover Simplified Chinese (the shipped one excluded)."""
    families = QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
    return [f for f in families if "MFUDesktop" not in f and f != "Noto Sans CJK SC MFUDesktop"]


def install_cjk_fallback(app: QApplication, force: bool = False) -> CjkFont:
    """Register the shipped CJK subset as the interface font's fallback when the system has none.

    Args:
        app: The application (its font gets the fallback family).
        force: Register the shipped font even when a system CJK font exists (tests).

    Returns:
        The family that draws Chinese text and a note for the About box and the logs.
    """
    system = system_cjk_families()
    if system and not force:
        return CjkFont(system[0], False, f"Chinese text: system font {system[0]}")
    path = resources_dir() / FONT_FILE
    font_id = QFontDatabase.addApplicationFont(str(path)) if path.exists() else -1
    if font_id < 0:
        return CjkFont(None, False, f"Chinese text: no CJK font (the shipped {path.name} could not be loaded)")
    family = QFontDatabase.applicationFontFamilies(font_id)[0]
    ui = app.font()
    families = [f for f in (ui.families() or [ui.family()]) if f != family]
    ui.setFamilies([*families, family])  # tried in order, per character: the UI font first
    app.setFont(ui)
    for primary in families:
        QFont.insertSubstitution(primary, family)  # widgets that set their own font fall back too
    return CjkFont(family, True, f"Chinese text: shipped {family} (no system CJK font found)")
