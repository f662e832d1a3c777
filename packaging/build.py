"""Build the onedir bundle and smoke-test it.

Usage::

    python -m pip install ".[package]"        # PyInstaller, pinned
    python packaging/build.py                 # build dist/mfu-desktop/ and run the smoke test
    python packaging/build.py --smoke-only    # test an existing bundle

The smoke test first checks that the window's xcb platform plugin is self-contained (``ldd``
inside the bundle: no "not found", every xcb utility library bundled), then launches the
frozen programs the way a user would, offscreen:
``mfu-desktop --demo --tab TAB --screenshot FILE`` for every tab (fails on a non-zero exit,
any traceback, a missing Qt plugin or resource, or a missing PNG), and ``mfu chips --json``
(must list the shipped chips), and ``mfu analyze`` of two generated PyTorch profiler traces
(msgspec bundled, a spawned decoding worker). It prints the bundle size and the start-up time of the
frozen window (launch → first frame rendered → exit, no profile loaded).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist" / "mfu-desktop"
EXE_SUFFIX = ".exe" if sys.platform == "win32" else ""
BAD_SIGNS = ("Traceback", "could not find or load the Qt platform plugin", "Failed to execute script",
             "No such file or directory", "ModuleNotFoundError", "ImportError")


def build() -> float:
    """Run PyInstaller on the spec; returns the build time in seconds."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--distpath", str(ROOT / "dist"),
                    "--workpath", str(ROOT / "build" / "pyinstaller"), str(ROOT / "packaging" / "mfu_desktop.spec")],
                   cwd=ROOT, check=True)
    return time.perf_counter() - start


def folder_size_mb(path: Path) -> float:
    """Total size of the files under ``path`` in MB."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


def run(cmd: list[str], env: dict[str, str], timeout: float = 300) -> tuple[int, str, str, float]:
    """Run a frozen program; returns (exit code, stdout, stderr, seconds)."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start


#: Libraries the xcb platform plugin may take from the system: every X11 desktop has them and the GL
#: stack must match the machine's driver (PyInstaller leaves them out on purpose).
XCB_SYSTEM_LIBS = ("libxcb.so.1", "libGL.so.1", "libEGL.so.1", "libGLX.so.0", "libGLdispatch.so.0", "libOpenGL.so.0")


def check_xcb_plugin(dist: Path = DIST) -> list[str]:
    """The window's xcb platform plugin must load on a desktop without Qt's extra xcb packages.

    ``ldd`` on ``platforms/libqxcb.so`` inside the bundle, with the bundle's folders first on the
    library path: no "not found", and every xcb/xkb utility library (``libxcb-icccm``,
    ``libxcb-keysyms``, ``libxcb-cursor`` … — what Qt says "is needed" when missing) resolved
    inside the bundle. Returns the problems (empty when the plugin is self-contained).
    """
    if not sys.platform.startswith("linux"):
        return []
    plugin = next(dist.rglob("platforms/libqxcb.so"), None)
    if plugin is None:
        return ["platforms/libqxcb.so is not in the bundle: the window cannot open on X11"]
    internal = dist / "_internal"
    env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(str(p) for p in (internal, plugin.parents[2] / "lib")))
    out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, env=env).stdout
    problems = []
    for line in out.splitlines():
        name, _, target = line.strip().partition(" => ")
        if "not found" in target:
            problems.append(f"{name} not found for {plugin.name} (install it on the build machine: see "
                            "packaging/README.md, then rebuild)")
        elif name.startswith(("libxcb", "libxkbcommon", "libX11-xcb")) and name not in XCB_SYSTEM_LIBS and (
                str(dist.resolve()) not in str(Path(target.split(" (")[0]).resolve())):
            problems.append(f"{name} resolves outside the bundle ({target.split(' (')[0]}): it would be missing on "
                            "a desktop without it")
    return problems


def check_traces(cli: Path, env: dict[str, str], tmp: Path, check: Callable[[str, int, str, str], bool]) -> int:
    """Two generated PyTorch profiler traces (one gzip) through the frozen ``mfu analyze``.

    They prove msgspec is in the bundle and that a trace decodes in a spawned worker process.
    Returns the number of failures.
    """
    sys.path.insert(0, str(ROOT))
    from mfu_desktop.demo import write_kineto_trace

    folder = tmp / "traces"
    folder.mkdir()
    for rank in (0, 1):
        write_kineto_trace(folder / f"rank{rank}.pt.trace.json{'.gz' if rank else ''}", steps=2, layers=200,
                           rank=rank, gzip_output=bool(rank))
    code, out, err, seconds = run([str(cli), "analyze", str(folder), "--json", "--no-cache"], env)
    if not check(f"mfu analyze <2 PyTorch traces> --json ({seconds:.1f} s)", code, out, err):
        return 0  # counted by check
    ranks = json.loads(out).get("ranks", [])
    if len(ranks) != 2:
        print(f"FAIL the 2 traces gave {len(ranks)} rank(s)")
        return 1
    return 0


def smoke_test(dist: Path = DIST) -> int:
    """Exercise the frozen bundle; returns the number of failures."""
    gui = dist / f"mfu-desktop{EXE_SUFFIX}"
    cli = dist / f"mfu{EXE_SUFFIX}"
    failures = 0
    xcb = check_xcb_plugin(dist)
    for problem in xcb:
        print(f"FAIL {problem}")
    print("ok   xcb platform plugin: every library it needs resolves (ldd, bundle first)" if not xcb else "")
    failures += len(xcb)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        env.pop("PYTHONPATH", None)
        for name in ("DATA", "CACHE", "CONFIG"):
            env[f"MFU_DESKTOP_{name}_DIR"] = str(Path(tmp) / name.lower())

        def check(label: str, code: int, out: str, err: str) -> bool:
            nonlocal failures
            bad = [sign for sign in BAD_SIGNS if sign in out or sign in err]
            ok = code == 0 and not bad
            print(f"{'ok  ' if ok else 'FAIL'} {label}" + ("" if ok else f" (exit {code}; {bad}):\n{err[-3000:]}"))
            failures += 0 if ok else 1
            return ok

        shot = Path(tmp) / "startup.png"
        code, out, err, startup = run([str(gui), "--lang", "en", "--tab", "calculator", "--screenshot", str(shot)], env)
        check("mfu-desktop starts and renders (no profile)", code, out, err)
        for lang in ("en", "zh_CN"):
            for tab in ("calculator", "profiler", "prediction"):
                png = Path(tmp) / f"{lang}-{tab}.png"
                code, out, err, seconds = run([str(gui), "--demo", "--lang", lang, "--tab", tab,
                                               "--screenshot", str(png)], env)
                if check(f"mfu-desktop --demo --lang {lang} --tab {tab} ({seconds:.1f} s)", code, out, err) and (
                        not png.exists() or png.stat().st_size < 20_000):
                    print(f"FAIL {png.name} missing or empty")
                    failures += 1
        code, out, err, seconds = run([str(cli), "chips", "--json"], env)
        if check(f"mfu chips --json ({seconds:.1f} s)", code, out, err):
            chips = json.loads(out)
            rows = chips if isinstance(chips, list) else chips.get("chips", [])
            if len(rows) < 40:
                print(f"FAIL mfu chips --json listed {len(rows)} chips")
                failures += 1
        demo = dist / "_internal" / "mfu_desktop" / "_data" / "resources" / "demo"
        export = Path(tmp) / "export"
        code, out, err, seconds = run([str(cli), "analyze", str(demo), "--json", "--export", str(export)], env)
        if check(f"mfu analyze <bundled demo> --json --export ({seconds:.1f} s)", code, out, err) and not (
                export / "kernels.parquet").exists():
            print("FAIL kernels.parquet was not written")
            failures += 1
        code, out, err, seconds = run([str(cli), "predict", str(demo), "--json"], env)
        check(f"mfu predict <bundled demo> --json ({seconds:.1f} s)", code, out, err)
        code, out, err, seconds = run([str(cli), "analyze", "--demo"], env)
        if check(f"mfu analyze --demo (the demo inside the bundle, {seconds:.1f} s)", code, out, err) and (
                "MFU Desktop — 8 rank(s)" not in out):
            print("FAIL mfu analyze --demo did not analyse the 8-rank demo")
            failures += 1
        failures += check_traces(cli, env, Path(tmp), check)
        code, out, err, seconds = run([str(cli)], env)
        if check("mfu alone prints the commands", code, out, err) and "analyze" not in out:
            print("FAIL mfu alone did not list its commands")
            failures += 1
        font = dist / "_internal" / "mfu_desktop" / "_data" / "resources" / "fonts" / "NotoSansCJKsc-MFUDesktop.otf"
        if not font.exists():
            print(f"FAIL the Chinese font subset is not in the bundle ({font})")
            failures += 1
    print(f"\nbundle: {dist} — {folder_size_mb(dist):.0f} MB")
    print(f"frozen start-up (launch → window rendered → exit): {startup:.2f} s")
    print("smoke test:", "PASSED" if failures == 0 else f"{failures} FAILURE(S)")
    return failures


def main(argv: list[str] | None = None) -> int:
    """Build (unless ``--smoke-only``), smoke-test, optionally archive; exit status 1 on a failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke-only", action="store_true", help="test an existing dist/mfu-desktop")
    parser.add_argument("--archive", action="store_true",
                        help="also pack dist/mfu-desktop-VERSION-PLATFORM.(tar.gz|zip)")
    args = parser.parse_args(argv)
    if not args.smoke_only:
        seconds = build()
        print(f"built in {seconds:.0f} s")
    failures = smoke_test()
    if args.archive and not failures:
        import platform
        import shutil

        sys.path.insert(0, str(ROOT))
        from mfu_desktop import __version__

        base = ROOT / "dist" / f"mfu-desktop-{__version__}-{sys.platform}-{platform.machine().lower()}"
        archive = shutil.make_archive(str(base), "zip" if sys.platform == "win32" else "gztar", ROOT / "dist",
                                      "mfu-desktop")
        print(f"archive: {archive} — {Path(archive).stat().st_size / 1e6:.0f} MB")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
