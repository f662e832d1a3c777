"""mfu-desktop on a machine without a display says "no display" first, before Qt's plugin messages."""

from __future__ import annotations

import pytest

from mfu_desktop.gui import app


@pytest.mark.parametrize(("env", "platform", "headless"), [
    ({}, "linux", True),
    ({"QT_QPA_PLATFORM": "xcb"}, "linux", True),
    ({"DISPLAY": ":0"}, "linux", False),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),   # needs no display
    ({}, "win32", False),
    ({}, "darwin", False),
])
def test_display_problem(env, platform, headless):
    problem = app.display_problem(env, platform)
    assert (problem is not None) == headless
    if headless:
        assert problem.startswith("no display") and "mfu analyze" in problem and "Xvfb" in problem


def test_main_says_no_display_and_exits_1_before_building_a_window(monkeypatch, capsys):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app.sys, "platform", "linux")
    monkeypatch.setattr(app, "create", lambda *a, **k: pytest.fail("the window was built without a display"))
    assert app.main(["--demo"]) == 1
    assert capsys.readouterr().err.startswith("mfu-desktop: no display:")


def test_a_screenshot_needs_no_display(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app.sys, "platform", "linux")
    seen = {}

    def create(args, app_=None):
        import os

        seen["qpa"] = os.environ.get("QT_QPA_PLATFORM")
        raise SystemExit(0)

    monkeypatch.setattr(app, "create", create)
    with pytest.raises(SystemExit):
        app.main(["--demo", "--screenshot", "x.png"])
    assert seen["qpa"] == "offscreen"
