"""Translation of the engine's fixed vocabulary (statuses, classes, tiers, bands, derivation headings).

The engine speaks English (its text is shared with the CLI and the JSON contract); the GUI
translates the words that come from a fixed set. Formulas, numbers and free-form engine
messages stay as the engine wrote them.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from mfu_desktop.core.formulas.derivation import Derivation

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
)


def ct(text: str) -> str:
    """Translate one engine word or phrase (returned unchanged when it is not in the vocabulary)."""
    return QCoreApplication.translate("CoreText", text)


def basis_text(text: object) -> str:
    """A prediction row's basis (``achievable (75 %); advertised (25 %)``) with its words translated."""
    if not isinstance(text, str) or not text:
        return ""
    parts = []
    for part in text.split("; "):
        label, _, share = part.partition(" (")
        parts.append(ct(label) + (f" ({share}" if share else ""))
    return "; ".join(parts)


def derivation_markdown(d: Derivation) -> str:
    """A derivation as Markdown with the headings (and the interpretation band) translated."""
    return d.markdown(ct)


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
