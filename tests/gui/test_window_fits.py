"""The window fits a 1024×700 laptop screen in both languages: no tab asks for more than the screen has."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_every_tab_fits_1024_by_700(make_window, lang):
    window = make_window("--lang", lang, "--size", "1024x700")
    hint = window.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 700, (lang, hint)
    for name in ("calculator", "profiler", "prediction", "compare"):
        tab = getattr(window, name)
        assert tab.minimumSizeHint().width() <= 1024, (lang, name, tab.minimumSizeHint())
    assert (window.width(), window.height()) == (1024, 700)


def test_a_window_larger_than_the_screen_is_shrunk_and_moved_onto_it(make_window):
    """The first run's 1440×900 (or a size remembered from a bigger monitor) on a 1280×800 laptop."""
    from PySide6.QtCore import QRect

    window = make_window("--lang", "en")
    window.resize(1440, 900)
    window.move(300, 200)
    window.fit_to_screen(QRect(0, 0, 1280, 770))  # the laptop's free area under a panel
    assert window.width() <= 1280 and window.height() <= 770
    assert window.x() >= 0 and window.x() + window.width() <= 1280
    assert window.y() >= 0 and window.y() + window.height() <= 770
    small = (window.width(), window.height())
    window.fit_to_screen(QRect(0, 0, 1920, 1080))  # a window that fits is left as it is
    assert (window.width(), window.height()) == small


def test_the_last_size_is_kept_unless_a_size_is_asked_for(make_window):
    from mfu_desktop.gui.app import parse_args

    assert parse_args([]).size is None  # no fixed default that would override the remembered size
    window = make_window("--lang", "en", "--size", "1100x720")
    assert (window.width(), window.height()) == (1100, 720)
