"""Typed, versioned settings under the platformdirs config folder.

A corrupt or unreadable settings file never stops the app: it is moved aside as a backup,
the defaults are used, and the app says so once (``Settings.notice``).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP

from mfu_desktop.core.paths import user_config_dir
from mfu_desktop.core.predict.basis import BASES, MODELS
from mfu_desktop.core.predict.options import DEFAULT_BASIS, DEFAULT_MODEL

SETTINGS_VERSION = 1
#: Recent folders kept in File → Open recent.
MAX_RECENT = 10


@dataclass
class Settings:
    """Everything the app remembers between runs.

    Attributes:
        geometry: Window geometry (base64 of QByteArray).
        window_state: Dock/toolbar state (base64).
        recent_folders: Most recent first.
        chip_per_folder: Folder → chip chosen by the user for it.
        fa_backward: ``model`` (2× forward) or ``executed`` (2.5×, HFU view).
        mask_convention: ``exact`` or ``seed``.
        hf32: FP32 matmuls ran with HF32/TF32.
        theme: ``system``, ``light`` or ``dark``.
        language: ``system``, ``en`` or ``zh_CN``.
        top_n: Rows in hot-operator charts.
        prediction_basis: ``model/basis`` of the Prediction tab's model switch (``roofline/fitted`` …); a
            plain basis saved by an earlier version is read by :func:`prediction_choice`.
    """

    version: int = SETTINGS_VERSION
    geometry: str = ""
    window_state: str = ""
    recent_folders: list[str] = field(default_factory=list)
    chip_per_folder: dict[str, str] = field(default_factory=dict)
    fa_backward: str = "model"
    mask_convention: str = "exact"
    hf32: bool = False
    theme: str = "system"
    language: str = "system"
    top_n: int = 15
    prediction_basis: str = f"{DEFAULT_MODEL}/{DEFAULT_BASIS}"
    notice: str = field(default="", compare=False)
    notice_args: dict[str, str] = field(default_factory=dict, compare=False)

    def add_recent(self, folder: str) -> None:
        """Put a folder at the top of the recent list."""
        self.recent_folders = [folder, *[f for f in self.recent_folders if f != folder]][:MAX_RECENT]


_CHOICES = {"fa_backward": ("model", "executed"), "mask_convention": ("exact", "seed"),
            "theme": ("system", "light", "dark"), "language": ("system", "en", "zh_CN"),
            "prediction_basis": (*(f"{m}/{b}" for m in MODELS for b in BASES), "advertised", "achievable")}


def prediction_choice(saved: str) -> tuple[str, str]:
    """(model, basis) of a saved ``prediction_basis``.

    ``achievable`` saved by an earlier version (a user's switch) keeps that basis with the default
    model; ``advertised`` was that version's default and becomes today's default.
    """
    if "/" in saved:
        model, basis = saved.split("/", 1)
        return model, basis
    return (DEFAULT_MODEL, "achievable") if saved == "achievable" else (DEFAULT_MODEL, DEFAULT_BASIS)


def settings_path() -> Path:
    """Where the settings file lives."""
    return user_config_dir() / "settings.json"


#: Notice templates (English source; the window shows them translated, placeholders filled).
UNREADABLE_KEPT = QT_TRANSLATE_NOOP(
    "Notices", "Settings file was unreadable ({why}); defaults are used and the old file was kept as {backup}.")
UNREADABLE = QT_TRANSLATE_NOOP("Notices", "Settings file was unreadable ({why}); defaults are used.")
INVALID_RESET = QT_TRANSLATE_NOOP("Notices", "Some settings were invalid and reset to defaults: {names}.")


def _backup(settings: Settings, path: Path, why: str) -> Settings:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}.bad-{stamp}")
    try:
        os.replace(path, backup)
        settings.notice, settings.notice_args = UNREADABLE_KEPT, {"why": why, "backup": backup.name}
    except OSError:
        settings.notice, settings.notice_args = UNREADABLE, {"why": why}
    return settings


def notice_text(settings: Settings, translate=None) -> str:
    """The settings notice in words (translated when ``translate(context, text)`` is given)."""
    if not settings.notice:
        return ""
    template = translate("Notices", settings.notice) if translate else settings.notice
    try:
        return template.format(**settings.notice_args)
    except (KeyError, IndexError, ValueError):
        return settings.notice.format(**settings.notice_args)


def load_settings(path: Path | None = None) -> Settings:
    """Read the settings; any problem gives the defaults plus a one-time notice."""
    path = path or settings_path()
    if not path.exists():
        return Settings()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return _backup(Settings(), path, type(exc).__name__)
    if not isinstance(data, dict):
        return _backup(Settings(), path, "not a JSON object")
    settings = Settings()
    problems = []
    for f in fields(Settings):
        if f.name == "notice" or f.name not in data:
            continue
        value = data[f.name]
        default = getattr(settings, f.name)
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(default, list):
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        elif isinstance(default, dict):
            ok = isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
        else:
            ok = isinstance(value, str)
        if ok and f.name in _CHOICES and value not in _CHOICES[f.name]:
            ok = False
        if ok:
            setattr(settings, f.name, value)
        else:
            problems.append(f.name)
    if problems:
        settings.notice, settings.notice_args = INVALID_RESET, {"names": ", ".join(problems)}
    settings.version = SETTINGS_VERSION
    return settings


def save_settings(settings: Settings, path: Path | None = None) -> bool:
    """Write the settings atomically; ``False`` when the folder is not writable (never raises)."""
    path = path or settings_path()
    data = asdict(settings)
    data.pop("notice", None)
    data.pop("notice_args", None)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".settings.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, ensure_ascii=False)
        os.replace(tmp, path)
        return True
    except OSError:
        return False
