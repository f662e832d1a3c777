"""Build ``resources/accuracy_corpus.csv``: public per-operator measurements of the same work on several chips.

Run from the project root (needs ``../shared``: validation/vidur, validation/neusight,
samples/tracelens)::

    python tools/build_accuracy_corpus.py

One row per (operator call, chip) with its provenance (repository@commit, file, what was
corrected) and FLOPs/bytes per call from the engine's formulas. Rows of two chips sharing an
``op_id`` are the pairs ``tools/accuracy.py`` predicts one from the other. Sources: microsoft/vidur
(A100/H100), sitar-lab/NeuSight (11 GPUs), AMD-AGI/TraceLens (H100/MI300X traces), and the
FlagPerf/limulidae benchmarks of validation.md.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfu_desktop.core.predict.corpus import corpus_path  # noqa: E402
from tools.corpus import benchmarks, neusight, tracelens, vidur  # noqa: E402
from tools.corpus.rows import COLUMNS, cells  # noqa: E402

SHARED = ROOT.parent / "shared"


def main() -> int:
    """Write the corpus; return a process exit code."""
    needed = [SHARED / "validation" / "vidur", SHARED / "validation" / "neusight", SHARED / "samples" / "tracelens"]
    missing = [p for p in needed if not p.exists()]
    if missing:
        print("missing " + ", ".join(map(str, missing)), file=sys.stderr)
        return 1
    rows = [*vidur.measurements(needed[0]), *neusight.measurements(needed[1]),
            *tracelens.measurements(needed[2]), *benchmarks.measurements()]
    path = corpus_path()
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(cells(r) for r in rows)
    by_dataset: dict[str, int] = {}
    for r in rows:
        by_dataset[r.dataset] = by_dataset.get(r.dataset, 0) + 1
    print(f"wrote {len(rows)} measurements to {path}: " + ", ".join(f"{k} {v}" for k, v in by_dataset.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
