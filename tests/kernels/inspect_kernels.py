"""Kernels for test_inspection.py (in a file of their own: the mock-driver snippets import it)."""

import numba_cuda_c as cuda


def scale(a, n):
    i = cuda.grid(1)
    x = a[i] * 2.5
    if i < n:
        a[i] = x
