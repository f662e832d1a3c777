"""The Profiler tab's plug-in views, in tab order (after Charts, Kernels and Roofline).

A new view is one module in this package (a :class:`~mfu_desktop.gui.views.base.ProfilerView`)
and one line in :data:`PROFILER_VIEWS`: its ``--view`` name and where its class lives. The names
are read without importing Qt (``mfu-desktop --help`` on a machine without a display); the
classes are imported when the tab is built.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    from mfu_desktop.gui.views.base import ProfilerView

#: Views that are part of the Profiler tab itself (not plug-ins), by their ``--view`` name.
BUILT_IN_VIEWS = ("charts", "kernels", "roofline", "heat-map")

#: Every plug-in view: (``--view`` name, ``"module:Class"``), in the order its tab appears.
PROFILER_VIEWS: list[tuple[str, str]] = [
    ("memory", "mfu_desktop.gui.views.memory:MemoryView"),
    ("timeline", "mfu_desktop.gui.views.timeline:TimelineView"),
    ("advisor", "mfu_desktop.gui.views.advisor:AdvisorView"),
]


def profiler_view_names() -> tuple[str, ...]:
    """Every name ``--view`` accepts: the built-in views, then the plug-ins."""
    return (*BUILT_IN_VIEWS, *(name for name, _ in PROFILER_VIEWS))


def view_classes() -> list[type[ProfilerView]]:
    """The plug-in view classes, imported, in tab order."""
    classes = []
    for name, where in PROFILER_VIEWS:
        module, _, attr = where.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        if cls.name != name:
            raise ValueError(f"view {where} calls itself {cls.name!r}, registered as {name!r}")
        classes.append(cls)
    return classes
