"""The command line does what it is told, or says why not (issue 21 §3): one test per promise."""

from __future__ import annotations

import ast
import builtins
import json
import re
import sys
from pathlib import Path

import pytest

from mfu_desktop.cli.main import main
from mfu_desktop.core.paths import demo_profile_dir
from mfu_desktop.demo import generate
from tests.gpu_traces import H100, mm_op, write_trace

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    """A small 2-rank profile of a 910B2 (detected from its hardware counters)."""
    return generate(tmp_path_factory.mktemp("honest") / "job", ranks=2, steps=1, kernels=300)


@pytest.fixture(scope="module")
def summary(profile, tmp_path_factory):
    """The profile summarised (in process) for the chip it ran on."""
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.chips.catalog import default_catalog
    from mfu_desktop.core.pipeline.summarize import Runner, summarize

    out = tmp_path_factory.mktemp("honest-summary") / "summary"
    runner = Runner(workers=1)
    try:
        summarize([profile], out, AnalysisOptions(), default_catalog(), runner)
    finally:
        runner.close()
    return out


# --- a summary and --chip --------------------------------------------------------------------


def test_a_summary_refuses_a_chip_it_was_not_made_for(capsys, summary):
    code, out, err = run(capsys, "analyze", summary, "--chip", "910B1")
    assert code == 2 and not out
    assert "argument --chip" in err and "Huawei Ascend 910B2" in err and "Huawei Ascend 910B1" in err
    assert "mfu summarize" in err and "mfu analyze PATH" in err  # the commands that give the figures asked for
    code, out, _ = run(capsys, "analyze", summary, "--chip", "910B2")  # the chip it was made for: shown
    assert code == 0 and "operator MFU" in out
    code, _, err = run(capsys, "analyze", summary, "--hf32")
    assert code == 2 and "argument --hf32" in err
    code, _, err = run(capsys, "analyze", summary, "--fa-backward", "executed")
    assert code == 2 and "argument --fa-backward" in err and "model" in err
    code, _, err = run(capsys, "compare", summary, summary, "--chip-new", "910B1")
    assert code == 2 and "argument --chip-new" in err and "910B1" in err


# --- options spelt in full, lists not empty ---------------------------------------------------


@pytest.mark.parametrize("argv", [
    ("predict", "--demo", "--tar", "910C"),          # an abbreviation of --target/--targets
    ("analyze", "--dem"),                             # of --demo
    ("compare", "a", "b", "--chip-n", "910C"),        # of --chip-new
    ("calc", "gemm", "--m", "1", "--n", "1", "--k", "1", "--time", "1", "--peak-tflops", "1"),  # of --time-us
])
def test_abbreviated_options_are_errors(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2 and "unrecognized arguments" in capsys.readouterr().err


def test_the_window_takes_no_abbreviation_either():
    from mfu_desktop.gui.app import parse_args

    with pytest.raises(SystemExit) as exc:
        parse_args(["--dem"])
    assert exc.value.code == 2


def test_options_of_calibrate_without_it_are_errors(capsys):
    code, _, err = run(capsys, "predict", "--demo", "--target", "910C")
    assert code == 2 and "argument --target: only with --calibrate" in err and "--targets" in err
    code, _, err = run(capsys, "predict", "--demo", "--save-calibration")
    assert code == 2 and "argument --save-calibration" in err


@pytest.mark.parametrize("value", ["", " , ", "910C,,H200"])
def test_empty_target_lists_are_errors(capsys, value):
    with pytest.raises(SystemExit) as exc:
        main(["predict", "--demo", "--targets", value])
    assert exc.value.code == 2 and "argument --targets" in capsys.readouterr().err


# --- calibration against the wrong chip -------------------------------------------------------


def test_calibrating_against_a_profile_of_another_chip_is_refused(capsys, tmp_path):
    h100 = write_trace(tmp_path / "h100.pt.trace.json", H100, [mm_op(1024, 1024, 1024, [("sm90_gemm", 20.0)])])
    code, out, err = run(capsys, "predict", "--demo", "--calibrate", h100, "--target", "910C", "--save-calibration")
    assert code == 2 and not out
    assert "NVIDIA H100 SXM" in err and "Huawei Ascend 910C" in err and "argument --target" in err


# --- paths that hold nothing ------------------------------------------------------------------


def test_a_missing_path_beside_a_good_one(capsys, tmp_path, profile):
    missing = tmp_path / "missing"
    code, out, err = run(capsys, "analyze", profile, missing)
    assert code == 3 and str(missing) not in out and f"warning: {missing} does not exist" in err
    assert out.splitlines()[0].endswith(f"from {profile}")
    code, out, err = run(capsys, "summarize", profile, missing, "--out", tmp_path / "s")
    assert code == 3 and f"warning: {missing} does not exist" in err and "2 summarised" in out


def test_a_missing_path_beside_the_demo_in_predict(capsys, tmp_path):
    missing = tmp_path / "missing"
    code, out, err = run(capsys, "predict", missing, "--demo", "--targets", "910C")
    assert code == 3 and "does not exist" in err and str(missing) not in out


def test_ranks_that_the_profile_does_not_have(capsys):
    code, out, err = run(capsys, "analyze", "--demo", "--ranks", "99")
    assert code == 2 and not out and "argument --ranks: 99 not in the profile (its ranks: 0–7)" in err
    code, _, err = run(capsys, "analyze", "--demo", "--ranks", "3,99", "--json")
    assert code == 2 and "99" in err
    with pytest.raises(SystemExit):
        main(["analyze", "--demo", "--ranks", "1,x"])
    assert "neither 'all' nor comma-separated rank ids" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "option"), [
    (("calc", "gemm", "--m", "1", "--n", "1", "--k", "1", "--time-us", "1", "--chip", "H100"), "--chip"),
    (("predict", "--demo", "--targets", "910C,H100"), "--targets"),
    (("analyze", "--demo", "--chip", "A100"), "--chip"),
])
def test_a_family_name_asks_which_chip(capsys, argv, option):
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out and f"argument {option}" in err and "ambiguous: which one?" in err
    if "H100" in argv:
        assert "NVIDIA H100 SXM, NVIDIA H100 PCIe, NVIDIA H100 NVL" in err


# --- the Dask hint ----------------------------------------------------------------------------


def test_the_dask_hint_is_a_command_that_works_from_here(capsys, tmp_path, monkeypatch, profile):
    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    code, _, err = run(capsys, "summarize", profile, "--out", tmp_path / "s", "--workers", "2")
    assert code == 2
    # this interpreter, this checkout: the package is on no index, so "mfu-desktop[cluster]" cannot be installed
    assert f'{sys.executable} -m pip install -e "{ROOT}[cluster]"' in err and "mfu-desktop[cluster]" not in err
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "mfu-desktop[cluster]" not in readme and 'pip install ".[cluster]"' in readme


# --- derivations ------------------------------------------------------------------------------


def test_derivation_operands_give_the_result_shown(capsys):
    """The FlashAttention reference: 167.53 TFLOP/s / 294.9 = 56.8 % (168 / 294.9 would be 57.0 %)."""
    code, out, _ = run(capsys, "calc", "fa", "--layout", "SBH", "--q-shape", "4096,2,512", "--k-shape", "4096,2,512",
                       "--v-shape", "4096,2,512", "--heads", "4", "--time-us", "410.188", "--peak-tflops", "294.9")
    assert code == 0
    assert "MFU = achieved / peak = 167.5 / 294.9 = 56.8 %" in out
    assert "/ 0.000410188 s / 1e12 = 168 TFLOP/s" in out  # the time as typed
    # every "a op b = r" line of the calculators recomputes from its shown operands
    for argv in (["calc", "gemm", "--m", "4096", "--n", "1024", "--k", "6144", "--time-us", "200", "--chip", "910B2"],
                 ["calc", "memory", "--inputs", "4096,4096;4096,4096", "--input-dtypes", "bf16;bf16", "--time-us",
                  "80", "--chip", "910B2"],
                 ["model", "--params", "540e9", "--layers", "118", "--heads", "48", "--head-dim", "256", "--seq",
                  "2048", "--tokens-per-s", "238.3e3", "--peak-tflops", "275", "--chips", "6144"]):
        code, out, _ = run(capsys, *argv)
        assert code == 0
        checked = [line for line in out.splitlines() if _recomputes(line) is not None]
        assert checked and all(_recomputes(line) for line in checked)


def _recomputes(line: str) -> bool | None:
    """For "… = a [× x] / b = r %" lines (MFU, utilisation): whether the shown operands give r (else None)."""
    m = re.search(r"= ([\d.,e+]+)(?: × ([\d.,e+]+))? / ([\d.,e+]+)(?: GB/s)? = ([\d.]+) %", line)
    if not m:
        return None
    a, x, b = (float(v.replace(",", "")) if v else 1.0 for v in m.group(1, 2, 3))
    shown = float(m.group(4))
    value = a * x / b * 100
    digits = len(m.group(4).replace(".", "").lstrip("0"))
    return float(f"{value:.{digits}g}") == shown


# --- help texts, outputs, messages ------------------------------------------------------------


def test_compare_export_help_and_files_written_agree(capsys, tmp_path, profile):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    export_help = help_text[help_text.index("--export DIR"):]
    assert "charts" not in export_help.split("--no-cache")[0].replace("the charts: the window", "")
    out_dir = tmp_path / "cmp"
    code, out, _ = run(capsys, "compare", profile, profile, "--export", out_dir)
    assert code == 0
    listed = {Path(p.strip()) for p in out.splitlines()[0].removeprefix("wrote ").split(",")}
    assert listed == set(out_dir.iterdir()) and len(listed) == 4


def test_out_and_export_list_every_file_written(capsys, tmp_path):
    code, out, _ = run(capsys, "predict", "--demo", "--targets", "910C", "--out", tmp_path / "p", "--format", "both")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("wrote "))
    assert {Path(p.strip()) for p in line.removeprefix("wrote ").split(",")} == set((tmp_path / "p").iterdir())
    with pytest.raises(SystemExit):
        main(["predict", "--help"])
    assert "architecture_rules.csv" in capsys.readouterr().out
    code, out, _ = run(capsys, "analyze", "--demo", "--export", tmp_path / "a")
    line = next(x for x in out.splitlines() if x.startswith("wrote "))
    assert {Path(p.strip()) for p in line.removeprefix("wrote ").split(",")} == set((tmp_path / "a").iterdir())


def test_the_readme_lists_compare_and_the_windows_compare_option():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = readme[readme.index("## Command line"):].split("\n\n")[1]
    assert "`mfu compare`" in commands
    usage = next(block for block in readme.split("```") if block.removeprefix("text\n").startswith("mfu-desktop ["))
    assert "--compare NEW" in usage
    assert "Exit codes" in readme and "3 " in readme[readme.index("Exit codes"):][:600]


def _user_strings(path: Path) -> list[str]:
    """The string constants (f-strings joined) of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            out.append("".join(v.value for v in node.values if isinstance(v, ast.Constant)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces:
            out.append(node.value)
    return out


def test_messages_of_the_engine_and_the_command_line_never_point_only_at_a_window_menu():
    menu = re.compile(r"\b(Tools|File|View|Help|Assumptions) →")
    offenders = []
    for path in [*(ROOT / "mfu_desktop/core").rglob("*.py"), *(ROOT / "mfu_desktop/cli").rglob("*.py")]:
        for text in _user_strings(path):
            if menu.search(text) and "--" not in text and "mfu " not in text:
                offenders.append(f"{path.name}: {text[:80]}")
    assert not offenders


def test_an_unconfirmed_chip_in_compare_names_the_option(capsys, tmp_path):
    ops = [mm_op(1024, 1024, 1024, [("sm90_gemm", 20.0)])]
    base = write_trace(tmp_path / "b.pt.trace.json", H100, ops)
    new = write_trace(tmp_path / "n.pt.trace.json", {**H100, "name": "NVIDIA Mystery GPU"}, ops)
    code, out, _ = run(capsys, "compare", base, new)
    assert code == 0 and "--chip-new NAME" in out
    code, out, _ = run(capsys, "compare", base, new, "--chip-new", "H100 SXM", "--json")
    assert code == 0 and json.loads(out)["new"]["mfu_ops"] == pytest.approx(2 * 1024**3 / 989.4e12 / 20e-6, rel=1e-3)
    code, _, err = run(capsys, "compare", base, new, "--chip-new", "H100")
    assert code == 2 and "ambiguous" in err


def test_demo_profile_still_analyses(capsys):
    code, out, _ = run(capsys, "analyze", "--demo", "--ranks", "all")
    assert code == 0 and out.count("== rank ") == 8 and str(demo_profile_dir()) in out.splitlines()[0]
