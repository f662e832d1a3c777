"""Readers: every profiler file MFU Desktop reads, turned into the canonical frames (profiler-formats.md).

One subpackage per format family (:mod:`.ascend`, :mod:`.kineto`, :mod:`.mstx`); the formats are
listed once, in :mod:`.registry`; :mod:`.discovery` finds ranks by asking them.
"""
