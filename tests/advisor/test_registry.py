"""The registry: every rule registered once, named in both languages, with its time at stake in the guide."""

from __future__ import annotations

import sys
from pathlib import Path

from mfu_desktop.core.advisor.registry import RULES, rule_by_id

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user-guide.md"


def test_rules_are_unique_and_bilingual():
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids)) == 11
    for rule in RULES:
        assert rule_by_id(rule.id) is rule
        assert rule.title.en and rule.title.zh and rule.title.zh != rule.title.en
        assert "Time at stake" in (sys.modules[type(rule).__module__].__doc__ or ""), rule.id


def test_every_rule_has_its_section_in_the_user_guide():
    text = GUIDE.read_text(encoding="utf-8")
    for rule in RULES:
        anchor = f'<a id="advisor-{rule.id}"></a>'
        assert anchor in text, rule.id
        section = text.split(anchor, 1)[1].split("<a id=", 1)[0]
        assert "**Time at stake**" in section, rule.id


def test_a_rule_without_check_or_describe_cannot_be_made():
    import pytest

    from mfu_desktop.core.advisor.rule import Rule

    class HalfRule(Rule):
        id = "half"

        def check(self, ctx):
            return None

    with pytest.raises(TypeError):
        HalfRule()  # no describe(): refused when made (registration), not when a finding is shown
