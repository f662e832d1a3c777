"""Analysis of one rank: annotate every kernel (FLOPs, bytes, peak, MFU, bound), aggregate, judge (mfu.md §2–§6)."""
