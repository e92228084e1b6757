"""Kernels that raise, for tests/kernels/test_kernel_exceptions.py (the translator reads their source here)."""

import numba_cuda_c as cuda


class MyError(Exception):
    pass


def user_raise(do_raise, out):
    out[0] = 1
    if do_raise:
        raise ValueError("bad value")
    out[0] = 2


def my_raise(x, out):
    i = cuda.threadIdx.x
    if i == 3 and x > 0:
        raise MyError("thread three", 42)
    out[i] = i


def divide(r, x, y):
    r[0] = y[0] / x[0]
    r[1] = y[0]


def tuple_index(ary):
    x = cuda.threadIdx.x
    if x == 2:
        ary[0] = ary.shape[-x]


@cuda.jit(device=True)
def check_positive(v):
    if v < 0:
        raise ValueError("negative")
    return v * 2


def via_device_function(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = check_positive(a[i])


def asserts(x, out):
    i = cuda.grid(1)
    assert x > 0, "x must be positive"
    assert x < 100
    out[i] = x
