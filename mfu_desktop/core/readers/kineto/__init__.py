"""PyTorch profiler (Kineto) traces of CUDA and ROCm runs (profiler-formats.md §13)."""
