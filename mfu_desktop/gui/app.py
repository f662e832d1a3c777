"""Entry point of the ``mfu-desktop`` GUI.

``mfu-desktop [PATH ...] [--demo] [--tab calculator|profiler|prediction|compare] [--compare NEW] [--lang en|zh_CN]
[--screenshot FILE]``. ``--screenshot`` renders the window to a PNG once every background
job has finished (profile loaded, prediction done, charts drawn) and exits; it works with
``QT_QPA_PLATFORM=offscreen`` and is what the docs and the smoke tests use.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mfu_desktop import __version__
from mfu_desktop.gui.views.registry import profiler_view_names

#: How long ``--screenshot`` waits for the background work before giving up.
SCREENSHOT_TIMEOUT_S = 300.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The GUI's command line."""
    parser = argparse.ArgumentParser(prog="mfu-desktop", description="MFU Desktop: MFU calculator, Ascend "
                                     "profiler analysis and cross-chip prediction.", allow_abbrev=False)
    parser.add_argument("paths", nargs="*", type=Path, help="profiler folders to open (cluster root or rank folders)")
    parser.add_argument("--demo", action="store_true", help="open the bundled 8-rank demo profile")
    parser.add_argument("--tab", choices=("calculator", "profiler", "prediction", "compare"),
                        help="tab to show first")
    parser.add_argument("--compare", type=Path, metavar="NEW",
                        help="compare the opened profile (BASE) with NEW in the Compare tab")
    parser.add_argument("--rank", type=int, metavar="N", help="select rank N in the Profiler tab once loaded")
    parser.add_argument("--view", choices=profiler_view_names(),
                        help="the Profiler tab's view to show (default: charts)")
    parser.add_argument("--lang", choices=("en", "zh_CN"), help="interface language (default: settings, then system)")
    parser.add_argument("--theme", choices=("system", "light", "dark"), help="colour theme for this run")
    parser.add_argument("--screenshot", type=Path, metavar="FILE",
                        help="render the window to a PNG once loading is done, then exit")
    parser.add_argument("--size", help="window size, WxH (default: the last run's size, 1440x900 the first time, "
                                       "always fitted to the screen)")
    parser.add_argument("--version", action="version", version=f"MFU Desktop {__version__}")
    return parser.parse_args(argv)


def display_problem(env: dict[str, str], platform: str = sys.platform) -> str | None:
    """Why the window cannot open on this machine (no display), said before Qt tries; ``None`` when it can.

    On Linux, Qt's xcb plugin needs an X display (``DISPLAY``) or Wayland (``WAYLAND_DISPLAY``);
    without one it aborts with messages about the plugin (``xcb-cursor0 … is needed``) that do not
    say the real cause. Another ``QT_QPA_PLATFORM`` (offscreen, vnc …) needs no display.
    """
    if not platform.startswith("linux"):
        return None
    qpa = env.get("QT_QPA_PLATFORM", "")
    if qpa and not qpa.startswith(("xcb", "wayland")):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return ("no display: DISPLAY and WAYLAND_DISPLAY are not set (a headless machine, or ssh without -X). The "
            "command line needs none: mfu analyze PATH, mfu compare BASE NEW, mfu predict PATH. For the window: "
            "ssh -X, or a virtual display (Xvfb :99 & then DISPLAY=:99 mfu-desktop); --screenshot renders without "
            "one (QT_QPA_PLATFORM=offscreen is chosen for it)")


def reserve_core_for_gui() -> int:
    """Leave one CPU core to the window: Arrow's CSV threads get the others (at least one).

    On a 2-core laptop, Arrow on both cores makes the GUI thread wait for the CPU and every
    repaint takes twice as long; one core less costs a little load throughput instead.

    Returns:
        The number of threads Arrow may use.
    """
    import os

    import pyarrow

    threads = max(1, (os.cpu_count() or 2) - 1)
    pyarrow.set_cpu_count(threads)
    return threads


#: How often (s) a worker thread running Python must offer the GIL (CPython's default: 0.005).
GIL_SWITCH_INTERVAL_S = 0.001


def share_the_gil() -> None:
    """Let the GUI thread take the GIL sooner while a worker computes.

    A repaint calls into Python many times (pyqtgraph items, models); each call waits until the
    worker next offers the GIL. At the default 5 ms interval, opening a 512-rank summary while
    its documents were being read stalled the window up to 138 ms; at 1 ms the longest stall
    was 77 ms, at no measurable cost to the worker.
    """
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)


def tune_garbage_collector() -> None:
    """Keep Python's cyclic GC from pausing the window.

    A full collection walks every tracked object while holding the GIL; with pandas, numpy,
    Qt and pyqtgraph imported that walk took up to 73 ms on a 64-rank profile, stalling the
    GUI thread even though the work ran on a pool thread. The objects alive after start-up
    (modules, classes) are frozen out of the walk (measured: 41 ms worst), and young
    generations are collected less often.
    """
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def create(args: argparse.Namespace, app=None):
    """Build the application and the main window (without entering the event loop).

    Returns:
        ``(app, window)``.
    """
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from mfu_desktop.core.chips.catalog import ChipCatalog
    from mfu_desktop.core.chips.user_catalog import quarantine_user_catalog
    from mfu_desktop.core.paths import demo_profile_dir
    from mfu_desktop.gui.i18n import install_translator, resolve_language
    from mfu_desktop.gui.main_window import MainWindow
    from mfu_desktop.gui.settings import load_settings, notice_text
    from mfu_desktop.gui.theme import apply_theme

    app = app or QApplication.instance() or QApplication(sys.argv[:1])
    reserve_core_for_gui()
    share_the_gil()
    app.setApplicationName("MFU Desktop")
    app.setOrganizationName("mfu-desktop")
    app.setApplicationVersion(__version__)
    from PySide6.QtGui import QIcon

    from mfu_desktop.core.paths import resources_dir

    app.setWindowIcon(QIcon(str(resources_dir() / "icons" / "mfu-desktop.png")))
    app.setDesktopFileName("mfu-desktop")
    settings = load_settings()
    language = resolve_language(args.lang or settings.language)
    translate = QCoreApplication.translate
    notices = []
    if not install_translator(app, language):
        notices.append(translate("Notices", "The {0} translation is not installed; the interface stays in English.")
                       .format(language))
    notices.append(notice_text(settings, translate))
    apply_theme(app, args.theme or settings.theme)
    from mfu_desktop.gui.fonts import install_cjk_fallback

    app.setProperty("cjk_font", install_cjk_fallback(app).note)
    quarantine = quarantine_user_catalog()
    if quarantine is not None:
        listed = "; ".join(quarantine.problems[:3])
        if quarantine.backup is None:
            notices.append(translate("Notices", "Your chip catalog has problems ({0}); the bad rows are ignored.")
                           .format(listed))
        else:
            notices.append(translate("Notices", "Your chip catalog had problems ({0}). {1} valid row(s) were kept; "
                                     "the original file was saved as {2}.")
                           .format(listed, quarantine.kept, quarantine.backup.name))
    catalog = ChipCatalog.load()
    notices += catalog.problems[:5]
    window = MainWindow(settings, catalog, language, notices)
    tune_garbage_collector()
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
        window.resize(width, height)  # asked for (screenshots, tests): exactly that size
    except (AttributeError, ValueError):
        window.fit_to_screen()
    paths = list(args.paths)
    if args.demo:
        paths.insert(0, demo_profile_dir())
    window.profiler.pending_rank = args.rank
    if paths:
        window.open_paths(paths, remember=not args.demo)
    if args.compare and paths:
        window.compare.queue_new(Path(args.compare))  # compared once BASE is loaded
    if args.tab:
        window.select_tab(args.tab)
    if args.view:
        window.profiler.show_view(args.view)
    return app, window


def wait_until_idle(app, window, timeout_s: float = SCREENSHOT_TIMEOUT_S) -> bool:
    """Process events until no background job runs (twice in a row, to catch follow-up jobs)."""
    deadline = time.monotonic() + timeout_s
    idle = 0
    while time.monotonic() < deadline:
        app.processEvents()
        if window.is_busy():
            idle = 0
        else:
            idle += 1
            if idle >= 5:
                return True
        time.sleep(0.05)
    return False


def take_screenshot(app, window, path: Path) -> bool:
    """Wait for the work to finish, then render the window to ``path`` (PNG)."""
    finished = wait_until_idle(app, window)
    for _ in range(5):  # let layouts and charts settle
        app.processEvents()
        time.sleep(0.05)
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = window.grab().save(str(path), "PNG")
    return finished and saved


def install_excepthook(window) -> Path:
    """Unexpected errors in slots go to stderr, a log file and a non-modal message; the app keeps running.

    Returns:
        The log file.
    """
    import traceback

    from mfu_desktop.core.paths import user_cache_dir

    log = user_cache_dir() / "logs" / "mfu-desktop.log"

    def hook(kind, value, tb) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.write(text)
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("a", encoding="utf-8") as fh:
                fh.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} MFU Desktop {__version__}\n{text}")
        except OSError:
            pass
        window.unexpected_errors = getattr(window, "unexpected_errors", 0) + 1
        try:
            from PySide6.QtCore import QCoreApplication

            window.info.show_message(QCoreApplication.translate(
                "Notices", "Unexpected error: {0}. The app keeps running; details are in {1}").format(
                    f"{kind.__name__}: {value}", log))
        except RuntimeError:  # the window is gone
            pass

    sys.excepthook = hook
    return log


def main(argv: list[str] | None = None) -> int:
    """Run the desktop app (exit 1 with the reason first when this machine has no display)."""
    import os

    args = parse_args(argv)
    problem = display_problem(dict(os.environ))
    if problem and args.screenshot:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a screenshot needs no screen
    elif problem:
        print(f"mfu-desktop: {problem}", file=sys.stderr)
        return 1
    app, window = create(args)
    previous_hook = sys.excepthook
    install_excepthook(window)
    try:
        return _run(app, window, args)
    finally:
        sys.excepthook = previous_hook


def _run(app, window, args: argparse.Namespace) -> int:
    window.show()
    if args.screenshot:
        ok = take_screenshot(app, window, args.screenshot)
        errors = getattr(window, "unexpected_errors", 0)
        window.close()
        if not ok or errors:
            print(f"mfu-desktop: screenshot {args.screenshot} was not written completely "
                  "(background work did not finish in time, the file could not be saved, or "
                  f"{errors} unexpected error(s) occurred)", file=sys.stderr)
            return 1
        print(f"wrote {args.screenshot}")
        return 0
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
