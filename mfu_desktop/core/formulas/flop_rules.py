"""Every FLOP rule, registered: look a kernel's FLOPs up here (mfu.md §2.3, §3.5).

Importing this module loads the rule modules in order (rules registered earlier win); the
analysis calls :func:`estimate` once per distinct (type, shape) combination, never per row.
"""

from __future__ import annotations

import functools

# The rule modules, in order (rules registered earlier win): one line per module.
from mfu_desktop.core.formulas import ascend_ops, aten_ops  # noqa: F401  (Ascend types; PyTorch ATen ops)
from mfu_desktop.core.formulas.flops import FlopError
from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.formulas.registry import _INPUTS_ONLY, _RULES, _SHAPE_FREE, FlopEstimate, Rule, ShapeContext
from mfu_desktop.core.formulas.shapes import ShapeError, parse_dtypes, parse_shapes


def rule_for(op_type: str) -> Rule | None:
    """The rule that counts ``op_type``, or ``None`` (no FLOP rule: vector, communication …)."""
    for prefixes, exact, rule in _RULES:
        if exact and op_type in prefixes:
            return rule
        if not exact and op_type.startswith(prefixes):
            return rule
    return None


#: Distinct kernel shapes whose estimates are remembered: the ranks of a cluster repeat the same
#: shapes, so each is worked out once per process (an estimate is a few hundred bytes).
ESTIMATE_CACHE_SIZE = 1 << 16


@functools.lru_cache(maxsize=ESTIMATE_CACHE_SIZE)
def estimate(op_type: str, input_shapes: str | None, output_shapes: str | None, input_dtypes: str | None,
             output_dtypes: str | None, options: FlopOptions | None = None,
             attributes: str | None = None) -> FlopEstimate | None:
    """FLOPs of one kernel shape from the profiler's cells; ``None`` when the type has no rule.

    ``attributes`` are the call's scalar arguments separated by ``;`` (Kineto's "Concrete
    Inputs": strides, paddings, ``is_causal`` …). Pure and cached (the estimate is immutable):
    the same cells give the same object.
    """
    rule = rule_for(op_type)
    if rule is None:
        return None
    if rule in _SHAPE_FREE:
        return rule(ShapeContext(op_type, None, None, (), (), options or FlopOptions()))
    try:
        inputs = parse_shapes(input_shapes)
        outputs = parse_shapes(output_shapes) if rule not in _INPUTS_ONLY else ()
    except ShapeError as exc:
        return FlopEstimate(None, f"malformed shapes: {exc}")
    if inputs is None or outputs is None:
        return FlopEstimate(None, "shapes N/A (the capture recorded none)")
    ctx = ShapeContext(op_type, inputs, outputs, parse_dtypes(input_dtypes), parse_dtypes(output_dtypes),
                       options or FlopOptions(), tuple(attributes.split(";")) if attributes else ())
    try:
        return rule(ctx)
    except FlopError as exc:
        return FlopEstimate(None, f"inconsistent shapes: {exc}")


def registered_prefixes() -> list[str]:
    """Every prefix/name with a rule (for documentation and the UI)."""
    return [p for prefixes, _, _ in _RULES for p in prefixes]
