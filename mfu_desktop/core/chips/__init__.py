"""Chips: the catalog of accelerators (peaks, bandwidths, sources), the user's own rows, compute dtypes."""
