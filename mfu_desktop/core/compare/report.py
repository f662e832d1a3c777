"""A comparison as text: the console, a Markdown summary, and the exported tables."""

from __future__ import annotations

from pathlib import Path

from mfu_desktop.core.analysis.steps import PER_STEP_CONVENTION
from mfu_desktop.core.compare.comparison import Comparison, SideStep, comparison_json, table
from mfu_desktop.core.numbers import finite_number as number
from mfu_desktop.core.numbers import pct
from mfu_desktop.core.writing import forbid_inside, write_csv, write_json, write_text, write_xlsx

#: Step lines of the console and the Markdown summary.
STEP_LINES = (("step_time_us", "step time"), ("computing", "computing"),
              ("comm_not_overlapped", "communication not overlapped"), ("comm_transfer_us", "  real transfer"),
              ("comm_wait_us", "  waiting"), ("free", "free"))


def _us(value: float | None) -> str:
    return "–" if value is None else f"{value:,.1f}"


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+,.1f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else pct(value)


def _side(side: SideStep) -> str:
    slowest = f", slowest rank {side.slowest_rank}" if side.ranks > 1 and side.slowest_rank is not None else ""
    return f"{side.label}: {side.ranks} rank(s), {side.chip or 'chip not confirmed'}{slowest}"


def side_mfu_text(side: SideStep) -> str:
    """A side's operator MFU: the value, its range over the candidate chips (chip not confirmed), or "–"."""
    if side.mfu_ops is not None:
        return _pct(side.mfu_ops)
    if side.mfu_ops_range is not None:
        lo, hi = side.mfu_ops_range
        return f"{pct(lo)}–{pct(hi)}?"
    return "–"


def chip_hints(c: Comparison) -> list[str]:
    """For each side whose chip is not confirmed: why, what its MFU shows, and how to name the chip."""
    out = []
    for key in ("base", "new"):
        side = getattr(c, key)
        if side.unconfirmed:
            shown = "a range over the candidate chips (?)" if side.mfu_ops_range else "–"
            out.append(f"{side.label}: chip not confirmed ({side.unconfirmed}); its MFU shows {shown}: name the "
                       f"chip with --chip-{key} NAME (in the window: Assumptions → Chip for BASE, NEW's chip in the "
                       "Compare tab)")
    return out


def step_lines(c: Comparison) -> list[tuple[str, str, str, str]]:
    """(label, BASE, NEW, Δ) of the step, per step, mean per rank (µs)."""
    delta = c.step_delta()
    lines = [(label, _us(c.base.values.get(k)), _us(c.new.values.get(k)), _signed(delta.get(k)))
             for k, label in STEP_LINES]
    lines.append(("operator MFU", side_mfu_text(c.base), side_mfu_text(c.new), ""))
    lines.append(("step MFU (mean per rank)", _pct(c.base.mfu_step), _pct(c.new.mfu_step), ""))
    if c.chip_vs_chip:
        lines.append(("step predicted for NEW's chip", "", _us(c.predicted_step_us), ""))
    return lines


#: Memory lines of the console and the Markdown summary.
MEMORY_LINES = (("peak_allocated_mb", "peak allocated"), ("peak_reserved_mb", "peak reserved"),
                ("process_reserved_mb", "process reserved (APP)"))


def memory_rows(c: Comparison) -> list[tuple[str, str, str, str]]:
    """(label, BASE, NEW, Δ) of the memory peaks in MB (the highest rank of each side); empty without memory data."""
    delta = c.memory_delta()
    rows = []
    for key, label in MEMORY_LINES:
        a, b = c.base.memory.get(key), c.new.memory.get(key)
        if a is None and b is None:
            continue
        change = _signed(delta.get(key))
        if a and b is not None:
            change += f" ({b / a:.3g}×)"
        rows.append((label, _us(a), _us(b), change))
    return rows


def memory_lines(c: Comparison) -> list[str]:
    """The console's memory block (MB, the highest rank of each side)."""
    rows = memory_rows(c)
    if not rows:
        return []
    out = ["", f"   {'memory MB (highest rank)':<32} {'BASE':>14} {'NEW':>14} {'Δ':>16}"]
    out += [f"   {label:<32} {a:>14} {b:>14} {d:>16}" for label, a, b, d in rows]
    return out


def console_text(c: Comparison, top: int = 20) -> str:
    """What ``mfu compare`` prints."""
    out = ["MFU Desktop — compare", _side(c.base), _side(c.new), PER_STEP_CONVENTION, ""]
    out.append(f"   {'µs per step':<32} {'BASE':>14} {'NEW':>14} {'Δ':>12}")
    out += [f"   {label:<32} {a:>14} {b:>14} {d:>12}" for label, a, b, d in step_lines(c)]
    base_step = c.base.values.get("step_time_us")
    new_step = c.new.values.get("step_time_us")
    if base_step and new_step:
        out.append(f"   NEW takes {new_step / base_step:.3g}× BASE's step time (speed-up {base_step / new_step:.3g}×)")
    out += [f"   {hint}" for hint in chip_hints(c)]
    out += memory_lines(c)
    bars = c.waterfall()
    if bars:
        out += ["", "   where the step's change comes from (µs per step):"]
        out += [f"     {value:+12,.1f}  {label}" for label, value in bars]
    rows = table(c)
    out += ["", f"   operator groups by |Δ time| (top {min(top, len(rows))} of {len(rows)}; µs per step, "
                "mean per rank):"]
    predicted = c.chip_vs_chip
    out.append(f"     {'Δ µs':>10} {'BASE µs':>11} {'NEW µs':>11} {'ratio':>6} {'MFU B→N':>15} "
               + (f"{'predicted':>11} " if predicted else "") + "match       type [shapes] — why")
    for r in rows.head(top).to_dict("records"):
        mfu = f"{_pct(number(r['base_mfu']))}→{_pct(number(r['new_mfu']))}"
        ratio = f"{r['ratio']:.3g}" if number(r["ratio"]) is not None else "–"
        shapes = f" [{r['input_shapes']}]" if r["input_shapes"] else ""
        why = f" — {r['why']}" if r["why"] else ""
        pred = f"{_us(number(r.get('predicted_new_us'))):>11} " if predicted else ""
        out.append(f"     {_signed(number(r['delta_us'])):>10} {_us(number(r['base_time_us'])):>11} "
                   f"{_us(number(r['new_time_us'])):>11} {ratio:>6} {mfu:>15} {pred}{r['level']:<11} "
                   f"{r['display_name']}{shapes}{why}")
    out += [f"note: {n}" for n in c.notes]
    return "\n".join(out)


def markdown(c: Comparison, top: int = 30) -> str:
    """A Markdown summary of the comparison."""
    out = ["# Comparison", "", f"- {_side(c.base)}", f"- {_side(c.new)}", f"- {PER_STEP_CONVENTION}", "",
           "| µs per step | BASE | NEW | Δ |", "|---|---:|---:|---:|"]
    out += [f"| {label.strip()} | {a} | {b} | {d} |" for label, a, b, d in step_lines(c)]
    out += ["", *[f"> {hint}" for hint in chip_hints(c)]] if chip_hints(c) else []
    mem = memory_rows(c)
    if mem:
        out += ["", "| memory (highest rank) | BASE | NEW | Δ |", "|---|---:|---:|---:|"]
        out += [f"| {label} | {a} | {b} | {d} |" for label, a, b, d in mem]
    bars = c.waterfall()
    if bars:
        out += ["", "## Where the step's change comes from", "", "| part | Δ µs per step |", "|---|---:|"]
        out += [f"| {label} | {value:+,.1f} |" for label, value in bars]
    out += ["", f"## Operator groups (top {top} by change of time)", "",
            "| Δ µs | BASE µs | NEW µs | ratio | MFU BASE | MFU NEW | match | type | shapes | why |",
            "|---:|---:|---:|---:|---:|---:|---|---|---|---|"]
    for r in table(c).head(top).to_dict("records"):
        ratio = f"{r['ratio']:.3g}" if number(r["ratio"]) is not None else "–"
        out.append(f"| {_signed(number(r['delta_us']))} | {_us(number(r['base_time_us']))} | "
                   f"{_us(number(r['new_time_us']))} | {ratio} | {_pct(number(r['base_mfu']))} | "
                   f"{_pct(number(r['new_mfu']))} | {r['level']} | {r['display_name']} | {r['input_shapes']} | "
                   f"{r['why']} |")
    if c.notes:
        out += ["", *[f"- {n}" for n in c.notes]]
    return "\n".join(out) + "\n"


def export_comparison(c: Comparison, folder: Path, profiles: list[Path]) -> list[Path]:
    """``comparison.csv``, ``comparison.xlsx``, ``comparison.json`` and ``comparison.md`` in ``folder``.

    Raises:
        ExportError: When ``folder`` is inside one of the profiles (never written into).
    """
    forbid_inside(folder, profiles)
    folder.mkdir(parents=True, exist_ok=True)
    rows = table(c)
    written = [write_csv(rows, folder / "comparison.csv")]
    path, _ = write_xlsx({"comparison": rows}, folder / "comparison.xlsx")
    written += [path, write_json(comparison_json(c), folder / "comparison.json"),
                write_text(markdown(c), folder / "comparison.md")]
    return written
