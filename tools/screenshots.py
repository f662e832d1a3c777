"""Render the README screenshots: every tab, English and 简体中文, on the bundled demo profile.

Plus ``en-ascend-and-gpu.png``: the demo's Ascend ranks and two PyTorch profiler traces in one
window (the TraceLens H100 / MI300X traces of ../shared/samples when present, else a generated
H100 trace), the H100 rank selected. And the Timeline view: the demo's cluster
(``en-timeline-cluster.png``) and, when ../shared/samples is present, the public Level2 db rank
(``{en,zh_CN}-timeline-ascend.png``) and the TraceLens H100 trace (``en-timeline-gpu.png``) at 1280×800.

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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABS = {"calculator": [], "profiler": ["--rank", "5"], "prediction": []}
#: Views of the Profiler tab with their own image (``{lang}-{name}.png``): name → arguments.
VIEWS = {"advisor": ["--tab", "profiler", "--rank", "5", "--view", "advisor"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                   PYTHONPATH=str(ROOT))
        for name in ("DATA", "CACHE", "CONFIG"):
            env[f"MFU_DESKTOP_{name}_DIR"] = str(Path(tmp) / name.lower())
        shots = {tab: ["--tab", tab, *extra] for tab, extra in TABS.items()} | VIEWS
        for lang in ("en", "zh_CN"):
            for name, extra in shots.items():
                target = args.out / f"{lang}-{name}.png"
                cmd = [sys.executable, "-m", "mfu_desktop.gui.app", "--demo", "--lang", lang, *extra,
                       "--screenshot", str(target)]
                subprocess.run(cmd, env=env, check=True, capture_output=True)
                print(f"wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
        mixed = mixed_folder(Path(tmp) / "ascend_and_gpu")
        target = args.out / "en-ascend-and-gpu.png"
        cmd = [sys.executable, "-m", "mfu_desktop.gui.app", str(mixed), "--lang", "en", "--tab", "profiler",
               "--rank", "-1" if (mixed / "gpu" / "h100_vit.json.gz").exists() else "8",
               "--screenshot", str(target)]
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        print(f"wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
        for name, source, lang in timeline_shots():
            target = args.out / name
            cmd = [sys.executable, "-m", "mfu_desktop.gui.app", *source, "--lang", lang, "--tab", "profiler",
                   "--view", "timeline", "--size", "1280x800", "--screenshot", str(target)]
            subprocess.run(cmd, env=env, check=True, capture_output=True)
            print(f"wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
    return 0


def timeline_shots() -> list[tuple[str, list[str], str]]:
    """The Timeline images: (file, what to open, language)."""
    shots = [("en-timeline-cluster.png", ["--demo"], "en")]
    samples = ROOT.parent / "shared" / "samples"
    ascend = samples / "msinsight" / "test" / "data" / "pytorch" / "db" / "level2" / "rank0_ascend_pt"
    gpu = samples / "tracelens" / "h100" / "Falconsai_nsfw_image_detection__1016002.json.gz"
    if ascend.exists() and gpu.exists():
        shots += [("en-timeline-ascend.png", [str(ascend)], "en"),
                  ("zh_CN-timeline-ascend.png", [str(ascend)], "zh_CN"),
                  ("en-timeline-gpu.png", [str(gpu)], "en")]
    else:
        print("../shared/samples not found: the sample timelines are not rendered")
    return shots


def mixed_folder(root: Path) -> Path:
    """The demo's Ascend ranks beside GPU traces (real ones from ../shared when available)."""
    from mfu_desktop.core.paths import demo_profile_dir
    from mfu_desktop.demo import write_kineto_trace

    shutil.copytree(demo_profile_dir(), root / "ascend_910b")
    gpu = root / "gpu"
    gpu.mkdir()
    samples = ROOT.parent / "shared" / "samples" / "tracelens"
    pairs = {"h100_vit.json.gz": samples / "h100" / "Falconsai_nsfw_image_detection__1016002.json.gz",
             "mi300x_vit.json.gz": samples / "mi300" / "Falconsai_nsfw_image_detection__1016002.json.gz"}
    if all(p.exists() for p in pairs.values()):
        for name, source in pairs.items():
            shutil.copy(source, gpu / name)
    else:
        print("../shared/samples/tracelens not found: using a generated H100 trace")
        write_kineto_trace(gpu / "worker8.pt.trace.json", steps=2, layers=4, rank=8)
    return root


if __name__ == "__main__":
    sys.exit(main())
