"""Where MFU Desktop finds its shipped files and keeps its own (platformdirs).

Shipped files (``devices_info.csv``, ``resources/``) are looked up in, in order: a
PyInstaller bundle, the installed wheel (``mfu_desktop/_data``), and the source checkout.
Per-user folders come from platformdirs; the environment variables
``MFU_DESKTOP_DATA_DIR``, ``MFU_DESKTOP_CACHE_DIR`` and ``MFU_DESKTOP_CONFIG_DIR`` override
them (tests use this to stay out of the user's real folders).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import platformdirs

APP_NAME = "mfu-desktop"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def _candidates(relative: str) -> list[Path]:
    bundle = getattr(sys, "_MEIPASS", None)
    out = []
    if bundle:
        out.append(Path(bundle) / "mfu_desktop" / "_data" / relative)
        out.append(Path(bundle) / relative)
    out.append(_PACKAGE_DIR / "_data" / relative)
    out.append(_PACKAGE_DIR.parent / relative)
    return out


def shipped_file(relative: str) -> Path:
    """Locate a shipped file or folder (``devices_info.csv``, ``resources/demo``).

    Args:
        relative: Path relative to the project root.

    Returns:
        The first existing candidate, or the source-checkout path when none exists (so the
        caller's error message names a sensible location).
    """
    candidates = _candidates(relative)
    for path in candidates:
        if path.exists():
            return path
    return candidates[-1]


def shipped_catalog_path() -> Path:
    """The shipped chip catalog ``devices_info.csv``."""
    return shipped_file("devices_info.csv")


def resources_dir() -> Path:
    """The shipped ``resources/`` folder (icons, translations, demo profile)."""
    return shipped_file("resources")


def demo_profile_dir() -> Path:
    """The bundled demo profile (an 8-rank synthetic capture)."""
    return shipped_file("resources/demo")


def _dir(env: str, default: str) -> Path:
    override = os.environ.get(env)
    path = Path(override) if override else Path(default)
    return path


def user_data_dir() -> Path:
    """Per-user data folder (user chip catalog)."""
    return _dir("MFU_DESKTOP_DATA_DIR", platformdirs.user_data_dir(APP_NAME, appauthor=False))


def user_cache_dir() -> Path:
    """Per-user cache folder (parsed profiles)."""
    return _dir("MFU_DESKTOP_CACHE_DIR", platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def user_config_dir() -> Path:
    """Per-user configuration folder (settings)."""
    return _dir("MFU_DESKTOP_CONFIG_DIR", platformdirs.user_config_dir(APP_NAME, appauthor=False))


def user_catalog_path() -> Path:
    """The user chip catalog that extends/overrides the shipped one."""
    return user_data_dir() / "devices_info.csv"


def user_calibration_path() -> Path:
    """The user's saved calibration factors (per chip pair and category), beside the user catalog."""
    return user_data_dir() / "calibration.csv"


_UMASK_LOCK = threading.Lock()


def file_mode() -> int:
    """The mode a new file gets from the user's umask (``0o644`` under umask 022).

    Temporary files are created ``0o600``; a file renamed into place for others to read (an
    export, a summary) must not keep that.
    """
    with _UMASK_LOCK:  # reading the umask means setting it: never two threads at once
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask

