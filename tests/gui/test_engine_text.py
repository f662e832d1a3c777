"""The engine's English in the window's language: derivations, conventions, chip sources, prediction lines;
and never a command-line flag in a window message."""

from __future__ import annotations

import pytest

from mfu_desktop.core.formulas.derivation import Derivation
from mfu_desktop.core.readers import columns as C
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


def test_patterns_keep_the_numbers_and_leave_unknown_text_alone(qapp):
    from mfu_desktop.gui.core_text import formula_line, tl
    from mfu_desktop.gui.i18n import install_translator

    install_translator(qapp, "en")  # whatever language an earlier test's window left installed
    # in English the engine's command-line advice becomes the window's own control
    assert tl("cpu coefficient of NVIDIA H20 assumed 0.5 (--assume-cpu)") == \
        "cpu coefficient of NVIDIA H20 assumed 0.5 (“Assumed cpu coefficient” on the left)"
    assert "--" not in tl("cpu coefficient of NVIDIA H20 not set (an assumption of the seed model; set it in the "
                          "catalog or pass --assume-cpu): step not predicted")
    assert tl("an engine sentence nobody translated") == "an engine sentence nobody translated"
    assert formula_line("MFU = achieved / peak = 252 / 353.894 = 71.3 %") == \
        "MFU = achieved / peak = 252 / 353.894 = 71.3 %"


def test_a_kernel_derivation_and_the_chip_source_are_chinese(make_window, qtbot):
    window = make_window("--demo", "--lang", "zh_CN", "--tab", "profiler", "--rank", "0")
    wait_idle(qtbot, window)
    profiler = window.profiler
    frame = profiler.current.kernels
    row = int((frame[C.OP_TYPE].astype(str) == "MatMulV2").to_numpy().argmax())
    profiler.select_kernel(row)
    text = profiler.kernel_derivation.toPlainText()
    for english in ("type:", "duration:", "achieved =", "Inputs", "transpose-safe", "compute-bound"):
        assert english not in text, english
    for chinese in ("类型", "耗时", "达成算力", "转置安全", "计算受限", "峰值"):
        assert chinese in text, chinese
    assert "206,158,430,208" in text or "FLOPs" in text  # the numbers stay as the engine wrote them
    assert "个 AI Core" in profiler.card_chip.full_detail  # the chip's source line
    conventions = profiler.warnings.toPlainText()
    assert "算子达成率口径" in conventions and "mask 几何口径" in conventions


def test_prediction_lines_are_chinese_and_name_no_flags(make_window, qtbot):
    window = make_window("--demo", "--lang", "zh_CN", "--tab", "prediction")
    wait_idle(qtbot, window, timeout=120000)
    tab = window.prediction
    assert "未掩盖通信" in tab.comm_lines.text() and "Comm (not overlapped)" not in tab.comm_lines.text()
    assert "--assume-cpu" not in tab.notes.text() and "--" not in tab.source_note.text()
    column = tab.summary_model.column_keys().index("step_not_predicted")
    for r in range(tab.summary_model.rowCount()):
        assert "--" not in str(tab.summary_model.raw(r, column))


def test_a_derivation_copy_keeps_the_engines_english(qapp):
    """Copy as Markdown stays the engine's text (shared with the CLI): only the window's view is translated."""
    from mfu_desktop.gui.core_text import translated

    d = Derivation("MatMulV2 kernel mm_0", inputs=[("duration", "10 µs")], steps=["achieved = 1 / 2"])
    view = translated(d)
    assert view is not d and view.inputs[0][1] == "10 µs"  # values are never translated
    assert d.markdown().startswith("### MatMulV2 kernel mm_0\n\n**Inputs**\n\n- duration: `10 µs`")


def test_every_calculator_derivation_names_its_inputs_and_results_in_chinese(make_window):
    """The GEMM derivation read "operator:" and "time per call:" in the Chinese window; the model mode "chips:"."""
    import re

    from mfu_desktop.gui.core_text import translated

    window = make_window("--lang", "zh_CN", "--tab", "calculator")
    calc = window.calculator
    english = {}
    for i in range(calc.kind.count()):
        calc.kind.setCurrentIndex(i)
        calc.recompute()
        assert calc.last_derivation is not None, calc.kind.currentData()
        d = translated(calc.last_derivation)
        names = [name for name, _ in (*d.inputs, *d.results)]
        left = [name for name in names if re.fullmatch(r"[a-z][a-z ()/]+", name)]  # English words (not M, K, head_dim)
        if left:
            english[calc.kind.currentData()] = left
    assert not english, english
    calc.kind.setCurrentIndex(0)
    calc.recompute()
    text = calc.derivation.toPlainText()
    assert "算子" in text and "单次耗时" in text and "operator:" not in text
