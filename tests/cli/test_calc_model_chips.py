"""The ``mfu`` command line: JSON contract, reference cases, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mfu_desktop.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_gemm_json_contract(capsys):
    data = run_json(capsys, "calc", "gemm", "--m", "4096", "--n", "1024", "--k", "6144", "--time-us", "200",
                    "--chip", "910B2", "--dtype", "bf16")
    assert set(data) >= {"flops", "achieved_tflops", "peak_tflops", "mfu", "derivation"}
    assert isinstance(data["flops"], int) and data["flops"] == 51_539_607_552
    assert data["peak_tflops"] == 353.9
    assert data["mfu"] == pytest.approx(51_539_607_552 / 200e-6 / 1e12 / 353.9)
    assert all(isinstance(line, str) for line in data["derivation"])


def test_gemm_batch(capsys):
    data = run_json(capsys, "calc", "gemm", "--m", "1024", "--n", "1024", "--k", "512", "--batch", "12",
                    "--time-us", "45.5", "--peak-tflops", "363.7")
    assert data["flops"] == 2 * 12 * 1024 * 1024 * 512


def test_fa_sample_row(capsys):
    data = run_json(capsys, "calc", "fa", "--layout", "SBH", "--q-shape", "4096,2,512", "--k-shape", "4096,2,512",
                    "--v-shape", "4096,2,512", "--heads", "4", "--time-us", "410.188", "--peak-tflops", "294.9")
    assert data["flops"] == 68_719_476_736
    assert data["achieved_tflops"] == pytest.approx(167.53, abs=0.01)


def test_fa_varlen_and_backward(capsys):
    data = run_json(capsys, "calc", "fa", "--layout", "TND", "--q-shape", "12,4,64", "--k-shape", "12,4,64",
                    "--actual-seq-qlen", "3,7,12", "--actual-seq-kvlen", "3,7,12", "--sparse-mode", "3",
                    "--backward", "--time-us", "10", "--chip", "910B2")
    assert data["flops"] == 2 * (2 * 4 * 128 * 31)
    assert data["executed_flops"] == 2 * 4 * 128 * 31 * 5 // 2


def test_fa_seed_convention(capsys):
    data = run_json(capsys, "calc", "fa", "--layout", "BNSD", "--q-shape", "1,8,4096,128", "--k-shape",
                    "1,8,4096,128", "--sparse-mode", "2", "--convention", "seed", "--time-us", "100",
                    "--peak-tflops", "353.9")
    assert data["flops"] == 2 * 8 * 4096 * 4096 * 256 // 2


def test_model_palm_reference(capsys):
    data = run_json(capsys, "model", "--params", "540e9", "--layers", "118", "--heads", "48", "--head-dim", "256",
                    "--seq", "2048", "--tokens-per-s", "238.3e3", "--peak-tflops", "275", "--chips", "6144",
                    "--remat-fraction", "0.75", "--remat-attention")
    assert set(data) >= {"flops_per_token", "attention_flops_per_token", "mfu_without_attention",
                         "mfu_with_attention", "hfu", "derivation"}
    assert round(data["mfu_without_attention"] * 100, 1) == 45.7
    assert round(data["mfu_with_attention"] * 100, 1) == 46.2
    assert round(data["hfu"] * 100, 1) == 57.8
    assert round(data["flops_per_token"] / 1e12, 2) == 3.28


def test_model_hfu_null_without_remat(capsys):
    data = run_json(capsys, "model", "--params", "540e9", "--layers", "118", "--heads", "48", "--head-dim", "256",
                    "--seq", "2048", "--global-batch", "2048", "--step-time-s", "17.6", "--peak-tflops", "275",
                    "--chips", "6144")
    assert data["hfu"] is None
    assert data["tokens_per_s"] == pytest.approx(2048 * 2048 / 17.6)


def test_model_inverse(capsys):
    data = run_json(capsys, "model", "--params", "7e9", "--layers", "32", "--heads", "32", "--head-dim", "128",
                    "--seq", "4096", "--chip", "910B2", "--chips", "8", "--target-mfu", "0.5", "--global-batch", "64")
    fpt = 6 * 7e9 + 12 * 32 * 32 * 128 * 4096
    assert data["tokens_per_s"] == pytest.approx(0.5 * 353.9e12 * 8 / fpt)
    assert data["step_time_s"] == pytest.approx(64 * 4096 / data["tokens_per_s"])


def test_model_modern(capsys):
    data = run_json(capsys, "model", "--d-model", "1024", "--layers", "2", "--heads", "16", "--head-dim", "64",
                    "--kv-heads", "4", "--ffn-hidden", "2816", "--vocab", "32000", "--seq", "2048",
                    "--tokens-per-s", "1e5", "--peak-tflops", "353.9", "--chips", "1", "--causal-halved")
    n = 2 * (1024 * 1024 * 2 + 2 * 1024 * 256 + 3 * 1024 * 2816) + 1024 * 32000
    assert data["flops_per_token"] == pytest.approx(6 * n + 12 * 2 * 16 * 64 * 2048 / 2)


def test_chips_json_has_sources(capsys):
    data = run_json(capsys, "chips")
    chips = {c["identifier"]: c for c in data["chips"]}
    assert len(chips) == 57  # chips.csv's 49 + the 8 GPUs of the public validation data
    b2 = chips["Huawei Ascend 910B2"]["values"]["cube_bf16_tflops"]
    assert b2["value"] == 353.9 and "CFG" in b2["source"] and b2["confidence"] == "B"


def test_chips_human_and_detail(capsys):
    code, out, _ = run(capsys, "chips", "910B1")
    assert code == 0 and "378.88" in out


@pytest.mark.parametrize(
    ("argv", "argument"),
    [
        (["calc", "gemm", "--m", "x"], "--m"),
        (["calc", "gemm", "--m", "-4"], "--m"),
        (["calc", "gemm", "--m", "1", "--n", "1", "--k", "1", "--time-us", "1", "--chip", "nonesuch"], "--chip"),
        (["calc", "gemm", "--m", "1", "--n", "1", "--k", "1", "--time-us", "1", "--chip", "910A"], "--dtype"),
        (["calc", "fa", "--layout", "XYZ"], "--layout"),
        (["calc", "fa", "--layout", "BNSD", "--q-shape", "1,2,a"], "--q-shape"),
    ],
)
def test_bad_arguments_exit_2_naming_the_argument(capsys, argv, argument):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and argument in err[0]


def test_missing_inputs_listed(capsys):
    """One error line per missing input, naming its option and where to find the value."""
    code, _, err = run(capsys, "calc", "gemm", "--m", "4096", "--n", "1024", "--time-us", "100")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("mfu calc gemm: error: missing K (--k): ")
    assert lines[1].startswith("mfu calc gemm: error: missing peak (--chip or --peak-tflops): ")


@pytest.mark.parametrize("argv", [[], ["calc"]])
def test_bare_command_prints_usage_with_the_commands(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 0 and not err
    expected = ("calc", "model", "chips", "analyze", "predict") if not argv else ("gemm", "linear", "qk", "fa")
    assert out.startswith("usage: mfu") and all(name in out for name in expected)
    assert "required" not in out


def test_chips_explains_its_codes_and_names_the_readme_section(capsys):
    from mfu_desktop.cli.chips import README_CHIP_SECTION

    code, out, _ = run(capsys, "chips")
    assert code == 0
    assert "sources:" in out and "  CFG    CANN platform configuration files" in out
    assert "confidence:" in out and "  B      " in out
    assert f"README section '{README_CHIP_SECTION}'" in out
    from mfu_desktop.core.paths import user_catalog_path

    assert f"a row in {user_catalog_path()}" in out  # where the command line's user catalog lives
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"## {README_CHIP_SECTION}" in readme
    code, out, _ = run(capsys, "chips", "910B1")
    # every row has a readable label (no raw column names such as tdp_w)
    assert "tdp_w" not in out and "memory_gb" not in out and "Power (W)" in out and "AI cores" in out


def test_contradictory_fa_shapes_exit_2(capsys):
    code, _, err = run(capsys, "calc", "fa", "--layout", "BNSD", "--q-shape", "2,8,128,64", "--k-shape",
                       "3,8,128,64", "--time-us", "1", "--peak-tflops", "100")
    assert code == 2 and "batch differs" in err


def test_calc_memory_add_by_hand(capsys):
    """An Add [4096,4096] + [4096,4096] → [4096,4096] BF16 in 80 µs on a 910B2: 3 × 33,554,432 bytes, 78.6 %."""
    code = main(["calc", "memory", "--inputs", "4096,4096;4096,4096", "--input-dtypes", "bf16;bf16", "--outputs",
                 "4096,4096", "--output-dtypes", "bf16", "--time-us", "80", "--chip", "910B2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["bytes"] == 100_663_296 and out["bandwidth_gbs"] == 1600.0
    assert out["achieved_gbs"] == pytest.approx(100_663_296 / 80e-6 / 1e9)
    assert out["bw_util"] == pytest.approx(100_663_296 / 80e-6 / 1.6e12)
    assert out["attainable_us"] == pytest.approx(100_663_296 / 1.6e12 * 1e6)
    # without a bandwidth: exit 2 naming what is missing and where to find it
    code = main(["calc", "memory", "--inputs", "4096", "--input-dtypes", "bf16", "--time-us", "1"])
    assert code == 2 and "--bandwidth-gbs" in capsys.readouterr().err
