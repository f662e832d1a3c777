"""The pipeline, end to end: what the user dropped → ranks → analyses → cluster (here, or on a Dask cluster).

:func:`~.analyze.analyze_paths` runs it in this process (cached); :func:`~.summarize.summarize`
runs one task per rank where the data lives and writes a summary folder; :mod:`.from_summary`
turns a summary folder back into the same folder analysis.
"""
