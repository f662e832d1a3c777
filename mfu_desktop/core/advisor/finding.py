"""What the advisor says: a finding (what to fix, how much time it is worth, how) and its evidence.

A finding's time at stake is **per step, mean per rank** (the product's one convention) and an
**upper bound**: the time the step would lose no more of if the problem were fixed completely —
the fix may recover less. Findings may overlap (a small kernel that waits for the host is in
both the small-kernel and the host-bound findings): their times at stake do not add up.

Texts come in English and 简体中文 (:class:`Text`): the engine has no Qt, and the command line
prints Chinese with ``--lang zh_CN`` without it; the window picks the language it runs in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

#: Where the user guide explains every rule (the section's anchor is ``advisor-<rule id>``).
GUIDE = "docs/user-guide.md"


@dataclass(frozen=True)
class Text:
    """A text in English and Simplified Chinese."""

    en: str
    zh: str = ""

    def get(self, lang: str = "en") -> str:
        """The text in ``lang`` (``zh_CN``/``zh`` → Chinese, anything else → English)."""
        return self.zh if lang.startswith("zh") and self.zh else self.en


class Confidence(StrEnum):
    """How sure a finding is: the evidence is measured (high), inferred from shapes (medium) or a guess (low)."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


#: Confidence levels from the least sure.
CONFIDENCE_ORDER = (Confidence.LOW, Confidence.MEDIUM, Confidence.HIGH)


class EvidenceKind(StrEnum):
    """What an evidence row is about, which says how rows of several ranks merge.

    ``kernels`` (a group of kernels) and ``step`` (a part of the step, e.g. the transfer time)
    are per-rank quantities: merged as means per rank. ``rank`` rows are facts about one rank
    (a slow rank, the tightest memory): merged by keeping one row per rank.
    """

    KERNELS = "kernels"
    STEP = "step"
    RANK = "rank"


@dataclass
class Evidence:
    """One row behind a finding: a group of kernels, a part of the step or a rank, with its figures.

    Attributes:
        key: Stable within the finding (type and shapes, ``transfer``, ``rank 5``): rows of several ranks
            with the same key merge.
        label: What the row is (operator type and input shapes are the same in both languages).
        kind: How rows merge across ranks (:class:`EvidenceKind`).
        count: Calls per step (kernel rows), else ``None``.
        time_us: The row's time per step (µs), else ``None``.
        time_at_stake_us: Its share of the finding's time at stake (µs per step), else ``None``.
        figures: Rule-specific figures (``mfu``, ``mfu_ref``, ``bw_util``, ``block_dim``, ``cores`` …); numbers
            merge as time-weighted means.
        rows: The kernels of the row (positions in the rank's kernel frame; empty for merged or step rows).
    """

    key: str
    label: Text
    kind: EvidenceKind = EvidenceKind.KERNELS
    count: float | None = None
    time_us: float | None = None
    time_at_stake_us: float | None = None
    figures: dict[str, float | str | None] = field(default_factory=dict)
    rows: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64), repr=False)


@dataclass
class Finding:
    """What to fix first, how much time it is worth per step, and how.

    Attributes:
        rule: The rule's stable id (``aicpu-fallback``).
        title: What is wrong, in a few words.
        summary: The measured facts in one or two sentences (filled by the rule's ``describe``).
        advice: What to do, concretely.
        time_at_stake_us: Per step, mean per rank: an upper bound of the time saved if fixed.
        step_time_us: The step time the share is taken of (mean per step; the mean per rank for a cluster).
        confidence: How sure the finding is.
        evidence: The kernels, parts of the step or ranks behind it, largest first.
        ranks: The ranks it was found on.
        rows: The kernels it is about (positions in the rank's kernel frame; empty for a cluster finding).
        facts: Rule-specific figures its texts are written from (merged like evidence figures).
    """

    rule: str
    title: Text
    time_at_stake_us: float
    step_time_us: float | None
    confidence: Confidence
    evidence: list[Evidence] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    summary: Text = Text("")
    advice: Text = Text("")
    rows: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64), repr=False)
    facts: dict[str, float | str | None] = field(default_factory=dict)

    @property
    def share_of_step(self) -> float | None:
        """Time at stake / step time (``None`` without a step time)."""
        if not self.step_time_us or self.step_time_us <= 0:
            return None
        return self.time_at_stake_us / self.step_time_us

    @property
    def guide(self) -> str:
        """The user guide's section on this rule."""
        return f"{GUIDE}#advisor-{self.rule}"
