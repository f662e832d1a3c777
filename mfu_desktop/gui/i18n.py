"""Language: Qt translators for the app (resources/translations) and Qt's own dialogs."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from mfu_desktop.core.paths import resources_dir

LANGUAGES = {"en": "English", "zh_CN": "简体中文"}

_installed: list[QTranslator] = []
#: The language the app runs in (set by :func:`install_translator`).
_current = "en"


def current_language() -> str:
    """The interface language in use (``en`` or ``zh_CN``): engine texts that carry both languages pick by it."""
    return _current


def resolve_language(choice: str | None) -> str:
    """``system`` → the system locale's language if we have it (zh_* → zh_CN), else English."""
    if choice and choice != "system":
        return choice if choice in LANGUAGES else "en"
    name = QLocale.system().name()
    return "zh_CN" if name.startswith("zh") else "en"


def translations_dir() -> str:
    """Folder holding ``mfu_desktop_<lang>.qm``."""
    return str(resources_dir() / "translations")


def install_translator(app: QCoreApplication, language: str) -> bool:
    """Install the translators for ``language``; ``True`` when the app's own catalogue loaded."""
    global _current
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    _current = language if language in LANGUAGES else "en"
    if language == "en":
        return True
    ours = QTranslator(app)
    ok = ours.load(f"mfu_desktop_{language}", translations_dir())
    if ok:
        app.installTranslator(ours)
        _installed.append(ours)
    qt = QTranslator(app)
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _installed.append(qt)
    return ok
