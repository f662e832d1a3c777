"""Language: Qt translators for the app (resources/translations) and Qt's own dialogs."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from mfu_desktop.core.paths import resources_dir

LANGUAGES = {"en": "English", "zh_CN": "简体中文"}

_installed: list[QTranslator] = []
_language = ["en"]


def current_language() -> str:
    """The interface's language (``en`` or ``zh_CN``): what engine lines with their own wording are asked for."""
    return _language[0]


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
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    _language[0] = "en"
    if language == "en":
        return True
    ours = QTranslator(app)
    ok = ours.load(f"mfu_desktop_{language}", translations_dir())
    if ok:
        app.installTranslator(ours)
        _installed.append(ours)
        _language[0] = language
    qt = QTranslator(app)
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _installed.append(qt)
    return ok
