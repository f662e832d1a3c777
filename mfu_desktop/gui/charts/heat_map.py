"""Rank heat map: every rank of a cluster as a cell of a grid, coloured by a per-step figure.

Ranks fill the grid row by row in rank order (32 per row for a thousand ranks). Hovering a cell
names the rank and its value; clicking it selects the rank. The metrics are the cluster
table's per-step means (the same figures as the Ranks table and ``mfu analyze``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mfu_desktop.core.numbers import pct, sig
from mfu_desktop.gui.charts.common import ChartPage

#: Display scale per metric kind: µs → ms, fraction → %, MB → GB (binary, as the catalog's memory_gb).
_SCALE = {"ms": 1e-3, "pct": 100.0, "gb": 1 / 1024}
#: Cells get their rank number written in them up to this many ranks.
LABELLED_CELLS = 256


class RankHeatMap(QWidget):
    """Ranks in a grid, colour = the chosen metric; hover for values, click to select a rank."""

    rank_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: (column of the cluster table, label, kind): kind "ms" (µs shown in ms), "pct", or "gb" (MB shown in GB).
        self.metrics = [
            ("step_time_us", self.tr("step time (ms per step)"), "ms"),
            ("mfu_step", self.tr("step MFU"), "pct"),
            ("mfu_ops", self.tr("operator MFU"), "pct"),
            ("comm_wait_us", self.tr("communication wait (ms per step)"), "ms"),
            ("comm_not_overlapped", self.tr("communication not overlapped (ms per step)"), "ms"),
            ("free", self.tr("free time (ms per step)"), "ms"),
            ("peak_reserved_mb", self.tr("peak memory reserved (GB)"), "gb"),
            ("memory_share", self.tr("memory used of the chip's capacity"), "pct"),
        ]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Colour by")))
        self.metric = QComboBox()
        for key, label, _ in self.metrics:
            self.metric.addItem(label, key)
        self.metric.currentIndexChanged.connect(self._draw)
        row.addWidget(self.metric)
        row.addStretch(1)
        self.hover = QLabel("")
        row.addWidget(self.hover)
        layout.addLayout(row)
        self.view = pg.GraphicsLayoutWidget()
        self.plot = self.view.addPlot()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.invertY(True)
        self.plot.setAspectLocked(True)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setStyle(showValues=False)
            self.plot.getAxis(axis).setTicks([])
        self.image = pg.ImageItem()
        self.plot.addItem(self.image)
        self.labels: list[pg.TextItem] = []
        self.colorbar = pg.ColorBarItem(colorMap=pg.colormap.get("viridis"), interactive=False, width=14)
        self.colorbar.setImageItem(self.image, insert_in=self.plot)
        holder = QWidget()
        self.page = ChartPage(holder, self.view)
        layout.addWidget(holder, 1)
        self.table = pd.DataFrame()
        self.columns = 1
        self.ranks = np.zeros(0, dtype=np.int64)
        self.values = np.zeros(0)
        self.view.scene().sigMouseMoved.connect(self._moved)
        self.view.scene().sigMouseClicked.connect(self._clicked)

    def set_data(self, table: pd.DataFrame | None) -> None:
        """``table``: the cluster table (one row per rank: rank and the metric columns)."""
        self.table = table if table is not None else pd.DataFrame()
        self._draw()

    def _metric(self) -> tuple[str, str, str]:
        key = self.metric.currentData()
        return next(m for m in self.metrics if m[0] == key)

    def _draw(self) -> None:
        table = self.table
        key, label, kind = self._metric()
        if table.empty or "rank" not in table:
            self.page.show_message(self.tr("Rank heat map: load a profile with several ranks, or a cluster summary."))
            return
        table = table.sort_values("rank", kind="stable")
        self.ranks = table["rank"].to_numpy(dtype=np.int64)
        n = len(self.ranks)
        raw = (pd.to_numeric(table[key], errors="coerce").to_numpy(dtype=np.float64) if key in table
               else np.full(n, np.nan))
        self.values = raw
        if not np.isfinite(raw).any():
            self.page.show_message(self.tr("No rank has {0} in this profile.").format(label))
            return
        self.page.show_plot()
        self.columns = max(1, min(32, math.ceil(math.sqrt(n * 2))))
        rows = math.ceil(n / self.columns)
        grid = np.full(rows * self.columns, np.nan)
        grid[:n] = raw * _SCALE[kind]
        finite = grid[np.isfinite(grid)]
        lo, hi = float(finite.min()), float(finite.max())
        if hi <= lo:
            hi = lo + (abs(lo) * 0.01 or 1.0)
        self.image.setImage(grid.reshape(rows, self.columns).T, autoLevels=False)  # image axes: x = column
        self.colorbar.setLevels((lo, hi))
        self.plot.setRange(xRange=(0, self.columns), yRange=(0, rows), padding=0.02)
        self.plot.setTitle(label)
        self._label_cells(n)

    def _label_cells(self, n: int) -> None:
        """Rank numbers in the cells while they are few enough to read (≤ :data:`LABELLED_CELLS`)."""
        for item in self.labels:
            self.plot.removeItem(item)
        self.labels = []
        if n > LABELLED_CELLS:
            return
        for i, rank in enumerate(self.ranks.tolist()):
            item = pg.TextItem(str(rank), color=(255, 255, 255), anchor=(0.5, 0.5))
            item.setPos(i % self.columns + 0.5, i // self.columns + 0.5)
            self.plot.addItem(item)
            self.labels.append(item)

    def _cell(self, scene_pos: QPointF) -> int | None:
        """Index (into the rank order) of the cell under a scene position, or ``None``."""
        if not self.plot.sceneBoundingRect().contains(scene_pos) or len(self.ranks) == 0:
            return None
        point = self.plot.vb.mapSceneToView(scene_pos)
        col, row = math.floor(point.x()), math.floor(point.y())
        if col < 0 or col >= self.columns or row < 0:
            return None
        index = row * self.columns + col
        return index if index < len(self.ranks) else None

    def value_text(self, index: int) -> str:
        """"rank 5: 80.2 ms" for the current metric."""
        _, _, kind = self._metric()
        value = self.values[index]
        if not np.isfinite(value):
            text = "–"
        elif kind == "pct":
            text = pct(value)
        elif kind == "gb":
            text = f"{value / 1024:,.1f} GB"
        else:
            text = f"{sig(value / 1000)} ms"
        return self.tr("rank {0}: {1}").format(int(self.ranks[index]), text)

    def _moved(self, scene_pos: QPointF) -> None:
        index = self._cell(scene_pos)
        self.hover.setText(self.value_text(index) if index is not None else "")

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        index = self._cell(event.scenePos())
        if index is not None:
            self.rank_clicked.emit(int(self.ranks[index]))

    def click_rank_at(self, index: int) -> None:
        """Select the rank of cell ``index`` (as a click would; for tests and keyboard use)."""
        if 0 <= index < len(self.ranks):
            self.rank_clicked.emit(int(self.ranks[index]))
