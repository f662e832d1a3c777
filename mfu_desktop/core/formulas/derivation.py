"""Derivations: every number the app reports can be explained step by step.

A :class:`Derivation` follows the seed's answer structure: the inputs restated, the
formulas with numbers substituted, the result (3 significant figures), an interpretation
and concrete hints. When inputs are missing it lists them and where to find them in a
profile instead of guessing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class MissingInput:
    """An input the calculation needs, and where a user finds it."""

    name: str
    where: str


@dataclass
class Derivation:
    """A step-by-step explanation of one result.

    Attributes:
        title: What was computed ("GEMM MFU", "FlashAttention forward MFU").
        inputs: ``(name, value)`` pairs restating the inputs.
        steps: Formula lines with the numbers substituted, in order.
        results: ``(name, value)`` pairs of the results, formatted.
        interpretation: One sentence on what the figure means (empty when not applicable).
        hints: Concrete suggestions derived from the inputs.
        conventions: Conventions and assumptions used (stamped into exports).
        missing: Inputs that were needed but not given.
    """

    title: str
    inputs: list[tuple[str, str]] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    results: list[tuple[str, str]] = field(default_factory=list)
    interpretation: str = ""
    hints: list[str] = field(default_factory=list)
    conventions: list[str] = field(default_factory=list)
    missing: list[MissingInput] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when nothing required was missing."""
        return not self.missing

    def lines(self) -> list[str]:
        """The derivation as plain text lines (the CLI's ``derivation`` JSON array)."""
        out = [self.title]
        if self.inputs:
            out.append("Inputs:")
            out.extend(f"  {name}: {value}" for name, value in self.inputs)
        if self.missing:
            out.append("Missing inputs:")
            out.extend(f"  {m.name} — {m.where}" for m in self.missing)
        if self.steps:
            out.append("Formulas:")
            out.extend(f"  {step}" for step in self.steps)
        if self.results:
            out.append("Result:")
            out.extend(f"  {name} = {value}" for name, value in self.results)
        if self.interpretation:
            out.append(f"Interpretation: {self.interpretation}")
        if self.hints:
            out.append("Hints:")
            out.extend(f"  - {hint}" for hint in self.hints)
        if self.conventions:
            out.append("Conventions:")
            out.extend(f"  - {c}" for c in self.conventions)
        return out

    def text(self) -> str:
        """The derivation as one plain-text block."""
        return "\n".join(self.lines())

    def markdown(self, translate: Callable[[str], str] | None = None) -> str:
        """The derivation as Markdown (for "Copy as Markdown", reports and the GUI).

        Args:
            translate: Applied to the section headings and the interpretation band (the GUI
                passes its Qt translation); the figures and formulas are never translated.
        """
        tr = translate or (lambda text: text)
        parts = [f"### {self.title}", ""]

        def section(title: str, lines: list[str]) -> None:
            if lines:
                parts.extend([f"**{tr(title)}**", "", *lines, ""])

        section("Inputs", [f"- {name}: `{value}`" for name, value in self.inputs])
        section("Missing inputs", [f"- {m.name} — {m.where}" for m in self.missing])
        if self.steps:
            parts.extend([f"**{tr('Formulas')}**", "", "```", *self.steps, "```", ""])
        section("Result", [f"- {name} = **{value}**" for name, value in self.results])
        if self.interpretation:
            parts.extend([f"**{tr('Interpretation')}:** {tr(self.interpretation)}", ""])
        section("Hints", [f"- {hint}" for hint in self.hints])
        section("Conventions", [f"- {c}" for c in self.conventions])
        return "\n".join(parts).rstrip() + "\n"
