"""Every advisor rule, in the order the guide explains them: one registration line each.

A new rule is one module in :mod:`mfu_desktop.core.advisor.rules` (a
:class:`~mfu_desktop.core.advisor.rule.Rule` subclass and its instance ``RULE``) and one line
here; its time-at-stake definition goes in the user guide under ``advisor-<rule id>``.
"""

from __future__ import annotations

from mfu_desktop.core.advisor.rule import Rule
from mfu_desktop.core.advisor.rules import (
    aicpu,
    block_dim,
    communication,
    data_movement,
    fa_full_mask,
    fp32_matmul,
    host_bound,
    matmul_alignment,
    memory_bound,
    memory_capacity,
    small_kernels,
)

#: Every rule, one line each.
RULES: tuple[Rule, ...] = (
    communication.RULE,
    host_bound.RULE,
    small_kernels.RULE,
    aicpu.RULE,
    fp32_matmul.RULE,
    matmul_alignment.RULE,
    fa_full_mask.RULE,
    memory_bound.RULE,
    data_movement.RULE,
    block_dim.RULE,
    memory_capacity.RULE,
)


def rule_by_id(rule_id: str) -> Rule:
    """The registered rule with this id.

    Raises:
        KeyError: When no rule has it.
    """
    for rule in RULES:
        if rule.id == rule_id:
            return rule
    raise KeyError(rule_id)
