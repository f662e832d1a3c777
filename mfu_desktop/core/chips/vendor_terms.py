"""Each vendor's own words for the same things, so that a message on a GPU rank never speaks Ascend.

An Ascend capture has a Cube unit, AI cores, ``aic_metrics`` hardware counters (PipeUtilization),
Block Dim and Level0/Level1; a CUDA rank has Tensor Cores, SMs, CUPTI counters (which a PyTorch
profiler trace does not record) and grid/block sizes; a ROCm rank has Matrix Cores, CUs and
rocprof counters. Messages that depend on the vendor take their words from :func:`vendor_terms`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VendorTerms:
    """One vendor's vocabulary.

    Attributes:
        gpu: True for a GPU (a PyTorch profiler trace), False for an Ascend NPU.
        matrix_unit: The matrix unit (``Cube``, ``Tensor Core``, ``Matrix Core``).
        cores: The compute cores (``AI cores``, ``SMs``, ``CUs``).
        launch_size: A kernel's launch size (``Block Dim``, ``grid/block``).
        counters: The hardware counters that give a matrix-unit utilisation.
        no_counters: Why a rank has no such utilisation, and how to get it.
        shapes: How to record operator shapes.
        reduced_fp32: The FP32-input matmul mode on the matrix unit (``HF32``, ``TF32``, ``XF32``).
        no_pipe_times: Why kernels have no per-pipeline times (for the prediction's caveat).
    """

    gpu: bool
    matrix_unit: str
    cores: str
    launch_size: str
    counters: str
    no_counters: str
    shapes: str
    reduced_fp32: str
    no_pipe_times: str


_ASCEND = VendorTerms(
    gpu=False, matrix_unit="Cube", cores="AI cores", launch_size="Block Dim",
    counters="cube_utilization",
    no_counters="aic_metrics was {aic_metrics}, not PipeUtilization",
    shapes="Ascend: Level0 collects none, use Level1+",
    reduced_fp32="HF32",
    no_pipe_times="Ascend Level0, or aic_metrics other than PipeUtilization",
)
_NVIDIA = VendorTerms(
    gpu=True, matrix_unit="Tensor Core", cores="SMs", launch_size="grid/block",
    counters="Tensor Core utilisation (CUPTI counters)",
    no_counters="a PyTorch profiler trace records no CUPTI hardware counters (Nsight Compute does)",
    shapes="PyTorch profiler: a GPU-only trace, or record_shapes off — capture CPU + CUDA with record_shapes=True",
    reduced_fp32="TF32",
    no_pipe_times="a PyTorch profiler trace records no CUPTI counters",
)
_AMD = VendorTerms(
    gpu=True, matrix_unit="Matrix Core", cores="CUs", launch_size="grid/workgroup",
    counters="Matrix Core utilisation (rocprof counters)",
    no_counters="a PyTorch profiler trace records no rocprof hardware counters (rocprofv3 does)",
    shapes="PyTorch profiler: a GPU-only trace, or record_shapes off — capture CPU + CUDA with record_shapes=True",
    reduced_fp32="XF32",
    no_pipe_times="a PyTorch profiler trace records no rocprof counters",
)
_GPU = VendorTerms(
    gpu=True, matrix_unit="tensor/matrix core", cores="SMs/CUs", launch_size="grid/block",
    counters="matrix-unit utilisation (hardware counters)",
    no_counters="a PyTorch profiler trace records no hardware counters",
    shapes="PyTorch profiler: a GPU-only trace, or record_shapes off — capture CPU + CUDA with record_shapes=True",
    reduced_fp32="TF32",
    no_pipe_times="a PyTorch profiler trace records no hardware counters",
)


def vendor_terms(vendor: str | None) -> VendorTerms:
    """The vocabulary of a rank's vendor (``Huawei``, ``NVIDIA``, ``AMD``, ``GPU`` for an unnamed GPU).

    Anything else (an unknown vendor, ``None``) reads as Ascend, the tool's home ground.
    """
    key = (vendor or "").strip().upper()
    return {"NVIDIA": _NVIDIA, "AMD": _AMD, "GPU": _GPU}.get(key, _ASCEND)
