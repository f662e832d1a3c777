"""Advice speaks the rank's vendor: HCCL/HCCS and torch_npu settings on Ascend, NCCL/NVLink and GPU kernels on GPUs."""

from __future__ import annotations

import pytest

from mfu_desktop.core.advisor.finding import Confidence, Finding, Text
from mfu_desktop.core.advisor.rules import communication, data_movement


def _finding(rule: str, vendor: str, **facts) -> Finding:
    return Finding(rule, Text("t"), 1000.0, 10_000.0, Confidence.HIGH, facts={"vendor": vendor, **facts})


@pytest.mark.parametrize(("vendor", "said", "not_said"), [
    ("Huawei", ("HCCS", "HCCL_BUFFSIZE"), ("NCCL", "NVLink")),
    ("NVIDIA", ("NCCL_BUFFSIZE", "NVLink"), ("HCCL", "HCCS")),
    ("AMD", ("RCCL", "xGMI"), ("HCCL", "HCCS")),
])
def test_communication_link_advice_per_vendor(vendor, said, not_said):
    finding = _finding("comm-not-overlapped", vendor, transfer_us=800.0, wait_us=200.0, matrix="yes")
    _summary, advice = communication.RULE.describe(finding)
    for word in said:
        assert word in advice.en and word in advice.zh
    for word in not_said:
        assert word not in advice.en and word not in advice.zh


def test_data_movement_advice_per_vendor():
    ascend = data_movement.RULE.describe(_finding("data-movement", "Huawei", kernels_n=10.0, casts_us=0.0))[1]
    gpu = data_movement.RULE.describe(_finding("data-movement", "NVIDIA", kernels_n=10.0, casts_us=0.0))[1]
    assert "TransData" in ascend.en and "allow_internal_format" in ascend.zh
    assert "TransData" not in gpu.en and "torch_npu" not in gpu.en and "torch_npu" not in gpu.zh
    assert "Memcpy DtoD" in gpu.en and "channels_last" in gpu.en
    assert "{" not in ascend.en + ascend.zh + gpu.en + gpu.zh  # every placeholder filled


def test_a_rule_records_the_ranks_vendor(tmp_path):
    from tests.advisor.profiles import CLEAN, K, write_profile
    from tests.advisor.test_rules import check

    nonzero = K("NonZero_1", "NonZero", "AI_CPU", 500.0, "4096", "INT64", "4096,1", "INT64", block=1)
    f = check("aicpu-fallback", write_profile(tmp_path, [[*CLEAN, nonzero]]))
    assert f.facts["vendor"] == "Huawei"
