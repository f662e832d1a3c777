"""The roofline model's parameters per chip: latency floors and efficiencies (``resources/prediction_model.csv``).

Fitted by ``tools/accuracy.py`` on the training rows of the validation corpus only
(:mod:`~mfu_desktop.core.predict.accuracy_split`), one row per parameter::

    parameter,chip,key,value,rows,note
    power,,,1,,chosen on the training rows among 1, 2, 4, inf
    floor_us,NVIDIA H100 SXM,gemm,2.01,64,kernel-timed rows
    floor_us,*,gemm,2.3,,default: median of the fitted chips
    host_floor_us,NVIDIA L4,,10.3,811,NeuSight host-timed rows (the report's NeuSight pairs only)
    efficiency,NVIDIA H100 SXM,cube fp16,0.94,97,...
    efficiency,*,cube,0.80,,prior: median measured MAMF / advertised peak of the catalog
    efficiency,NVIDIA H100 SXM,memory,0.86,...
    efficiency,NVIDIA H100 SXM,memory element-wise,0.95,...

A chip without its own row for a parameter takes its **die**'s row (``die: GA100``: the median of
the fitted chips cut from that silicon, the catalog's ``die`` column), else the ``*`` row (most of
the catalog). Floors apply to every basis; efficiencies only to the **fitted** basis (effective
peak = efficiency × advertised peak).
"""

from __future__ import annotations

import csv
import functools
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

from mfu_desktop.core.paths import shipped_file

ANY_CHIP = "*"
#: Prefix of the rows a die's chips share (``die: GA100``).
DIE_PREFIX = "die: "
TABLE_COLUMNS = ("parameter", "chip", "key", "value", "rows", "note")


def die_key(die: str) -> str:
    """The table's chip cell of a die's shared rows (``die: GA100``)."""
    return f"{DIE_PREFIX}{die}"


def _owners(chip: str, die: str) -> tuple[str, ...]:
    """Where a chip's own values are looked up, in order: the chip, then its die."""
    return (chip, die_key(die)) if die else (chip,)


def _first(values: dict, keys: list) -> Fitted | None:
    return next((values[k] for k in keys if k in values), None)


@dataclass(frozen=True)
class Fitted:
    """One fitted value and how many training measurements it rests on."""

    value: float
    rows: int = 0
    note: str = ""


@dataclass(frozen=True)
class ModelTable:
    """Parameters of the roofline model (see the module docstring).

    Attributes:
        power: ``p`` of ``(t_c^p + t_m^p)^(1/p)`` (``inf``: the plain roofline max).
        floors: Kernel latency floor (µs) per (chip identifier, base category); chip ``*``: defaults.
        host_floors: Per chip, the floor of host-timed measurements (NeuSight; the report only).
        efficiency: Per (chip, ``"cube fp16"`` … or ``"memory"``): fraction of the advertised value
            reached (the fitted basis); chip ``*`` with key ``cube``/``vector``/``memory``: the prior.
    """

    power: float = 1.0
    floors: dict[tuple[str, str], Fitted] = field(default_factory=dict)
    host_floors: dict[str, Fitted] = field(default_factory=dict)
    efficiency: dict[tuple[str, str], Fitted] = field(default_factory=dict)
    power_note: str = ""
    #: The fitted basis's floors, fitted together with its efficiencies (the others: with efficiency 1).
    fitted_floors: dict[tuple[str, str], Fitted] = field(default_factory=dict)
    fitted_host_floors: dict[str, Fitted] = field(default_factory=dict)

    def floor_us(self, chip: str, category: str, fitted: bool = False, die: str = "") -> tuple[float, bool]:
        """The chip's floor for a base category (µs; the fitted basis's with ``fitted``) and whether it was fitted.

        A chip without its own floor takes its die's (fitted too), else the defaults.
        """
        floors = self.fitted_floors if fitted else self.floors
        own = _first(floors, [(owner, category) for owner in _owners(chip, die)])
        if own is not None:
            return own.value, True
        default = floors.get((ANY_CHIP, category)) or floors.get((ANY_CHIP, ANY_CHIP))
        return (default.value if default else 0.0), False

    def host_floor_us(self, chip: str, fitted: bool = False, die: str = "") -> float:
        """The floor of a host-timed measurement on ``chip`` (the report's NeuSight pairs only)."""
        floors = self.fitted_host_floors if fitted else self.host_floors
        own = _first(floors, [*_owners(chip, die), ANY_CHIP])
        return own.value if own else 0.0

    def compute_efficiency(self, chip: str, unit: str, precision: str, die: str = "") -> tuple[float, bool]:
        """Fraction of the advertised peak the chip (else its die) reaches for a unit and precision; whether fitted."""
        own = _first(self.efficiency, [(owner, f"{unit} {precision}") for owner in _owners(chip, die)])
        if own is not None:
            return own.value, True
        prior = self.efficiency.get((ANY_CHIP, unit))
        return (prior.value if prior else 1.0), False

    def memory_efficiency(self, chip: str, die: str = "", category: str = "") -> tuple[float, bool]:
        """Fraction of the advertised bandwidth the chip reaches, and whether fitted.

        With a ``category`` (a base category: ``element-wise`` …), that category's efficiency where one was
        fitted. Order: the chip's category value, the chip's, its die's category value, its die's, the prior.
        """
        keys = [(owner, key) for owner in _owners(chip, die)
                for key in ((f"memory {category}", "memory") if category else ("memory",))]
        own = _first(self.efficiency, keys)
        if own is not None:
            return own.value, True
        prior = self.efficiency.get((ANY_CHIP, "memory"))
        return (prior.value if prior else 1.0), False

    def memory_factor(self, chip: str, category: str, die: str = "") -> float:
        """A category's memory efficiency relative to the chip's (1 where no category value was fitted)."""
        return self.memory_efficiency(chip, die, category)[0] / self.memory_efficiency(chip, die)[0]

    def provenance(self, chip: str, die: str = "") -> str:
        """Where the fitted basis's efficiencies for ``chip`` come from, in words (own fit, its die's, the priors)."""
        own = [f.rows for (c, _), f in self.efficiency.items() if c == chip]
        if own:
            return f"{chip}: its own fit ({max(own):,} public measurements)"
        shared = [f.note for (c, key), f in self.efficiency.items() if die and c == die_key(die) and key == "memory"]
        if shared:
            return f"{chip}: its die's fit ({shared[0]})"
        return f"{chip}: the catalog-wide priors (no public measurement of it or its die)"

    def fitted_chips(self) -> list[str]:
        """Chips with at least one fitted value of their own (sorted)."""
        chips = {c for c, _ in self.floors} | set(self.host_floors) | {c for c, _ in self.efficiency}
        return sorted(c for c in chips if c != ANY_CHIP and not c.startswith(DIE_PREFIX))


def _number(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.4g}"


def table_to_csv(table: ModelTable) -> str:
    """The table as CSV text (the shipped file's format)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TABLE_COLUMNS)
    writer.writerow(["power", "", "", _number(table.power), "", table.power_note])
    for name, floors, host in (("", table.floors, table.host_floors),
                               ("fitted_", table.fitted_floors, table.fitted_host_floors)):
        for (chip, key), f in sorted(floors.items()):
            writer.writerow([f"{name}floor_us", chip, key, _number(f.value), f.rows or "", f.note])
        for chip, f in sorted(host.items()):
            writer.writerow([f"{name}host_floor_us", chip, "", _number(f.value), f.rows or "", f.note])
    for (chip, key), f in sorted(table.efficiency.items()):
        writer.writerow(["efficiency", chip, key, _number(f.value), f.rows or "", f.note])
    return out.getvalue()


def table_from_csv(text: str) -> ModelTable:
    """Parse the table; raises ``ValueError`` naming the line of a malformed row."""
    power, power_note = 1.0, ""
    floors: dict[str, dict[tuple[str, str], Fitted]] = {"floor_us": {}, "fitted_floor_us": {}}
    host: dict[str, dict[str, Fitted]] = {"host_floor_us": {}, "fitted_host_floor_us": {}}
    efficiency: dict[tuple[str, str], Fitted] = {}
    for line, row in enumerate(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))), start=2):
        try:
            value = float(row["value"])
            fitted = Fitted(value, int(row["rows"] or 0), row.get("note") or "")
            kind, chip, key = row["parameter"], row["chip"], row["key"]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"prediction model table: line {line}: {exc}") from None
        if kind == "power":
            power, power_note = value, fitted.note
        elif kind in floors:
            floors[kind][(chip, key)] = fitted
        elif kind in host:
            host[kind][chip] = fitted
        elif kind == "efficiency":
            efficiency[(chip, key)] = fitted
        else:
            raise ValueError(f"prediction model table: line {line}: unknown parameter {kind!r}")
    return ModelTable(power, floors["floor_us"], host["host_floor_us"], efficiency, power_note,
                      floors["fitted_floor_us"], host["fitted_host_floor_us"])


def model_table_path() -> Path:
    """The shipped model table."""
    return shipped_file("resources/prediction_model.csv")


@functools.lru_cache(maxsize=1)
def shipped_model_table() -> ModelTable:
    """The shipped table (read once per process); an empty table (no floors, prior 1) when it is missing."""
    path = model_table_path()
    if not path.exists():
        return ModelTable()
    return table_from_csv(path.read_text(encoding="utf-8"))
