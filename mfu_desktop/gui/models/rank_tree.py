"""Tree of dropped roots and their ranks (rank id, chip, MFU, tier badge, warnings)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel

from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.numbers import pct, pct_range
from mfu_desktop.gui.core_text import rank_count
from mfu_desktop.gui.tooltips import wrap_tip

ROLE_KIND = Qt.ItemDataRole.UserRole + 1  # "root", "cluster", "rank", "failed"
ROLE_INDEX = Qt.ItemDataRole.UserRole + 2  # position in FolderAnalysis.ranks / failures
#: The column of a rank's chip.
CHIP_COLUMN = 1
#: The column of "⚠ N" (a rank's warnings), "slow: …" (the cluster) and a failure's reason.
WARNINGS_COLUMN = 4


class RankTreeModel(QStandardItemModel):
    """Rows: a cluster node (several ranks), then one node per dropped root with its ranks."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels([self.tr("Rank"), self.tr("Chip"), self.tr("MFU"), self.tr("Tier"),
                                        "⚠", self.tr("Source")])
        # the warnings column is titled by its sign (a word would widen it past a laptop's tree): named in the tooltip
        self.horizontalHeaderItem(WARNINGS_COLUMN).setToolTip(self.tr("Warnings"))

    def one_chip(self) -> bool:
        """True when every rank row names the same chip (the column then tells nothing apart)."""
        chips = set()
        for r in range(self.rowCount()):
            node = self.item(r, 0)
            for c in range(node.rowCount()):
                if node.child(c, 0).data(ROLE_KIND) == "rank":
                    chips.add(node.child(c, CHIP_COLUMN).text())
        return len(chips) <= 1

    def set_analysis(self, result: FolderAnalysis) -> None:
        """Rebuild from an analysis."""
        self.removeRows(0, self.rowCount())
        labels = result.labels() if result.ranks else []
        by_root: dict[str, list[int]] = {}
        for i, r in enumerate(result.ranks):
            by_root.setdefault(str(r.folder.root), []).append(i)
        failed_by_root: dict[str, list[int]] = {}
        for i, f in enumerate(result.failures):
            failed_by_root.setdefault(str(f.folder.root), []).append(i)
        if len(result.ranks) > 1:  # one cluster node for every loaded rank, whatever root they came from
            cluster = QStandardItem(self.tr("Cluster ({0})").format(rank_count(len(result.ranks))))
            cluster.setData("cluster", ROLE_KIND)
            rate = result.cluster.rate
            mfu = pct(rate.mfu) if rate.mfu is not None else (
                pct_range(*rate.mfu_range) if rate.mfu_range else "–")
            slow = result.cluster.slow
            slow_text = ", ".join(self.tr("rank {0} (+{1} %)").format(r, f"{e * 100:.2g}")
                                  for r, e in result.cluster.slow_rank_excess())
            slow_item = QStandardItem(self.tr("slow: {0}").format(slow_text) if slow else "")
            slow_item.setToolTip(slow_item.text())
            row = [cluster, QStandardItem(""), QStandardItem(mfu), QStandardItem(""), slow_item, QStandardItem("")]
            for item in row:
                item.setEditable(False)
            self.appendRow(row)
        roots = [str(p) for p in result.discovery.roots]
        for root in roots:
            rank_ids = by_root.get(root, [])
            failed = failed_by_root.get(root, [])
            node = QStandardItem(Path(root).name or root)
            node.setToolTip(root)
            node.setData("root", ROLE_KIND)
            extra = [QStandardItem(rank_count(len(rank_ids))), QStandardItem(""), QStandardItem(""),
                     QStandardItem(str(len(failed)) if failed else ""), QStandardItem("")]
            for item in (node, *extra):
                item.setEditable(False)
            for i in rank_ids:
                r = result.ranks[i]
                s = r.summary
                name = labels[i]
                item = QStandardItem(name.label)
                item.setToolTip(f"{name.label}\n{name.source}\n{r.folder.path}")
                item.setData("rank", ROLE_KIND)
                item.setData(i, ROLE_INDEX)
                mfu = pct(s.mfu_ops) if s.mfu_ops is not None else (
                    pct_range(*s.mfu_ops_range) if s.mfu_ops_range else "–")
                chip = QStandardItem(rank_chip_label(r.folder.vendor, s.chip, self.tr("not confirmed")))
                chip.setToolTip(f"{r.folder.vendor} · {r.folder.reader}\n{s.chip or ''}\n{s.peak_source}".strip())
                tier = QStandardItem(f"T{s.tier.tier}")
                tier.setToolTip(s.tier.label + ("\n" + "\n".join(s.tier.why) if s.tier.why else ""))
                rgb = (40, 160, 80) if s.tier.tier == 1 else (200, 140, 30) if s.tier.tier == 2 else (200, 70, 60)
                tier.setForeground(QBrush(QColor(*rgb)))
                warn = QStandardItem(f"⚠ {len(r.warnings)}" if r.warnings else "")
                warn.setToolTip(wrap_tip("\n".join(r.warnings[:20]) + ("\n…" if len(r.warnings) > 20 else "")
                                         + "\n\n" + self.tr("Click: every warning of this rank (Assumptions)"))
                                if r.warnings else "")
                source = QStandardItem(f"{name.format} · {name.level}" if name.level else name.format)
                source.setToolTip(name.source)
                row = [item, chip, QStandardItem(mfu), tier, warn, source]
                if s.rank in result.cluster.slow:
                    item.setText(item.text() + "  " + self.tr("(slow)"))
                for cell in row:
                    cell.setEditable(False)
                node.appendRow(row)
            for i in failed:
                f = result.failures[i]
                item = QStandardItem(self.tr("{0} — not loaded").format(f.folder.path.name))
                item.setData("failed", ROLE_KIND)
                item.setData(i, ROLE_INDEX)
                item.setToolTip(wrap_tip(f.reason))
                item.setForeground(QBrush(QColor(200, 70, 60)))
                reason = QStandardItem(f.reason)
                reason.setToolTip(wrap_tip(f.reason))
                row = [item, QStandardItem(""), QStandardItem(""), QStandardItem(""), reason, QStandardItem("")]
                for cell in row:
                    cell.setEditable(False)
                node.appendRow(row)
            # the node joins the model with its ranks attached: one insertion for the view, not one per rank
            self.appendRow([node, *extra])


def rank_chip_label(vendor: str, chip: str | None, unconfirmed: str) -> str:
    """The chip column of a rank: Ascend ranks by their short name, GPU ranks with their vendor.

    ``Ascend 910B2``; ``NVIDIA H100 SXM``; ``AMD · not confirmed`` — so a tree holding Ascend ranks
    and GPU traces says which is which.
    """
    if vendor in ("Huawei", ""):
        return short_chip(chip) if chip else unconfirmed
    return chip if chip else f"{vendor} · {unconfirmed}"


def short_chip(identifier: str) -> str:
    """``Huawei Ascend 910B2`` → ``Ascend 910B2`` for narrow columns (the tooltip keeps the full name)."""
    for vendor in ("Huawei ", "NVIDIA ", "AMD ", "Google ", "Intel "):
        if identifier.startswith(vendor):
            return identifier[len(vendor):]
    return identifier
