"""Op calls beside kernels: an op call is counted once, at its longest kernel; kernels without a call count alone."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfu_desktop.core.analysis.aggregates import call_weights
from mfu_desktop.core.readers import columns as C


def test_each_call_is_counted_once_at_its_longest_kernel():
    # call 7: GEMM 30 µs + memset 2 µs; call 3: two equal kernels (the first counts); −1: no op, each its own call
    frame = pd.DataFrame({C.OP_CALL: [7, 7, 3, 3, -1, -1, 9]})
    dur = np.array([30.0, 2.0, 5.0, 5.0, 1.0, np.nan, np.nan])
    assert call_weights(frame, dur).tolist() == [1, 0, 1, 0, 1, 1, 1]
    # 7 kernels, 5 calls: 7 and 3, the two kernels without an op, and call 9 (its only kernel)
    assert call_weights(frame, dur).sum() == 5


def test_without_op_calls_every_kernel_is_a_call():
    assert call_weights(pd.DataFrame({"x": [1, 2, 3]}), np.ones(3)).tolist() == [1, 1, 1]
    assert call_weights(pd.DataFrame({C.OP_CALL: pd.Series([], dtype=np.int64)}), np.ones(0)).tolist() == []


def test_sparse_call_ids():
    frame = pd.DataFrame({C.OP_CALL: [10**12, 10**12, 5]})
    assert call_weights(frame, np.array([1.0, 4.0, 2.0])).tolist() == [0, 1, 1]
