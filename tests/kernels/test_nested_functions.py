"""Functions defined inside kernels and device functions (numba's make_function), and device functions called
as Python binds calls: defaults, keyword arguments, *args. A nested function closes over the enclosing
function's constants, is called or passed on as a value; capturing anything else is numba's error.
Translation in CI; results against the same Python on the host, on the GPU."""

import numpy as np
import pytest

import nested_kernels as nk
import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c.pyjit import KernelTypeError


@needs_nvrtc
def test_nested_functions_translate():
    cuda.compile_ptx(nk.kernel, "void(int64[::1], int64)")


@needs_nvrtc
def test_captures_numba_refuses_are_refused_in_its_words():
    with pytest.raises(
        KernelTypeError, match="Cannot capture a constant value for variable 'x' as there are multiple"
    ):
        cuda.compile_ptx(nk.multiply_defined, "int64(int64)", device=True)
    with pytest.raises(KernelTypeError, match="Cannot capture the non-constant value associated with variable 'z'"):
        cuda.compile_ptx(nk.captures_a_variable, "int64(int64)", device=True)


@needs_nvrtc
def test_calls_bind_as_python_binds_them():
    def two(a, b=1):
        return a + b

    device = cuda.jit(device=True)(two)

    def bad_keyword(out):
        out[0] = device(1, c=2)

    def too_many(out):
        out[0] = device(1, 2, 3)

    def missing(out):
        out[0] = device(b=2)

    for kernel, message in (
        (bad_keyword, "unexpected keyword argument 'c'"),
        (too_many, "takes 2 positional arguments but 3 were given"),
        (missing, "missing required argument 'a'"),
    ):
        with pytest.raises(KernelTypeError, match=message):
            cuda.compile_ptx(kernel, "void(int64[::1])")


@requires_gpu
def test_nested_functions_on_the_gpu():
    out = np.zeros(4, np.int64)
    cuda.jit(nk.kernel)[1, 1](out, 5)
    escape, closure, nested, defaults = nk.HOST_IMPLS
    assert list(out) == [escape(), closure(5), nested(), defaults()]
