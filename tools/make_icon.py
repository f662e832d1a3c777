"""Draw the application icon (resources/icons/mfu-desktop.png, 256 px) with QPainter.

A rounded tile with three bars rising towards a dashed peak line: utilisation against the
peak. Run once after changing the design; the PNG is committed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter, QPen

ROOT = Path(__file__).resolve().parents[1]


def draw(size: int = 256) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size / 256.0
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(28, 58, 110))
    p.drawRoundedRect(QRectF(8 * s, 8 * s, 240 * s, 240 * s), 44 * s, 44 * s)
    colors = (QColor(224, 120, 42), QColor(230, 190, 40), QColor(46, 170, 90))
    heights = (70, 120, 165)
    for i, (color, h) in enumerate(zip(colors, heights)):
        p.setBrush(color)
        x = (44 + i * 60) * s
        p.drawRoundedRect(QRectF(x, (212 - h) * s, 44 * s, h * s), 8 * s, 8 * s)
    pen = QPen(QColor(255, 255, 255), 8 * s, Qt.PenStyle.DashLine)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    p.drawLine(int(32 * s), int(38 * s), int(224 * s), int(38 * s))
    p.end()
    return image


def main() -> int:
    QGuiApplication(sys.argv[:1])
    target = ROOT / "resources" / "icons" / "mfu-desktop.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    draw(256).save(str(target))
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
