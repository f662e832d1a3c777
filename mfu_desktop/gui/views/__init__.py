"""Plug-in views of the Profiler tab: one module per view, registered in :mod:`.registry`."""
