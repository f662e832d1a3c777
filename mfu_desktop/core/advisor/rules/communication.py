"""Communication not overlapped with computation, split into real transfer and waiting, and who is waited for.

Time at stake: the step trace's ``Communication(Not Overlapped)`` per step — fully hidden behind
computation, the step would lose it. The split (prediction.md §4.1): **transfer** is the real
link time (Σ longest link per collective, from the communication matrix), **waiting** the rest:
time a rank spends in a collective until the others arrive. The slow ranks of the cluster
(step time above the fastest + 5 %) are the ones waited for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mfu_desktop.core.advisor.context import RankContext
from mfu_desktop.core.advisor.finding import Confidence, Evidence, EvidenceKind, Finding, Text
from mfu_desktop.core.advisor.rule import Rule, for_vendor, material, of_step, share, us
from mfu_desktop.core.analysis.classify import KernelClass
from mfu_desktop.core.numbers import finite_number

#: Reported from this share of the step: the last gradient bucket's reduction is rarely hidden.
COMM_SHARE = 0.05

_TRANSFER = Text(
    "Transfer: hide it behind computation — gradient-bucket overlap (DDP bucket_cap_mb; Megatron/MindSpeed "
    "--overlap-grad-reduce and --overlap-param-gather), communication on its own stream, tensor-parallel "
    "collectives fused with their matmuls (MC2: MatmulAllReduce, AllGatherMatmul); or move fewer bytes (BF16 "
    "gradients, a ZeRO stage that shards less often, tensor parallelism kept inside a node) and check the link "
    "({link}).",
    "真实通信：让它与计算重叠——梯度分桶重叠（DDP bucket_cap_mb；Megatron/MindSpeed --overlap-grad-reduce 与 "
    "--overlap-param-gather）、通信放在独立的流上、张量并行的集合通信与其 matmul 融合（MC2：MatmulAllReduce、"
    "AllGatherMatmul）；或减少传输字节（BF16 梯度、切分频率更低的 ZeRO stage、张量并行限制在节点内），并检查链路"
    "（{link}）。",
)
#: The link settings to check, per vendor (Ascend: HCCL over HCCS/RoCE; GPUs: NCCL/RCCL over NVLink/xGMI).
_LINK_ASCEND = Text("HCCS vs RoCE, HCCL_BUFFSIZE, HCCL_INTRA_ROCE_ENABLE",
                    "HCCS 与 RoCE、HCCL_BUFFSIZE、HCCL_INTRA_ROCE_ENABLE")
_LINK_GPU = Text("NVLink/xGMI inside a node vs the network between nodes, NCCL_BUFFSIZE, NCCL_ALGO/NCCL_PROTO; "
                 "on AMD the same NCCL_* variables set RCCL",
                 "节点内 NVLink/xGMI 与节点间网络、NCCL_BUFFSIZE、NCCL_ALGO/NCCL_PROTO；"
                 "AMD 上 RCCL 使用同样的 NCCL_* 变量")

_WAIT = Text(
    "Waiting: this rank sits in collectives until the others arrive. Balance the work across ranks (the slow "
    "ranks' computing below; pipeline stages, uneven sequence lengths, MoE experts), look for a straggler's own "
    "cause (its host, data loading, a throttled device) and synchronise less often (fewer collectives per "
    "step).",
    "等待：该 rank 在集合通信中等待其他 rank 到达。均衡各 rank 的负载（见下方慢 rank 的计算时间；流水线 stage、"
    "不均匀的序列长度、MoE 专家），排查慢 rank 自身的原因（其 host、数据加载、降频的设备），并减少同步次数"
    "（每 step 更少的集合通信）。",
)


class CommunicationNotOverlapped(Rule):
    """Not-overlapped communication, its transfer/wait split, and the slow ranks."""

    id = "comm-not-overlapped"
    title = Text("Communication is not hidden behind computation", "通信未被计算掩盖")

    def check(self, ctx: RankContext) -> Finding | None:
        exposed = ctx.breakdown("comm_not_overlapped")
        if exposed is None or not ctx.step_us or exposed < COMM_SHARE * ctx.step_us or not material(ctx, exposed):
            return None
        transfer = finite_number(ctx.document.get("comm_transfer_us"))
        wait = finite_number(ctx.document.get("comm_wait_us"))
        if transfer is None or wait is None:  # no matrix: all not-overlapped communication counts as waiting
            transfer, wait = 0.0, exposed
        transfer_label = Text("real transfer (longest link per collective)", "真实通信（每个集合通信的最长链路）")
        evidence = [
            Evidence("transfer", transfer_label, EvidenceKind.STEP, None, transfer, transfer),
            Evidence("wait", Text("waiting for the other ranks", "等待其他 rank"), EvidenceKind.STEP, None, wait, wait),
            *_slow_ranks(ctx),
        ]
        comm = ctx.of_class(KernelClass.COMM)
        evidence += ctx.kernel_evidence(comm, None)
        facts = {"transfer_us": transfer, "wait_us": wait, "matrix": "yes" if _has_matrix(ctx, transfer) else "no",
                 "slow_ranks": ", ".join(e.key.removeprefix("rank ") for e in evidence if e.kind is EvidenceKind.RANK),
                 "this_rank_slow": "yes" if ctx.rank.rank in ((ctx.cluster or {}).get("slow_ranks") or []) else "no"}
        return self.finding(ctx, exposed, Confidence.HIGH, evidence=evidence, rows=np.flatnonzero(comm), facts=facts)

    def describe(self, finding: Finding) -> tuple[Text, Text]:
        f = finding.facts
        total = max(finding.time_at_stake_us, 1e-9)
        transfer, wait = float(f.get("transfer_us") or 0.0), float(f.get("wait_us") or 0.0)
        step = of_step(finding)
        summary_en = (f"{us(finding.time_at_stake_us)} of communication per step is not overlapped with "
                      f"computation{step.en}: real transfer {us(transfer)} ({share(transfer / total)}), waiting "
                      f"{us(wait)} ({share(wait / total)}).")
        summary_zh = (f"每 step 有 {us(finding.time_at_stake_us)} 的通信未被计算掩盖{step.zh}：真实通信 {us(transfer)}"
                      f"（{share(transfer / total)}），等待 {us(wait)}（{share(wait / total)}）。")
        if f.get("matrix") == "no":
            summary_en += " No communication matrix: all of it is counted as waiting."
            summary_zh += "没有通信矩阵：全部计为等待。"
        slow = [e for e in finding.evidence if e.kind is EvidenceKind.RANK]
        if slow:
            summary_en += " The slow ranks, waited for: " + "; ".join(e.label.en for e in slow) + "."
            summary_zh += "被等待的慢 rank：" + "；".join(e.label.zh for e in slow) + "。"
        if f.get("this_rank_slow") == "yes":
            summary_en += " This rank is itself one of the slow ranks: the others wait for it."
            summary_zh += "该 rank 本身就是慢 rank：其他 rank 在等它。"
        link = for_vendor(finding, _LINK_ASCEND, _LINK_GPU)
        transfer_advice = Text(_TRANSFER.en.format(link=link.en), _TRANSFER.zh.format(link=link.zh))
        parts = [transfer_advice, _WAIT] if transfer >= wait else [_WAIT, transfer_advice]
        return Text(summary_en, summary_zh), Text(" ".join(p.en for p in parts), "".join(p.zh for p in parts))


def _has_matrix(ctx: RankContext, transfer: float) -> bool:
    """Whether the split had a communication matrix (a rank from a summary: whether it found any transfer)."""
    if ctx.rank.lite:
        return transfer > 0
    comm = ctx.rank.data.comm
    return comm is not None and bool(comm.ops)


def _slow_ranks(ctx: RankContext) -> list[Evidence]:
    """The cluster's slow ranks, each with its step time and computing over the fastest rank's."""
    cluster = ctx.cluster or {}
    slow = set(cluster.get("slow_ranks") or [])
    rows: list[dict[str, Any]] = [r for r in cluster.get("rows") or [] if finite_number(r.get("step_time_us"))]
    if not slow or not rows:
        return []
    fastest = min(rows, key=lambda r: r["step_time_us"])
    out = []
    for row in sorted(rows, key=lambda r: -r["step_time_us"]):
        if row["rank"] not in slow or row["rank"] == ctx.rank.rank:  # a rank does not wait for itself
            continue
        excess = row["step_time_us"] / fastest["step_time_us"] - 1.0
        more = (finite_number(row.get("computing")) or 0.0) - (finite_number(fastest.get("computing")) or 0.0)
        out.append(Evidence(
            f"rank {row['rank']}",
            Text(f"rank {row['rank']}: step +{share(excess)} over the fastest rank {fastest['rank']}, computing "
                 f"{'+' if more >= 0 else '−'}{us(abs(more))}",
                 f"rank {row['rank']}：step 比最快的 rank {fastest['rank']} 长 {share(excess)}，计算时间"
                 f"{'多' if more >= 0 else '少'} {us(abs(more))}"),
            EvidenceKind.RANK, None, row["step_time_us"], None,
            {"step_excess": excess, "computing_excess_us": more}))
    return out


RULE = CommunicationNotOverlapped()
