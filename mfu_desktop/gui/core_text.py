"""Translation of the engine's text in the window (statuses, derivations, conventions, chip sources, hints).

The engine speaks English (its text is shared with the CLI and the JSON contract); the GUI
translates it here, in three ways:

* words and phrases from a fixed set (statuses, classes, derivation headings and the names of
  their inputs and results): :func:`ct`;
* sentences with numbers or names in them (a kernel's title, the transpose-safe convention, a
  matmul hint, a chip's source line, the conventions box): a table of patterns whose templates
  are translated and refilled (:func:`tl`) — an unknown sentence stays as the engine wrote it;
* formula lines: their words only (``achieved``, ``bytes``, ``read``, ``compute-bound``), never
  the numbers (:func:`formula_line`).

The same table rewrites what the engine says for the command line ("pass --assume-cpu") into the
window's own words (the control that does it), in English too.
"""

from __future__ import annotations

import re
from dataclasses import replace

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from mfu_desktop.core.formulas.derivation import Derivation, MissingInput

_VOCABULARY = (
    QT_TRANSLATE_NOOP("CoreText", "counted"),
    QT_TRANSLATE_NOOP("CoreText", "suspicious"),
    QT_TRANSLATE_NOOP("CoreText", "excluded"),
    QT_TRANSLATE_NOOP("CoreText", "no FLOP rule"),
    QT_TRANSLATE_NOOP("CoreText", "cube"),
    QT_TRANSLATE_NOOP("CoreText", "vector"),
    QT_TRANSLATE_NOOP("CoreText", "mix"),
    QT_TRANSLATE_NOOP("CoreText", "aicpu"),
    QT_TRANSLATE_NOOP("CoreText", "comm"),
    QT_TRANSLATE_NOOP("CoreText", "other"),
    QT_TRANSLATE_NOOP("CoreText", "unknown"),
    QT_TRANSLATE_NOOP("CoreText", "FLOPs-based MFU"),
    QT_TRANSLATE_NOOP("CoreText", "hardware cube utilisation (cube_utilization, not MFU)"),
    QT_TRANSLATE_NOOP("CoreText", "device-busy proxy (proxy, not MFU)"),
    QT_TRANSLATE_NOOP("CoreText", "< 20 %: far from peak — typically memory bandwidth, launch overhead, or small/irregular shapes."),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "20–30 %: low."),
    QT_TRANSLATE_NOOP("CoreText", "30–60 %: medium to good; many general workloads sit here."),
    QT_TRANSLATE_NOOP("CoreText", "60–70 %: good, above typical general workloads."),
    QT_TRANSLATE_NOOP("CoreText", "> 70 %: shape, parallelism and implementation are close to the device limit."),
    QT_TRANSLATE_NOOP("CoreText", "> 100 % is physically impossible: check the shapes (transposes), the peak (chip, dtype) and the time unit."),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "compute"),
    QT_TRANSLATE_NOOP("CoreText", "memory"),
    QT_TRANSLATE_NOOP("CoreText", "< 20 % of HBM bandwidth: far from the memory roof — small tensors (launch overhead), strided or scattered access, or a kernel bound by its vector/scalar pipeline rather than by memory."),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "20–30 % of HBM bandwidth: low."),
    QT_TRANSLATE_NOOP("CoreText", "30–60 % of HBM bandwidth: medium; fusing it with its neighbours saves a round trip to HBM."),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "60–70 % of HBM bandwidth: good."),
    QT_TRANSLATE_NOOP("CoreText", "> 70 % of HBM bandwidth: close to the memory roof — only moving fewer bytes (fusion, lower precision) makes it faster."),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "> 100 % of HBM bandwidth: faster than HBM — on-chip cache hits (a tensor re-read from L2), or a wrong shape, dtype or bandwidth."),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "advertised"),
    QT_TRANSLATE_NOOP("CoreText", "achievable"),
    QT_TRANSLATE_NOOP("CoreText", "compute achievable"),
    QT_TRANSLATE_NOOP("CoreText", "bandwidth achievable"),
    QT_TRANSLATE_NOOP("CoreText", "fitted"),
    QT_TRANSLATE_NOOP("CoreText", "measured"),
    QT_TRANSLATE_NOOP("CoreText", "Inputs"),
    QT_TRANSLATE_NOOP("CoreText", "Missing inputs"),
    QT_TRANSLATE_NOOP("CoreText", "Formulas"),
    QT_TRANSLATE_NOOP("CoreText", "Result"),
    QT_TRANSLATE_NOOP("CoreText", "Interpretation"),
    QT_TRANSLATE_NOOP("CoreText", "Hints"),
    QT_TRANSLATE_NOOP("CoreText", "Conventions"),
    # the names of a derivation's inputs and results
    QT_TRANSLATE_NOOP("CoreText", "type"),
    QT_TRANSLATE_NOOP("CoreText", "accelerator core"),
    QT_TRANSLATE_NOOP("CoreText", "duration"),
    QT_TRANSLATE_NOOP("CoreText", "input shapes"),
    QT_TRANSLATE_NOOP("CoreText", "output shapes"),
    QT_TRANSLATE_NOOP("CoreText", "input dtypes"),
    QT_TRANSLATE_NOOP("CoreText", "compute dtype"),
    QT_TRANSLATE_NOOP("CoreText", "step"),
    QT_TRANSLATE_NOOP("CoreText", "status"),
    QT_TRANSLATE_NOOP("CoreText", "achieved"),
    QT_TRANSLATE_NOOP("CoreText", "peak"),
    QT_TRANSLATE_NOOP("CoreText", "bytes"),
    QT_TRANSLATE_NOOP("CoreText", "achieved bandwidth"),
    QT_TRANSLATE_NOOP("CoreText", "arithmetic intensity"),
    QT_TRANSLATE_NOOP("CoreText", "bandwidth utilisation"),
    QT_TRANSLATE_NOOP("CoreText", "roofline-attainable time"),
    QT_TRANSLATE_NOOP("CoreText", "lost time"),
    QT_TRANSLATE_NOOP("CoreText", "cube utilization (hardware counter, not MFU)"),
    QT_TRANSLATE_NOOP("CoreText", "executed FLOPs (HFU view)"),
    QT_TRANSLATE_NOOP("CoreText", "FLOPs per call"),
    QT_TRANSLATE_NOOP("CoreText", "bytes per call"),
    QT_TRANSLATE_NOOP("CoreText", "HBM bandwidth"),
    QT_TRANSLATE_NOOP("CoreText", "time"),
    QT_TRANSLATE_NOOP("CoreText", "calls"),
    QT_TRANSLATE_NOOP("CoreText", "tokens/s"),
    QT_TRANSLATE_NOOP("CoreText", "step time"),
    QT_TRANSLATE_NOOP("CoreText", "exact"),
    QT_TRANSLATE_NOOP("CoreText", "high"),
    QT_TRANSLATE_NOOP("CoreText", "medium"),
    QT_TRANSLATE_NOOP("CoreText", "low"),
    # the calculator's inputs and results (every operator and the whole-model mode)
    QT_TRANSLATE_NOOP("CoreText", "operator"),
    QT_TRANSLATE_NOOP("CoreText", "time per call"),
    QT_TRANSLATE_NOOP("CoreText", "chips"),
    QT_TRANSLATE_NOOP("CoreText", "peak per chip"),
    QT_TRANSLATE_NOOP("CoreText", "layout"),
    QT_TRANSLATE_NOOP("CoreText", "layers"),
    QT_TRANSLATE_NOOP("CoreText", "flops per token"),
    QT_TRANSLATE_NOOP("CoreText", "FLOPs per token"),
    QT_TRANSLATE_NOOP("CoreText", "batch"),
    QT_TRANSLATE_NOOP("CoreText", "MFU without attention"),
    QT_TRANSLATE_NOOP("CoreText", "MFU with attention"),
    QT_TRANSLATE_NOOP("CoreText", "target MFU"),
    QT_TRANSLATE_NOOP("CoreText", "shapes and dtypes"),
    QT_TRANSLATE_NOOP("CoreText", "rematerialisation FLOPs per token"),
    QT_TRANSLATE_NOOP("CoreText", "params"),
    QT_TRANSLATE_NOOP("CoreText", "override"),
    QT_TRANSLATE_NOOP("CoreText", "observed throughput"),
    QT_TRANSLATE_NOOP("CoreText", "mask convention"),
    QT_TRANSLATE_NOOP("CoreText", "heads"),
    QT_TRANSLATE_NOOP("CoreText", "heads (N_q)"),
    QT_TRANSLATE_NOOP("CoreText", "output dtypes"),
    QT_TRANSLATE_NOOP("CoreText", "input"),
    QT_TRANSLATE_NOOP("CoreText", "weight"),
    QT_TRANSLATE_NOOP("CoreText", "bandwidth"),
    # conventions and notes without numbers
    QT_TRANSLATE_NOOP("CoreText", "no bytes: no shapes recorded"),
    QT_TRANSLATE_NOOP("CoreText", "no bytes: no tensor in the shapes"),
    QT_TRANSLATE_NOOP("CoreText", "is_causal not recorded: full attention assumed"),
    QT_TRANSLATE_NOOP("CoreText", "only routed tokens are counted: E does not multiply"),
    QT_TRANSLATE_NOOP("CoreText", "output not recorded: taken as large as the largest input"),
    QT_TRANSLATE_NOOP("CoreText", "MFU = Σ (FLOPs_i / peak_i) / Σ t_i over counted kernels (operator achievement rate, 算子达成率)"),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "step MFU = Σ FLOPs_i / peak_i over the step time Computing + Communication(Not Overlapped) + Free"),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "kernels with MFU > 100 % are kept out of aggregates"),
    QT_TRANSLATE_NOOP("CoreText", "kernels with MFU > 100 % are kept in aggregates"),
    QT_TRANSLATE_NOOP("CoreText", "FlashAttention backward: model FLOPs, 2 × forward"),
    QT_TRANSLATE_NOOP("CoreText", "FlashAttention backward: executed FLOPs incl. recomputed QKᵀ (HFU view)"),
    QT_TRANSLATE_NOOP("CoreText", "FP32 on the cube runs at ¼ of the FP16 rate on Ascend A2/A3 (CUDA-core rate on NVIDIA): BF16/FP16, or HF32/TF32 (torch.npu.matmul.allow_hf32 / allow_tf32), is up to 4× faster."),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "MFU > 100 %: re-check M/N/K (a transposed operand read as [N,K] inflates N), the peak's dtype and chip, and that the time is per call in µs."),  # noqa: E501
    # time outside operators (core.analysis.time_sinks)
    QT_TRANSLATE_NOOP("CoreText", "free: device idle (host gaps)"),
    QT_TRANSLATE_NOOP("CoreText", "communication not overlapped"),
    QT_TRANSLATE_NOOP("CoreText", "pipeline bubble"),
    QT_TRANSLATE_NOOP("CoreText", "time in the step when the device runs no kernel: the host did not launch work fast enough (operator dispatch, data loading, synchronisation)"),  # noqa: E501
    QT_TRANSLATE_NOOP("CoreText", "communication the computation did not hide: the step waits for it"),
    QT_TRANSLATE_NOOP("CoreText", "pipeline stages waiting for each other"),
)


def ct(text: str) -> str:
    """Translate one engine word or phrase (returned unchanged when it is not in the vocabulary)."""
    return QCoreApplication.translate("CoreText", text)


#: Engine sentences with values in them: (pattern, template). The template (translated) is filled
#: with the pattern's groups, each group itself passed through :func:`ct` (a word like "exact").
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), t) for p, t in (
    (r"^(\S+) kernel (.+)$", QT_TRANSLATE_NOOP("CoreText", "{0} kernel {1}")),
    (r"^confidence: (\w+)$", QT_TRANSLATE_NOOP("CoreText", "confidence: {0}")),
    (r"^transpose-safe: M, N from the output (\[[^\]]*\]); K = (\d+) from A and B \(agree\)$",
     QT_TRANSLATE_NOOP("CoreText", "transpose-safe: M, N from the output {0}; K = {1} from A and B (agree)")),
    (r"^K = (\d+) is small \(< (\d+)\): each output tile does little cube work per data move; fuse matmuls or "
     r"enlarge the contracted dimension\.$",
     QT_TRANSLATE_NOOP("CoreText", "K = {0} is small (< {1}): each output tile does little cube work per data move; "
                                   "fuse matmuls or enlarge the contracted dimension.")),
    (r"^M = (\d+) is small \(< (\d+)\): tiny batch·sequence leaves cube cores idle; increase the micro-batch or "
     r"fuse\.$",
     QT_TRANSLATE_NOOP("CoreText", "M = {0} is small (< {1}): tiny batch·sequence leaves cube cores idle; increase "
                                   "the micro-batch or fuse.")),
    (r"^(.+) not a multiple of 16: the 16×16×16 cube fractals are padded; pad the model dims \(hidden, vocab, "
     r"heads·head_dim\) to multiples of 16\.$",
     QT_TRANSLATE_NOOP("CoreText", "{0} not a multiple of 16: the 16×16×16 cube fractals are padded; pad the model "
                                   "dims (hidden, vocab, heads·head_dim) to multiples of 16.")),
    (r"^(.+) not a multiple of (\d+): large matmuls tile best at multiples of (\d+)\.$",
     QT_TRANSLATE_NOOP("CoreText", "{0} not a multiple of {1}: large matmuls tile best at multiples of {2}.")),
    (r"^Only (\S+) MFLOP per call: launch and scheduling overhead dominate; fuse small ops or batch them\.$",
     QT_TRANSLATE_NOOP("CoreText", "Only {0} MFLOP per call: launch and scheduling overhead dominate; fuse small "
                                   "ops or batch them.")),
    (r"^info\.json: (\d+) AI cores × (\S+) MHz → (\S+) TFLOP/s FP16/BF16 \((.+)-class\)$",
     QT_TRANSLATE_NOOP("CoreText", "info.json: {0} AI cores × {1} MHz → {2} TFLOP/s FP16/BF16 ({3}-class)")),
    (r"^FP32 matmuls use the (.+) peak$", QT_TRANSLATE_NOOP("CoreText", "FP32 matmuls use the {0} peak")),
    (r"^FlashAttention sparse_mode: (\S+) \(inferred per kernel from atten_mask\)$",
     QT_TRANSLATE_NOOP("CoreText", "FlashAttention sparse_mode: {0} (inferred per kernel from atten_mask)")),
    (r"^FlashAttention sparse_mode: (\S+) \(user override\)$",
     QT_TRANSLATE_NOOP("CoreText", "FlashAttention sparse_mode: {0} (your choice in Assumptions)")),
    (r"^FlashAttention layout: (\S+) \(inferred from softmax_max's shape\)$",
     QT_TRANSLATE_NOOP("CoreText", "FlashAttention layout: {0} (inferred from softmax_max's shape)")),
    (r"^FlashAttention layout: (\S+) \(user override\)$",
     QT_TRANSLATE_NOOP("CoreText", "FlashAttention layout: {0} (your choice in Assumptions)")),
    (r"^mask geometry: (\S+)$", QT_TRANSLATE_NOOP("CoreText", "mask geometry: {0}")),
    # what the engine says for the command line, in the window's words (English too)
    (r"^cpu coefficient of (.+) assumed (\S+) \(--assume-cpu\)$",
     QT_TRANSLATE_NOOP("CoreText", "cpu coefficient of {0} assumed {1} (“Assumed cpu coefficient” on the left)")),
    (r"^(.+) not set \(an assumption of the seed model; set it in the catalog or pass --assume-cpu\): step not "
     r"predicted$",
     QT_TRANSLATE_NOOP("CoreText", "{0} not set (an assumption of the seed model): step not predicted — set it in "
                                   "Tools → Chip catalog, or “Assumed cpu coefficient” on the left")),
    (r"^chosen \(--source\)$", QT_TRANSLATE_NOOP("CoreText", "chosen (Source chip)")),
    (r"^detected (.+)-class, the same values as the seed's (.+) row$",
     QT_TRANSLATE_NOOP("CoreText", "detected in the profile ({0}-class); predicted with the values of the seed's {1} "
                                   "row, the same peaks and bandwidths plus the cpu coefficient the step needs")),
))

#: Words of formula lines and result values, longest first (numbers and symbols are never touched).
_FORMULA_WORDS = (
    QT_TRANSLATE_NOOP("CoreText", "achieved bandwidth"),
    QT_TRANSLATE_NOOP("CoreText", "bandwidth utilisation"),
    QT_TRANSLATE_NOOP("CoreText", "compute-bound"),
    QT_TRANSLATE_NOOP("CoreText", "memory-bound"),
    QT_TRANSLATE_NOOP("CoreText", "intensity"),
    QT_TRANSLATE_NOOP("CoreText", "achieved"),
    QT_TRANSLATE_NOOP("CoreText", "written"),
    QT_TRANSLATE_NOOP("CoreText", "inputs"),
    QT_TRANSLATE_NOOP("CoreText", "outputs"),
    QT_TRANSLATE_NOOP("CoreText", "bytes"),
    QT_TRANSLATE_NOOP("CoreText", "read"),
    QT_TRANSLATE_NOOP("CoreText", "peak"),
    QT_TRANSLATE_NOOP("CoreText", "roofline"),
)
_WORDS = re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in _FORMULA_WORDS) + r")(?![\w-])")


def tl(text: str) -> str:
    """Translate one engine sentence: the vocabulary, else the first matching pattern; unknown text is kept."""
    if not isinstance(text, str) or not text:
        return text
    exact = ct(text)
    if exact != text:
        return exact
    for pattern, template in _PATTERNS:
        match = pattern.match(text)
        if match:
            return QCoreApplication.translate("CoreText", template).format(*(ct(g) for g in match.groups()))
    return text


def formula_line(text: str) -> str:
    """A formula line or a result value with its words translated and its numbers untouched."""
    return _WORDS.sub(lambda m: ct(m.group(1)), text)


def basis_text(text: object) -> str:
    """A prediction row's basis (``achievable (75 %); advertised (25 %)``) with its words translated."""
    if not isinstance(text, str) or not text:
        return ""
    parts = []
    for part in text.split("; "):
        label, _, share = part.partition(" (")
        parts.append(ct(label) + (f" ({share}" if share else ""))
    return "; ".join(parts)


def translated(d: Derivation) -> Derivation:
    """A copy of a derivation in the window's language: title, names, formulas' words, hints, conventions."""
    return replace(
        d, title=tl(d.title), inputs=[(ct(n), v) for n, v in d.inputs], steps=[formula_line(s) for s in d.steps],
        results=[(ct(n), formula_line(tl_value(v))) for n, v in d.results], hints=[tl(h) for h in d.hints],
        conventions=[tl(c) for c in d.conventions], missing=[MissingInput(ct(m.name), m.where) for m in d.missing])


def tl_value(value: str) -> str:
    """A result's value with a chip source in parentheses translated ("353.9 TFLOP/s (info.json: …)")."""
    head, sep, rest = str(value).partition(" (")
    if sep and rest.endswith(")"):
        inner = rest[:-1]
        translated_inner = tl(inner)
        if translated_inner != inner:
            return f"{head} ({translated_inner})"
    return str(value)


def derivation_markdown(d: Derivation) -> str:
    """A derivation as Markdown in the window's language (headings, names, sentences; never the numbers)."""
    return translated(d).markdown(ct)


def as_sentence(text: str) -> str:
    """An engine message as a sentence: capital first letter, final full stop (the CLI prints them raw)."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…", "。")) else text + "."


def sentences(messages: list[str]) -> str:
    """Several engine messages as sentences, one after the other."""
    return " ".join(as_sentence(m) for m in messages if m and m.strip())


def rank_count(n: int) -> str:
    """"1 rank", "8 ranks" (translated): never "1 ranks"."""
    if n == 1:
        return QCoreApplication.translate("Wording", "1 rank")
    return QCoreApplication.translate("Wording", "{0} ranks").format(f"{n:,}")
