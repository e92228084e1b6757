"""Recursive device functions, as numba types them: a declared signature, or the return type the
non-recursive paths give; mutual recursion; runaway recursion is a clear error. Translation in CI,
results on the GPU."""

import numpy as np
import pytest

import numba_cuda_c as cuda
import recursion_kernels as rk
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c.pyjit import KernelTypeError

SIG = "void(float64[::1], int64[::1], float64[::1])"


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def type_change(x, y):
    return x + type_change(x - y, y) if x > 1 and y > 0 else y


@needs_nvrtc
def test_recursive_device_functions_translate():
    ptx, _ = cuda.compile_ptx(rk.kernel, SIG)
    assert ".entry" in ptx


@needs_nvrtc
def test_runaway_recursion_is_refused():
    with pytest.raises(KernelTypeError, match="runaway recursion"):
        cuda.compile_ptx(rk.runaway_kernel, "void(float64[::1])")


@requires_gpu
def test_recursive_device_functions_on_the_gpu():
    r = np.zeros(4)
    x = np.array([10])
    y = np.array([0.125])
    cuda.jit(rk.kernel)[1, 1](r, x, y)
    np.testing.assert_allclose(r, [fib(10), fib(10), type_change(10, 0.125), 1.0])
