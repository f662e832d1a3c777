"""Compare of GPU traces: op calls (not kernels), kernels per call, families through the launching op,
display names — on generated H100 / MI300X traces with hand-computed figures."""

from __future__ import annotations

import pytest

from mfu_desktop.core.chips.catalog import default_catalog
from mfu_desktop.core.compare.comparison import compare, side_groups, table
from mfu_desktop.core.compare.report import console_text, markdown
from mfu_desktop.core.pipeline.analyze import analyze_paths
from tests.gpu_traces import BF16, H100, MI300X, Op, mm_op, write_trace

CUBLAS = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
TENSILE = ("Cijk_Alik_Bljk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x224x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_"
           "CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA512")
MUL = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<"
       "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >("
       "at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
       "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, "
       "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
       "at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<"
       "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::"
       "{lambda(int)#1})")
FLASH = ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
         "cutlass::bfloat16_t>>")
SDPA = Op("aten::_scaled_dot_product_flash_attention", [[1, 8, 512, 64]] * 3, [BF16] * 3)


def analysed(path):
    return analyze_paths([path], use_cache=False)


@pytest.fixture(scope="module")
def h100_vs_mi300x(tmp_path_factory):
    """The same workload: 4 aten::mm + 1 SDPA + 1 aten::mul per step, 2 steps.

    H100: cuBLAS runs each mm as a GEMM (30 µs) and a memset (2 µs); SDPA is one flash kernel (50 µs).
    MI300X: hipBLASLt runs each mm as one Tensile kernel (40 µs); SDPA is two kernels (60 + 10 µs).
    """
    mm = (1024, 1024, 1024)
    h100_ops = [*(mm_op(*mm, [(CUBLAS, 30.0), ("Memset (Device)", 2.0, "gpu_memset")]) for _ in range(4)),
                Op(SDPA.name, SDPA.dims, SDPA.types, [(FLASH, 50.0)]),
                Op("aten::mul", [[1024, 1024], [1024, 1024]], [BF16, BF16], [(MUL, 8.0)])]
    mi300_ops = [*(mm_op(*mm, [(TENSILE, 40.0)]) for _ in range(4)),
                 Op(SDPA.name, SDPA.dims, SDPA.types, [("attn_fwd", 60.0), ("_bwd_preprocess_like_kernel", 10.0)]),
                 Op("aten::mul", [[1024, 1024], [1024, 1024]], [BF16, BF16], [(MUL, 9.0)])]
    folder = tmp_path_factory.mktemp("traces")
    base = analysed(write_trace(folder / "h100.pt.trace.json", H100, h100_ops, steps=2))
    new = analysed(write_trace(folder / "mi300x.pt.trace.json", MI300X, mi300_ops, steps=2))
    return base, new


def test_calls_are_op_calls_and_kernels_per_call_are_shown_apart(h100_vs_mi300x):
    base, new = h100_vs_mi300x
    c = compare(base, new, default_catalog())
    rows = {r["type"]: r for r in table(c).to_dict("records") if r["level"] == "same shape"}
    mm = rows["aten::mm"]
    # 4 calls per step on both sides (2 steps: 8 calls over the capture); H100 launched 2 kernels per call
    assert mm["base_count"] == 4 and mm["new_count"] == 4
    assert mm["base_kernels"] == 8 and mm["new_kernels"] == 4
    # time per step: 4 × (30 + 2) = 128 µs vs 4 × 40 = 160 µs; FLOPs per step equal: 4 × 2·1024³
    assert mm["base_time_us"] == pytest.approx(128.0) and mm["new_time_us"] == pytest.approx(160.0)
    assert mm["base_flops"] == mm["new_flops"] == pytest.approx(4 * 2 * 1024**3)
    assert "2 → 1 kernels per call" in mm["why"] and "calls ×" not in mm["why"]
    assert "model or the schedule changed" not in mm["why"]
    # MFU = FLOPs / peak / time per call: 2·1024³ / 989.4e12 = 2.170 µs of 32 µs = 6.78 % (H100 SXM BF16 dense);
    # 2·1024³ / 1307.4e12 = 1.643 µs of 40 µs = 4.11 % (MI300X)
    assert mm["base_mfu"] == pytest.approx(2 * 1024**3 / 989.4e12 / 32e-6, rel=1e-3)
    assert mm["new_mfu"] == pytest.approx(2 * 1024**3 / 1307.4e12 / 40e-6, rel=1e-3)
    assert "MFU 6.78 % → 4.11 %" in mm["why"]
    sdpa = rows["aten::_scaled_dot_product_flash_attention"]
    assert sdpa["base_count"] == sdpa["new_count"] == 1
    assert "1 → 2 kernels per call" in sdpa["why"] and "calls ×" not in sdpa["why"]
    mul = rows["aten::mul"]
    assert mul["base_count"] == mul["new_count"] == 1 and "kernels per call" not in mul["why"]


def test_calls_that_change_say_whether_the_flops_did(tmp_path):
    """Same FLOPs in twice the calls (a split) is not "the model changed"; twice the calls and FLOPs is."""
    k = [(CUBLAS, 10.0)]
    base = analysed(write_trace(tmp_path / "b.pt.trace.json", H100, [mm_op(2048, 1024, 1024, k),
                                                                     Op("aten::add", [[64], [64]], [BF16] * 2,
                                                                        [("add_kernel", 1.0)])]))
    new = analysed(write_trace(tmp_path / "n.pt.trace.json", H100,
                               [mm_op(1024, 1024, 1024, k), mm_op(1024, 1024, 1024, k),
                                *(Op("aten::add", [[64], [64]], [BF16] * 2, [("add_kernel", 1.0)]) for _ in range(2))]))
    rows = {(r["level"], r["type"]): r for r in table(compare(base, new)).to_dict("records")}
    split = rows[("same family", "matmul")]  # 1 call of 2·2048·1024² FLOPs → 2 calls of 2·1024³ each: equal FLOPs
    assert split["base_count"] == 1 and split["new_count"] == 2
    assert split["base_flops"] == split["new_flops"] == pytest.approx(2 * 2048 * 1024 * 1024)
    assert "calls ×2 for the same FLOPs" in split["why"] and "not the model" in split["why"]
    add = rows[("same shape", "aten::add")]  # no FLOPs to tell: the calls themselves changed
    assert add["new_count"] == 2 and "calls ×2 (the model or the schedule changed)" in add["why"]


@pytest.mark.parametrize(("op", "kernel", "family"), [
    ("record_param_comms", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "communication"),
    ("symm_mem::multimem_all_reduce_", "multimem_all_reduce_kernel", "communication"),
    ("aiter::mha_batch_prefill", "mha_batch_prefill_kernel", "attention"),
    ("fbgemm::f8f8bf16_rowwise", "f8f8bf16_rowwise_kernel", "matmul"),
    ("vllm::custom_op_without_a_family", "attn_fwd", "attention"),  # the op says nothing: the kernel's name
])
def test_a_gpu_kernel_is_classified_through_its_launching_op_first(tmp_path, op, kernel, family):
    path = write_trace(tmp_path / "t.pt.trace.json", MI300X, [Op(op, [[64, 64]], [BF16], [(kernel, 5.0)])])
    groups = side_groups(analysed(path))
    assert groups.set_index("type").loc[op, "family"] == family


def test_console_and_markdown_rows_use_display_names(tmp_path):
    """No row carries a C++ signature or a Tensile name: the console of a GPU-only pair stays readable."""
    base = analysed(write_trace(tmp_path / "b.pt.trace.json", H100, [Op(None, [], [], [(MUL, 5.0), (CUBLAS, 9.0)])]))
    new = analysed(write_trace(tmp_path / "n.pt.trace.json", MI300X, [Op(None, [], [], [(MUL, 6.0), (TENSILE, 9.0)])]))
    c = compare(base, new, default_catalog())
    text = console_text(c)
    assert max(len(line) for line in text.splitlines()) < 400
    assert "elementwise_kernel<MulFunctor<bf16>>" in text and "Cijk_…MT128x224x64" in text
    assert "at::native::binary_internal" not in text and "LDSB1" not in text
    t = table(c)
    assert MUL in set(t["type"])  # the full name stays in its own column
    assert "elementwise_kernel<MulFunctor<bf16>>" in set(t["display_name"])
    assert "LDSB1" not in markdown(c)


def test_summaries_carry_op_calls_too(h100_vs_mi300x, tmp_path):
    """A cluster summary's by-shape rows keep calls beside kernels: the same rows as the profiles themselves."""
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.from_summary import analysis_from_summary
    from mfu_desktop.core.pipeline.summarize import Runner, summarize
    from mfu_desktop.core.store.summaries import read_summary

    base, new = h100_vs_mi300x
    catalog = default_catalog()
    sides = []
    for result, name in ((base, "b"), (new, "n")):
        runner = Runner(workers=1)
        try:
            summarize(list(result.discovery.roots), tmp_path / name, AnalysisOptions(), catalog, runner)
        finally:
            runner.close()
        sides.append(analysis_from_summary(read_summary(tmp_path / name), catalog))
    summarised = {r["type"]: r for r in table(compare(*sides, catalog)).to_dict("records")}
    mm = summarised["aten::mm"]
    assert (mm["base_count"], mm["base_kernels"], mm["new_count"], mm["new_kernels"]) == (4, 8, 4, 4)
    assert "2 → 1 kernels per call" in mm["why"]


def test_an_unconfirmed_chip_says_how_to_name_it(tmp_path):
    """NEW ran on a GPU the catalog does not know: its MFU is "–" and the console says which option names it."""
    ops = [mm_op(1024, 1024, 1024, [(CUBLAS, 20.0)])]
    base = analysed(write_trace(tmp_path / "b.pt.trace.json", H100, ops))
    mystery = {**H100, "name": "NVIDIA Mystery GPU", "numSms": 7}
    new = analysed(write_trace(tmp_path / "n.pt.trace.json", mystery, ops))
    c = compare(base, new, default_catalog())
    assert c.base.unconfirmed is None and "NVIDIA Mystery GPU" in c.new.unconfirmed
    text = console_text(c)
    mfu_line = next(line for line in text.splitlines() if "operator MFU" in line)
    # BASE: 2·1024³ / 989.4e12 = 2.170 µs of 20 µs = 10.9 %; NEW: no peak
    assert mfu_line.split()[-2:] == ["%", "–"] and "10.9 %" in mfu_line
    hint = next(line for line in text.splitlines() if "chip not confirmed (" in line)
    assert "--chip-new NAME" in hint and "--chip-base" not in hint and "Compare tab" in hint
    from mfu_desktop.core.analysis.options import AnalysisOptions

    named = analyze_paths([tmp_path / "n.pt.trace.json"], AnalysisOptions(chip="H100 SXM"), use_cache=False)
    text = console_text(compare(base, named, default_catalog()))
    assert "chip not confirmed (" not in text and "10.9 %→10.9 %" in text
