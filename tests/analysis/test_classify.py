"""One kernel classification and one set of MFU bands, shared by every module that needs them."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from mfu_desktop.core.analysis.classify import CLASSES, KernelClass, class_codes, class_of_core
from mfu_desktop.core.formulas.mfu import BAND_ORDER, mfu_band, mfu_band_codes
from mfu_desktop.core.predict.kernels import kernel_inputs
from mfu_desktop.core.readers import columns as C


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=-0.5, max_value=3.0, allow_nan=False), min_size=1, max_size=50))
def test_vectorised_bands_agree_with_the_scalar_band(values):
    codes = mfu_band_codes(np.array(values))
    assert [BAND_ORDER[c] for c in codes] == [mfu_band(v) for v in values]


def test_band_edges_from_the_spec():
    """mfu.md §4.5: < 20 far, 20–30 low, 30–60 medium, 60–70 good, ≥ 70 near the limit, > 100 % impossible."""
    values = np.array([0.19, 0.2, 0.29, 0.3, 0.59, 0.6, 0.69, 0.7, 1.0, 1.01, np.nan])
    assert [BAND_ORDER[c].value if c >= 0 else None for c in mfu_band_codes(values)] == [
        "far", "low", "low", "medium", "medium", "good", "good", "near_limit", "near_limit", "impossible", None]


def test_prediction_uses_the_analysis_classification():
    cores = ["AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "AI_CPU", "HCCL", "DSA_SQE", "GPU_MATRIX",
             "GPU_COMM", None]
    frame = pd.DataFrame({
        C.NAME: pd.Categorical([f"k{i}" for i in range(len(cores))]),
        C.OP_TYPE: pd.Categorical(["MatMulV2", "Add", "FlashAttentionScore", "ReduceSum", "NonZero",
                                   "hcom_allReduce_", "DSAGenBitMask", "aten::mm", "nccl", "X"]),
        C.CORE_TYPE: pd.Categorical(cores),
        C.DURATION_US: np.arange(1.0, len(cores) + 1.0),
    })
    classes = [CLASSES[c] for c in class_codes(frame)]
    assert classes == ["cube", "vector", "mix", "mix", "aicpu", "comm", "other", "cube", "comm", "unknown"]
    inputs = kernel_inputs(frame)
    predicted = set(inputs.frame["name"].astype(str))
    compute = {f"k{i}" for i, k in enumerate(classes) if k in ("cube", "vector", "mix")}
    assert predicted == compute
    assert class_of_core("AI_CORE", "hcom_broadcast_") is KernelClass.COMM
