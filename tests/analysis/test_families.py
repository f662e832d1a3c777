"""Operator families on name tokens: the issue's mis-mappings pinned, and every earlier mapping kept."""

from __future__ import annotations

import pytest

from mfu_desktop.core.analysis.families import (
    OTHER,
    families_from_csv,
    family_of,
    family_of_kernel,
)

LAMBDA_KERNEL = ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
                 "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::"
                 "operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int)")


@pytest.mark.parametrize(("name", "family"), [
    # issue 21 §2: each of these was mapped by a substring
    ("fbgemm::f8f8bf16_rowwise", "matmul"),              # FBGEMM's GEMMs, named by their three dtypes …
    ("fbgemm::bf16bf16bf16_grouped", "matmul"),
    ("fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function", "reduce/gather"),  # … not every fbgemm op
    ("fbgemm::quantize_fp8_per_row", "element-wise"),
    ("record_param_comms", "communication"),             # wraps the NCCL call
    ("aiter::mha_batch_prefill", "attention"),           # "prefill" is not "fill"
    ("symm_mem::multimem_all_reduce_", "communication"),  # "multimem" is not "mul"
    ("attn_fwd", "attention"),                           # the MI300X's Triton attention kernel
    # other substring accidents of the old mapping
    (LAMBDA_KERNEL, "element-wise"),                     # "{lambda" is not the Lamb optimizer
    ("IndexPut", "reduce/gather"),                       # "dexPut" is not "Exp"
    ("aten::expand", "memory copy"),
    ("igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt64x64x64", "convolution"),  # MIOpen's implicit-GEMM convolutions
    ("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_NTN", "matmul"),  # H100 cuBLAS
    ("aten::upsample_linear1d", OTHER),                  # a "linear" that is not aten::linear
    ("RotaryPositionEmbedding", "element-wise"),         # rotary before embedding, as before
])
def test_pinned_families(name, family):
    assert family_of(name) == family


#: Names from the samples, the demo and the vendors' operator lists, with the family they had before the
#: mapping matched tokens (none may change).
KEPT = {
    "attention": ["FusedInferAttentionScore", "PromptFlashAttention", "IncreFlashAttention",
        "flash_attn::_flash_attn_forward", "aten::_scaled_dot_product_efficient_attention",
        "fmha_cutlassF_f16_aligned_64x64_rf_sm80", "aten::_scaled_dot_product_flash_attention",
        "aten::_flash_attention_forward"],
    "attention backward": ["FlashAttentionScoreGrad", "flash_attn::_flash_attn_backward",
        "aten::_efficient_attention_backward", "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"],
    "communication": ["hcom_allReduce_", "hcom_allGather_", "hcom_reduceScatter_", "HcclAllReduce",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclKernel_AllGather_RING_LL_Sum_int8_t",
        "rcclGenericKernel", "c10d::allreduce_", "c10d::_allgather_base_", "all_reduce", "allgather", "send",
        "recv"],
    "convolution": ["Conv2D", "Conv2DBackpropInput", "Conv3DBackpropFilter", "aten::convolution",
        "aten::cudnn_convolution"],
    "element-wise": ["Add", "Mul", "Sub", "RealDiv", "Cast", "SwiGlu", "SwiGluGrad", "Gelu", "GeluGrad",
        "FastGelu", "Silu", "Relu", "LeakyRelu", "Exp", "Sqrt", "Rsqrt", "Pow", "Neg", "RotaryMul",
        "RotaryMulGrad", "DropOutDoMask", "DropoutGenMask", "GenBitMask", "Select", "SelectV2", "Fill",
        "aten::fill_", "aten::add", "aten::mul", "aten::sub", "aten::div", "aten::add_", "aten::mul_", "Where",
        "aten::index_select", "aten::gelu", "aten::silu", "aten::relu", "aten::where", "aten::masked_fill_",
        "aten::eq"],  # comparisons joined element-wise with the prediction's categories (issue 23)
    "matmul": ["MatMulV3", "GroupedMatmul", "BatchMatMulV2", "aten::mm", "aten::bmm", "aten::baddbmm",
        "aten::linear", "aten::_scaled_mm", "aten::matmul", "MatmulAllReduce", "QuantBatchMatmulV3",
        "WeightQuantBatchMatmulV2", "aten::addmm"],
    "memory copy": ["MemcpyAsync", "TensorMove", "Identity", "aten::copy_", "aten::to", "aten::cat", "ConcatD",
        "ConcatV2", "SplitV", "Slice", "StridedSlice", "StridedSliceD", "Transpose", "TransData",
        "aten::contiguous", "Memset (Device)", "Memcpy HtoD (Pageable -> Device)"],
    "norm": ["RmsNorm", "RmsNormGrad", "AddRmsNorm", "LayerNorm", "LayerNormV3", "aten::native_layer_norm",
        "aten::layer_norm", "BatchNorm", "aten::native_batch_norm", "GroupNorm", "aten::rms_norm"],
    "optimizer": ["ApplyAdamW", "SGD", "aten::_fused_adam_", "multi_tensor_apply_kernel", "aten::_foreach_add_",
        "LambApplyOptimizerAssign"],
    "other": ["ZerosLike", "OnesLike", "aten::zero_", "aten::all", "aten::_local_scalar_dense"],
    "reduce/gather": ["ReduceSum", "ReduceSumD", "ReduceMean", "ReduceMax", "ArgMax", "GatherV2",
        "GatherElements", "aten::index", "ScatterNd", "Embedding", "EmbeddingDenseGrad", "NonZero", "Sort",
        "TopK", "TopKV2", "MoeInitRouting", "aten::sum", "aten::mean", "aten::max", "aten::cumsum",
        "aten::embedding"],
    "softmax/loss": ["SoftmaxV2", "SoftmaxGrad", "aten::_softmax", "aten::log_softmax", "aten::nll_loss_forward",
        "aten::cross_entropy_loss", "SoftmaxCrossEntropyWithLogits", "MoeGatingTopKSoftmax"],
}


@pytest.mark.parametrize(("family", "names"), sorted(KEPT.items()))
def test_no_earlier_mapping_changed(family, names):
    assert {n: family_of(n) for n in names} == dict.fromkeys(names, family)


def test_a_kernel_is_classified_through_its_op_first():
    # the op decides: a cuBLAS memset under aten::mm is matmul work, not a copy
    assert family_of_kernel("aten::mm", "Memset (Device)") == "matmul"
    # an op the mapping does not know: the kernel's own name
    assert family_of_kernel("vllm::unified_attention_with_output", "attn_fwd") == "attention"
    assert family_of_kernel("my_lib::custom_op", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL") == "communication"
    assert family_of_kernel("my_lib::custom_op", None) == OTHER


def test_an_edited_mapping_matches_tokens_too():
    rows, problems = families_from_csv("family,pattern\nmy gemm,gemm\nfill,fill\n")
    assert not problems
    assert family_of("sm90_xmma_gemm_bf16", rows) == "my gemm"
    assert family_of("fbgemm::something", rows) == OTHER  # "fbgemm" is one token
    assert family_of("aiter::mha_batch_prefill", rows) == OTHER
    assert family_of("FillFunctor", rows) == "fill"  # a case change is a token edge
