"""``mfu analyze``: the JSON contract, exit codes, export, cache, read-only."""

from __future__ import annotations

import json

import pytest

from mfu_desktop.cli.main import main
from mfu_desktop.core.pipeline.analyze import analyze_paths
from mfu_desktop.core.store.ranks import clear_cache
from tests.helpers import kernel_row, make_rank, snapshot

FA_SAMPLE = "msprof-analyze/test/ut/advisor/compute_advice/data"
RANK_KEYS = {"rank": int, "path": str, "chip": (str, type(None)), "peak_source": str, "kernels": int,
             "countable_kernels": int, "flops": float, "countable_time_us": float,
             "achieved_tflops": (float, type(None)), "mfu_ops": (float, type(None)),
             "step_time_us": (float, type(None)), "mfu_step": (float, type(None)),
             "cube_utilization": (float, type(None)), "tier": int, "by_type": list, "excluded": list,
             "steps": int, "steps_source": str, "step_breakdown": dict}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract(capsys, samples):
    code, out, _ = run(capsys, "analyze", str(samples / FA_SAMPLE), str(samples / "msinsight/test/data/pytorch/text/"
                                                                        "level1"), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == 2 and "per step" in data["convention"]
    assert set(data) >= {"ranks", "warnings", "cluster"}
    assert len(data["ranks"]) == 3
    for rank in data["ranks"]:
        for key, kind in RANK_KEYS.items():
            assert isinstance(rank[key], kind), (key, rank[key])
        assert rank["tier"] in (1, 2, 3)
        for row in rank["by_type"]:
            assert set(row) >= {"type", "count", "flops", "time_us", "achieved_tflops", "mfu"}
        for row in rank["excluded"]:
            assert set(row) == {"type", "reason", "count", "time_us"}
    fa = next(r for r in data["ranks"] if r["rank"] == -1)
    assert fa["chip"] == "Huawei Ascend 910B3"
    assert any(r["reason"].startswith("inconsistent shapes") for r in fa["excluded"])


def test_human_output_lists_summary_top_and_exclusions(capsys, samples):
    code, out, _ = run(capsys, "analyze", str(samples / FA_SAMPLE), "--top", "3")
    assert code == 0
    for text in ("chip / peak", "operator MFU", "step MFU", "cube util", "tier", "top 3 by lost time",
                 "excluded from FLOPs-based MFU"):
        assert text in out


def test_exit_codes(capsys, tmp_path, samples):
    code, _, _ = run(capsys, "analyze", str(tmp_path))
    assert code == 1  # nothing could be loaded
    code, _, err = run(capsys, "analyze", str(samples / FA_SAMPLE), "--chip", "nonesuch")
    assert code == 2 and "--chip" in err
    (tmp_path / "bad_ascend_pt" / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (tmp_path / "bad_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").write_text("")
    make_rank(tmp_path, "good_ascend_pt", 1, [kernel_row("k", "Add", "AI_VECTOR_CORE", "1767225600000001.500", 2.0)])
    code, out, _ = run(capsys, "analyze", str(tmp_path), "--json")
    data = json.loads(out)
    assert code == 3 and len(data["ranks"]) == 1  # printed, but a rank was skipped
    assert any("is empty" in w for w in data["warnings"])


def test_export_writes_tables_and_never_inside_the_profile(capsys, tmp_path, samples):
    profile = tmp_path / "profile"
    make_rank(profile, "r_ascend_pt", 0, [
        kernel_row("=cmd|' /C calc'!A0", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512",
                   "DT_BF16;DT_BF16", "128,512", "DT_BF16")])
    before = snapshot(profile)
    out_dir = tmp_path / "export"
    code, _, _ = run(capsys, "analyze", str(profile), "--chip", "910B2", "--export", str(out_dir))
    assert code == 0
    names = {p.name for p in out_dir.iterdir()}
    assert {"kernels.csv", "kernels.parquet", "by_type.csv", "by_shape.csv", "excluded.csv", "summary.json",
            "summary.md"} <= names
    kernels = (out_dir / "kernels.csv").read_text(encoding="utf-8-sig")
    assert "'=cmd|" in kernels and ",=cmd" not in kernels  # formula injection neutralised
    code, _, err = run(capsys, "analyze", str(profile), "--export", str(profile / "r_ascend_pt" / "out"))
    assert code == 2 and "refusing to write into the profiler folder" in err
    assert snapshot(profile) == before


def test_second_analysis_comes_from_the_cache_and_changes_invalidate_it(tmp_path):
    row = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512",
                     "DT_BF16;DT_BF16", "128,512", "DT_BF16")
    path = make_rank(tmp_path, "r_ascend_pt", 0, [row])
    first = analyze_paths([tmp_path]).ranks[0]
    assert not first.data.from_cache
    second = analyze_paths([tmp_path]).ranks[0]
    assert second.data.from_cache
    assert second.summary.flops == first.summary.flops
    csv = path / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    csv.write_text(csv.read_text().replace(",10.0,", ",20.0,"))
    third = analyze_paths([tmp_path]).ranks[0]
    assert not third.data.from_cache
    assert third.summary.countable_time_us == pytest.approx(20.0)
    assert clear_cache() >= 2


def test_json_figures_are_per_step_and_per_rank(capsys, tmp_path):
    """Schema 2 on the generated demo (2 steps, 3 ranks, rank 2 not slow): every time a mean per step."""
    from mfu_desktop.demo import generate

    profile = generate(tmp_path / "p", ranks=3, steps=2)
    code, out, _ = run(capsys, "analyze", str(profile), "--json", "--no-cache")
    assert code == 0
    data = json.loads(out)
    result = analyze_paths([profile], use_cache=False)
    for rank, r in zip(data["ranks"], result.ranks):
        steps = r.steps["step_time_us"]
        assert rank["steps"] == 2 and rank["steps_source"] == "step trace"
        assert rank["step_time_us"] == pytest.approx(steps.mean())  # not steps.sum()
        assert rank["step_breakdown"]["computing"] == pytest.approx(r.steps["computing"].mean())
        total = float(r.kernels.loc[r.kernels["status"] == "counted", "duration_us"].sum())
        assert rank["countable_time_us"] == pytest.approx(total / 2)
        assert sum(t["time_us"] for t in rank["by_type"]) == pytest.approx(r.kernels["duration_us"].sum() / 2)
    cluster = data["cluster"]
    means = [rank["step_time_us"] for rank in data["ranks"]]
    assert cluster["ranks"] == 3
    assert cluster["step_time_us"] == pytest.approx(sum(means) / 3)
    assert cluster["slowest_rank"]["step_time_us"] == pytest.approx(max(means))
    assert cluster["slowest_rank"]["rank"] == means.index(max(means))


@pytest.mark.parametrize("argv", [["calc", "gemm", "--m", "64", "--n", "64", "--k", "64", "--time-us", "1",
                                   "--peak-tflops", "100", "--json"],
                                  ["chips", "--json"],
                                  ["model", "--params", "540e9", "--layers", "118", "--heads", "48", "--head-dim",
                                   "256", "--seq", "2048", "--tokens-per-s", "238.3e3", "--peak-tflops", "275",
                                   "--chips", "6144", "--json"]])
def test_every_json_object_carries_the_schema(capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 0 and json.loads(out)["schema"] == 2


def test_gpu_kernel_names_are_short_on_screen_and_full_in_the_exports(capsys, tmp_path):
    """A GPU-only trace: hot operators print display names; kernels.csv keeps the full name beside it."""
    import pandas as pd

    from tests.gpu_traces import H100, Op, write_trace

    mul = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<"
           "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >("
           "at::TensorIteratorBase&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::"
           "BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>"
           " > >(at::TensorIteratorBase&)::{lambda(int)#1})")
    (tmp_path / "t").mkdir()
    trace = write_trace(tmp_path / "t" / "gpu.pt.trace.json", H100, [Op(None, [], [], [(mul, 5.0)])])
    code, out, _ = run(capsys, "analyze", str(trace), "--export", str(tmp_path / "x"), "--no-cache")
    assert code == 0
    assert "elementwise_kernel<MulFunctor<bf16>>" in out and "binary_internal" not in out
    kernels = pd.read_csv(tmp_path / "x" / "kernels.csv")
    assert list(kernels["name"]) == [mul] and list(kernels["display_name"]) == ["elementwise_kernel<MulFunctor<bf16>>"]
    hot = pd.read_csv(tmp_path / "x" / "hot_by_time.csv")
    assert list(hot["type"]) == [mul] and list(hot["display_type"]) == ["elementwise_kernel<MulFunctor<bf16>>"]
