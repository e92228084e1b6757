"""Recursive device functions, as numba types them: a declared signature, or the return type the
non-recursive paths give; mutual recursion; runaway recursion is a clear error. Translation in CI,
results on the GPU."""

import os

import numpy as np
import pytest

import numba_cuda_c as cuda
import recursion_kernels as rk
from gpu import needs_nvrtc, requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
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
    r = np.zeros(5)
    x = np.array([10])
    y = np.array([0.125])
    cuda.jit(rk.kernel)[1, 1](r, x, y)
    np.testing.assert_allclose(r, [fib(10), fib(10), type_change(10, 0.125), 1.0, fib(10)])


def test_a_recursive_kernel_raises_its_context_s_stack(mock_driver):
    """ptxas cannot bound a recursive call chain's stack: loading such a kernel raises the context's
    per-thread stack limit (the mock driver records it); a kernel without recursion leaves it."""
    out = run_mock(
        r"""
import sys
sys.path.insert(0, %r)
import recursion_kernels as rk
from numba_cuda_c.pyjit.kernel_loader import RECURSION_STACK_BYTES
lib = mock.lib
plain = cuda.jit("void(float64[::1])")(rk.runaway_kernel.__globals__["plain_kernel"])
assert lib.mock_stack_limit() == 1024, lib.mock_stack_limit()
cuda.jit("void(float64[::1], int64[::1], float64[::1])")(rk.kernel)
assert lib.mock_stack_limit() == RECURSION_STACK_BYTES, lib.mock_stack_limit()
print("ok")
"""
        % os.path.dirname(__file__)
    )
    assert out.strip().endswith("ok")
