"""The PySide6 + pyqtgraph desktop front end of MFU Desktop (no arithmetic of its own)."""
