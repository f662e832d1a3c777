"""Test configuration: offscreen Qt, isolated user folders, the public samples."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Before any Qt import: GUI tests run without a screen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT.parent / "shared" / "samples"
SPEC = ROOT.parent / "shared" / "spec"
#: The one skip message of every test that needs ../shared (README: "The shared reference folder").
SHARED_MISSING = (f"needs the shared reference folder ({ROOT.parent / 'shared'}: public profiler samples and specs), "
                  "which is not beside this checkout; see the README, 'The shared reference folder'")
requires_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason=SHARED_MISSING)


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory, monkeypatch):
    """Settings, caches and the user catalog go to a temporary folder, never the real ones."""
    base = tmp_path_factory.mktemp("userdirs")
    for name in ("DATA", "CACHE", "CONFIG"):
        path = base / name.lower()
        path.mkdir()
        monkeypatch.setenv(f"MFU_DESKTOP_{name}_DIR", str(path))
    from mfu_desktop.core.chips import catalog as chips

    monkeypatch.setattr(chips, "_DEFAULT_CATALOG", None)
    yield base


@pytest.fixture
def samples() -> Path:
    """The public profiler samples in ../shared/samples (skips when absent)."""
    if not SAMPLES.is_dir():
        pytest.skip(SHARED_MISSING)
    return SAMPLES


@pytest.fixture
def spec_dir() -> Path:
    """The reference spec folder ../shared/spec (skips when absent)."""
    if not SPEC.is_dir():
        pytest.skip(SHARED_MISSING)
    return SPEC
