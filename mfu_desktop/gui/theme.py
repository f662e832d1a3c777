"""Light and dark themes; the system's colour scheme is followed by default."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication


def system_is_dark() -> bool:
    """True when the platform reports a dark colour scheme."""
    hints = QGuiApplication.styleHints()
    try:
        return hints.colorScheme() == Qt.ColorScheme.Dark
    except AttributeError:  # Qt < 6.5
        return False


def effective_theme(choice: str) -> str:
    """``system`` resolved to ``light`` or ``dark``."""
    if choice in ("light", "dark"):
        return choice
    return "dark" if system_is_dark() else "light"


def _dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor(37, 37, 38), QColor(45, 45, 48), QColor(230, 230, 230)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        p.setColor(group, QPalette.ColorRole.Window, window)
        p.setColor(group, QPalette.ColorRole.WindowText, text)
        p.setColor(group, QPalette.ColorRole.Base, base)
        p.setColor(group, QPalette.ColorRole.AlternateBase, QColor(52, 52, 56))
        p.setColor(group, QPalette.ColorRole.Text, text)
        p.setColor(group, QPalette.ColorRole.Button, window)
        p.setColor(group, QPalette.ColorRole.ButtonText, text)
        p.setColor(group, QPalette.ColorRole.ToolTipBase, QColor(60, 60, 64))
        p.setColor(group, QPalette.ColorRole.ToolTipText, text)
        p.setColor(group, QPalette.ColorRole.Highlight, QColor(38, 110, 190))
        p.setColor(group, QPalette.ColorRole.HighlightedText, QColor(255, 255, 255))
        p.setColor(group, QPalette.ColorRole.PlaceholderText, QColor(150, 150, 150))
        p.setColor(group, QPalette.ColorRole.Link, QColor(110, 170, 240))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor(130, 130, 130))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor(130, 130, 130))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor(130, 130, 130))
    return p


def apply_theme(app: QApplication, choice: str) -> str:
    """Apply ``system``/``light``/``dark`` to the app (Fusion style) and the charts; returns the effective one."""
    app.setStyle("Fusion")
    theme = effective_theme(choice)
    app.setPalette(_dark_palette() if theme == "dark" else app.style().standardPalette())
    import pyqtgraph as pg

    pg.setConfigOption("background", (37, 37, 38) if theme == "dark" else "w")
    pg.setConfigOption("foreground", (220, 220, 220) if theme == "dark" else (40, 40, 40))
    return theme


def is_dark_charts() -> bool:
    """True while charts are drawn on the dark background (:func:`apply_theme`)."""
    import pyqtgraph as pg

    background = pg.mkColor(pg.getConfigOption("background"))
    return background.lightness() < 128


def chart_foreground() -> tuple[int, int, int]:
    """Lines and their labels drawn over a chart's background: dark grey on light, light grey on dark."""
    return (225, 225, 225) if is_dark_charts() else (60, 60, 60)


def chart_accent() -> tuple[int, int, int]:
    """The bandwidth roof's blue, readable on the chart's background."""
    return (120, 175, 245) if is_dark_charts() else (30, 90, 200)
