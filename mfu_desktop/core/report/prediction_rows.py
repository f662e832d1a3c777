"""The prediction as rows: built once here, formatted by the console, the JSON, the CSV and the window.

One row per device: the measured source first (``kind = "source"``), then every target in
the order asked. Every time is per step, mean per rank (:mod:`mfu_desktop.core.analysis.steps`); the
slowest rank is given with its number and its values. A target whose compute time is only
partly predictable carries ``partial = True``, the share that was predicted and why the rest
was not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from mfu_desktop.core.analysis.memory import SAME_ALLOCATOR
from mfu_desktop.core.analysis.memory_text import fit_text, mb
from mfu_desktop.core.analysis.steps import PER_STEP_CONVENTION
from mfu_desktop.core.numbers import calls, finite_number
from mfu_desktop.core.predict.error_band import ErrorBand
from mfu_desktop.core.predict.memory_fit import Footprint, MemoryFit
from mfu_desktop.core.predict.options import OUTPUT_FORMATS
from mfu_desktop.core.predict.predictor import Prediction, TargetResult
from mfu_desktop.core.predict.rules import rules_to_csv
from mfu_desktop.core.report.json_contract import JSON_SCHEMA

#: Columns of the rows, in order (units in the names; "_us" = µs per step, mean per rank).
ROW_COLUMNS = (
    "kind", "device", "architecture", "cube_fp16_tflops", "cube_fp32_tflops", "vector_fp16_tflops",
    "vector_fp32_tflops", "bandwidth_gbs",
    "baseline_compute_us", "predicted_compute_us", "unpredictable_compute_us", "predicted_share",
    "relative_performance", "partial", "partial_reason",
    "measured_step_us", "predicted_step_us", "step_relative_performance", "readme_formula_relative_performance",
    "computing_us", "comm_not_overlapped_us", "transfer_us", "wait_us", "free_us",
    "slowest_rank", "slowest_step_us", "slowest_computing_us", "slowest_transfer_us", "slowest_wait_us",
    "slowest_free_us", "fallback_time_share", "step_not_predicted", "rules", "basis",
    "memory_fits", "memory_headroom_gb",
    "error_band_p10", "error_band_median", "error_band_p90", "error_band_pairs",
)


def _band_cells(band: ErrorBand | None) -> dict[str, object]:
    """The expected error's 10/50/90 % quantiles (signed fractions; ``None``: not measured) and its pairs."""
    if band is None:
        return {"error_band_p10": None, "error_band_median": None, "error_band_p90": None, "error_band_pairs": None}
    return {"error_band_p10": band.p10, "error_band_median": band.median, "error_band_p90": band.p90,
            "error_band_pairs": band.pairs}


def _memory_cells(fit: MemoryFit | None) -> dict[str, object]:
    """Does the profile's footprint fit on the row's chip (``None``: unknown), and the headroom left (GB)."""
    return {"memory_fits": None if fit is None else fit.fits,
            "memory_headroom_gb": None if fit is None else fit.headroom_gb}


def _source_row(p: Prediction) -> dict[str, object]:
    m = p.measured
    slowest = m.ranks.get(m.slowest_rank) if m.slowest_rank is not None else None
    c = p.source
    return {
        "kind": "source", "device": f"{c.display_name} (measured)", "architecture": c.architecture,
        "cube_fp16_tflops": c.value("cube_fp16_tflops"), "cube_fp32_tflops": c.value("cube_fp32_tflops"),
        "vector_fp16_tflops": c.value("vector_fp16_tflops"), "vector_fp32_tflops": c.value("vector_fp32_tflops"),
        "bandwidth_gbs": c.value("hbm_bandwidth_gbs"),
        "baseline_compute_us": p.baseline_compute_us, "predicted_compute_us": p.baseline_compute_us,
        "unpredictable_compute_us": 0.0, "predicted_share": 1.0, "relative_performance": 1.0, "partial": False,
        "partial_reason": "", "measured_step_us": m.mean("step_us"), "predicted_step_us": m.mean("step_us"),
        "step_relative_performance": 1.0 if m.ranks else None,
        "readme_formula_relative_performance": 1.0 if m.ranks else None,
        "computing_us": m.mean("computing_us"), "comm_not_overlapped_us": m.mean("comm_not_overlapped_us"),
        "transfer_us": m.mean("transfer_us"), "wait_us": m.mean("wait_us"), "free_us": m.mean("free_us"),
        "slowest_rank": m.slowest_rank if len(m.ranks) > 1 else None,
        "slowest_step_us": slowest.step_us if slowest and len(m.ranks) > 1 else None,
        "slowest_computing_us": slowest.computing_us if slowest and len(m.ranks) > 1 else None,
        "slowest_transfer_us": slowest.transfer_us if slowest and len(m.ranks) > 1 else None,
        "slowest_wait_us": slowest.wait_us if slowest and len(m.ranks) > 1 else None,
        "slowest_free_us": slowest.free_us if slowest and len(m.ranks) > 1 else None,
        "fallback_time_share": 0.0, "step_not_predicted": "" if m.ranks else "no step trace", "rules": "",
        "basis": "measured",
        **_memory_cells(p.source_memory),
        **_band_cells(None),
    }


def _target_row(t: TargetResult) -> dict[str, object]:
    c = t.chip
    s = t.slowest
    several = len(t.ranks) > 1
    stepped = s is not None and s.step.predicted_step_us is not None
    return {
        "kind": "target", "device": t.device, "architecture": c.architecture,
        "cube_fp16_tflops": c.value("cube_fp16_tflops"), "cube_fp32_tflops": c.value("cube_fp32_tflops"),
        "vector_fp16_tflops": c.value("vector_fp16_tflops"), "vector_fp32_tflops": c.value("vector_fp32_tflops"),
        "bandwidth_gbs": c.value("hbm_bandwidth_gbs"),
        "baseline_compute_us": t.baseline_compute_us, "predicted_compute_us": t.predicted_compute_us,
        "unpredictable_compute_us": t.unpredictable_compute_us, "predicted_share": t.predicted_share,
        "relative_performance": t.relative_performance, "partial": t.partial, "partial_reason": t.partial_reason,
        "measured_step_us": t.measured_step_us, "predicted_step_us": t.predicted_step_us,
        "step_relative_performance": t.step_relative_performance,
        "readme_formula_relative_performance": t.readme_formula_relative_performance,
        "computing_us": t.predicted_computing_us,
        "comm_not_overlapped_us": None if t.predicted_transfer_us is None or t.predicted_wait_us is None
        else t.predicted_transfer_us + t.predicted_wait_us,
        "transfer_us": t.predicted_transfer_us, "wait_us": t.predicted_wait_us, "free_us": t.predicted_free_us,
        "slowest_rank": s.rank if s is not None and several else None,
        "slowest_step_us": s.step.predicted_step_us if several and stepped else None,
        "slowest_computing_us": s.step.predicted_computing_us if several and stepped else None,
        "slowest_transfer_us": s.step.predicted_transfer_us if several and stepped else None,
        "slowest_wait_us": s.step.predicted_wait_us if several and stepped else None,
        "slowest_free_us": s.step.predicted_free_us if several and stepped else None,
        "fallback_time_share": t.fallback_time_share, "step_not_predicted": t.step_not_predicted,
        "rules": "; ".join(t.rules),
        "basis": t.basis_text,
        **_memory_cells(t.memory),
        **_band_cells(t.error_band),
    }


def prediction_rows(p: Prediction) -> pd.DataFrame:
    """The source row, then one row per target (columns :data:`ROW_COLUMNS`)."""
    rows = [_source_row(p), *(_target_row(t) for t in p.targets)]
    frame = pd.DataFrame(rows, columns=list(ROW_COLUMNS))
    for column in frame.columns:
        if column.endswith(("_us", "_tflops", "_gbs", "_share", "_performance")):
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(np.float64)
    frame["slowest_rank"] = pd.to_numeric(frame["slowest_rank"], errors="coerce").astype("Int64")
    for column in ("error_band_p10", "error_band_median", "error_band_p90"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(np.float64)
    frame["error_band_pairs"] = pd.to_numeric(frame["error_band_pairs"], errors="coerce").astype("Int64")
    frame["memory_headroom_gb"] = pd.to_numeric(frame["memory_headroom_gb"], errors="coerce").astype(np.float64)
    frame["memory_fits"] = frame["memory_fits"].astype(object)  # True, False or None (unknown)
    return frame


def _row_json(row: dict[str, object]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in row.items():
        if key.startswith(("slowest_", "error_band_")):  # nested objects of their own
            continue
        if isinstance(value, (bool, np.bool_)):
            out[key] = bool(value)
        elif isinstance(value, str):
            out[key] = value
        else:
            out[key] = finite_number(value)
    rank = row.get("slowest_rank")
    out["slowest_rank"] = None if rank is None or pd.isna(rank) else {
        "rank": int(rank),  # type: ignore[arg-type]
        **{k.removeprefix("slowest_"): finite_number(row.get(k)) for k in ROW_COLUMNS
           if k.startswith("slowest_") and k != "slowest_rank"},
    }
    return out


def prediction_json(p: Prediction) -> dict[str, object]:
    """The ``mfu predict --json`` object (schema 2): the rows, plus rules, notes and exclusions."""
    rows = prediction_rows(p).to_dict("records")
    targets = []
    for row, t in zip(rows[1:], p.targets):
        item = _row_json(row)
        item["rules"] = t.rules
        item["notes"] = t.notes
        item["unpredictable_time_share"] = t.unpredictable_time_share
        item["error_band"] = t.error_band.to_json() if t.error_band is not None else None
        targets.append(item)
    return {
        "schema": JSON_SCHEMA,
        "convention": PER_STEP_CONVENTION,
        "basis": p.basis.name,
        "model": p.basis.model,
        "source": p.source.display_name,
        "ranks": p.ranks,
        "steps": {str(k): v for k, v in p.steps.items()},
        "baseline_compute_us": p.baseline_compute_us,
        "baseline": _row_json(rows[0]),
        "targets": targets,
        "assumed_cpu": p.assumed_cpu,
        "excluded": [{"class": r["class"], "count": float(r["count"]), "time_us": float(r["time_us"])}
                     for _, r in p.excluded.iterrows()],
        "warnings": p.warnings,
        "memory": p.footprint.to_json() if p.footprint is not None else None,
    }


#: ``performance_prediction.csv``: the seed script's columns first, then ours.
SEED_CSV_NAMES = {"cube_fp16_tflops": "CubeFP16", "cube_fp32_tflops": "CubeFP32", "vector_fp16_tflops": "VecFP16",
                  "vector_fp32_tflops": "VecFP32"}


def summary_frame(p: Prediction) -> pd.DataFrame:
    """``performance_prediction.csv``: the rows with the seed's column names first (source row included)."""
    frame = prediction_rows(p).rename(columns=SEED_CSV_NAMES)
    first = ["device", "architecture", "CubeFP16", "CubeFP32", "VecFP16", "VecFP32", "bandwidth_gbs",
             "predicted_compute_us", "relative_performance"]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    frame["source"] = p.source.display_name
    frame["source_row"] = p.source.origin
    frame["convention"] = PER_STEP_CONVENTION
    return frame


def step_breakdown_frame(p: Prediction) -> pd.DataFrame:
    """The predicted step split per device (per step, mean per rank): what the step chart draws."""
    rows = prediction_rows(p)
    rows = rows[rows["predicted_step_us"].notna()]
    return pd.DataFrame({"device": rows["device"], "computing_us": rows["computing_us"],
                         "transfer_us": rows["transfer_us"], "wait_us": rows["wait_us"], "free_us": rows["free_us"],
                         "partial": rows["partial"].astype(bool)}).reset_index(drop=True)


# --- console ----------------------------------------------------------------------------------


def _fmt(value: object, width: int, digits: int = 1) -> str:
    v = finite_number(value)
    return f"{'–' if v is None else f'{v:,.{digits}f}':>{width}}"


def relative_text(value: object, partial: bool, share: object) -> str:
    """"2.42×", or "2.42× (73 %)" when the speed-up covers only part of the compute time."""
    v = finite_number(value)
    if v is None:
        return "–"
    text = f"{v:.2f}×"
    s = finite_number(share)
    return f"{text} ({s * 100:.3g} %)" if partial and s is not None else text


def console_table(p: Prediction, lang: str = "en") -> str:
    """The seed's console table (sorted by relative performance, source at the bottom), per step per rank."""
    zh = lang.startswith("zh")
    rows = prediction_rows(p)
    title = ("预测结果: 各芯片相对性能对比 (基线=1.0; 耗时为每 step、每 rank 平均)" if zh
             else "Prediction: relative performance per chip (baseline = 1.0; times per step, mean per rank)")
    head = (f"{'设备' if zh else 'Device':<32} {'架构' if zh else 'Arch':<5} {'CubeFP16':>9} {'CubeFP32':>9} "
            f"{'VecFP16':>8} {'VecFP32':>8} {'带宽GB/s' if zh else 'BW GB/s':>8} "
            f"{'计算µs/step' if zh else 'Compute µs':>13} {'相对性能' if zh else 'Compute ×':>15} "
            f"{'step µs' if zh else 'Step µs':>12} {'step 相对' if zh else 'Step ×':>7}")
    lines = ["=" * len(head), title, "=" * len(head), head, "-" * len(head)]
    targets = rows[rows["kind"] == "target"].copy()
    targets["_order"] = targets["relative_performance"].fillna(0.0)
    for _, row in targets.sort_values("_order", ascending=False, kind="stable").iterrows():
        rel = relative_text(row["relative_performance"], bool(row["partial"]), row["predicted_share"])
        step_rel = (f"{row['step_relative_performance']:.2f}×" if finite_number(row["step_relative_performance"])
                    else "–")
        lines.append(f"{str(row['device'])[:32]:<32} {str(row['architecture'])[:5]:<5} "
                     f"{_fmt(row['cube_fp16_tflops'], 9)} {_fmt(row['cube_fp32_tflops'], 9)} "
                     f"{_fmt(row['vector_fp16_tflops'], 8, 2)} {_fmt(row['vector_fp32_tflops'], 8, 2)} "
                     f"{_fmt(row['bandwidth_gbs'], 8, 0)} {_fmt(row['predicted_compute_us'], 13)} {rel:>15} "
                     f"{_fmt(row['predicted_step_us'], 12)} {step_rel:>7}")
    source = rows.iloc[0]
    label = "基线" if zh else "Baseline"
    compute = "计算类耗时" if zh else "compute-class time"
    step = "step 耗时" if zh else "step"
    lines.append(f"{label} ({p.source.display_name}) = 1.00× ({compute} {_fmt(source['baseline_compute_us'], 0)} µs"
                 + (f", {step} {_fmt(source['measured_step_us'], 0)} µs"
                    if finite_number(source["measured_step_us"]) else "")
                 + (" per step, mean per rank)" if not zh else "，每 step、每 rank 平均)"))
    return "\n".join(lines)


def target_lines(p: Prediction, lang: str = "en") -> list[str]:
    """Per target: step split, this target's predicted communication, slowest rank, rules and notes."""
    zh = lang.startswith("zh")
    out: list[str] = []
    rows = prediction_rows(p)
    for row, t in zip(rows.iloc[1:].to_dict("records"), p.targets):
        rel = relative_text(row["relative_performance"], bool(row["partial"]), row["predicted_share"])
        line = f"{t.device}: compute {rel}"
        if finite_number(row["step_relative_performance"]):
            line += (f", step {row['step_relative_performance']:.2f}× = {row['predicted_step_us']:,.1f} µs "
                     f"(computing {row['computing_us']:,.1f} + transfer {row['transfer_us']:,.1f} + wait "
                     f"{row['wait_us']:,.1f} + free {row['free_us']:,.1f}; README formula "
                     f"{row['readme_formula_relative_performance']:.2f}×)")
        out.append(line)
        if t.comm_line(lang):
            out.append(f"   {t.comm_line(lang)}")
        if not pd.isna(row["slowest_rank"]):
            if finite_number(row["slowest_step_us"]):
                out.append(f"   slowest rank {row['slowest_rank']}: step {row['slowest_step_us']:,.1f} µs "
                           f"(computing {row['slowest_computing_us']:,.1f} + transfer "
                           f"{row['slowest_transfer_us']:,.1f} + wait {row['slowest_wait_us']:,.1f} + free "
                           f"{row['slowest_free_us']:,.1f})")
            else:
                out.append(f"   slowest rank {row['slowest_rank']} (longest predicted compute)")
        if t.basis_text:
            out.append(f"   basis: {t.basis_text}")
        if t.error_band is not None:
            out.append(f"   expected error: {t.error_band.text} for this kernel mix ({t.error_band.pair_class}, "
                       f"{p.basis.label}; held-out public pairs, docs/accuracy.md)")
        if t.rules:
            out.append(f"   rules: {', '.join(t.rules)}")
        if t.fallback_time_share:
            out.append(f"   fallback (no pipe times): {t.fallback_time_share * 100:.3g} % of compute time")
        out.extend(f"   note: {note}" for note in t.notes)
        if t.memory is not None and p.footprint is not None and p.footprint.mb is not None:
            out.append(f"   memory: {memory_line(t.memory, p.footprint)}")
    if p.footprint is not None:
        out.append(footprint_line(p.footprint))
    if not p.excluded.empty:
        items = ", ".join(f"{r['class']} × {calls(r['count'])} ({r['time_us']:,.1f} µs)"
                          for _, r in p.excluded.iterrows())
        label = "不参与预估 (每 step、每 rank 平均)" if zh else "excluded from the prediction (per step, mean per rank)"
        out.append(f"{label}: {items}")
    return out


def memory_line(fit: MemoryFit, fp: Footprint) -> str:
    """"fits — 2,113.7 MB = 1.61 % of 128 GB (126 GB free)", or "does NOT fit …", or why it is unknown."""
    text = fit_text(fp.mb, fit.capacity_gb, fit.headroom_gb)
    verdict = "unknown" if fit.fits is None else "fits" if fit.fits else "does NOT fit"
    return f"{verdict} — {text}" + (f" ({fit.note})" if fit.note else "")


def footprint_line(fp: Footprint) -> str:
    """The footprint every "fits" is about, and the assumption behind it."""
    if fp.mb is None:
        return f"memory: whether it fits is unknown — {fp.reason}"
    several = f", rank {fp.rank} (the largest of {fp.ranks} ranks)" if fp.ranks > 1 else ""
    return f"memory footprint {mb(fp.mb)} ({fp.basis}{several}); {SAME_ALLOCATOR}"


# --- files ------------------------------------------------------------------------------------

DETAIL_COLUMNS = ("rank", "device", "name", "type", "accelerator_core", "class", "precision", "peak_unit",
                  "duration_us", "compute_us", "memory_us", "compute_ratio", "memory_ratio", "scale", "predicted_us",
                  "fallback", "rules", "basis", "reason")
#: Decimal places of the detail file's numbers (0.001 µs; no float32 artefacts such as 31.96299934387207).
DETAIL_DECIMALS = 3


def _tiled(values: pd.Series | np.ndarray, times: int) -> object:
    """A per-kernel column repeated for every target: categoricals tile their codes (no strings made)."""
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        cat = values.array
        return pd.Categorical.from_codes(np.tile(cat.codes, times), dtype=cat.dtype)
    return np.tile(np.asarray(values), times)


def _stacked(parts: list[pd.Series | pd.Categorical | np.ndarray]) -> object:
    """Per-target columns one after the other (categoricals merged into one set of categories)."""
    if all(isinstance(getattr(v, "dtype", None), pd.CategoricalDtype) for v in parts):
        # ranks read from different files may type their categories differently (object vs str)
        same = [pd.Categorical.from_codes(np.asarray(v.codes), categories=pd.Index(v.categories, dtype=object))
                for v in (pd.Categorical(p) if not isinstance(p, pd.Categorical) else p for p in parts)]
        return union_categoricals(same, ignore_order=True)
    return np.concatenate([np.asarray(v) for v in parts])


def detail_frame(p: Prediction) -> pd.DataFrame:
    """``kernel_prediction_detail.csv``: one row per (kernel, target), numbers rounded to 0.001 µs.

    Built column by column: the per-kernel columns are tiled once per target, the per-target
    columns stacked, so a million kernels × six targets never becomes millions of Python objects.
    """
    frames = []
    by_rank: dict[int, list[tuple[str, pd.DataFrame]]] = {}
    for (rank, device), frame in p.details.items():
        by_rank.setdefault(rank, []).append((device, frame))
    for rank, targets in by_rank.items():
        base = p.inputs[rank].frame
        n, k = len(base), len(targets)
        devices = [device for device, _ in targets]
        columns: dict[str, object] = {
            "rank": np.full(n * k, rank, dtype=np.int64),
            "device": pd.Categorical.from_codes(np.repeat(np.arange(k, dtype=np.int32), n), categories=devices),
        }
        for out, src in (("name", "name"), ("type", "type"), ("accelerator_core", "core"), ("class", "class"),
                         ("precision", "precision"), ("peak_unit", "unit")):
            columns[out] = _tiled(base[src], k)
        for col in ("duration_us", "compute_us", "memory_us"):
            columns[col] = np.tile(np.round(base[col].to_numpy(dtype=np.float64), DETAIL_DECIMALS), k)
        for col, decimals in (("compute_ratio", 6), ("memory_ratio", 6), ("scale", 6),
                              ("predicted_us", DETAIL_DECIMALS)):
            columns[col] = np.round(np.concatenate([f[col].to_numpy(dtype=np.float64) for _, f in targets]), decimals)
        for col in ("fallback", "rules", "basis", "reason"):  # categoricals stay codes: no per-row strings
            columns[col] = _stacked([f[col].array for _, f in targets])
        frames.append(pd.DataFrame(columns, copy=False))
    if not frames:
        return pd.DataFrame(columns=list(DETAIL_COLUMNS))
    if len(frames) == 1:
        return frames[0]
    return pd.DataFrame({c: _stacked([f[c].array if isinstance(f[c].dtype, pd.CategoricalDtype) else f[c].to_numpy()
                                      for f in frames]) for c in DETAIL_COLUMNS}, copy=False)




def write_outputs(p: Prediction, folder: Path, fmt: str = "csv") -> list[Path]:
    """Write ``performance_prediction``, ``kernel_prediction_detail`` and ``architecture_rules.csv``.

    Args:
        p: A prediction made with ``keep_details=True`` (else the detail file is empty).
        folder: Output folder (never inside a profile: the caller checks).
        fmt: ``csv`` (the seed's files), ``parquet`` or ``both``.

    The rules file records the rules the prediction used; edited, it is the ``--rules`` input.
    """
    from mfu_desktop.core.writing import write_csv, write_fast_csv, write_parquet, write_text

    if fmt not in OUTPUT_FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {', '.join(OUTPUT_FORMATS)}")
    summary = summary_frame(p)
    detail = detail_frame(p)
    written = []
    if fmt in ("csv", "both"):
        written += [write_csv(summary, folder / "performance_prediction.csv"),
                    write_fast_csv(detail, folder / "kernel_prediction_detail.csv")]
    if fmt in ("parquet", "both"):
        written += [write_parquet(summary, folder / "performance_prediction.parquet"),
                    write_parquet(detail, folder / "kernel_prediction_detail.parquet")]
    written.append(write_text(rules_to_csv(p.rules), folder / "architecture_rules.csv"))
    return written
