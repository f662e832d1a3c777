"""Refresh the zh_CN translation: collect strings from the GUI sources, then compile the .qm.

Usage::

    python tools/update_translations.py          # lupdate (keeps existing translations) + lrelease
    python tools/update_translations.py --check  # exit 1 when a string is untranslated or the .qm is stale

New strings appear in ``resources/translations/mfu_desktop_zh_CN.ts`` as ``unfinished``;
translate them with Qt Linguist (``pyside6-linguist``) or by editing the XML, using the terms
of ``shared/spec/glossary-zh.md``, then run this script again to build the ``.qm``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "resources" / "translations" / "mfu_desktop_zh_CN.ts"
QM = TS.with_suffix(".qm")


def tool(name: str) -> str:
    """Path of a PySide6 tool (next to the running interpreter, or on PATH)."""
    local = Path(sys.executable).with_name(name)
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if not found:
        raise SystemExit(f"{name} not found: install PySide6 (pip install PySide6-Essentials)")
    return found


def sources() -> list[str]:
    """Every GUI module (the only place with user-visible strings)."""
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "mfu_desktop" / "gui").rglob("*.py"))


def lupdate(ts: Path) -> None:
    """Merge the strings of the sources into ``ts`` (existing translations are kept)."""
    subprocess.run([tool("pyside6-lupdate"), *sources(), "-no-obsolete", "-locations", "none", "-ts", str(ts)],
                   cwd=ROOT, check=True, capture_output=True)


def lrelease(ts: Path, qm: Path) -> None:
    """Compile ``ts`` to ``qm``."""
    subprocess.run([tool("pyside6-lrelease"), str(ts), "-qm", str(qm)], cwd=ROOT, check=True, capture_output=True)


def untranslated(ts: Path) -> list[tuple[str, str]]:
    """(context, source) of every message without a finished translation."""
    out = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is None or not (translation.text or "").strip() or translation.get("type") in (
                    "unfinished", "vanished", "obsolete"):
                out.append((name, message.findtext("source") or ""))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--check", action="store_true", help="verify only; change nothing")
    args = parser.parse_args(argv)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            ts = Path(tmp) / TS.name
            shutil.copy2(TS, ts)
            lupdate(ts)
            missing = untranslated(ts)
            qm = Path(tmp) / QM.name
            lrelease(TS, qm)
            stale = not QM.exists() or QM.read_bytes() != qm.read_bytes()
        for context, source in missing:
            print(f"untranslated [{context}] {source!r}")
        if stale:
            print(f"{QM.relative_to(ROOT)} is not the compiled {TS.name}: run python tools/update_translations.py")
        return 1 if missing or stale else 0
    lupdate(TS)
    lrelease(TS, QM)
    missing = untranslated(TS)
    print(f"{TS.relative_to(ROOT)}: {len(missing)} string(s) to translate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
