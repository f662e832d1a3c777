"""Builders of the validation corpus (``resources/accuracy_corpus.csv``), one module per public source.

Each builder returns :class:`~tools.corpus.rows.Measurement` rows: one operator measured on one
chip, with its FLOPs and bytes per call worked out by the engine's own formulas
(:func:`~mfu_desktop.core.formulas.flop_rules.estimate`, :func:`~mfu_desktop.core.formulas.bytes.min_bytes`),
so the corpus feeds the predictor exactly what a profile would.
"""
