"""The advisor's rules: one module each, registered by one line in :mod:`mfu_desktop.core.advisor.registry`."""
