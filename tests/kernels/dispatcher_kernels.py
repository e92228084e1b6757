"""Kernels for test_dispatcher_gpu.py: what numba's dispatcher gives around a launch, on the GPU."""

import numba_cuda_c as cuda
from numba_cuda_c.random import xoroshiro128p_uniform_float32


def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def print_when(val, to_print):
    if to_print:
        print(val)


def uniform_numbers(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = xoroshiro128p_uniform_float32(states, i)
