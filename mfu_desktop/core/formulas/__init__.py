"""Formulas: FLOPs, bytes and MFU of operators and whole models, with their derivations (mfu.md)."""
