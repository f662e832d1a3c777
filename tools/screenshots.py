"""Render the README screenshots: every tab, English and 简体中文, on the bundled demo profile.

Usage::

    QT_QPA_PLATFORM=offscreen python tools/screenshots.py [--out docs/screenshots]

Each image comes from ``mfu-desktop --demo --tab TAB --lang LANG --screenshot FILE`` (a
fresh process per image, isolated settings), i.e. exactly what a user sees at 1440×900. The
window shows folder names, never paths, so no developer's path reaches the images. Chinese
text comes from the shipped Noto Sans CJK SC subset when the machine has no CJK font (the
committed images are rendered on such a machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABS = {"calculator": [], "profiler": ["--rank", "5"], "prediction": []}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                   PYTHONPATH=str(ROOT))
        for name in ("DATA", "CACHE", "CONFIG"):
            env[f"MFU_DESKTOP_{name}_DIR"] = str(Path(tmp) / name.lower())
        for lang in ("en", "zh_CN"):
            for tab, extra in TABS.items():
                target = args.out / f"{lang}-{tab}.png"
                cmd = [sys.executable, "-m", "mfu_desktop.gui.app", "--demo", "--lang", lang, "--tab", tab,
                       *extra, "--screenshot", str(target)]
                subprocess.run(cmd, env=env, check=True, capture_output=True)
                print(f"wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
