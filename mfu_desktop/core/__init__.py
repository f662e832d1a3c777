"""The MFU engine: FLOP formulas, MFU arithmetic, chip catalog, profiler analysis, prediction.

Nothing in this package imports Qt; the CLI, the GUI and the tests all call the same
functions.
"""
