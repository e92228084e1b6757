"""Enums for tests/kernels/test_enums_and_cache_hints.py, and kernels that use them (numba's test_enums, in
short)."""

from enum import Enum, IntEnum
import numba_cuda_c as cuda
from numba_cuda_c import int16, int32


class Color(Enum):
    red = 1
    green = 2


class Shape(IntEnum):
    circle = 1
    square = 2


class RequestError(IntEnum):
    dummy = 2
    not_found = 404
    internal_error = 500


def f(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


def g(out):
    out[0] = Color.red == Color.green
    out[1] = Color["red"] == Color["green"]


def h(x, out):
    if x > int16(RequestError.internal_error):
        out[0] = x - int32(RequestError.not_found)
    else:
        out[0] = x + Shape.circle


def cache_hints(r, x):
    for i in range(len(r)):
        r[i] = cuda.ldcs(x, i) + cuda.ldcg(x, i)
        cuda.stwt(r, i, r[i] + cuda.ldca(x, i))


def every_cache_hint(r, x):
    # each load hint reads one element, each store hint writes one: r[k] = x[k] for k < 9, through all nine
    cuda.stcg(r, 0, cuda.ldca(x, 0))
    cuda.stcs(r, 1, cuda.ldcg(x, 1))
    cuda.stwb(r, 2, cuda.ldcs(x, 2))
    cuda.stwt(r, 3, cuda.ldlu(x, 3))
    cuda.stcg(r, 4, cuda.ldcv(x, 4))
    r[5] = cuda.ldca(x, 5)
    cuda.stcs(r, 6, x[6])
    cuda.stwb(r, 7, x[7])
    cuda.stwt(r, 8, x[8])


def every_cache_hint_2d(r, x):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if (i + j) % 2:
                cuda.stcs(r, (i, j), cuda.ldcv(x, (i, j)))
            else:
                cuda.stwb(r, (i, j), cuda.ldlu(x, (i, j)))


def cache_hints_through_a_pointer(ptr, values, n):
    for i in range(n):
        cuda.stcs(ptr, i, values[i])
    for i in range(n):
        values[i] = cuda.ldcv(ptr, i)
