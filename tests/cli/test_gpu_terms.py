"""Messages about CUDA/ROCm ranks use the vendor's own terms: no aic_metrics, PipeUtilization, Block Dim on a GPU.

The class check: every text ``mfu analyze`` and ``mfu predict`` print or put in JSON for generated GPU
traces (an NVIDIA one with FP32 matmuls, an AMD GPU-only one, which reaches the fallback tiers) is
searched for the Ascend vocabulary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mfu_desktop.cli.main import main
from mfu_desktop.demo import TraceVariant, write_kineto_trace

ASCEND_ONLY = ("aic_metrics", "PipeUtilization", "Block Dim", "Level0", "Level1", "AI_CPU", "AI CPU", "AI core",
               "cube util", "cube fractal", "cube cores", "cube work", "msprof", "kernel_details")
MI300X = {"id": 0, "name": "AMD Instinct MI300X VF", "totalGlobalMem": 205571227648, "computeMajor": 9,
          "computeMinor": 4, "numSms": 304}


def _texts(value: object) -> list[str]:
    """Every string in a JSON value (messages, reasons, notes)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def _gpu_only_amd(path: Path) -> Path:
    write_kineto_trace(path, steps=2, layers=1, variant=TraceVariant(device=dict(MI300X)))
    doc = json.loads(path.read_text())
    doc.pop("cuda_runtime_version")
    doc["hip_runtime_version"] = 60443483
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "cpu_op"]
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("kind", ["nvidia_fp32", "amd_gpu_only"])
def test_gpu_ranks_are_described_in_the_vendors_terms(tmp_path, capsys, kind):
    if kind == "nvidia_fp32":
        path = tmp_path / "h100.pt.trace.json"
        write_kineto_trace(path, steps=2, layers=1, variant=TraceVariant(fp32=True))
    else:
        path = _gpu_only_amd(tmp_path / "mi300.pt.trace.json")
    texts = []
    for argv in (["analyze", str(path), "--no-cache"], ["predict", str(path), "--targets", "MI300X,H100 SXM"]):
        assert main(argv) == 0
        out, err = capsys.readouterr()
        texts += [out, err]
        assert main([*argv, "--json"]) == 0
        out, _ = capsys.readouterr()
        texts += _texts(json.loads(out))
    found = {term for term in ASCEND_ONLY for text in texts if term.lower() in text.lower()}
    assert not found, found
    joined = "\n".join(texts)
    if kind == "amd_gpu_only":  # the fallback tiers say why in AMD's words
        assert "no Matrix Core utilisation (rocprof counters)" in joined
        assert "304 CUs" in joined and "grid/workgroup" in joined
        assert "record_shapes=True" in joined
