"""Qt models without (or with minimal) views: the frame model at 1,000,000 rows, tree, rules, settings."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt

from mfu_desktop.core.numbers import pct
from mfu_desktop.core.predict.rules import DEFAULT_RULES
from mfu_desktop.gui.models.dataframe_model import ColumnSpec, DataFrameModel, fmt_pct, fmt_us
from mfu_desktop.gui.models.rules_model import RulesModel
from mfu_desktop.gui.settings import Settings, load_settings, save_settings

pytestmark = pytest.mark.gui


def kernel_frame(n: int, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    types = np.array(["MatMulV2", "FlashAttentionScore", "Add", "Cast", "GroupedMatmul"])
    return pd.DataFrame({
        "id": np.arange(n, dtype=np.int64),
        "type": pd.Categorical(types[rng.integers(0, len(types), n)]),
        "duration_us": rng.random(n) * 1000,
        "mfu": np.where(rng.random(n) < 0.3, np.nan, rng.random(n)),
    })


def test_million_row_model_sorts_by_permutation_and_keeps_the_selection(qtbot):
    from mfu_desktop.gui.table_view import TableView

    frame = kernel_frame(1_000_000)
    model = DataFrameModel(frame, [ColumnSpec("id", "id"), ColumnSpec("type", "Type"),
                                   ColumnSpec("duration_us", "Duration", fmt_us),
                                   ColumnSpec("mfu", "MFU", fmt_pct, color_mfu=True)])
    view = TableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(800, 600)
    view.show()
    target = 123_457
    view.selectionModel().setCurrentIndex(model.index(target, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                                          | QItemSelectionModel.SelectionFlag.Rows)
    start = time.perf_counter()
    view.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    elapsed = time.perf_counter() - start
    current = view.selectionModel().currentIndex()
    assert model.source_row(current.row()) == target  # the same kernel is still selected
    assert model.raw(current.row(), 0) == target
    selected = {model.source_row(ix.row()) for ix in view.selectionModel().selectedRows()}
    assert selected == {target}
    durations = np.array([model.raw(r, 2) for r in range(0, 1_000_000, 9973)])
    assert (np.diff(durations) <= 0).all()
    # text column sort (category ranks) with NaN-free codes; MFU sort puts missing values last
    view.sortByColumn(3, Qt.SortOrder.AscendingOrder)
    assert model.source_row(view.selectionModel().currentIndex().row()) == target
    last = model.raw(model.rowCount() - 1, 3)
    assert np.isnan(last)
    assert elapsed < 5.0, "sorting must be a numpy permutation, not per-row Python"


def test_model_formats_only_visible_cells_and_filters_by_mask(qtbot):
    frame = kernel_frame(1000)
    model = DataFrameModel(frame, [ColumnSpec("type", "Type"), ColumnSpec("mfu", "MFU", fmt_pct, color_mfu=True)])
    mask = model.text_mask("type", "matmul")
    assert mask.sum() == frame["type"].astype(str).str.lower().str.contains("matmul").sum()
    model.set_mask(mask)
    assert model.rowCount() == mask.sum()
    assert all("matmul" in model.data(model.index(r, 0)).lower() for r in range(model.rowCount()))
    first = model.source_row(0)
    value = frame["mfu"].iloc[first]
    shown = model.data(model.index(0, 1))
    assert shown == ("" if np.isnan(value) else pct(float(value)))
    assert model.data(model.index(0, 1), Qt.ItemDataRole.TextAlignmentRole) is not None
    tsv = model.tsv([0, 1], [0, 1])
    assert tsv.splitlines()[0] == "Type\tMFU" and len(tsv.splitlines()) == 3
    model.set_mask(None)
    assert model.rowCount() == 1000


def test_object_columns_with_none_are_numbers_not_text():
    frame = pd.DataFrame({"mfu_step": [0.5, None], "name": ["a", None]})
    model = DataFrameModel(frame, [ColumnSpec("mfu_step", "Step MFU", fmt_pct, color_mfu=True),
                                   ColumnSpec("name", "Name")])
    assert model.data(model.index(0, 0)) == "50.0 %"
    assert model.data(model.index(1, 0)) == ""
    assert model.data(model.index(1, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert model.data(model.index(1, 1)) == ""
    model.sort(0, Qt.SortOrder.DescendingOrder)
    assert model.data(model.index(0, 0)) == "50.0 %"


def test_rules_model_validates_edits():
    model = RulesModel(list(DEFAULT_RULES))
    rejected = []
    model.rejected.connect(rejected.append)
    factor = model.index(0, 5)
    assert model.setData(factor, "1.5")
    assert model.rules[0].factor == 1.5
    assert not model.setData(factor, "-2")
    assert model.rules[0].factor == 1.5 and "positive" in rejected[-1]
    assert not model.setData(model.index(0, 2), "speed")
    assert model.setData(model.index(0, 0), Qt.CheckState.Unchecked, Qt.ItemDataRole.CheckStateRole)
    assert model.rules[0].enabled is False


def test_settings_roundtrip_and_invalid_values(tmp_path):
    path = tmp_path / "settings.json"
    s = Settings(theme="dark", top_n=25)
    s.add_recent("/a")
    s.add_recent("/b")
    s.add_recent("/a")
    assert s.recent_folders == ["/a", "/b"]
    assert save_settings(s, path)
    assert load_settings(path) == s
    data = json.loads(path.read_text())
    data.update(theme="purple", top_n="many")
    path.write_text(json.dumps(data))
    loaded = load_settings(path)
    assert loaded.theme == "system" and loaded.top_n == 15 and loaded.recent_folders == ["/a", "/b"]
    assert "theme" in loaded.notice_args["names"] and "top_n" in loaded.notice_args["names"]


def test_settings_in_an_unwritable_folder_do_not_raise(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert save_settings(Settings(), blocker / "settings.json") is False


def test_rank_tree_from_demo_analysis(qtbot):
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.paths import demo_profile_dir
    from mfu_desktop.core.pipeline.analyze import analyze_paths
    from mfu_desktop.gui.models.rank_tree import ROLE_INDEX, ROLE_KIND, RankTreeModel

    result = analyze_paths([demo_profile_dir()], AnalysisOptions())
    model = RankTreeModel()
    model.set_analysis(result)
    assert model.index(0, 0).data(ROLE_KIND) == "cluster"
    root = model.index(1, 0)
    assert root.data(ROLE_KIND) == "root"
    ranks = [model.index(r, 0, root) for r in range(model.rowCount(root))]
    assert len(ranks) == 8
    slow = [ix for ix in ranks if "(slow)" in ix.data()]
    assert [result.ranks[ix.data(ROLE_INDEX)].rank for ix in slow] == result.cluster.slow == [5]
    assert ranks[0].siblingAtColumn(3).data() == "T1"
    assert QPersistentModelIndex(ranks[0]).isValid() and not QModelIndex().isValid()


def test_ctrl_c_copies_the_selection_as_tab_separated_text(qtbot):
    from PySide6.QtGui import QGuiApplication

    from mfu_desktop.gui.table_view import TableView

    frame = kernel_frame(100)
    model = DataFrameModel(frame, [ColumnSpec("id", "id"), ColumnSpec("type", "Type"),
                                   ColumnSpec("mfu", "MFU", fmt_pct)])
    view = TableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.show()
    view.selectRow(3)
    view.selectionModel().select(model.index(5, 0), QItemSelectionModel.SelectionFlag.Select
                                 | QItemSelectionModel.SelectionFlag.Rows)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    lines = QGuiApplication.clipboard().text().splitlines()
    assert lines[0] == "id\tType\tMFU"
    assert [line.split("\t")[0] for line in lines[1:]] == ["3", "5"]
    assert lines[1].split("\t")[1] == str(frame["type"].iloc[3])


def test_a_display_function_shows_short_names_and_keeps_the_full_one(qapp):
    """Kernel names: shown short (once per category), the full name in the tooltip; sort by what is shown, filter
    on either."""
    from mfu_desktop.core.analysis.kernel_names import short_name

    long = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>(int)"
    frame = pd.DataFrame({"name": pd.Categorical([long, "attn_fwd", long]), "t": [1.0, 2.0, 3.0]})
    model = DataFrameModel(frame, [ColumnSpec("name", "Name", display=short_name), ColumnSpec("t", "t")])
    cell = model.index(0, 0)
    assert model.data(cell) == "vectorized_elementwise_kernel<CUDAFunctor_add<bf16>>"
    assert model.data(cell, Qt.ItemDataRole.ToolTipRole) == long and model.raw(0, 0) == long
    assert model.data(model.index(1, 0), Qt.ItemDataRole.ToolTipRole) is None  # nothing hidden
    model.sort(0, Qt.SortOrder.AscendingOrder)  # "attn_fwd" < "vectorized…" as shown
    assert [model.raw(r, 1) for r in range(3)] == [2.0, 1.0, 3.0]
    assert model.text_mask("name", "CUDAFunctor_add<bf16>").tolist() == [True, False, True]  # the shown text
    assert model.text_mask("name", "at::native").tolist() == [True, False, True]  # the full one


def test_aggregate_tables_count_kernels_and_show_op_calls_where_they_differ(qapp):
    """Kernels/step is what the analysis counts; Calls/step (op calls) appears only where an op launched several."""
    from mfu_desktop.gui.models.profile_columns import aggregate_columns

    ascend = pd.DataFrame({"type": ["MatMulV2"], "count": [4.0], "calls": [4.0], "mean_us": [10.0]})
    headers = {s.key: s.header for s in aggregate_columns(ascend)}
    assert "calls" not in headers and headers["count"] == "Kernels/step"
    assert headers["mean_us"] == "Mean per kernel (µs)"
    gpu = pd.DataFrame({"type": ["aten::mm"], "count": [8.0], "calls": [4.0]})  # GEMM + memset per call
    headers = {s.key: s.header for s in aggregate_columns(gpu)}
    assert headers["count"] == "Kernels/step" and headers["calls"] == "Calls/step"
