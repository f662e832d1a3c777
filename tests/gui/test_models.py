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
    assert tsv.splitlines()[0] == "Type\tMFU (%)" and len(tsv.splitlines()) == 3  # the unit the numbers are in
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


def test_rule_kinds_are_shown_in_the_users_language_and_accepted_either_way(qapp):
    """The Prediction tab's rules showed "efficiency" / "bandwidth" in the Chinese window."""
    from mfu_desktop.gui.i18n import install_translator

    try:
        assert install_translator(qapp, "zh_CN")
        model = RulesModel(list(DEFAULT_RULES))
        kind = model.index(0, 2)
        assert model.rules[0].kind == "efficiency" and kind.data() == "效率"
        assert kind.data(Qt.ItemDataRole.EditRole) == "efficiency"  # the editor starts from the key
        assert model.setData(kind, "带宽") and model.rules[0].kind == "bandwidth"
        assert model.setData(kind, "Efficiency") and model.rules[0].kind == "efficiency"
        assert not model.setData(kind, "速度") and "效率" in model.last_error and "带宽" in model.last_error
    finally:
        install_translator(qapp, "en")


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
    assert lines[0] == "id\tType\tMFU (%)"  # the unit of the copied numbers in the header
    assert [line.split("\t")[0] for line in lines[1:]] == ["3", "5"]
    assert lines[1].split("\t")[1] == str(frame["type"].iloc[3])
    mfu = frame["mfu"].iloc[3]
    # a number a spreadsheet reads: the fraction × 100, at full precision, not the "72.8 %" text
    percent = float(mfu) * 100
    assert lines[1].split("\t")[2] == ("" if np.isnan(mfu) else str(int(percent)) if percent.is_integer()
                                       else repr(round(percent, 12)))


def test_a_display_function_shows_short_names_and_keeps_the_full_one(qapp):
    """Kernel names: shown short (once per category), the full name in the tooltip; sort by what is shown, filter
    on either."""
    from mfu_desktop.core.analysis.kernel_names import short_name

    long = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>(int)"
    frame = pd.DataFrame({"name": pd.Categorical([long, "attn_fwd", long]), "t": [1.0, 2.0, 3.0]})
    model = DataFrameModel(frame, [ColumnSpec("name", "Name", display=short_name), ColumnSpec("t", "t")])
    cell = model.index(0, 0)
    assert model.data(cell) == "vectorized_elementwise_kernel<CUDAFunctor_add<bf16>>"
    tip = model.data(cell, Qt.ItemDataRole.ToolTipRole)
    assert "".join(tip.split()) == "".join(long.split()) and model.raw(0, 0) == long  # whole, folded for the screen
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


def test_long_tooltips_are_folded_to_fit_a_laptop_screen():
    """A rank's warning (one 300-character line) ran past the right edge of a 1280 px screen."""
    from mfu_desktop.gui.tooltips import TIP_WIDTH, wrap_tip

    sentence = "4 kernels move their minimum bytes faster than the chip's HBM bandwidth (up to 214 %): " * 4
    folded = wrap_tip(sentence.strip() + "\n\nClick: every warning")
    lines = folded.split("\n")
    assert max(len(line) for line in lines) <= TIP_WIDTH and len(lines) >= 5
    assert " ".join(line for line in lines if line).replace("  ", " ") == (sentence.strip() + " Click: every warning")
    chinese = "有 4 个算子搬运最少字节的速度超过芯片的 HBM 带宽" * 5  # no spaces to fold at: cut by count
    assert max(len(line) for line in wrap_tip(chinese).split("\n")) <= TIP_WIDTH // 2
    assert wrap_tip("short\nlines") == "short\nlines"


def test_the_rank_trees_warning_tooltips_are_folded(qtbot):
    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.paths import demo_profile_dir
    from mfu_desktop.core.pipeline.analyze import analyze_paths
    from mfu_desktop.gui.models.rank_tree import WARNINGS_COLUMN, RankTreeModel
    from mfu_desktop.gui.tooltips import TIP_WIDTH

    model = RankTreeModel()
    model.set_analysis(analyze_paths([demo_profile_dir()], AnalysisOptions()))
    root = model.index(1, 0)
    tips = [model.index(r, WARNINGS_COLUMN, root).data(Qt.ItemDataRole.ToolTipRole)
            for r in range(model.rowCount(root))]
    assert all(tips) and max(len(line) for tip in tips for line in tip.split("\n")) <= TIP_WIDTH
