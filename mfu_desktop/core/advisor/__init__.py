"""The advisor: what to fix first in a profile, how much time each fix is worth per step, and how.

Rules read the analysed ranks and the cluster (never files) and return findings
(:mod:`~mfu_desktop.core.advisor.finding`): a stable rule id, a title, the **time at stake** per
step and mean per rank (an upper bound: the time saved if the finding were fixed completely),
its share of the step, the evidence (kernels, parts of the step, ranks, with their figures),
concrete advice and a confidence, in English and 简体中文.

* :mod:`.finding` — what a finding is; :mod:`.context` — what a rule reads (one rank, computed
  once); :mod:`.rule` — the rule base, the materiality test, number formatting;
* :mod:`.rules` — one module per rule; :mod:`.registry` — one line per rule;
* :mod:`.advice` — every rule on every rank, the cluster's findings, the JSON contract;
  :mod:`.render` — words and numbers shared by the console, the exports and the window.

A new rule: one module in :mod:`.rules` (a :class:`~.rule.Rule` subclass and ``RULE``), one line
in :data:`~.registry.RULES`, its time-at-stake definition in the user guide (``advisor-<id>``)
and tests on a generated profile with the problem planted (its exact time at stake) and without it.
"""
