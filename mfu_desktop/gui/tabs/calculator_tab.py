"""Calculator tab: operator MFU (GEMM … FlashAttention) and whole-model MFU/HFU, updated as you type.

Every figure comes from :mod:`mfu_desktop.core.formulas.mfu` / :mod:`mfu_desktop.core.formulas.model`; this
module only parses fields, marks invalid ones and shows the engine's derivation.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from mfu_desktop.core.analysis.explain import CalculatorPrefill
from mfu_desktop.core.chips.catalog import CatalogError, ChipCatalog, Peak, UnknownChipError
from mfu_desktop.core.chips.dtypes import ComputeDtype
from mfu_desktop.core.formulas.derivation import Derivation
from mfu_desktop.core.formulas.flops import FlopError, Layout
from mfu_desktop.core.formulas.mfu import (
    OperatorResult,
    calc_attention_scores,
    calc_flash_attention,
    calc_gemm,
    calc_linear,
    mfu_band,
)
from mfu_desktop.core.formulas.model import (
    Conventions,
    ModernArchitecture,
    flops_per_token,
    inverse_derivation,
    model_mfu,
    palm_remat_flops_per_token,
    tokens_per_second,
)
from mfu_desktop.core.numbers import TIME_UNITS, grouped, pct, sig, to_seconds
from mfu_desktop.gui.bands import band_css
from mfu_desktop.gui.core_text import ct, derivation_markdown
from mfu_desktop.gui.widgets import Card, Field


def compact_combo() -> QComboBox:
    """A combo box whose long items do not widen the form (the popup still shows them whole)."""
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(14)
    return combo


KINDS = ("gemm", "batched", "linear", "qk", "fa_fwd", "fa_bwd", "memory", "model")
#: Stack page of each kind's form.
_PAGES = {"gemm": 0, "batched": 1, "linear": 2, "qk": 3, "fa_fwd": 4, "fa_bwd": 4, "model": 5, "memory": 6}
CUSTOM_PEAK = "__custom__"


class CalculatorTab(QWidget):
    """Manual MFU calculation with the derivation shown step by step."""

    result_changed = Signal()

    def __init__(self, catalog: ChipCatalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.last_derivation: Derivation | None = None
        self.last_result: object = None
        self._catalog_peak: Peak | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(60)  # coalesce keystrokes; computing is cheap
        self._timer.timeout.connect(self.recompute)
        self._build()
        self._fill_peak()
        self.recompute()

    # --- layout ---------------------------------------------------------------------------

    def _build(self) -> None:
        """The tab: the scrolling input form beside the result cards and the derivation."""
        outer = QHBoxLayout(self)
        splitter = QSplitter(self)
        outer.addWidget(splitter)
        splitter.addWidget(self._build_inputs())
        splitter.addWidget(self._build_results())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([520, 920])
        self._kind_changed()

    def _build_inputs(self) -> QScrollArea:
        """The left pane, scrolling: the operator picker, its dimensions form and the peak and time box."""
        form_host = QWidget()
        form_layout = QVBoxLayout(form_host)
        form_layout.addLayout(self._build_kind_picker())
        form_layout.addWidget(self._build_forms())
        form_layout.addWidget(self._build_peak_box())
        form_layout.addStretch(1)
        self.chip.currentIndexChanged.connect(self._fill_peak)
        self.dtype.currentIndexChanged.connect(self._fill_peak)
        self.peak.textEdited.connect(self._peak_edited)
        for w in (self.time, self.chips_count):
            w.textChanged.connect(self.schedule)
        self.unit.currentIndexChanged.connect(self.schedule)
        self.calls.valueChanged.connect(self.schedule)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(form_host)
        scroll.setMinimumWidth(380)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return scroll

    def _build_kind_picker(self) -> QFormLayout:
        """The "Operator" row: which calculation the form below is for."""
        self.kind = compact_combo()
        for key, label in zip(KINDS, (self.tr("GEMM (M×K · K×N)"), self.tr("Batched matmul (B × M×K · K×N)"),
                                      self.tr("Linear layer (B,L,D_in) · (D_in,D_out)"), self.tr("Attention QKᵀ"),
                                      self.tr("FlashAttention forward"), self.tr("FlashAttention backward"),
                                      self.tr("Memory-bound operator (bytes, bandwidth)"),
                                      self.tr("Whole model (PaLM 6N + 12LHQT)"))):
            self.kind.addItem(label, key)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        kind_row = QFormLayout()
        kind_row.addRow(self.tr("Operator"), self.kind)
        return kind_row

    def _build_forms(self) -> QStackedWidget:
        """One dimensions form per kind of calculation, stacked (pages as in ``_PAGES``)."""
        self.stack = QStackedWidget()
        self.fields: dict[str, Field] = {}
        self.stack.addWidget(self._form([("m", "int", "M", "4096"), ("n", "int", "N", "1024"),
                                         ("k", "int", "K", "6144")], "gemm"))
        self.stack.addWidget(self._form([("b_batch", "int", "B", "12"), ("b_m", "int", "M", "1024"),
                                         ("b_n", "int", "N", "1024"), ("b_k", "int", "K", "512")], "batched"))
        self.stack.addWidget(self._form([("l_b", "int", "B", "8"), ("l_l", "int", "L", "2048"),
                                         ("l_in", "int", "D_in", "4096"), ("l_out", "int", "D_out", "11008")],
                                        "linear"))
        self.stack.addWidget(self._form([("q_b", "int", "B", "2"), ("q_h", "int", "H", "32"),
                                         ("q_lq", "int", "L_q", "4096"), ("q_lk", "int", "L_k", "4096"),
                                         ("q_dh", "int", "D_h", "128")], "qk"))
        self.stack.addWidget(self._fa_form())
        self.stack.addWidget(self._model_form())
        self.stack.addWidget(self._memory_form())
        return self.stack

    def _build_peak_box(self) -> QGroupBox:
        """The "Peak and time" box: chip, dtype, peak or bandwidth, time per call, calls, accelerators."""
        self.peak_box = QGroupBox(self.tr("Peak and time"))
        peak_form = QFormLayout(self.peak_box)
        self.chip = compact_combo()
        self.chip.setEditable(False)
        for chip in self.catalog.chips:
            self.chip.addItem(chip.identifier, chip.identifier)
        self.chip.addItem(self.tr("Custom peak (enter below)"), CUSTOM_PEAK)
        default = self.chip.findData("Huawei Ascend 910B2")
        self.chip.setCurrentIndex(max(default, 0))
        self.dtype = compact_combo()
        for d in ComputeDtype:
            self.dtype.addItem(d.value, d.value)
        self.dtype.setCurrentIndex(self.dtype.findData("bf16"))
        self.peak = Field("float", self.tr("TFLOP/s"))
        self.peak_source = QLabel("")
        self.peak_source.setWordWrap(True)
        self.peak_source.setStyleSheet("font-size: 8pt;")
        self.time = Field("float", self.tr("time per call"))
        self.time.setText("200")
        self.unit = compact_combo()
        for unit in ("µs", "ms", "s"):
            self.unit.addItem(unit, unit)
        time_row = QHBoxLayout()
        time_row.addWidget(self.time, 1)
        time_row.addWidget(self.unit)
        self.calls = QSpinBox()
        self.calls.setRange(1, 10_000_000)
        self.chips_count = Field("int", self.tr("number of accelerators"))
        self.chips_count.setText("8")
        peak_form.addRow(self.tr("Chip"), self.chip)
        self.dtype_label = QLabel(self.tr("Dtype"))
        peak_form.addRow(self.dtype_label, self.dtype)
        self.peak_label = QLabel(self.tr("Peak (TFLOP/s)"))
        peak_form.addRow(self.peak_label, self.peak)
        self.bandwidth = Field("float", self.tr("GB/s"))
        self.bandwidth.textEdited.connect(self._bandwidth_edited)
        self.bandwidth.textChanged.connect(self.schedule)
        self.bandwidth_label = QLabel(self.tr("HBM bandwidth (GB/s)"))
        peak_form.addRow(self.bandwidth_label, self.bandwidth)
        self._bandwidth_source = ""
        self.bandwidth_source = QLabel("")
        self.bandwidth_source.setWordWrap(True)
        self.bandwidth_source.setStyleSheet("font-size: 8pt;")
        peak_form.addRow("", self.bandwidth_source)
        peak_form.addRow("", self.peak_source)
        self.time_label = QLabel(self.tr("Time per call"))
        peak_form.addRow(self.time_label, time_row)
        self.calls_label = QLabel(self.tr("Calls per iteration"))
        peak_form.addRow(self.calls_label, self.calls)
        self.chips_label = QLabel(self.tr("Accelerators"))
        peak_form.addRow(self.chips_label, self.chips_count)
        return self.peak_box

    def _build_results(self) -> QWidget:
        """The right pane: the result cards, the problems line, the derivation and its copy button."""
        result_host = QWidget()
        result_layout = QVBoxLayout(result_host)
        cards = QHBoxLayout()
        self.card_flops = Card(self.tr("FLOPs per call"))
        self.card_achieved = Card(self.tr("Achieved TFLOP/s"))
        self.card_mfu = Card(self.tr("MFU"))
        for card in (self.card_flops, self.card_achieved, self.card_mfu):
            cards.addWidget(card)
        result_layout.addLayout(cards)
        self.problems = QLabel("")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet("color: #d9534f;")
        result_layout.addWidget(self.problems)
        self.derivation = QTextBrowser()
        self.derivation.setOpenExternalLinks(False)
        result_layout.addWidget(self.derivation, 1)
        buttons = QHBoxLayout()
        self.copy_button = QPushButton(self.tr("Copy derivation as Markdown"))
        self.copy_button.clicked.connect(self.copy_markdown)
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        result_layout.addLayout(buttons)
        return result_host

    def _add_fields(self, form: QFormLayout, specs: list[tuple[str, str, str, str]], optional: bool = False) -> None:
        """One validated field per ``(key, kind, label, example)``; the example is the initial value."""
        for key, kind, label, example in specs:
            field = Field(kind, example or self.tr("optional"), optional=optional)
            if example:
                field.setText(example)
            field.textChanged.connect(self.schedule)
            self.fields[key] = field
            form.addRow(label, field)

    def _form(self, specs: list[tuple[str, str, str, str]], name: str) -> QWidget:
        box = QGroupBox(self.tr("Dimensions"))
        form = QFormLayout(box)
        self._add_fields(form, specs)
        box.setObjectName(name)
        return box

    def _fa_form(self) -> QWidget:
        box = QGroupBox(self.tr("FlashAttention"))
        form = QFormLayout(box)
        self.fa_layout = compact_combo()
        for layout in Layout:
            self.fa_layout.addItem(layout.value, layout.value)
        self.fa_layout.setCurrentIndex(self.fa_layout.findData("BSND"))
        self.fa_mode = compact_combo()
        for mode, label in ((0, self.tr("0 — defaultMask (full)")), (1, self.tr("1 — allMask")),
                            (2, self.tr("2 — leftUpCausal")), (3, self.tr("3 — rightDownCausal")),
                            (4, self.tr("4 — band (pre/next tokens)")),
                            (5, self.tr("5–8 — prefix/varlen variants (upper bound)"))):
            self.fa_mode.addItem(label, mode)
        self.fa_mode.setCurrentIndex(2)
        self.fa_convention = compact_combo()
        self.fa_convention.addItem(self.tr("exact geometry"), "exact")
        self.fa_convention.addItem(self.tr("seed (continuous S²/2)"), "seed")
        self.fa_backward_count = compact_combo()
        self.fa_backward_count.addItem(self.tr("model FLOPs (2× forward)"), "model")
        self.fa_backward_count.addItem(self.tr("executed FLOPs (2.5×, HFU view)"), "executed")
        specs = [("fa_q", "shape", "Q", "1,4096,32,128"), ("fa_k", "shape", "K", "1,4096,8,128"),
                 ("fa_v", "shape", "V", "1,4096,8,128"), ("fa_heads", "int", self.tr("Query heads"), ""),
                 ("fa_pre", "nonneg_int", self.tr("pre_tokens"), ""), ("fa_next", "nonneg_int", self.tr("next_tokens"),
                                                                         ""),
                 ("fa_qlen", "ints", "actual_seq_qlen", ""), ("fa_kvlen", "ints", "actual_seq_kvlen", "")]
        form.addRow(self.tr("input_layout"), self.fa_layout)
        self._add_fields(form, specs, optional=True)
        form.addRow(self.tr("sparse_mode"), self.fa_mode)
        form.addRow(self.tr("Mask geometry"), self.fa_convention)
        form.addRow(self.tr("Backward counts"), self.fa_backward_count)
        for combo in (self.fa_layout, self.fa_mode, self.fa_convention, self.fa_backward_count):
            combo.currentIndexChanged.connect(self.schedule)
        return box

    def _model_form(self) -> QWidget:
        box = QGroupBox(self.tr("Whole model"))
        form = QFormLayout(box)
        # a 7B dense model on 8 accelerators (the default count) at ~2,800 tokens/s each: an MFU users recognise
        specs = [("md_params", "float", self.tr("Parameters N (active)"), "6.7e9"),
                 ("md_layers", "int", self.tr("Layers L"), "32"), ("md_heads", "int", self.tr("Heads H"), "32"),
                 ("md_head_dim", "int", self.tr("Head dim Q"), "128"), ("md_seq", "int", self.tr("Sequence T"), "4096"),
                 ("md_tokens", "float", self.tr("Tokens/s (whole job)"), "22400"),
                 ("md_batch", "float", self.tr("or: global batch (sequences)"), ""),
                 ("md_step", "float", self.tr("and step time (s)"), ""),
                 ("md_remat_fraction", "nonneg_float", self.tr("Recomputed share of 2N (HFU)"), "0.75"),
                 ("md_target", "float", self.tr("Target MFU (inverse solve)"), "")]
        self._add_fields(form, specs, optional=True)
        self.md_remat_attention = QCheckBox(self.tr("attention forward recomputed"))
        self.md_remat_attention.setChecked(True)
        self.md_causal = QCheckBox(self.tr("causal: halve the attention term"))
        self.md_causal.setToolTip(self.tr("Megatron/MaxText convention; PaLM does not halve"))
        self.md_modern = QCheckBox(self.tr("describe the architecture instead of N"))
        self.md_modern.setToolTip(self.tr("GQA projections, SwiGLU, MoE active experts, vocabulary logits"))
        for check in (self.md_remat_attention, self.md_causal, self.md_modern):
            check.toggled.connect(self.schedule)
            form.addRow("", check)
        self.modern_box = QGroupBox(self.tr("Modern architecture"))
        modern = QFormLayout(self.modern_box)
        self._add_fields(modern, [("mo_dmodel", "int", "d_model", "4096"),
                                          ("mo_kv", "int", self.tr("KV heads (GQA)"), "8"),
                                          ("mo_ffn", "int", self.tr("FFN hidden"), "14336"),
                                          ("mo_vocab", "int", self.tr("Vocabulary"), "128256"),
                                          ("mo_experts", "nonneg_int", self.tr("MoE experts"), "0"),
                                          ("mo_topk", "nonneg_int", self.tr("MoE top-k"), "0"),
                                          ("mo_shared", "nonneg_int", self.tr("MoE shared experts"), "0")])
        self.mo_swiglu = QCheckBox(self.tr("SwiGLU (3 FFN matmuls)"))
        self.mo_swiglu.setChecked(True)
        self.mo_logits = QCheckBox(self.tr("count the vocabulary logits"))
        self.mo_logits.setChecked(True)
        for check in (self.mo_swiglu, self.mo_logits):
            check.toggled.connect(self.schedule)
            modern.addRow("", check)
        self.modern_box.setVisible(False)
        self.md_modern.toggled.connect(self.modern_box.setVisible)
        form.addRow(self.modern_box)
        return box

    def _memory_form(self) -> QWidget:
        box = QGroupBox(self.tr("Tensors (as the profiler writes them)"))
        form = QFormLayout(box)
        self._add_fields(form, [("mem_in", "text", self.tr("Input shapes"), "4096,4096;4096,4096"),
                                ("mem_in_dtypes", "text", self.tr("Input dtypes"), "bf16;bf16"),
                                ("mem_out", "text", self.tr("Output shapes"), "4096,4096"),
                                ("mem_out_dtypes", "text", self.tr("Output dtypes"), "bf16")])
        self._add_fields(form, [("mem_type", "text", self.tr("Operator type"), "")], optional=True)
        note = QLabel(self.tr("Tensors separated by “;”. Minimum bytes: every input read once, every output "
                              "written once (ZerosLike/Fill read nothing; gathers read what they write)."))
        note.setWordWrap(True)
        note.setStyleSheet("font-size: 8pt;")
        form.addRow(note)
        return box

    def set_catalog(self, catalog: ChipCatalog) -> None:
        """Use an edited catalog; the chosen chip stays selected when it still exists."""
        self.catalog = catalog
        current = self.chip.currentData()
        self.chip.blockSignals(True)
        self.chip.clear()
        for chip in catalog.chips:
            self.chip.addItem(chip.identifier, chip.identifier)
        self.chip.addItem(self.tr("Custom peak (enter below)"), CUSTOM_PEAK)
        index = self.chip.findData(current)
        self.chip.setCurrentIndex(index if index >= 0 else max(self.chip.findData("Huawei Ascend 910B2"), 0))
        self.chip.blockSignals(False)
        self._fill_peak()

    # --- behaviour --------------------------------------------------------------------------

    def schedule(self) -> None:
        """Recompute shortly (after the current keystroke burst)."""
        self._timer.start()

    def _kind_changed(self) -> None:
        kind = self.kind.currentData()
        index = _PAGES[kind]
        self.stack.setCurrentIndex(index)
        for i in range(self.stack.count()):  # the stack takes the height of the shown form only
            policy = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
            self.stack.widget(i).setSizePolicy(QSizePolicy.Policy.Preferred, policy)
        self.stack.adjustSize()
        is_model = kind == "model"
        for w in (self.time, self.unit, self.time_label, self.calls, self.calls_label):
            w.setVisible(not is_model)
        self.chips_count.setVisible(is_model)
        self.chips_label.setVisible(is_model)
        is_memory = kind == "memory"
        for w in (self.peak, self.peak_label, self.dtype, self.dtype_label, self.peak_source):
            w.setVisible(not is_memory)
        for w in (self.bandwidth, self.bandwidth_label, self.bandwidth_source):
            w.setVisible(is_memory)
        self._card_captions("memory" if is_memory else "model" if is_model else "operator")
        self.fa_backward_count.setEnabled(kind == "fa_bwd")
        self.schedule()

    def _card_captions(self, mode: str) -> None:
        """The result cards name what they show in each mode: bandwidth, a whole model, its inverse solve, FLOPs."""
        captions = {
            "memory": (self.tr("Bytes per call"), self.tr("Achieved GB/s"), self.tr("Bandwidth utilisation")),
            "model": (self.tr("FLOPs per token"), self.tr("MFU without attention"), self.tr("MFU (with attention)")),
            "inverse": (self.tr("FLOPs per token"), self.tr("Tokens/s needed"), self.tr("Step time needed")),
        }.get(mode, (self.tr("FLOPs per call"), self.tr("Achieved TFLOP/s"), self.tr("MFU")))
        for card, caption in zip((self.card_flops, self.card_achieved, self.card_mfu), captions):
            card.caption.setText(caption)

    def _fill_bandwidth(self, chip: str | None) -> None:
        """The chosen chip's HBM bandwidth from the catalog (left as typed for a custom chip)."""
        try:
            found = self.catalog.find(chip) if chip and chip != CUSTOM_PEAK else None
        except (CatalogError, UnknownChipError):
            found = None
        value = found.value("hbm_bandwidth_gbs") if found is not None else None
        if value:
            self.bandwidth.setText(f"{value:g}")
            self._bandwidth_source = self.tr("{0} HBM bandwidth (chip catalog)").format(found.identifier)
        elif found is not None:
            self.bandwidth.setText("")
            self._bandwidth_source = self.tr("the catalog has no HBM bandwidth for {0}").format(found.identifier)
        self.bandwidth_source.setText(self._bandwidth_source)

    def _bandwidth_edited(self) -> None:
        self._bandwidth_source = self.tr("entered by you")
        self.bandwidth_source.setText(self._bandwidth_source)

    def _fill_peak(self) -> None:
        chip = self.chip.currentData()
        self._fill_bandwidth(chip)
        self._catalog_peak = None
        if chip == CUSTOM_PEAK:
            self.peak_source.setText(self.tr("entered by you"))
            self.schedule()
            return
        try:
            peak = self.catalog.peak(chip, self.dtype.currentData())
        except CatalogError as exc:
            self.peak.setText("")
            self.peak_source.setText(str(exc))
            self.schedule()
            return
        self._catalog_peak = peak
        self.peak.setText(f"{peak.tflops:g}")
        self.peak.mark_valid()
        self.peak_source.setText(peak.source)
        self.schedule()

    def _peak_edited(self) -> None:
        self._catalog_peak = None
        self.peak_source.setText(self.tr("entered by you"))
        self.schedule()

    def _current_peak(self, errors: list[str]) -> Peak | None:
        value = self.peak.checked(errors, self.tr("peak"))
        if value is None:
            return None
        dtype = ComputeDtype(self.dtype.currentData())
        if self._catalog_peak is not None and abs(self._catalog_peak.tflops - value) < 1e-12:
            return self._catalog_peak
        return Peak(float(value), dtype, source=self.tr("entered by you"))

    def _time_s(self, errors: list[str]) -> float | None:
        value = self.time.checked(errors, self.tr("time"))
        return None if value is None else to_seconds(value, self.unit.currentData())

    def recompute(self) -> None:
        """Recompute from the fields; invalid fields are marked, missing inputs listed."""
        errors: list[str] = []
        kind = self.kind.currentData()
        try:
            if kind == "model":
                self._model(errors)
            elif kind == "memory":
                self._memory(errors)
            else:
                self._operator(kind, errors)
        except (FlopError, ValueError) as exc:
            errors.append(str(exc))
            self._show(None, errors)
        self.result_changed.emit()

    def _operator(self, kind: str, errors: list[str]) -> None:
        f = self.fields
        peak = self._current_peak(errors)
        time_s = self._time_s(errors)
        calls = self.calls.value()
        result: OperatorResult | None = None
        if kind == "gemm":
            m, n, k = (f[x].checked(errors, x.upper()) for x in ("m", "n", "k"))
            if not errors:
                result = calc_gemm(m, n, k, time_s, peak, calls=calls)
        elif kind == "batched":
            b, m, n, k = (f[x].checked(errors, label) for x, label in (("b_batch", "B"), ("b_m", "M"), ("b_n", "N"),
                                                                        ("b_k", "K")))
            if not errors:
                result = calc_gemm(m, n, k, time_s, peak, batch=b or 1, calls=calls)
        elif kind == "linear":
            values = [f[x].checked(errors, label) for x, label in (("l_b", "B"), ("l_l", "L"), ("l_in", "D_in"),
                                                                  ("l_out", "D_out"))]
            if not errors and None in values:
                errors.append(self.tr("give B, L, D_in and D_out"))
            if not errors:
                result = calc_linear(*values, time_s, peak, calls=calls)
        elif kind == "qk":
            values = [f[x].checked(errors, label) for x, label in (("q_b", "B"), ("q_h", "H"), ("q_lq", "L_q"),
                                                                  ("q_lk", "L_k"), ("q_dh", "D_h"))]
            if not errors and None in values:
                errors.append(self.tr("give B, H, L_q, L_k and D_h"))
            if not errors:
                result = calc_attention_scores(*values, time_s, peak, calls=calls)
        else:
            q = f["fa_q"].checked(errors, "Q")
            k = f["fa_k"].checked(errors, "K")
            v = f["fa_v"].checked(errors, "V")
            heads = f["fa_heads"].checked(errors, self.tr("heads"))
            pre = f["fa_pre"].checked(errors, "pre_tokens")
            nxt = f["fa_next"].checked(errors, "next_tokens")
            qlen = f["fa_qlen"].checked(errors, "actual_seq_qlen")
            kvlen = f["fa_kvlen"].checked(errors, "actual_seq_kvlen")
            if not errors:
                try:
                    result = calc_flash_attention(
                        self.fa_layout.currentData(), q, k, v, time_s, peak, heads=heads,
                        sparse_mode=self.fa_mode.currentData(), pre_tokens=pre, next_tokens=nxt,
                        actual_seq_qlen=qlen, actual_seq_kvlen=kvlen, backward=kind == "fa_bwd",
                        backward_count=self.fa_backward_count.currentData(),
                        convention=self.fa_convention.currentData(), calls=calls)
                except FlopError as exc:
                    for key in ("fa_q", "fa_k", "fa_v"):
                        f[key].mark_invalid(str(exc))
                    errors.append(str(exc))
        self._show(result, errors)

    def _model(self, errors: list[str]) -> None:
        f = self.fields
        peak = self._current_peak(errors)
        chips = self.chips_count.checked(errors, self.tr("accelerators"))
        layers, heads, head_dim, seq = (f[x].checked(errors, label) for x, label in (
            ("md_layers", "L"), ("md_heads", "H"), ("md_head_dim", "Q"), ("md_seq", "T")))
        conventions = Conventions(causal_halved=self.md_causal.isChecked())
        param_lines: list[str] = []
        if self.md_modern.isChecked():
            values = {k: f[k].checked(errors, k) for k in ("mo_dmodel", "mo_kv", "mo_ffn", "mo_vocab", "mo_experts",
                                                           "mo_topk", "mo_shared")}
            params = None
            if not errors and None not in (layers, heads, head_dim, values["mo_dmodel"]):
                arch = ModernArchitecture(layers=layers, d_model=values["mo_dmodel"], heads=heads, head_dim=head_dim,
                                          kv_heads=values["mo_kv"], ffn_hidden=values["mo_ffn"] or 0,
                                          swiglu=self.mo_swiglu.isChecked(), vocab=values["mo_vocab"] or 0,
                                          include_logits=self.mo_logits.isChecked(),
                                          moe_experts=values["mo_experts"] or 0, moe_top_k=values["mo_topk"] or 0,
                                          moe_shared_experts=values["mo_shared"] or 0)
                params, param_lines = arch.active_matmul_params()
        else:
            params = f["md_params"].checked(errors, "N")
        tokens = f["md_tokens"].checked(errors, self.tr("tokens/s"))
        batch = f["md_batch"].checked(errors, self.tr("global batch"))
        step = f["md_step"].checked(errors, self.tr("step time"))
        remat_fraction = f["md_remat_fraction"].checked(errors, self.tr("recomputed share"))
        target = f["md_target"].checked(errors, self.tr("target MFU"))
        missing = [name for name, value in (("N", params), ("L", layers), ("H", heads), ("Q", head_dim), ("T", seq),
                                            (self.tr("peak"), peak), (self.tr("accelerators"), chips)) if value is None]
        if errors or missing:
            if missing and not errors:
                errors.append(self.tr("missing: {0}").format(", ".join(missing)))
            self._show(None, errors)
            return
        if target is not None:
            fpt = flops_per_token(params, layers, heads, head_dim, seq, conventions)
            tps, step_s, d = inverse_derivation(target if target <= 1 else target / 100, fpt, peak.tflops, chips,
                                                batch, seq, conventions)
            d.steps[0:0] = param_lines
            self.last_derivation = d
            self.last_result = {"tokens_per_s": tps, "step_time_s": step_s}
            self._card_captions("inverse")
            self.card_flops.set(sig(fpt / 1e12, group=True) + " TFLOP", self.tr("per token"))
            self.card_achieved.set(sig(tps, group=True), self.tr("tokens/s at the target MFU"))
            self.card_mfu.set(f"{sig(step_s, group=True)} s" if step_s else "–", self.tr("step time"))
            self.problems.setText("")
            self.derivation.setMarkdown(derivation_markdown(d))
            return
        try:
            tps = tokens_per_second(tokens, batch, seq, step)
        except FlopError as exc:
            self._show(None, [str(exc)])
            return
        remat = None
        if remat_fraction is not None or self.md_remat_attention.isChecked():
            remat = palm_remat_flops_per_token(params, layers, heads, head_dim, seq, remat_fraction or 0.0,
                                               self.md_remat_attention.isChecked(), conventions)
        result = model_mfu(params, layers, heads, head_dim, seq, tps, peak.tflops, chips, remat, conventions,
                           param_lines, peak.source)
        self.last_derivation = result.derivation
        self.last_result = result
        self._card_captions("model")
        self.card_flops.set(sig(result.flops_per_token / 1e12, group=True) + " TFLOP",
                            self.tr("per token (attention {0} TFLOP)").format(sig(result.attention_flops_per_token
                                                                                  / 1e12, group=True)))
        self.card_achieved.set(pct(result.mfu_without_attention), self.tr("MFU without attention"))
        self.card_mfu.set(pct(result.mfu_with_attention),
                          self.tr("with attention; HFU {0}").format(pct(result.hfu) if result.hfu is not None else "–"),
                          band_css(result.mfu_with_attention))
        self.problems.setText(self.impossible_model_text(result.mfu_with_attention, chips, peak.tflops))
        self.derivation.setMarkdown(derivation_markdown(result.derivation))

    def impossible_model_text(self, mfu: float, chips: int, peak_tflops: float) -> str:
        """Above 100 %: which input is likely wrong (tokens/s are the whole job's: the accelerator count first)."""
        if mfu <= 1.0:
            return ""
        needed = math.ceil(chips * mfu)
        return self.tr("MFU {0} is impossible (above 100 %). Tokens/s are for the whole job: at 100 % it would take "
                       "at least {1} accelerators, not {2} — check the accelerator count, then the tokens/s (or the "
                       "global batch and step time) and the peak ({3} TFLOP/s per accelerator).").format(
            pct(mfu), f"{needed:,}", f"{chips:,}", f"{peak_tflops:g}")

    def impossible_operator_text(self, mfu: float) -> str:
        """Above 100 % for one operator: the time (its unit, per call) is the likely culprit, then shapes and peak."""
        if mfu <= 1.0:
            return ""
        return self.tr("MFU {0} is impossible (above 100 %): the time is likely too short — is it in {1}, and for "
                       "one call (calls per iteration: {2})? Then check the shapes (a transpose) and the peak (chip, "
                       "dtype).").format(pct(mfu), self.unit.currentData(), self.calls.value())

    def _memory(self, errors: list[str]) -> None:
        from mfu_desktop.core.formulas.memory_bound import calc_memory_bound

        f = self.fields
        values = [f[k].checked(errors, label) for k, label in (
            ("mem_in", self.tr("input shapes")), ("mem_in_dtypes", self.tr("input dtypes")),
            ("mem_out", self.tr("output shapes")), ("mem_out_dtypes", self.tr("output dtypes")))]
        op_type = f["mem_type"].checked(errors, self.tr("operator type"))
        time_s = self._time_s(errors)
        bw = self.bandwidth.checked(errors, self.tr("bandwidth"))
        if errors or not values[0] or not values[1]:
            if not errors:
                errors.append(self.tr("give the input shapes and their dtypes"))
            self._show(None, errors)
            return
        calls = self.calls.value()
        result = calc_memory_bound(values[0], values[1], values[2], values[3], time_s, bw, self._bandwidth_source,
                                   op_type or None)
        self.last_result = result
        self.last_derivation = d = result.derivation
        per_calls = f" · ×{calls}: {sig(result.bytes * calls / 1e9, group=True)} GB" \
            if calls > 1 and result.bytes is not None else ""
        self.card_flops.set(grouped(result.bytes) if result.bytes is not None else "–",
                            f"{sig(result.bytes / 1e6, group=True)} MB{per_calls}" if result.bytes is not None else "")
        self.card_achieved.set(sig(result.achieved_gbs, group=True) if result.achieved_gbs is not None else "–",
                               self.tr("GB/s"))
        if result.bw_util is not None:
            self.card_mfu.set(pct(result.bw_util), self.tr("of HBM bandwidth"), band_css(result.bw_util))
        else:
            self.card_mfu.set("–")
        self._show_derivation(d, errors)

    def _show_derivation(self, d: Derivation, errors: list[str]) -> None:
        """The problems (errors, then one line naming the missing inputs) and the derivation."""
        lines = list(errors)
        if d.missing:
            lines.append(self.tr("Missing inputs: {0}").format(", ".join(m.name for m in d.missing)))
        self.problems.setText("\n".join(lines))
        self.derivation.setMarkdown(derivation_markdown(d))

    def _show(self, result: OperatorResult | None, errors: list[str]) -> None:
        self.last_result = result
        if result is None:
            self.last_derivation = None
            self.card_flops.set("–")
            self.card_achieved.set("–")
            self.card_mfu.set("–")
            self.problems.setText("\n".join(errors))
            self.derivation.setMarkdown("")
            return
        self.last_derivation = result.derivation
        d = result.derivation
        self.card_flops.set(grouped(result.flops) if result.flops is not None else "–",
                            f"{sig(result.flops / 1e12, group=True)} TFLOP" if result.flops is not None else "")
        self.card_achieved.set(sig(result.achieved_tflops, group=True) if result.achieved_tflops is not None else "–",
                               self.tr("TFLOP/s"))
        if result.mfu is not None:
            self.card_mfu.set(pct(result.mfu), ct(d.interpretation).split(":")[0], band_css(result.mfu))
        else:
            self.card_mfu.set("–")
        self._show_derivation(d, errors)
        if result.mfu is not None:
            band = mfu_band(result.mfu)
            self.card_mfu.setToolTip(band.value)
            impossible = self.impossible_operator_text(result.mfu)
            if impossible:
                self.problems.setText("\n".join(filter(None, (self.problems.text(), impossible))))

    def copy_markdown(self) -> str:
        """Copy the current derivation as Markdown to the clipboard; returns the text."""
        text = self.last_derivation.markdown() if self.last_derivation else ""
        QGuiApplication.clipboard().setText(text)
        return text

    # --- prefill ----------------------------------------------------------------------------

    def prefill(self, p: CalculatorPrefill) -> None:
        """Fill the form from a profiled kernel ("Open in calculator")."""
        if p.kind == "gemm":
            batch = int(p.values.get("batch") or 1)
            if batch > 1:
                self.kind.setCurrentIndex(KINDS.index("batched"))
                for key, value in (("b_batch", batch), ("b_m", p.values["m"]), ("b_n", p.values["n"]),
                                   ("b_k", p.values["k"])):
                    self.fields[key].setText(str(value))
            else:
                self.kind.setCurrentIndex(KINDS.index("gemm"))
                for key in ("m", "n", "k"):
                    self.fields[key].setText(str(p.values[key]))
        elif p.kind == "memory":
            self.kind.setCurrentIndex(KINDS.index("memory"))
            for key, name in (("mem_in", "inputs"), ("mem_in_dtypes", "input_dtypes"), ("mem_out", "outputs"),
                              ("mem_out_dtypes", "output_dtypes"), ("mem_type", "type")):
                value = p.values.get(name)
                self.fields[key].setText("" if value is None else str(value))
        elif p.kind == "fa":
            self.kind.setCurrentIndex(KINDS.index("fa_bwd" if p.values.get("backward") else "fa_fwd"))
            self.fa_layout.setCurrentIndex(max(self.fa_layout.findData(p.values.get("layout")), 0))
            for key, name in (("fa_q", "q_shape"), ("fa_k", "k_shape"), ("fa_v", "v_shape"), ("fa_heads", "heads")):
                value = p.values.get(name)
                self.fields[key].setText("" if value is None else str(value))
            for key in ("fa_pre", "fa_next", "fa_qlen", "fa_kvlen"):
                self.fields[key].setText("")
            mode = p.values.get("sparse_mode", 0)
            self.fa_mode.setCurrentIndex(max(self.fa_mode.findData(mode if mode < 5 else 5), 0))
        if p.dtype:
            self.dtype.setCurrentIndex(max(self.dtype.findData(p.dtype), 0))
        if p.chip:
            try:
                name = self.catalog.find(p.chip).identifier
                self.chip.setCurrentIndex(max(self.chip.findData(name), 0))
            except UnknownChipError:
                pass
        if p.time_us is not None:
            self.unit.setCurrentIndex(self.unit.findData("µs"))
            self.time.setText(f"{p.time_us:g}")
        self.calls.setValue(1)
        self.recompute()


__all__ = ["TIME_UNITS", "CalculatorTab"]
