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
