"""numba.cuda.kernels: the ready-made kernels numba ships (transpose; reduction's Reduce)."""
