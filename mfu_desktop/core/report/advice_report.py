"""The advisor's findings in the exports: a Markdown section, a table (CSV/XLSX) and the JSON object.

The same findings, numbers and words as ``mfu advise`` and the window's Advisor view
(:mod:`mfu_desktop.core.advisor.render`); the JSON is ``mfu advise --json``'s.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from mfu_desktop.core.advisor.advice import TIME_AT_STAKE, Advice, advice_json
from mfu_desktop.core.advisor.render import CONFIDENCE, evidence_text, headline, word
from mfu_desktop.core.advisor.rule import share
from mfu_desktop.core.report.json_contract import stamped

#: Evidence rows written per finding in the Markdown (the JSON has them all).
EVIDENCE_IN_MARKDOWN = 5
#: Columns of the findings table, in order.
FINDING_COLUMNS = ("rank", "rule", "title", "time_at_stake_us", "share_of_step", "confidence", "ranks", "summary",
                   "advice", "guide")


def advice_markdown(advice: Advice, lang: str = "en") -> list[str]:
    """The findings as a Markdown section (lines): a ranked table, then each finding with its advice and evidence."""
    zh = lang.startswith("zh")
    lines = [f"## {word('title', lang)}", "", f"{TIME_AT_STAKE.get(lang)}.", ""]
    if not advice.findings:
        return [*lines, word("none", lang)]
    heads = ("#", "发现" if zh else "finding", "涉及时间 (µs/step)" if zh else "time at stake (µs/step)",
             "占 step" if zh else "share of step", "置信度" if zh else "confidence", "rank" if zh else "ranks")
    lines += ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for i, f in enumerate(advice.findings, start=1):
        lines.append(f"| {i} | {f.title.get(lang)} | {f.time_at_stake_us:,.1f} | {share(f.share_of_step)} | "
                     f"{CONFIDENCE[f.confidence].get(lang)} | {_ranks(f.ranks)} |")
    for i, f in enumerate(advice.findings, start=1):
        lines += ["", f"### {i}. {f.title.get(lang)} — {headline(f, lang)}", "", f.summary.get(lang), "",
                  f"**{word('advice', lang)}**: {f.advice.get(lang)}", ""]
        lines += [f"- {_cell(evidence_text(e, lang))}" for e in f.evidence[:EVIDENCE_IN_MARKDOWN]]
        lines += ["", f"{word('guide', lang)}: `{f.guide}` (`{f.rule}`)"]
    return lines


def findings_table(advice: Advice, lang: str = "en") -> pd.DataFrame:
    """One row per finding: the cluster's (``rank`` empty) first, then each rank's."""
    rows: list[dict[str, Any]] = []
    groups = [(None, advice.findings)] if advice.ranks > 1 else []
    groups += sorted(advice.by_rank.items(), key=lambda kv: kv[0])
    for rank, findings in groups:
        for f in findings:
            rows.append({"rank": rank, "rule": f.rule, "title": f.title.get(lang),
                         "time_at_stake_us": f.time_at_stake_us, "share_of_step": f.share_of_step,
                         "confidence": f.confidence.value, "ranks": _ranks(f.ranks), "summary": f.summary.get(lang),
                         "advice": f.advice.get(lang), "guide": f.guide})
    frame = pd.DataFrame(rows, columns=list(FINDING_COLUMNS))
    frame["rank"] = frame["rank"].astype("Int64")  # the cluster's rows have none
    return frame


def advice_document(advice: Advice, lang: str = "en") -> dict[str, Any]:
    """The ``mfu advise --json`` object, stamped with the schema."""
    return stamped(advice_json(advice, lang))


def _ranks(ranks: list[int]) -> str:
    return ", ".join(str(r) for r in ranks[:16]) + (", …" if len(ranks) > 16 else "")


def _cell(text: str) -> str:
    """Text safe inside a Markdown list item (no line breaks)."""
    return text.replace("\n", " ")
