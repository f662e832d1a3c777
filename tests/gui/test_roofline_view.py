"""The Roofline view: points, roofs and the step's point on the demo; a click selects the kernel."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mfu_desktop.gui.charts.axes import decade_ticks
from mfu_desktop.gui.charts.roofline_chart import merged_shapes
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


def test_roofline_of_a_rank_and_of_the_cluster(make_window, qtbot, tmp_path):
    window = make_window("--demo", "--lang", "en", "--tab", "profiler", "--rank", "0", "--view", "roofline")
    wait_idle(qtbot, window)
    profiler = window.profiler
    assert profiler.tabs.currentWidget() is profiler.roofline
    view = profiler.roofline.view
    r = profiler.current
    k = r.kernels
    # every point is a kernel with FLOPs and bytes, at log10(intensity), log10(TFLOP/s)
    with_both = int(((k["intensity"] > 0) & (k["achieved_tflops"] > 0) & (k["bound"].cat.codes >= 0)).sum())
    assert view.roofline.total == with_both and len(view.roofline.x) == with_both
    row, _tip = view.roofline.data[0]
    assert view.roofline.x[0] == pytest.approx(math.log10(float(k["intensity"].iloc[row])))
    # the roofs: BF16 and FP32 peaks of the 910B2, the HBM roof, the step's point from the rank document
    assert [d for d, _ in view.roofs] == ["bf16", "fp32"] and view.bw_gbs == 1600.0
    doc = next(d for d in window.profiler.result.documents if d["rank"] == 0)
    assert view.step == pytest.approx((doc["roofline"]["intensity"], doc["roofline"]["achieved_tflops"]))
    assert "memory-bound" in profiler.roofline.caption.text()
    # the bandwidth view: the kernels without FLOPs (RmsNorm, SwiGlu, Add …)
    no_flops = int(((~(k["intensity"] > 0)) & (k["bytes"] > 0) & (k["bound"].cat.codes >= 0)).sum())
    profiler.roofline.mode.setCurrentIndex(1)
    assert view.bandwidth.total == no_flops > 0 and not profiler.roofline.page.showing_message
    # a click selects that kernel in the kernel table
    source_row = view.bandwidth.data[0][0]
    profiler.roofline.kernel_clicked.emit(source_row)
    assert profiler.tabs.currentIndex() == 1
    current = profiler.kernel_view.currentIndex()
    assert profiler.kernel_model.source_row(current.row()) == source_row
    # exported with the other charts
    assert "roofline" in window.chart_plots()
    # the cluster: (type, shape) groups, mean per rank; the cluster's point
    profiler.tree.setCurrentIndex(profiler.tree_model.index(0, 0))
    wait_idle(qtbot, window)
    cluster = profiler.roofline.view
    assert cluster.step == pytest.approx((profiler.result.cluster.document["roofline"]["intensity"],
                                          profiler.result.cluster.document["roofline"]["achieved_tflops"]))
    assert all(d[0] == -1 for d in cluster.roofline.data)  # a group is not one kernel


def test_merged_shapes_are_means_per_rank():
    import pandas as pd

    a = pd.DataFrame({"type": ["Add"], "input_shapes": ["4,4"], "dtype": ["bf16"], "count": [2.0],
                      "time_us": [10.0], "flops": [0.0], "counted_time_us": [0.0], "bytes": [1e6]})
    b = a.assign(time_us=[30.0], bytes=[3e6])
    m = merged_shapes([a, b], 2)
    assert m["time_us"].iloc[0] == 20.0 and m["bytes"].iloc[0] == 2e6
    assert m["achieved_gbs"].iloc[0] == pytest.approx(4e6 / 40.0 / 1e3)  # Σ bytes / Σ time
    assert np.isnan(m["intensity"].iloc[0])


def test_decade_ticks():
    ticks = decade_ticks(0.0, 2.0)[0]
    assert [t[1] for t in ticks] == ["1", "2", "5", "10", "20", "50", "100"]
    assert [t[1] for t in decade_ticks(-1.0, 6.0)[0]] == ["0.1", "1", "10", "100", "1k", "10k", "100k", "1M"]
