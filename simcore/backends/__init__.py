"""Backends: the CPU (numba) helpers here; the GPU path is imported lazily where needed."""
