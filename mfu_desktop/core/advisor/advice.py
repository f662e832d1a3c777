"""The advisor run: every rule on every rank, the cluster's findings, and the ``mfu advise --json`` object.

Per rank, each registered rule checks the rank and, when it finds something, describes it.
Across ranks the findings of one rule merge into the cluster's finding (:func:`merge`): its
time at stake is the **mean per rank** (a rank without the problem counts 0), its kernel and
step evidence are means per rank, rank facts are kept once each, and its summary and advice
are those of the rank with the most at stake, prefixed with the ranks it was found on.
Findings are sorted by time at stake, largest first.

A rule that fails on a rank (a bug, an input nobody foresaw) never stops the others: the
failure becomes a note.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import CONFIDENCE_ORDER, Evidence, EvidenceKind, Finding, Text
from mfu_desktop.core.advisor.registry import RULES
from mfu_desktop.core.advisor.rule import Rule
from mfu_desktop.core.analysis.steps import PER_STEP_CONVENTION
from mfu_desktop.core.numbers import finite_number

if TYPE_CHECKING:
    from mfu_desktop.core.cluster.folder import FolderAnalysis

#: What every time at stake means (console, JSON, exports, the window's tooltip).
TIME_AT_STAKE = Text(
    "time at stake: per step, mean per rank — an upper bound of the time saved if the finding were fixed "
    "completely; findings can overlap, so their times do not add up",
    "涉及时间：每 step、每 rank 平均——完全解决该问题时可节省时间的上限；不同发现可能重叠，其时间不可相加",
)


@dataclass
class Advice:
    """Every finding of what was analysed.

    Attributes:
        findings: The cluster's findings (one rank: that rank's), largest time at stake first.
        by_rank: Each rank's own findings, largest first.
        ranks: Ranks advised on.
        step_time_us: Mean step time per rank (``None`` when no rank has one).
        notes: Rules that could not run on a rank, ranks without kernels, and why.
    """

    findings: list[Finding] = field(default_factory=list)
    by_rank: dict[int, list[Finding]] = field(default_factory=dict)
    ranks: int = 0
    step_time_us: float | None = None
    notes: list[str] = field(default_factory=list)

    def for_rank(self, rank: int) -> list[Finding]:
        """One rank's findings (empty when it has none)."""
        return self.by_rank.get(rank, [])


def rank_findings(ctx: RankContext, rules: Sequence[Rule] = RULES) -> tuple[list[Finding], list[str]]:
    """Every rule on one rank: its findings (described, largest first) and notes on rules that failed."""
    findings: list[Finding] = []
    notes: list[str] = []
    for rule in rules:
        try:
            finding = rule.check(ctx)
            if finding is not None:
                finding.summary, finding.advice = rule.describe(finding)
                findings.append(finding)
        except Exception as exc:  # one rule's bug must not hide the others' findings
            notes.append(f"rank {ctx.rank.rank}: rule {rule.id} could not run ({type(exc).__name__}: {exc})")
    return sort_findings(findings), notes


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Largest time at stake first; ties in rule order."""
    order = {rule.id: i for i, rule in enumerate(RULES)}
    return sorted(findings, key=lambda f: (-f.time_at_stake_us, order.get(f.rule, len(order))))


def contexts(result: FolderAnalysis) -> list[RankContext]:
    """One context per analysed rank of a folder, with its document and the cluster document."""
    from mfu_desktop.core.cluster.rank_document import rank_document

    docs = result.documents if len(result.documents) == len(result.ranks) else \
        [rank_document(r, result.options.top_n) for r in result.ranks]
    cluster = result.cluster.document or None
    return [RankContext(r, d, cluster, result.options) for r, d in zip(result.ranks, docs)]


def advise(result: FolderAnalysis, rules: Sequence[Rule] = RULES, progress=None) -> Advice:
    """Every rule on every rank of ``result``, and the cluster's findings.

    Args:
        result: What was analysed.
        rules: The rules to run (default: every registered rule).
        progress: Optional progress/cancel callbacks (:mod:`mfu_desktop.core.progress`).
    """
    from mfu_desktop.core.progress import check

    advice = Advice(ranks=len(result.ranks))
    ctxs = contexts(result)
    for i, ctx in enumerate(ctxs):
        check(progress)
        if ctx.rank.lite:
            advice.notes.append(f"rank {ctx.rank.rank} comes from a cluster summary: only its step and memory "
                                "figures are advised on (the kernel rules need its kernels)")
        findings, notes = rank_findings(ctx, rules)
        advice.by_rank[ctx.rank.rank] = findings
        advice.notes.extend(notes)
        if progress is not None:
            progress.set_progress((i + 1) / max(len(ctxs), 1), f"advised {i + 1}/{len(ctxs)} ranks")
    steps = [v for c in ctxs if (v := finite_number(c.step_us)) is not None]
    advice.step_time_us = math.fsum(steps) / len(steps) if steps else None
    advice.findings = cluster_findings(advice.by_rank, len(ctxs), advice.step_time_us, rules)
    return advice


def cluster_findings(by_rank: dict[int, list[Finding]], ranks: int, step_time_us: float | None,
                     rules: Sequence[Rule] = RULES) -> list[Finding]:
    """The cluster's findings: each rule's rank findings merged (one rank: its findings as they are)."""
    if ranks <= 1:
        return sort_findings(f for fs in by_rank.values() for f in fs)
    out = []
    for rule in rules:
        found = [f for fs in by_rank.values() for f in fs if f.rule == rule.id]
        if found:
            out.append(merge(found, ranks, step_time_us))
    return sort_findings(out)


def merge(findings: list[Finding], ranks: int, step_time_us: float | None) -> Finding:
    """One rule's findings on several ranks as the cluster's finding (see the module docstring).

    Args:
        findings: The rule's findings, one per rank that has it.
        ranks: Ranks advised on (the mean per rank divides by all of them).
        step_time_us: The cluster's mean step time per rank.
    """
    worst = max(findings, key=lambda f: f.time_at_stake_us)
    n = max(ranks, 1)
    on = sorted(r for f in findings for r in f.ranks)
    prefix = _ranks_prefix(on, ranks, worst.ranks[0] if worst.ranks else None)
    return Finding(
        rule=worst.rule, title=worst.title,
        time_at_stake_us=math.fsum(f.time_at_stake_us for f in findings) / n,
        step_time_us=step_time_us,
        confidence=min((f.confidence for f in findings), key=CONFIDENCE_ORDER.index),
        evidence=merge_evidence([f.evidence for f in findings], n),
        ranks=on,
        summary=Text(prefix.en + worst.summary.en, prefix.zh + worst.summary.zh),
        advice=worst.advice,
        facts=dict(worst.facts),
    )


def _ranks_prefix(on: list[int], ranks: int, worst: int | None) -> Text:
    """``On 3 of 8 ranks (0, 2, 5); rank 5, the most at stake: `` in both languages."""
    listed = ", ".join(str(r) for r in on[:12]) + (", …" if len(on) > 12 else "")
    worst_en = f"; rank {worst}, the most at stake: " if worst is not None else ": "
    worst_zh = f"；涉及时间最多的 rank {worst}：" if worst is not None else "："
    return Text(f"On {len(on)} of {ranks} ranks ({listed}){worst_en}", f"{ranks} 个 rank 中有 {len(on)} 个"
                f"（{listed}）{worst_zh}")


def merge_evidence(tables: list[list[Evidence]], ranks: int) -> list[Evidence]:
    """Evidence rows of several ranks: kernel and step rows as means per rank, rank rows once each.

    Step rows come first (in the order the rule wrote them), then rank rows, then kernel rows by
    time at stake (by time when they have none).
    """
    merged: dict[str, Evidence] = {}
    weights: dict[str, dict[str, list[float]]] = {}
    for rows in tables:
        for e in rows:
            if e.kind is EvidenceKind.RANK:
                merged.setdefault(e.key, Evidence(e.key, e.label, e.kind, e.count, e.time_us, e.time_at_stake_us,
                                                  dict(e.figures)))
                continue
            acc = merged.setdefault(e.key, Evidence(e.key, e.label, e.kind, 0.0, 0.0, 0.0, {}))
            _add(acc, e, weights.setdefault(e.key, {}))
    for key, acc in merged.items():
        if acc.kind is EvidenceKind.RANK:
            continue
        for name in ("count", "time_us", "time_at_stake_us"):
            value = getattr(acc, name)
            setattr(acc, name, None if value is None else value / ranks)
        for name, (num, den, text) in weights.get(key, {}).items():
            acc.figures[name] = text if text is not None else (num / den if den > 0 else None)
    kinds = (EvidenceKind.STEP, EvidenceKind.RANK, EvidenceKind.KERNELS)
    first = {key: i for i, key in enumerate(merged)}

    def order(e: Evidence) -> tuple[int, float, int]:
        size = e.time_at_stake_us if e.time_at_stake_us is not None else (e.time_us or 0.0)
        return kinds.index(e.kind), -size if e.kind is EvidenceKind.KERNELS else 0.0, first[e.key]

    return sorted(merged.values(), key=order)


def _add(acc: Evidence, e: Evidence, weights: dict[str, list[Any]]) -> None:
    """Add one rank's row to the sums of its key (figures: time-weighted, texts: the first)."""
    for name in ("count", "time_us", "time_at_stake_us"):
        value = getattr(e, name)
        total = getattr(acc, name)
        setattr(acc, name, None if value is None or total is None else total + value)
    weight = e.time_us or 0.0
    for name, value in e.figures.items():
        slot = weights.setdefault(name, [0.0, 0.0, None])
        number = finite_number(value)
        if isinstance(value, str):
            slot[2] = slot[2] if slot[2] is not None else value
        elif number is not None:
            slot[0] += number * (weight or 1.0)
            slot[1] += weight or 1.0


# --- the JSON contract -----------------------------------------------------------------------------


def finding_json(f: Finding, lang: str = "en") -> dict[str, Any]:
    """One finding in the ``mfu advise --json`` contract (texts in ``lang``)."""
    return {
        "rule": f.rule,
        "title": f.title.get(lang),
        "summary": f.summary.get(lang),
        "advice": f.advice.get(lang),
        "time_at_stake_us": finite_number(f.time_at_stake_us),
        "share_of_step": finite_number(f.share_of_step),
        "step_time_us": finite_number(f.step_time_us),
        "confidence": f.confidence.value,
        "guide": f.guide,
        "ranks": list(f.ranks),
        "evidence": [{"key": e.key, "label": e.label.get(lang), "kind": e.kind.value, "count": finite_number(e.count),
                      "time_us": finite_number(e.time_us), "time_at_stake_us": finite_number(e.time_at_stake_us),
                      "figures": {k: (v if isinstance(v, str) else finite_number(v)) for k, v in e.figures.items()}}
                     for e in f.evidence],
        "facts": {k: (v if isinstance(v, str) else finite_number(v)) for k, v in f.facts.items()},
    }


def advice_json(advice: Advice, lang: str = "en") -> dict[str, Any]:
    """The ``mfu advise --json`` object (without the schema stamp)."""
    return {
        "ranks": advice.ranks,
        "step_time_us": finite_number(advice.step_time_us),
        "findings": [finding_json(f, lang) for f in advice.findings],
        "by_rank": [{"rank": rank, "findings": [finding_json(f, lang) for f in findings]}
                    for rank, findings in sorted(advice.by_rank.items())],
        "notes": list(advice.notes),
        "lang": "zh_CN" if lang.startswith("zh") else "en",
        "convention": PER_STEP_CONVENTION,
        "time_at_stake": TIME_AT_STAKE.get(lang),
    }
