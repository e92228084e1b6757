"""A kernel taking generator states (test_package_names.py declares it with cuda.random.xoroshiro128p_type)."""

import numba_cuda_c as cuda
from numba_cuda_c.random import xoroshiro128p_uniform_float32


def uniform_numbers(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = xoroshiro128p_uniform_float32(states, i)
