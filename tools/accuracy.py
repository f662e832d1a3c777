"""Fit the prediction model on the corpus's training rows and regenerate ``docs/accuracy.md`` from the held-out rows.

Run from the project root::

    python tools/accuracy.py          # write resources/prediction_model.csv, resources/accuracy_bands.csv, the doc
    python tools/accuracy.py --check  # exit 1 when any of the three is stale (a test runs this)

Inputs: ``resources/accuracy_corpus.csv`` (``tools/build_accuracy_corpus.py``) and the shipped
catalog. The split is :mod:`mfu_desktop.core.predict.accuracy_split`; the fit
:mod:`mfu_desktop.core.predict.model_fit` (training measurements only); the arithmetic
:mod:`mfu_desktop.core.predict.accuracy` (the engine's own rates and models).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfu_desktop.core.chips.catalog import ChipCatalog  # noqa: E402
from mfu_desktop.core.predict.accuracy import accuracy_table  # noqa: E402
from mfu_desktop.core.predict.accuracy_split import training_measurements  # noqa: E402
from mfu_desktop.core.predict.accuracy_summary import band_table, best_combination  # noqa: E402
from mfu_desktop.core.predict.corpus import read_corpus  # noqa: E402
from mfu_desktop.core.predict.model_fit import fit_model  # noqa: E402
from mfu_desktop.core.predict.model_table import table_to_csv  # noqa: E402
from tools.accuracy_report import render  # noqa: E402

DOC = ROOT / "docs" / "accuracy.md"
MODEL = ROOT / "resources" / "prediction_model.csv"
BANDS = ROOT / "resources" / "accuracy_bands.csv"


def outputs() -> dict[Path, str]:
    """The three generated files' contents, from the corpus and the shipped catalog."""
    catalog = ChipCatalog.load(include_user=False)  # the shipped catalog only: the user's edits are theirs
    corpus = read_corpus()
    table = fit_model(corpus[training_measurements(corpus)], catalog)
    acc = accuracy_table(corpus, catalog, table)
    bands = band_table(acc).to_csv(index=False, float_format="%.4f", lineterminator="\n")
    return {MODEL: table_to_csv(table), BANDS: bands, DOC: render(acc, table, corpus, best_combination(acc))}


def main(argv: list[str] | None = None) -> int:
    """Write or check the generated files; return a process exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--check", action="store_true", help="exit 1 when a generated file is stale")
    args = parser.parse_args(argv)
    files = outputs()
    if args.check:
        stale = [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run python tools/accuracy.py", file=sys.stderr)
        if not stale:
            print("docs/accuracy.md, resources/prediction_model.csv and resources/accuracy_bands.csv are up to date")
        return 1 if stale else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
