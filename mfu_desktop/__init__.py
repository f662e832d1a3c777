"""MFU Desktop: Model FLOPs Utilization for Ascend NPU (and other accelerator) profiles.

Architecture (data walks one way; docs/architecture.md is the map)::

    readers → analysis → cluster → store → predict → pipeline → compare → report → cli | gui

* ``mfu_desktop.core`` is the engine: pure Python + numpy/pandas/pyarrow, no Qt; its packages
  are layered in that order (import-linter contracts in ``pyproject.toml``). Everything the app
  shows is computed there and can be reproduced with the ``mfu`` command line.
* ``mfu_desktop.gui`` is the PySide6 + pyqtgraph front end; it formats and displays but does
  no arithmetic of its own.
* ``mfu_desktop.cli`` is the ``mfu`` command, one module per command.

Adding an operator type whose FLOPs can be counted: write one function in
``core/formulas/ascend_ops.py`` (or ``aten_ops.py``) — shape strings in,
:class:`~mfu_desktop.core.formulas.registry.FlopEstimate` out — register it with
``@register("TypePrefix")`` and add a test with hand-computed values.
"""

__version__ = "0.1.0"
