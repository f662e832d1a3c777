"""The basis of the prediction's ratios: advertised peaks, or what each chip was measured to reach.

prediction.md §2 scales a kernel by ``source_peak / target_peak`` and ``source_bw / target_bw``.
On the **advertised** basis those are the catalog's peaks, which assumes both chips reach the
same fraction of their peak. On the **achievable** basis they are the measured maximum
achievable matmul FLOP/s (MAMF, per precision) and the measured HBM bandwidth (validation.md
§1), so a kernel keeps its fraction of what each chip can really reach::

    compute_ratio = achievable_src / achievable_tgt      # cube kernels, when both chips have a MAMF
    memory_ratio  = achievable_bw_src / achievable_bw_tgt  # when both chips have a measured bandwidth

A measured value is used only when *both* chips have one for that quantity; otherwise the
advertised values are used and the row says so. Vector peaks have no achievable counterpart
(MAMF measures matmuls): vector compute stays advertised.

On the **fitted** basis a chip's values are its advertised ones times the efficiency fitted on
the validation corpus's training rows (:mod:`~mfu_desktop.core.predict.model_table`).

Two per-kernel models use these values (issue 23): the **seed**'s (prediction.md §2: the pipe
split, or one ratio per class without pipe counters) and the **roofline** model, which predicts a
kernel without pipe counters from its FLOPs and bytes on both chips plus latency floors
(:mod:`~mfu_desktop.core.predict.attainable`).
"""

from __future__ import annotations

from dataclasses import dataclass

from mfu_desktop.core.chips.catalog import ACHIEVABLE_BW_COLUMN, MAMF_COLUMNS, Chip
from mfu_desktop.core.predict.model_table import ModelTable, shipped_model_table
from mfu_desktop.core.predict.options import DEFAULT_BASIS, DEFAULT_MODEL

#: The bases the prediction offers.
BASES = ("advertised", "achievable", "fitted")
ADVERTISED, ACHIEVABLE, FITTED = BASES
#: The per-kernel models: the roofline model (kernels without pipe counters by FLOPs and bytes) and the seed's.
MODELS = ("roofline", "seed")
ROOFLINE, SEED = MODELS


def check_basis(name: str) -> str:
    """``name`` when it is a basis; raises ``ValueError`` naming the known ones otherwise."""
    if name not in BASES:
        raise ValueError(f"basis {name!r} is not one of {', '.join(BASES)}")
    return name


def check_model(name: str) -> str:
    """``name`` when it is a model; raises ``ValueError`` naming the known ones otherwise."""
    if name not in MODELS:
        raise ValueError(f"model {name!r} is not one of {', '.join(MODELS)}")
    return name


@dataclass(frozen=True)
class BasisValue:
    """A pair of values the ratio is made of, and which basis they are on.

    Attributes:
        source: The source chip's value (``None``: not published).
        target: The target chip's value.
        basis: ``advertised`` or ``achievable``.
        column: The catalog column(s) read (``mamf_bf16_tflops`` …).
    """

    source: float | None
    target: float | None
    basis: str
    column: str


def achievable_peaks(unit: str, precision: str, source: Chip, target: Chip) -> BasisValue | None:
    """Both chips' measured matmul throughput for a cube kernel of ``precision``, or ``None``.

    ``None`` when the unit is not the cube, the precision has no MAMF column, or either chip has
    no measurement: the caller then uses the advertised peaks.
    """
    column = MAMF_COLUMNS.get(precision) if unit == "cube" else None
    if column is None:
        return None
    s, t = source.value(column), target.value(column)
    if s is None or t is None:
        return None
    return BasisValue(s, t, ACHIEVABLE, column)


def achievable_bandwidths(source: Chip, target: Chip) -> BasisValue | None:
    """Both chips' measured HBM bandwidth, or ``None`` when either has none."""
    s, t = source.value(ACHIEVABLE_BW_COLUMN), target.value(ACHIEVABLE_BW_COLUMN)
    if s is None or t is None:
        return None
    return BasisValue(s, t, ACHIEVABLE, ACHIEVABLE_BW_COLUMN)


def basis_label(compute: str | None, memory: str | None) -> str:
    """One kernel's basis in one word where it can: ``advertised``, ``achievable``, or the achievable quantity.

    Args:
        compute: Basis of the compute ratio when the kernel uses it (else ``None``).
        memory: Basis of the memory ratio when the kernel uses it (else ``None``).

    Returns:
        ``advertised``, ``achievable`` or ``fitted`` when every ratio it uses is on that basis;
        ``compute achievable`` / ``bandwidth achievable`` when only that one is.
    """
    used = [b for b in (compute, memory) if b]
    if not used or all(b == ADVERTISED for b in used):
        return ADVERTISED
    if all(b == used[0] for b in used):
        return used[0]
    if FITTED in used:
        return FITTED
    return "compute achievable" if compute == ACHIEVABLE else "bandwidth achievable"


@dataclass(frozen=True)
class SavedFactor:
    """A user calibration: predicted time × ``factor`` for one operator category on one chip pair.

    Attributes:
        source: Source chip identifier.
        target: Target chip identifier.
        basis: The basis the factor was fitted on (a factor only applies on its own basis).
        category: ``matmul``, ``attention`` or ``element-wise`` (:func:`~.categories.category_of`).
        factor: measured / predicted time on the profiles it was fitted on.
        fitted_on: What it was fitted on (the two profiles) and when.
        model: The per-kernel model it was fitted with (a factor only applies to its own model;
            factors saved before the roofline model are the seed model's).
    """

    source: str
    target: str
    basis: str
    category: str
    factor: float
    fitted_on: str = ""
    model: str = SEED


@dataclass(frozen=True)
class Basis:
    """How a kernel is rescaled: the model, the basis of its rates and the user's saved calibration factors.

    Attributes:
        name: ``advertised``, ``achievable`` or ``fitted``.
        factors: Saved calibrations; those of the (source, target, basis) being predicted apply.
        model: ``roofline`` or ``seed`` (the original script's model).
        parameters: The roofline model's table (``None``: the shipped one).
    """

    name: str = ADVERTISED
    factors: tuple[SavedFactor, ...] = ()
    model: str = SEED
    parameters: ModelTable | None = None

    @property
    def table(self) -> ModelTable:
        """The roofline model's parameters in use."""
        return self.parameters if self.parameters is not None else shipped_model_table()

    @property
    def label(self) -> str:
        """``roofline model, fitted basis``: what a prediction says it used."""
        return f"{self.model} model, {self.name} basis"

    def factors_for(self, source: Chip, target: Chip) -> dict[str, SavedFactor]:
        """The saved factors of one chip pair on this basis, by category."""
        return {f.category: f for f in self.factors
                if f.source == source.identifier and f.target == target.identifier and f.basis == self.name
                and f.model == self.model}


def default_basis(factors: tuple[SavedFactor, ...] = ()) -> Basis:
    """The front ends' default: the model and basis most accurate on the report's held-out rows."""
    return Basis(DEFAULT_BASIS, factors, DEFAULT_MODEL)
