"""Kernels numba refuses, whose typing errors test_numba_messages.py checks against numba's text."""

import numpy as np

import numba_cuda_c as cuda
from numba_cuda_c import float32

ROWS, COLUMNS = 5, 6


def shape_from_an_element(a):
    s = cuda.shared.array(shape=a[0], dtype=float32)
    a[0] = s[0]


def shape_tuple_with_an_element(a):
    s = cuda.shared.array(shape=(1, a[0]), dtype=float32)
    a[0] = s[0, 0]


def shape_from_a_list(a):
    s = cuda.shared.array(shape=[ROWS, COLUMNS], dtype=float32)
    a[0] = s[0, 0]


def local_shape_by_position(a):
    s = cuda.local.array(a[0], np.float32)
    a[0] = s[0]


@cuda.jit(device=True)
def undefined_inside(x):
    return floor(x)  # noqa: F821  (not defined: the error is the test)


@cuda.jit(device=True)
def calls_undefined_inside(x):
    return undefined_inside(x)


def calls_a_failing_device_function(a):
    a[0] = calls_undefined_inside(1.5)
