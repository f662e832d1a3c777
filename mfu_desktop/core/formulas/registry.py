"""The FLOP-rule registry: the estimate a rule returns, the shapes it reads, and how rules register.

Each rule takes the parsed shapes and dtypes of one (type, shape) combination and returns a
:class:`FlopEstimate`: the FLOPs, or the reason they cannot be counted, plus the assumption
used and how sure it is. Adding an operator type is one function in a rule module
(:mod:`~mfu_desktop.core.formulas.ascend_ops`, :mod:`~mfu_desktop.core.formulas.aten_ops`)::

    @register("MyMatmulOp")
    def _my_op(ctx: ShapeContext) -> FlopEstimate:
        ...

and, for a new rule module, one line in :mod:`~mfu_desktop.core.formulas.flop_rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mfu_desktop.core.formulas.options import FlopOptions
from mfu_desktop.core.formulas.shapes import Shape


class Confidence:
    """How sure an estimate is (shown next to FlashAttention FLOPs)."""

    EXACT = "exact"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(frozen=True)
class ShapeContext:
    """One distinct (type, shapes, dtypes) combination of a profile."""

    op_type: str
    inputs: tuple[Shape, ...] | None
    outputs: tuple[Shape, ...] | None
    input_dtypes: tuple[str, ...]
    output_dtypes: tuple[str, ...]
    options: FlopOptions = field(default_factory=FlopOptions)
    #: Scalar arguments of the call where the profiler records them: positional (Kineto "Concrete
    #: Inputs") or ``name=value`` (arguments recorded by marks, e.g. ``input_layout=TND``).
    attributes: tuple[str, ...] = ()

    def named(self, name: str) -> str | None:
        """The value of a ``name=value`` attribute, or ``None`` when the call has none."""
        prefix = name + "="
        for item in self.attributes:
            item = item.strip()
            if item.startswith(prefix):
                return item[len(prefix):].strip()
        return None


@dataclass(frozen=True)
class FlopEstimate:
    """FLOPs of one kernel shape, or why there are none.

    Attributes:
        flops: Model FLOPs, ``None`` when not countable.
        reason: Why not countable (empty when counted).
        assumption: Inferences used (FA layout/mask), shown in the derivation.
        confidence: exact / high / medium / low.
        detail: The formula with numbers substituted.
        executed_flops: Hardware-executed FLOPs when they differ (FA backward).
        dims: Named dims for hints and "Open in calculator".
    """

    flops: int | None
    reason: str = ""
    assumption: str = ""
    confidence: str = Confidence.EXACT
    detail: str = ""
    executed_flops: int | None = None
    dims: tuple[tuple[str, object], ...] = ()

    @property
    def counted(self) -> bool:
        """True when FLOPs are known."""
        return self.flops is not None


Rule = Callable[[ShapeContext], FlopEstimate]


_RULES: list[tuple[tuple[str, ...], bool, Rule]] = []


_SHAPE_FREE: set[Rule] = set()


#: Rules that read only the inputs (framework ops: the profiler records no output shapes).
_INPUTS_ONLY: set[Rule] = set()


def register(*prefixes: str, exact: bool = False, needs_shapes: bool = True,
             inputs_only: bool = False) -> Callable[[Rule], Rule]:
    """Register a rule for operator types starting with (or equal to) one of ``prefixes``.

    Rules registered earlier win; put specific names before general prefixes. A rule with
    ``needs_shapes=False`` is called even when the shapes are ``N/A``; one with
    ``inputs_only=True`` needs no output shapes (framework ops, whose outputs are not recorded).
    """

    def wrap(rule: Rule) -> Rule:
        _RULES.append((prefixes, exact, rule))
        if not needs_shapes:
            _SHAPE_FREE.add(rule)
        if inputs_only:
            _INPUTS_ONLY.add(rule)
        return rule

    return wrap
