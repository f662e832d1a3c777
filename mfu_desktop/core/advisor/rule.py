"""What an advisor rule is, and what every rule shares: the materiality test and number formatting.

A rule is one module in :mod:`mfu_desktop.core.advisor.rules` with a :class:`Rule` subclass and
its instance ``RULE``; one line in :data:`~mfu_desktop.core.advisor.registry.RULES` registers it.

* :meth:`Rule.check` reads one rank (:class:`~mfu_desktop.core.advisor.context.RankContext`) and
  returns a :class:`~mfu_desktop.core.advisor.finding.Finding` — its time at stake, evidence,
  kernels and ``facts`` — or ``None`` when the rank does not have the problem (or not enough of
  it to be worth an engineer's time: :func:`material`).
* :meth:`Rule.describe` writes the finding's summary and advice, in both languages, from its
  fields alone: the same method describes a rank's finding and the cluster's merged one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.chips.vendor_terms import vendor_terms
from mfu_desktop.core.numbers import finite_number, sig

#: The default materiality: a finding worth less than this share of the step is not reported.
MATERIAL_SHARE = 0.005
#: A kernel shorter than this (µs) is small: its launch costs about as much as its run (the small-kernel
#: rule's; the bandwidth and core-count rules leave such kernels to it).
SMALL_KERNEL_US = 20.0


class Rule(ABC):
    """Base of an advisor rule (see the module docstring).

    A rule that lacks :meth:`check` or :meth:`describe` cannot be instantiated, so the registry
    refuses it when the rules are made.
    """

    #: Stable id (``aicpu-fallback``): JSON, the guide's anchor (``advisor-<id>``), tests.
    id: ClassVar[str] = ""
    #: What is wrong, in a few words.
    title: ClassVar[Text] = Text("")

    @abstractmethod
    def check(self, ctx: RankContext) -> Finding | None:
        """The rank's finding, or ``None`` when it does not have the problem."""

    @abstractmethod
    def describe(self, finding: Finding) -> tuple[Text, Text]:
        """``(summary, advice)`` of a finding, from its fields (time at stake, evidence, facts)."""

    def finding(self, ctx: RankContext, time_at_stake_us: float, confidence: Confidence, **fields) -> Finding:
        """A finding of this rule on ``ctx``'s rank (texts are written later by :meth:`describe`).

        Its facts gain ``vendor`` (the rank's: ``Huawei``, ``NVIDIA``, ``AMD``, ``GPU``), so that
        :meth:`describe` gives advice in that vendor's terms (:func:`for_vendor`).
        """
        facts = {"vendor": ctx.rank.folder.vendor, **fields.pop("facts", {})}
        return Finding(self.id, self.title, float(time_at_stake_us), ctx.step_us, confidence,
                       ranks=[ctx.rank.rank], facts=facts, **fields)


def for_vendor(finding: Finding, ascend: Text, gpu: Text) -> Text:
    """The text in the vendor's terms of the finding's rank: ``gpu`` on NVIDIA/AMD ranks, else ``ascend``."""
    return gpu if vendor_terms(str(finding.facts.get("vendor") or "")).gpu else ascend


def material(ctx: RankContext, time_us: float, share: float = MATERIAL_SHARE) -> bool:
    """True when ``time_us`` (per step) is at least ``share`` of the step.

    Without a step time the share is taken of the kernels' total time per step.
    """
    if not time_us or time_us <= 0:
        return False
    base = ctx.step_us or ctx.per_step(float(ctx.durations.sum()))
    return bool(base) and time_us >= share * base


# --- numbers in texts (the same in both languages) ----------------------------------------------


def us(value: float | None) -> str:
    """A time: ``1,234.5 µs`` below 10 ms, ``12.3 ms`` above (``–`` when unknown)."""
    v = finite_number(value)
    if v is None:
        return "–"
    if abs(v) >= 10_000:
        return f"{v / 1000:,.1f} ms"
    return f"{v:,.1f} µs"


def share(value: float | None) -> str:
    """A fraction as a percentage with 3 significant figures (``12.3 %``; ``–`` when unknown)."""
    v = finite_number(value)
    return "–" if v is None else f"{sig(v * 100)} %"


def of_step(finding: Finding) -> Text:
    """``(12.3 % of the step)`` in both languages, or nothing without a step time."""
    s = finding.share_of_step
    if s is None:
        return Text("", "")
    return Text(f" ({share(s)} of the step)", f"（占 step 的 {share(s)}）")

