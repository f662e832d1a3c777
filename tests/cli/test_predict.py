"""``mfu predict``: JSON contract, outputs, calibration, errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from mfu_desktop.cli.main import main
from mfu_desktop.demo import generate
from tests.helpers import snapshot

SEED_FILE = Path(__file__).resolve().parents[1] / "data" / "seed_devices_info.csv"
NUM = (float, type(None))
TARGET_KEYS = {"device": str, "baseline_compute_us": float, "predicted_compute_us": float,
               "unpredictable_compute_us": float, "predicted_share": float, "relative_performance": float,
               "partial": bool, "partial_reason": str, "measured_step_us": NUM, "predicted_step_us": NUM,
               "step_relative_performance": NUM, "readme_formula_relative_performance": NUM, "computing_us": NUM,
               "comm_not_overlapped_us": NUM, "transfer_us": NUM, "wait_us": NUM, "free_us": NUM,
               "slowest_rank": (dict, type(None)), "fallback_time_share": float, "step_not_predicted": str,
               "rules": list, "notes": list}


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("cli") / "profile", ranks=2, steps=1)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract(capsys, profile):
    code, out, _ = run(capsys, "predict", profile, "--targets", "910C,950DT,H200,H20", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == 2 and "per step" in data["convention"]
    assert set(data) >= {"source", "ranks", "steps", "baseline_compute_us", "baseline", "targets", "warnings"}
    assert data["source"] == "Huawei Ascend 910B" and data["ranks"] == [0, 1]
    assert isinstance(data["baseline_compute_us"], float)
    assert data["baseline"]["kind"] == "source" and data["baseline"]["relative_performance"] == 1.0
    for t in data["targets"]:
        for key, kind in TARGET_KEYS.items():
            assert isinstance(t[key], kind), (key, t[key])
    by = {t["device"]: t for t in data["targets"]}
    assert by["Huawei Ascend 910C"]["relative_performance"] == pytest.approx(2.0, rel=1e-3)
    assert "950 MatMul ×1.2 (target)" in by["Huawei Ascend 950DT"]["rules"]
    c = by["Huawei Ascend 910C"]
    assert c["transfer_us"] > 0 and c["wait_us"] > 0
    # the step split adds up, and the slowest rank carries its number and its values
    assert c["predicted_step_us"] == pytest.approx(c["computing_us"] + c["transfer_us"] + c["wait_us"] + c["free_us"])
    slowest = c["slowest_rank"]
    assert slowest["rank"] in (0, 1) and slowest["step_us"] >= c["predicted_step_us"]
    assert slowest["step_us"] == pytest.approx(slowest["computing_us"] + slowest["transfer_us"] + slowest["wait_us"]
                                               + slowest["free_us"])
    # the 950DT has no FP32 cube peak: its speed-up covers only part of the compute time, and says so
    dt = by["Huawei Ascend 950DT"]
    assert dt["partial"] and 0 < dt["predicted_share"] < 1 and "cube_fp32_tflops" in dt["partial_reason"]


def test_model_and_expected_error_in_json_and_console(capsys, profile):
    """Issue 23: the default model and basis are stated; each target carries the expected error of this kernel mix;
    on a profile with pipe counters the roofline model keeps the seed's split (the same numbers)."""
    code, out, _ = run(capsys, "predict", profile, "--targets", "H100 SXM,MI300X", "--json")
    data = json.loads(out)
    assert code == 0 and (data["model"], data["basis"]) == ("roofline", "fitted")
    for t in data["targets"]:
        band = t["error_band"]
        assert band["p10"] <= band["median"] <= band["p90"] and band["pairs"] > 0
        assert band["pair_class"] == "cross vendor"  # the demo ran on a 910B-class chip
    code, out, _ = run(capsys, "predict", profile, "--targets", "H100 SXM,MI300X", "--model", "seed", "--basis",
                       "advertised", "--json")
    seed = json.loads(out)
    assert (seed["model"], seed["basis"]) == ("seed", "advertised")
    advertised = run(capsys, "predict", profile, "--targets", "H100 SXM,MI300X", "--basis", "advertised", "--json")[1]
    for a, b in zip(seed["targets"], json.loads(advertised)["targets"]):
        assert a["predicted_compute_us"] == pytest.approx(b["predicted_compute_us"])
    code, out, _ = run(capsys, "predict", profile, "--targets", "H100 SXM")
    assert "model: roofline model, fitted basis" in out and "expected error: " in out


def test_outputs_have_the_seed_columns_and_stay_outside_the_profile(capsys, profile, tmp_path):
    before = snapshot(profile)
    out_dir = tmp_path / "pred"
    code, out, _ = run(capsys, "predict", profile, "--targets", "910C,H20", "--out", out_dir)
    assert code == 0
    with (out_dir / "performance_prediction.csv").open(encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:9] == ["device", "architecture", "CubeFP16", "CubeFP32", "VecFP16", "VecFP32",
                                 "bandwidth_gbs", "predicted_compute_us", "relative_performance"]
    with (out_dir / "kernel_prediction_detail.csv").open(encoding="utf-8-sig") as fh:
        header = next(csv.reader(fh))
    for col in ("name", "type", "accelerator_core", "class", "precision", "duration_us", "compute_us", "memory_us",
                "compute_ratio", "memory_ratio", "scale", "predicted_us", "rules"):
        assert col in header
    assert "Baseline (Huawei Ascend 910B) = 1.00×" in out
    assert "Comm (not overlapped):" in out
    code, _, err = run(capsys, "predict", profile, "--out", profile / "x")
    assert code == 2 and "refusing" in err
    assert snapshot(profile) == before


def test_chinese_console_table(capsys, profile):
    code, out, _ = run(capsys, "predict", profile, "--targets", "910C", "--lang", "zh_CN")
    assert code == 0 and "预测结果: 各芯片相对性能对比 (基线=1.0" in out
    assert "未掩盖通信:" in out and "计算类耗时" in out


def test_seed_catalog_file_and_names(capsys, profile):
    code, out, _ = run(capsys, "predict", profile, "--catalog", SEED_FILE, "--source", "Huawei Ascend 910B",
                       "--targets", "Huawei Ascend 910C,Alibaba PPU1.5", "--json")
    assert code == 0
    devices = {t["device"] for t in json.loads(out)["targets"]}
    assert devices == {"Huawei Ascend 910C", "Alibaba PPU1.5"}


def test_unknown_chip_names_exit_2(capsys, profile):
    code, _, err = run(capsys, "predict", profile, "--targets", "910C,Z9000")
    assert code == 2 and "--targets" in err
    code, _, err = run(capsys, "predict", profile, "--source", "nope")
    assert code == 2 and "--source" in err


def test_calibrate_json(capsys, profile):
    code, out, _ = run(capsys, "predict", profile, "--calibrate", profile, "--source", "910B2", "--target", "910B2",
                       "--json")
    assert code == 0
    data = json.loads(out)
    assert data["mape"] == pytest.approx(0.0, abs=1e-9)  # a profile predicted onto its own chip
    assert all(row["error"] == pytest.approx(0.0, abs=1e-9) for row in data["by_type"])


def test_nothing_to_predict(capsys, tmp_path):
    code, _, err = run(capsys, "predict", tmp_path)
    assert code == 1 and err.startswith("mfu predict: error: no profiler ranks found in")


def test_written_rules_file_is_the_rules_input(capsys, profile, tmp_path):
    out_dir = tmp_path / "pred"
    code, _, _ = run(capsys, "predict", profile, "--targets", "950DT", "--out", out_dir, "--json")
    assert code == 0
    rules_file = out_dir / "architecture_rules.csv"
    text = rules_file.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "enabled,name,kind,chips,pattern,factor,value,peer_vendor,note"
    assert "950 MatMul ×1.2" in text
    code, out_default, _ = run(capsys, "predict", profile, "--targets", "950DT", "--rules", rules_file, "--json")
    assert code == 0
    edited = tmp_path / "rules.csv"
    edited.write_text(text.replace("true,950 MatMul ×1.2", "false,950 MatMul ×1.2"), encoding="utf-8")
    code, out_edited, _ = run(capsys, "predict", profile, "--targets", "950DT", "--rules", edited, "--json")
    assert code == 0
    default_rel = json.loads(out_default)["targets"][0]["relative_performance"]
    edited_rel = json.loads(out_edited)["targets"][0]["relative_performance"]
    assert edited_rel < default_rel  # switching the ×1.2 MatMul rule off makes the 950DT slower


def stand_in_for_a_measurement_on_the_target(monkeypatch) -> None:
    """The 910B2 profile plays a profile measured on the A100 (the pairing check itself: test_honest_cli.py)."""
    from mfu_desktop.cli import predict_run

    monkeypatch.setattr(predict_run, "_check_measured_chip", lambda *args: None)


def test_basis_and_saved_calibration(capsys, profile, tmp_path, monkeypatch):
    """--basis achievable states its basis; --save-calibration keeps per-category factors that later runs name."""
    monkeypatch.setenv("MFU_DESKTOP_DATA_DIR", str(tmp_path / "data"))
    stand_in_for_a_measurement_on_the_target(monkeypatch)
    target = "NVIDIA A100 SXM 40GB"
    code, out, _ = run(capsys, "predict", profile, "--source", "910B", "--targets", target, "--basis", "achievable",
                       "--json")
    assert code == 0
    data = json.loads(out)
    assert data["basis"] == "achievable" and "achievable" in data["targets"][0]["basis"]
    # the profile "measured" on the target is the profile itself: the factors undo the ratios
    code, out, _ = run(capsys, "predict", profile, "--source", "910B", "--calibrate", profile, "--target", target,
                       "--save-calibration")
    assert code == 0 and "saved" in out and "factor ×" in out
    saved = (tmp_path / "data" / "calibration.csv").read_text(encoding="utf-8")
    assert saved.startswith("source,target,basis,category,factor,fitted_on,model") and "matmul" in saved
    code, out, _ = run(capsys, "predict", profile, "--source", "910B", "--targets", target, "--json")
    t = json.loads(out)["targets"][0]
    assert any(r.startswith("calibration matmul ×") for r in t["rules"])
    assert t["relative_performance"] == pytest.approx(1.0, rel=1e-6)
    code, out, _ = run(capsys, "predict", profile, "--source", "910B", "--targets", target, "--json",
                       "--no-calibration")
    t = json.loads(out)["targets"][0]
    assert not any(r.startswith("calibration") for r in t["rules"]) and t["relative_performance"] != \
        pytest.approx(1.0, rel=1e-3)
    with pytest.raises(SystemExit) as exc:
        main(["predict", str(profile), "--basis", "peak"])
    assert exc.value.code == 2 and "argument --basis: invalid choice: 'peak'" in capsys.readouterr().err


def test_save_calibration_on_the_demo_and_into_an_unwritable_place(capsys, tmp_path, monkeypatch):
    from mfu_desktop.core.paths import demo_profile_dir

    monkeypatch.setenv("MFU_DESKTOP_DATA_DIR", str(tmp_path / "data"))
    stand_in_for_a_measurement_on_the_target(monkeypatch)
    code, out, _ = run(capsys, "predict", "--demo", "--source", "910B", "--calibrate", demo_profile_dir(),
                       "--target", "NVIDIA A100 SXM 40GB", "--save-calibration")
    assert code == 0 and "saved" in out
    assert "the demo profile vs" in (tmp_path / "data" / "calibration.csv").read_text(encoding="utf-8")
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("MFU_DESKTOP_DATA_DIR", str(blocker / "data"))
    code, _, err = run(capsys, "predict", "--demo", "--source", "910B", "--calibrate", demo_profile_dir(),
                       "--target", "NVIDIA A100 SXM 40GB", "--save-calibration")
    assert code == 2 and err.startswith("mfu predict: error: argument --save-calibration: cannot write to")
    # a damaged calibration file: each bad row is a warning, the prediction runs
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "calibration.csv").write_text("source,target,basis,category,factor,fitted_on\nA,B,advertised,matmul,abc,x\n",
                                         encoding="utf-8")
    monkeypatch.setenv("MFU_DESKTOP_DATA_DIR", str(bad))
    code, _, err = run(capsys, "predict", "--demo", "--targets", "H200")
    assert code == 0 and "calibration.csv: line 2: could not convert string to float: 'abc'; row skipped" in err


def test_each_target_says_where_its_fitted_values_come_from(capsys, profile):
    """Fitted basis (the default): the A800 takes its die's (GA100) fit, the H100 its own, the 910B the priors."""
    code, out, _ = run(capsys, "predict", profile, "--targets", "A800 SXM 80GB,H100 SXM", "--json")
    assert code == 0
    targets = json.loads(out)["targets"]
    notes = {t["device"]: [n for n in t["notes"] if n.startswith("fitted values: ")] for t in targets}
    a800, h100 = notes["NVIDIA A800 SXM 80GB"], notes["NVIDIA H100 SXM"]
    assert len(a800) == len(h100) == 1
    assert "Huawei Ascend 910B: the catalog-wide priors" in a800[0] and "its die's fit (die GA100" in a800[0]
    assert "NVIDIA H100 SXM: its own fit (" in h100[0]
    code, out, _ = run(capsys, "predict", profile, "--targets", "H100 SXM", "--basis", "advertised", "--json")
    assert not any(n.startswith("fitted values") for n in json.loads(out)["targets"][0]["notes"])
