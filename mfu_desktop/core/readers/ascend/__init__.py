"""Ascend profiler output: torch_npu / MindSpore rank folders (text or db export) and msprof ``PROF_*``."""
