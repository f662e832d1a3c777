"""List untranslated UI strings, or apply translations from a TSV, in the zh_CN .ts file.

Usage::

    python tools/update_translations.py        # first: collect new strings (lupdate)
    python tools/translate.py --list > todo.tsv # context <TAB> source <TAB> (empty)
    # fill the third column (terms from shared/spec/glossary-zh.md), then:
    python tools/translate.py --apply todo.tsv
    python tools/update_translations.py        # compile the .qm

Qt Linguist (``pyside6-linguist``) does the same interactively. Placeholders (``{0}``) must
survive; a row whose translation drops or adds one is refused.
"""

from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from update_translations import untranslated  # noqa: E402  (one definition of "untranslated")

TS = ROOT / "resources" / "translations" / "mfu_desktop_zh_CN.ts"
PLACEHOLDER = re.compile(r"\{\w*\}")


def unescape(text: str) -> str:
    """TSV cells carry newlines and tabs escaped."""
    return text.replace("\\n", "\n").replace("\\t", "\t")


def escape(text: str) -> str:
    """The reverse of :func:`unescape`."""
    return text.replace("\t", "\\t").replace("\n", "\\n")


def apply(ts: Path, rows: list[tuple[str, str, str]]) -> tuple[int, list[str]]:
    """Set the translations of ``rows``; returns how many were set and the refused rows."""
    tree = ET.parse(ts)
    wanted = {(c, s): t for c, s, t in rows}
    done, problems = 0, []
    for context in tree.getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            text = wanted.get((name, source))
            if text is None:
                continue
            if sorted(PLACEHOLDER.findall(source)) != sorted(PLACEHOLDER.findall(text)):
                problems.append(f"[{name}] {source!r}: placeholders differ in {text!r}")
                continue
            t = message.find("translation")
            if t is None:
                t = ET.SubElement(message, "translation")
            t.text = text
            t.attrib.pop("type", None)
            done += 1
    ET.indent(tree, space="    ")
    body = ET.tostring(tree.getroot(), encoding="unicode")
    ts.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8")
    return done, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--list", action="store_true", help="print unfinished strings as TSV")
    group.add_argument("--apply", type=Path, metavar="TSV", help="context, source, translation per line")
    args = parser.parse_args(argv)
    if args.list:
        for context, source in untranslated(TS):
            print(f"{context}\t{escape(source)}\t")
        return 0
    rows = []
    for line in args.apply.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[2].strip():
            rows.append((parts[0], unescape(parts[1]), unescape(parts[2])))
    done, problems = apply(TS, rows)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{done} translation(s) set in {TS.relative_to(ROOT)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
