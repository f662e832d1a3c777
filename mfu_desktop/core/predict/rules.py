"""Architecture rules of the cross-chip prediction (prediction.md §3): data, not ``if``s.

A rule is a row the user can see and edit (the app's rules table, ``architecture_rules.csv``
with ``mfu predict --rules``). Efficiency rules scale the effective cube peak of a chip for the
operator types their **pattern** matches — a case-insensitive regular expression searched in
the operator type — and bandwidth rules replace a chip's HBM bandwidth between chips of one
vendor. Every predicted kernel records the rules that touched it.

What the default patterns cover, and why (pinned by tests):

* ``950 MatMul ×1.2`` — pattern ``matmul``: every matmul-family type, whatever its case or
  prefix: ``MatMulV2/V3``, ``BatchMatMul*``, ``GroupedMatmul``, ``TransposeBatchMatMul``,
  quantised ``QuantBatchMatmul*`` / ``WeightQuantBatchMatmul*``, and the fused
  matmul-communication kernels ``MatmulAllReduce``, ``AllGatherMatmul``,
  ``MatmulReduceScatter``. The original predictor's substring match boosts them too. The rule
  acts on the cube peak only, so a fused kernel's communication (not cube time) is not sped up.
* ``950 FlashAttention ×2.0`` — pattern ``flashattention|fusedinferattentionscore``:
  ``FlashAttentionScore(Grad)``, ``PromptFlashAttention``, ``IncreFlashAttention`` and
  ``FusedInferAttentionScore`` (the inference FlashAttention kernel): the same treatment.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from dataclasses import dataclass, replace

from mfu_desktop.core.chips.catalog import Chip

#: Columns of the rules table (and of ``architecture_rules.csv``).
RULE_COLUMNS = ("enabled", "name", "kind", "chips", "pattern", "factor", "value", "peer_vendor", "note")
RULE_KINDS = ("efficiency", "bandwidth")


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def check_pattern(pattern: str) -> str | None:
    """Why ``pattern`` is not a usable regular expression, or ``None`` when it is."""
    try:
        _compiled(pattern)
    except re.error as exc:
        return f"pattern {pattern!r} is not a regular expression ({exc})"
    return None


@dataclass(frozen=True)
class Rule:
    """One architecture rule, editable as a table row.

    Attributes:
        name: Shown in every detail row the rule touches.
        kind: ``efficiency`` (effective cube peak × factor for matching kernels on matching chips)
            or ``bandwidth`` (a chip's HBM bandwidth replaced by ``value`` when both chips are of
            ``peer_vendor``).
        chips: Case-insensitive substring of the chip identifier the rule applies to.
        pattern: Case-insensitive regular expression searched in the operator type
            (``efficiency`` rules; empty = every type).
        factor: Efficiency multiplier (``efficiency`` rules).
        value: Replacement bandwidth in GB/s (``bandwidth`` rules).
        peer_vendor: ``bandwidth`` rules apply only when both chips have this vendor.
        enabled: Off rules are listed but not applied.
        note: Why (source, assumption).
    """

    name: str
    kind: str
    chips: str
    pattern: str = ""
    factor: float = 1.0
    value: float | None = None
    peer_vendor: str = ""
    enabled: bool = True
    note: str = ""

    def matches_chip(self, chip: Chip) -> bool:
        """True when the rule's chip pattern is in the chip's identifier."""
        return self.chips.lower() in chip.identifier.lower()

    def matches_type(self, op_type: str) -> bool:
        """True when the pattern is found in the operator type (case-insensitive)."""
        return not self.pattern or _compiled(self.pattern).search(op_type) is not None


MATMUL_PATTERN = "matmul"
FLASH_ATTENTION_PATTERN = "flashattention|fusedinferattentionscore"

DEFAULT_RULES: tuple[Rule, ...] = (
    Rule("950 MatMul ×1.2", "efficiency", "Ascend 950", MATMUL_PATTERN, 1.2,
         note="seed §5: at equal FLOPS, Cube MatMul kernels run 1.2× as efficiently on 950 as on 910B/910C "
              "(no public source; an assumption). Pattern: every type containing 'matmul' (any case), incl. "
              "quantised, transposed, grouped and fused matmul-communication kernels (cube part only)"),
    Rule("950 FlashAttention ×2.0", "efficiency", "Ascend 950", FLASH_ATTENTION_PATTERN, 2.0,
         note="seed §5: Cube FlashAttention kernels 2.0× as efficient on 950 (no public source; an assumption). "
              "Pattern: FlashAttentionScore(Grad), Prompt/IncreFlashAttention and FusedInferAttentionScore"),
    Rule("950PR bandwidth = 1600 GB/s among Ascend chips", "bandwidth", "Ascend 950PR", value=1600.0,
         peer_vendor="Huawei",
         note="seed §6: between Ascend chips 950PR's 1.4 TB/s counts as 910B's 1.6 TB/s (an assumption)"),
)


def rules_to_csv(rules: tuple[Rule, ...] | list[Rule]) -> str:
    """The rules table as CSV (the ``--rules`` input)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RULE_COLUMNS)
    for r in rules:
        writer.writerow([str(r.enabled).lower(), r.name, r.kind, r.chips, r.pattern, r.factor,
                         "" if r.value is None else r.value, r.peer_vendor, r.note])
    return out.getvalue()


def _pattern_of(row: dict[str, str | None]) -> str:
    """The row's pattern; a file from an earlier version lists ``op_types`` prefixes instead."""
    pattern = (row.get("pattern") or "").strip()
    if pattern or not row.get("op_types"):
        return pattern
    prefixes = [re.escape(t.strip()) for t in (row.get("op_types") or "").split(";") if t.strip()]
    return f"^(?:{'|'.join(prefixes)})" if prefixes else ""


def rules_from_csv(text: str) -> tuple[list[Rule], list[str]]:
    """Parse an edited rules table; malformed rows are reported with their line and skipped."""
    rules: list[Rule] = []
    problems: list[str] = []
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    for line, row in enumerate(reader, start=2):
        try:
            kind = (row.get("kind") or "").strip()
            if kind not in RULE_KINDS:
                raise ValueError(f"kind {kind!r} is not efficiency or bandwidth")
            pattern = _pattern_of(row)
            problem = check_pattern(pattern)
            if problem:
                raise ValueError(problem)
            value = (row.get("value") or "").strip()
            rules.append(Rule(
                name=(row.get("name") or "").strip() or f"rule {line}",
                kind=kind,
                chips=(row.get("chips") or "").strip(),
                pattern=pattern,
                factor=float(row.get("factor") or 1.0),
                value=float(value) if value else None,
                peer_vendor=(row.get("peer_vendor") or "").strip(),
                enabled=(row.get("enabled") or "true").strip().lower() not in ("false", "0", "no", "off"),
                note=(row.get("note") or "").strip(),
            ))
        except (ValueError, TypeError) as exc:
            problems.append(f"rules line {line}: {exc}; row skipped")
    return rules, problems


def with_rules_disabled(rules: list[Rule]) -> list[Rule]:
    """The same rules, all switched off (for comparisons with the seed script)."""
    return [replace(r, enabled=False) for r in rules]


def bandwidth(chip: Chip, other: Chip, rules: list[Rule], value: float | None) -> tuple[float | None, list[str]]:
    """``chip``'s HBM bandwidth ``value`` after the bandwidth rules, and the rules that changed it."""
    applied = []
    for rule in rules:
        if rule.enabled and rule.kind == "bandwidth" and rule.matches_chip(chip) and rule.value:
            if rule.peer_vendor and not (chip.vendor.lower() == other.vendor.lower() == rule.peer_vendor.lower()):
                continue
            value = rule.value
            applied.append(rule.name)
    return value, applied


def efficiency(chip: Chip, op_type: str, rules: list[Rule]) -> tuple[float, list[str]]:
    """Effective-peak multiplier of ``chip`` for one operator type, and the rules that gave it."""
    factor, names = 1.0, []
    for rule in rules:
        if rule.enabled and rule.kind == "efficiency" and rule.matches_chip(chip) and rule.matches_type(op_type):
            factor *= rule.factor
            names.append(rule.name)
    return factor, names
