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
