"""pyqtgraph charts: hot operators, per-kernel MFU scatter, step breakdown, prediction results."""

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
