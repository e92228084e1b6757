"""0-d arrays in kernels (numba's r[()] = x[()] + y[()]): arguments, captured device arrays, constant
arrays from globals, and the whole-array reductions over them. Translation in CI; results on the GPU."""

import numpy as np

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu

ZERO_D = np.array(7.5)


def add_0d(r, x, y):
    r[()] = x[()] + y[()] + 1


def reductions_0d(out, x):
    out[0] = x.sum() + x.size + x.ndim
    out[1] = np.count_nonzero(ZERO_D)
    out[2] = ZERO_D[()]


@needs_nvrtc
def test_zero_dimensional_arrays_translate():
    zero_d = "Array(float64, 0, 'C')"
    cuda.compile_ptx(add_0d, "void(%s, %s, %s)" % (zero_d, zero_d, zero_d))
    cuda.compile_ptx(reductions_0d, "void(float64[::1], Array(float64, 0, 'C'))")


@requires_gpu
def test_zero_dimensional_arrays_on_the_gpu():
    r = cuda.to_device(np.array(0.0))
    cuda.jit(add_0d)[1, 1](r, cuda.to_device(np.array(2.0)), np.array(3.0))
    assert r.copy_to_host()[()] == 6.0
    out = np.zeros(3)
    cuda.jit(reductions_0d)[1, 1](out, np.array(4.0))
    np.testing.assert_array_equal(out, [4.0 + 1 + 0, 1.0, 7.5])

    captured = cuda.to_device(np.array(9.0))

    @cuda.jit
    def read_captured(out):
        out[0] = captured[()]

    one = np.zeros(1)
    read_captured[1, 1](one)
    assert one[0] == 9.0


def index_by_0d(r, ary, i):
    r[()] = ary[i]


@needs_nvrtc
def test_a_0d_integer_array_indexes():
    cuda.compile_ptx(index_by_0d, "void(Array(int64, 0, 'C'), int64[::1], Array(int64, 0, 'C'))")


@requires_gpu
def test_a_0d_integer_array_indexes_on_the_gpu():
    r = np.array(0)
    cuda.jit(index_by_0d)[1, 1](r, np.arange(10, 20), np.array(3))
    assert r[()] == 13
