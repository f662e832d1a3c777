"""MSTX marks in the Ascend profiler database: what a kernel alone does not record (§4.3)."""
