"""Words and numbers of the advisor's output, shared by the console, the Markdown export and the window.

The figures of an evidence row (``mfu``, ``bw_util``, ``block_dim`` …) are named in both languages
and formatted by kind (a fraction as a percentage, a time in µs); the headings of a finding's
parts too. Nothing here computes: it only writes what the rules measured.
"""

from __future__ import annotations

from mfu_desktop.core.advisor.finding import Confidence, Evidence, Finding, Text
from mfu_desktop.core.advisor.rule import of_step, share, us
from mfu_desktop.core.numbers import calls, finite_number, sig

#: How each evidence figure is named and shown: (label, kind) with kind ``fraction``, ``us``, ``mb``, ``gb``,
#: ``number`` or ``text``.
FIGURES: dict[str, tuple[Text, str]] = {
    "mfu": (Text("MFU"), "fraction"),
    "mfu_ref": (Text("MFU of its aligned shapes", "对齐 shape 的 MFU"), "fraction"),
    "unaligned": (Text("unaligned", "未对齐"), "text"),
    "bw_util": (Text("of HBM bandwidth", "HBM 带宽利用率"), "fraction"),
    "hw_bytes_ratio": (Text("bytes moved / minimum", "实际字节 / 最小字节"), "number"),
    "bf16_fraction": (Text("t* BF16 / t* FP32"), "number"),
    "block_dim": (Text("Block Dim"), "number"),
    "cores": (Text("cores", "核数"), "number"),
    "mean_gap_us": (Text("mean gap before", "之前的平均间隙"), "us"),
    "seq": (Text("S"), "number"),
    "step_excess": (Text("step over the fastest", "step 超出最快 rank"), "fraction"),
    "computing_excess_us": (Text("computing over the fastest", "计算时间超出最快 rank"), "us"),
    "footprint_mb": (Text("footprint", "显存占用"), "mb"),
    "capacity_gb": (Text("capacity", "容量"), "gb"),
    "share": (Text("of capacity", "占容量"), "fraction"),
    "headroom_gb": (Text("free", "剩余"), "gb"),
    "mb": (Text("size", "大小"), "mb"),
}

#: The confidence levels in both languages.
CONFIDENCE = {Confidence.HIGH: Text("high", "高"), Confidence.MEDIUM: Text("medium", "中"),
              Confidence.LOW: Text("low", "低")}

#: Headings of a finding's parts and of the output.
WORDS = {
    "advice": Text("What to do", "怎么做"),
    "evidence": Text("Evidence", "依据"),
    "guide": Text("Guide", "说明"),
    "at_stake": Text("time at stake", "涉及时间"),
    "confidence": Text("confidence", "置信度"),
    "finding": Text("finding", "发现"),
    "calls": Text("kernels/step", "kernel 数/step"),  # what the evidence counts (not op calls)
    "time": Text("time/step", "耗时/step"),
    "none": Text("No findings: none of the advisor's rules found a problem worth the time.",
                 "没有发现：顾问的规则没有发现值得处理的问题。"),
    "title": Text("MFU Desktop advisor — what to fix first", "MFU Desktop 性能顾问——先优化什么"),
}


def word(key: str, lang: str = "en") -> str:
    """One heading of :data:`WORDS` in ``lang``."""
    return WORDS[key].get(lang)


def figure_text(name: str, value: object, lang: str = "en") -> str:
    """``MFU 41.2 %``, ``Block Dim 16``, ``mean gap before 43.1 µs`` — one evidence figure."""
    label, kind = FIGURES.get(name, (Text(name), "number"))
    if kind == "text":
        return f"{label.get(lang)} {value}" if value else ""
    v = finite_number(value)
    if v is None:
        return ""
    shown = {"fraction": share(v), "us": us(v), "mb": f"{v:,.1f} MB", "gb": f"{v:.3g} GB"}.get(kind, sig(v))
    return f"{label.get(lang)} {shown}"


def figures_text(e: Evidence, lang: str = "en") -> str:
    """Every figure of an evidence row, ``; ``-separated."""
    parts = [figure_text(name, value, lang) for name, value in e.figures.items()]
    return "; ".join(p for p in parts if p)


def evidence_text(e: Evidence, lang: str = "en") -> str:
    """One evidence row in a line: label, calls, time, time at stake, figures."""
    parts = [e.label.get(lang)]
    if e.count is not None:
        parts.append(f"{calls(round(e.count, 2))} {word('calls', lang)}")
    if e.time_us is not None:
        parts.append(f"{us(e.time_us)} {word('time', lang)}")
    if e.time_at_stake_us is not None:
        parts.append(f"{word('at_stake', lang)} {us(e.time_at_stake_us)}")
    figures = figures_text(e, lang)
    if figures:
        parts.append(figures)
    return " — ".join(parts)


def headline(f: Finding, lang: str = "en") -> str:
    """``12.3 ms (15.0 % of the step), high`` — a finding's time at stake, share and confidence."""
    sep = "，" if lang.startswith("zh") else ", "
    return (f"{us(f.time_at_stake_us)}{of_step(f).get(lang)}{sep}{word('confidence', lang)} "
            f"{CONFIDENCE[f.confidence].get(lang)}")
