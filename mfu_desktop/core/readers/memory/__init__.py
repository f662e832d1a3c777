"""Memory data of a capture made with ``profile_memory=True`` (profiler-formats.md §14).

One reader module per source, all turning their files into one :class:`~.records.MemoryData`:
:mod:`.ascend_text` (``ASCEND_PROFILER_OUTPUT/memory_record.csv`` …), :mod:`.msprof_text`
(``mindstudio_profiler_output/memory_record_*.csv`` slices), :mod:`.db` (``MEMORY_RECORD``,
``OP_MEMORY`` … tables) and :mod:`.kineto` (a PyTorch profiler trace's ``[memory]`` events).
:mod:`.enricher` is what the registry knows: it finds the files at discovery and, for each rank
its reader has read, picks the source. The figures (peak, when, what holds it, does it fit) are
worked out by :mod:`mfu_desktop.core.analysis.memory`.
"""
