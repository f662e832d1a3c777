"""Profiler files: discovery of rank folders and the readers of every format (profiler-formats.md).

Every reader returns the canonical frames (:mod:`.columns`); nothing downstream re-parses files.
"""
