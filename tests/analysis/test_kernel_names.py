"""Short display names of kernels: one function for every console row, table cell, chart label and tooltip."""

from __future__ import annotations

import pandas as pd
import pytest

from mfu_desktop.core.analysis.kernel_names import short_name, short_names

MUL = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<"
       "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >("
       "at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
       "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl"
       "_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::"
       "MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
       "c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})")
TENSILE = ("Cijk_Alik_Bljk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x224x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_"
           "CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA512_LBSPPB256")


@pytest.mark.parametrize(("name", "short"), [
    (MUL, "elementwise_kernel<MulFunctor<bf16>>"),
    (TENSILE, "Cijk_…MT128x224x64"),
    # the same kernel mangled (as some exporters write it)
    ("_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_22gpu_kernel_impl_nocastINS0_13BinaryFunctorIN3c108BFloat16"
     "ES5_S5_NS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     "elementwise_kernel<MulFunctor<bf16>>"),
    # an operation named by the function its lambda lives in, and an element type from the arguments
    ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
     "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)"
     "#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)"
     "::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, "
     "std::array<char*, 2ul>)", "vectorized_elementwise_kernel<GeluCUDAKernelImpl<bf16>>"),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::MeanOps<c10::BFloat16, "
     "float, float, c10::BFloat16>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, "
     "at::native::MeanOps<c10::BFloat16, float, float, c10::BFloat16>, unsigned int, c10::BFloat16, 4, 4>)",
     "reduce_kernel<MeanOps<bf16>>"),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
     "c10::BFloat16 const*, float*)", "vectorized_layer_norm_kernel<bf16>"),
    # a generic wrapper shows the kernel it wraps, shortened like any generated name
    ("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>("
     "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
     "cutlass_80_wmma_tensorop_bf16_s161616gemm_…32x32"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
     "__5x_cublas", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_…tilesize128x128x64"),
    # nothing to shorten: operator types and short kernel names stay as they are
    ("aten::addmm", "aten::addmm"),
    ("MatMulV2", "MatMulV2"),
    ("attn_fwd", "attn_fwd"),
    ("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)"),
    ("triton_poi_fused_add_mul_0", "triton_poi_fused_add_mul_0"),
    ("", ""),
])
def test_short_names(name, short):
    assert short_name(name) == short


@pytest.mark.parametrize("broken", ["void foo<", "_Z", "_ZN3fooI", "void (", "a<<<>>>b(((", "x" * 3000])
def test_odd_or_truncated_names_never_fail(broken):
    out = short_name(broken)
    assert isinstance(out, str) and out


def test_short_names_are_computed_per_category():
    """Two instantiations with the same display name share one category; missing stays missing."""
    other = MUL.replace("<128, 4,", "<128, 2,")
    values = pd.Series(pd.Categorical([MUL, other, None, TENSILE, MUL]))
    out = short_names(values)
    assert list(out.astype(object).where(out.notna(), None)) == [
        "elementwise_kernel<MulFunctor<bf16>>", "elementwise_kernel<MulFunctor<bf16>>", None, "Cijk_…MT128x224x64",
        "elementwise_kernel<MulFunctor<bf16>>"]
    assert sorted(out.cat.categories) == ["Cijk_…MT128x224x64", "elementwise_kernel<MulFunctor<bf16>>"]
