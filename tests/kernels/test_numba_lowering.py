"""Builtins lowered as numba-cuda lowers them, where the choice shows in results or in the PTX that
numba's users inspect: min/max of two floats are CUDA's fmin/fmax (NaN-ignoring, max.f32/max.f64), abs of a
half is __habs (abs.f16). PTX checks in CI; results on the GPU."""

import math

import numpy as np

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu


def min_max(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = max(a[i], b[i])
        out[i, 1] = min(a[i], b[i])


@needs_nvrtc
def test_min_max_of_two_floats_are_fmax_and_fmin():
    for a, b, width in (
        ("float32", "float32", "f32"),
        ("float32", "float64", "f64"),
        ("float64", "float64", "f64"),
    ):
        ptx, _ = cuda.compile_ptx(min_max, "void(%s[::1], %s[::1], float64[:, ::1])" % (a, b))
        assert "max.%s" % width in ptx and "min.%s" % width in ptx


@requires_gpu
def test_min_max_of_floats_ignore_nan_on_the_gpu():
    a = np.array([1.0, math.nan, 3.0, math.nan], np.float32)
    b = np.array([2.0, 5.0, math.nan, math.nan], np.float32)
    out = np.zeros((4, 2))
    cuda.jit(min_max)[1, 32](a, b, out)
    np.testing.assert_array_equal(out[:, 0], np.fmax(a, b))
    np.testing.assert_array_equal(out[:, 1], np.fmin(a, b))


def half_abs(r, x):
    r[0] = abs(x[0])


@needs_nvrtc
def test_abs_of_a_half_is_cudas_half_abs():
    ptx, _ = cuda.compile_ptx(half_abs, "void(float16[::1], float16[::1])", cc=(9, 0))
    assert "abs.f16" in ptx


@requires_gpu
def test_abs_of_halves_on_the_gpu():
    x = np.array([-1.5, 2.25, -0.0, -np.inf], np.float16)
    r = np.zeros(1, np.float16)
    kernel = cuda.jit(half_abs)
    for value in x:
        kernel[1, 1](r, np.array([value], np.float16))
        assert r[0] == abs(value) and not np.signbit(r[0])
