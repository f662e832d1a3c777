"""MFU Desktop: Model FLOPs Utilization for Ascend NPU (and other accelerator) profiles.

Architecture (data walks one way)::

    folder ─► core.profiler.discovery (ranks) ─► core.profiler readers (canonical kernel frame)
           ─► core.analysis (annotated frame: FLOPs, peak, MFU, status, reason)
           ─► core.analysis aggregates / core.predict predictions
           ─► gui models + charts, cli printers, core.report exporters

* ``mfu_desktop.core`` is the engine: pure Python + numpy/pandas/pyarrow, no Qt (an
  import-linter contract in ``pyproject.toml`` enforces it). Everything the app shows is
  computed there and can be reproduced with the ``mfu`` command line.
* ``mfu_desktop.gui`` is the PySide6 + pyqtgraph front end; it formats and displays but does
  no arithmetic of its own.
* ``mfu_desktop.cli`` is the ``mfu`` command.

Adding an operator type whose FLOPs can be counted: write one function in
``core/flops_registry.py`` (shape strings in, :class:`~mfu_desktop.core.formulas.registry.FlopEstimate`
out), register it with ``@register("TypePrefix")`` and add a test with hand-computed values.
"""

__version__ = "0.1.0"
