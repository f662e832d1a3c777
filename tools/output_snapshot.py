"""Record, then compare, the ``--json`` outputs of the command line: a behaviour check for refactors.

``python tools/output_snapshot.py record DIR`` runs ``mfu analyze``, ``mfu advise``, ``mfu predict``,
``mfu compare`` and ``mfu summarize`` with ``--json`` on the bundled demo, two generated profiles (an Ascend
cluster and a PyTorch profiler trace) and, when ``../shared`` is beside the checkout, every public
sample; it writes one file per command into DIR. ``python tools/output_snapshot.py compare DIR``
runs the same commands again and prints every output that differs byte for byte (exit 1), or
"identical" (exit 0). Temporary paths and elapsed seconds are replaced by placeholders, nothing else is normalised.

A refactor that claims "no behaviour change" records before the move and compares after it.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "samples"


#: The one non-deterministic figure: elapsed seconds ("— 0.5 s on a thread pool").
_ELAPSED = re.compile(r"(— )\d+(?:\.\d+)? s")


def _generated(work: Path) -> dict[str, Path]:
    """Two generated profiles (deterministic): a 3-rank Ascend cluster and a 2-step trace."""
    sys.path.insert(0, str(ROOT))
    from mfu_desktop.demo import generate, write_kineto_trace

    ascend = generate(work / "gen_ascend", ranks=3, steps=2, kernels=3000, seed=11, distinct_shapes=40)
    trace = work / "gen_trace" / "rank0.pt.trace.json"
    trace.parent.mkdir(parents=True, exist_ok=True)
    write_kineto_trace(trace, steps=3, layers=3, rank=0)
    return {"gen_ascend": ascend, "gen_trace": trace.parent}


def _samples() -> dict[str, Path]:
    if not SHARED.is_dir():
        return {}
    ms = SHARED / "msinsight"
    out = {
        f"{kind}_level{level}": ms / "test" / "data" / "pytorch" / kind / f"level{level}"
        for kind in ("text", "db") for level in (0, 1, 2)
    }
    out["msinsight_server"] = ms / "server" / "src" / "test" / "test_data"
    advisor = SHARED / "msprof-analyze" / "test" / "ut" / "advisor"
    out["advisor_backend"] = advisor / "advisor_backend" / "compute_advice"
    out["advisor_data"] = advisor / "compute_advice" / "data"
    for gpu in ("h100", "mi300", "mi210"):
        out[f"trace_{gpu}"] = SHARED / "tracelens" / gpu
    return {k: v for k, v in out.items() if v.exists()}


def _commands(work: Path) -> dict[str, list[str]]:
    inputs = {**_generated(work), **_samples()}
    cmds: dict[str, list[str]] = {
        "analyze_demo": ["analyze", "--demo", "--json", "--no-cache"],
        "analyze_demo_cached": ["analyze", "--demo", "--json"],
        "analyze_demo_cached_again": ["analyze", "--demo", "--json"],
        "predict_demo": ["predict", "--demo", "--json", "--targets", "all"],
        "predict_demo_achievable": ["predict", "--demo", "--json", "--basis", "achievable"],
    }
    for name, path in inputs.items():
        cmds[f"analyze_{name}"] = ["analyze", str(path), "--json", "--no-cache", "--ranks", "all"]
        cmds[f"predict_{name}"] = ["predict", str(path), "--json", "--targets", "910C,H100 SXM,MI300X"]
        cmds[f"advise_{name}"] = ["advise", str(path), "--json", "--no-cache"]
    pairs = [("gen_ascend", "gen_trace")]
    pairs += [(a, b) for a, b in (("text_level1", "text_level2"), ("trace_h100", "trace_mi300"),
                                  ("db_level1", "text_level1")) if a in inputs and b in inputs]
    for a, b in pairs:
        cmds[f"compare_{a}_{b}"] = ["compare", str(inputs[a]), str(inputs[b]), "--json"]
    for name in ("gen_ascend", "text_level1", "msinsight_server"):
        if name in inputs:
            out = work / f"summary_{name}"
            cmds[f"summarize_{name}"] = ["summarize", str(inputs[name]), "--out", str(out)]
            cmds[f"analyze_summary_{name}"] = ["analyze", str(out), "--json"]
            cmds[f"predict_summary_{name}"] = ["predict", str(out), "--json", "--targets", "910C,H100 SXM"]
    return cmds


def _run(args: list[str], work: Path, cache: Path) -> str:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), XDG_DATA_HOME=str(work / "data"),
               XDG_CONFIG_HOME=str(work / "config"), PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, "-m", "mfu_desktop", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=False)
    text = f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    for path, placeholder in ((work, "<WORK>"), (ROOT, "<CHECKOUT>"), (ROOT.parent, "<CHECKOUT_PARENT>")):
        text = text.replace(str(path), placeholder)
    return _ELAPSED.sub(r"\1<elapsed> s", text)


def outputs() -> dict[str, str]:
    """Every command's output (exit code, stdout, stderr), paths neutralised."""
    with tempfile.TemporaryDirectory(prefix="mfu-snapshot-") as tmp:
        work = Path(tmp)
        cache = work / "cache"
        return {name: _run(args, work, cache) for name, args in _commands(work).items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("action", choices=["record", "compare"])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    current = outputs()
    if args.action == "record":
        args.folder.mkdir(parents=True, exist_ok=True)
        for name, text in current.items():
            (args.folder / f"{name}.txt").write_text(text, encoding="utf-8")
        print(f"recorded {len(current)} outputs in {args.folder}")
        return 0
    differ = 0
    recorded = {p.stem: p.read_text(encoding="utf-8") for p in args.folder.glob("*.txt")}
    for name in sorted(set(recorded) | set(current)):
        before, after = recorded.get(name), current.get(name)
        if before == after:
            continue
        differ += 1
        print(f"== {name}: {'missing now' if after is None else 'new' if before is None else 'differs'}")
        if before is not None and after is not None:
            sys.stdout.writelines(list(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                                            "before", "after", n=1))[:60])
    print("identical" if not differ else f"{differ} of {len(recorded)} outputs differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
