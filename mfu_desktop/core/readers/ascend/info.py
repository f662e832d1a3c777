"""Capture metadata: ``profiler_info_*.json``, ``profiler_metadata.json``, ``info.json.N``.

Every key is read with a default (profiler-formats.md §2); a file that is missing or broken
gives an empty config plus a reported problem.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mfu_desktop.core.readers.records import CaptureConfig, DeviceInfo, ParallelGroups

_AIC_METRICS = {
    "ACL_AICORE_PIPE_UTILIZATION": "PipeUtilization",
    "ACL_AICORE_ARITHMETIC_UTILIZATION": "ArithmeticUtilization",
    "ACL_AICORE_MEMORY_BANDWIDTH": "Memory",
    "ACL_AICORE_L0B_AND_WIDTH": "MemoryL0",
    "ACL_AICORE_MEMORY_UB": "MemoryUB",
    "ACL_AICORE_RESOURCE_CONFLICT_RATIO": "ResourceConflictRatio",
    "ACL_AICORE_L2_CACHE": "L2Cache",
    "ACL_AICORE_MEMORY_ACCESS": "MemoryAccess",
    "ACL_AICORE_NONE": "None",
}




#: Values nested deeper than this are read as ``null`` (Python's parser fails the whole file near 1,000 levels).
MAX_JSON_DEPTH = 200
#: Integers with more digits than this are read as ``null`` (Python refuses to convert them past 4,300).
MAX_INT_DIGITS = 1_000


def load_json(path: Path) -> tuple[Any, str | None]:
    """Read a JSON file: ``(data, None)``, ``(data, what was read as null)`` or ``(None, reason)`` — never raises.

    One absurd value (a 5,001-digit number, 100,000 levels of nesting in a part no reader looks
    at) does not lose the file: it is read as ``null`` and counted.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"{path.name} cannot be read ({exc.strerror or exc})"
    if not raw.strip():
        return None, f"{path.name} is empty"
    text = raw.decode("utf-8-sig", errors="replace")
    huge: list[str] = []
    notes: list[str] = []
    try:
        try:
            data = json.loads(text, parse_int=lambda digits: _integer(digits, huge))
        except RecursionError:
            text, cut = flatten_deep_json(text, MAX_JSON_DEPTH)
            notes.append(f"{cut} value(s) nested deeper than {MAX_JSON_DEPTH} levels read as null")
            data = json.loads(text, parse_int=lambda digits: _integer(digits, huge))
    except (ValueError, RecursionError) as exc:
        return None, f"{path.name} is not valid JSON ({str(exc)[:200]})"
    if huge:
        notes.append(f"{len(huge)} integer(s) of more than {MAX_INT_DIGITS:,} digits read as null")
    return data, (f"{path.name}: " + "; ".join(notes)) if notes else None


def _integer(digits: str, huge: list[str]) -> int | None:
    """A JSON integer, or ``None`` (counted in ``huge``) when it has more than :data:`MAX_INT_DIGITS` digits."""
    if len(digits) > MAX_INT_DIGITS:
        huge.append(digits[:1])
        return None
    return int(digits)


def flatten_deep_json(text: str, max_depth: int) -> tuple[str, int]:
    """JSON text with every array or object nested deeper than ``max_depth`` replaced by ``null``.

    A scan that knows strings and escapes (only used after the parser gave up on the depth).

    Returns:
        The text and how many values were replaced.
    """
    out: list[str] = []
    depth = cut = 0
    skip_from = -1  # depth at which a replaced value started (-1: copying)
    in_string = escaped = False
    keep_start = 0
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth and skip_from < 0:
                out.append(text[keep_start:i])
                out.append("null")
                skip_from, cut = depth, cut + 1
        elif ch in "]}":
            if skip_from == depth:
                keep_start, skip_from = i + 1, -1
            depth -= 1
    out.append(text[keep_start:] if skip_from < 0 else "")
    return "".join(out), cut


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in {"true", "false"}:
        return value.lower() == "true"
    return None


def parse_profiler_info(data: Any) -> CaptureConfig:
    """Build a :class:`CaptureConfig` from a parsed ``profiler_info*.json``."""
    config = CaptureConfig()
    if not isinstance(data, dict):
        return config
    cfg = _section(data, "config")
    common = _section(cfg, "common_config")
    exp = _section(cfg, "experimental_config")
    _read_experimental_config(config, exp)
    _read_common_config(config, common)
    _read_run_info(config, data)
    return config


def _section(data: dict, key: str) -> dict:
    """``data[key]`` when it is an object, else an empty one."""
    return data.get(key) if isinstance(data.get(key), dict) else {}


def _read_experimental_config(config: CaptureConfig, exp: dict) -> None:
    """Profiler level, AI core metrics, export type and the msprof_tx / simplification switches.

    Args:
        config: The capture configuration, filled in place.
        exp: The ``experimental_config`` object (keys with or without a leading underscore).
    """
    level = exp.get("_profiler_level") or exp.get("profiler_level")
    config.profiler_level = str(level) if isinstance(level, str) else None
    metrics = exp.get("_aic_metrics") or exp.get("aic_metrics")
    if isinstance(metrics, str):
        config.aic_metrics = _AIC_METRICS.get(metrics, metrics)
    export = exp.get("_export_type") or exp.get("export_type")
    if isinstance(export, str):
        config.export_type = [export]
    elif isinstance(export, list):
        config.export_type = [str(x) for x in export]
    config.msprof_tx = _bool(exp.get("_msprof_tx"))
    config.data_simplification = _bool(exp.get("_data_simplification"))


def _read_common_config(config: CaptureConfig, common: dict) -> None:
    """The record_shapes / with_flops / profile_memory switches and the trace handler's worker name.

    Args:
        config: The capture configuration, filled in place.
        common: The ``common_config`` object.
    """
    config.record_shapes = _bool(common.get("record_shapes"))
    config.with_flops = _bool(common.get("with_flops"))
    config.profile_memory = _bool(common.get("profile_memory"))
    trace = common.get("on_trace_ready")
    if isinstance(trace, dict) and isinstance(trace.get("_worker_name"), str):
        config.worker_name = trace["_worker_name"]


def _read_run_info(config: CaptureConfig, data: dict) -> None:
    """The rank id, the torch_npu and CANN versions and the collection end time.

    Args:
        config: The capture configuration, filled in place.
        data: The whole ``profiler_info*.json`` object.
    """
    rank = data.get("rank_id")
    if isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0:
        config.rank_id = rank
    for key in ("torch_npu_version", "cann_version"):
        if isinstance(data.get(key), str):
            config.versions[key] = data[key]
    end = data.get("end_info")
    if isinstance(end, dict) and isinstance(end.get("collectionTimeEnd"), int):
        config.end_ns = end["collectionTimeEnd"]


_INFO_NAME = re.compile(r"^profiler_info(?:_(\d+))?\.json$")


def rank_from_info_name(path: Path) -> int | None:
    """The rank in a ``profiler_info_{rank}.json`` file name (``None`` for ``profiler_info.json``)."""
    match = _INFO_NAME.match(path.name)
    return int(match.group(1)) if match and match.group(1) is not None else None




def parse_device_info(data: Any, path: Path | None = None) -> DeviceInfo | None:
    """Read core count and clock from a parsed ``info.json.N``; ``None`` when absent."""
    if not isinstance(data, dict):
        return None
    devices = data.get("DeviceInfo")
    if not isinstance(devices, list) or not devices or not isinstance(devices[0], dict):
        return None
    dev = devices[0]

    def num(key: str) -> float | None:
        value = dev.get(key)
        try:
            out = float(value)
        except (TypeError, ValueError):
            return None
        return out if out > 0 else None

    cores = num("ai_core_num")
    aiv = num("aiv_num")
    freq = num("aic_frequency")
    rank = data.get("rank_id")
    return DeviceInfo(
        int(cores) if cores else None,
        int(aiv) if aiv else None,
        freq,
        rank if isinstance(rank, int) and rank >= 0 else None,
        path,
    )




def parse_metadata(data: Any) -> ParallelGroups:
    """Parallel groups from a parsed ``profiler_metadata.json``."""
    out = ParallelGroups()
    if not isinstance(data, dict):
        return out
    groups = data.get("parallel_group_info")
    if isinstance(groups, dict):
        out.groups = {str(k): v for k, v in groups.items() if isinstance(v, dict)}
    args = data.get("distributed_args")
    if isinstance(args, dict):
        out.distributed_args = args
    return out
