"""Kernels for test_syntax_gaps.py (in a file of their own: the translator reads their source). Each writes what it
computes into `out`; most are plain Python too, so that the same function run on the host with NumPy arrays is a
reference, and numba-cuda compiles each (test_syntax_gaps.as_numba rebinds `cuda`)."""

import enum
import operator

import numpy as np

import numba_cuda_c as cuda

SCALE = 3


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Shape(enum.IntEnum):
    CIRCLE = 1
    SQUARE = 2


class Planet(enum.Enum):
    EARTH = (5.97e24, 6.37e6)
    MARS = (6.42e23, 3.39e6)


def apply(f, x):
    return f(x)


apply_device = cuda.jit(device=True)(apply)


def chained(out, x):
    a = b = 0
    c = d = x * 2
    e, f = g = (x, 1.5)
    out[0] = out[1] = c + d
    out[2] = a + b + c + d + e + f + g[0] + g[1]


def walrus(out, x):
    # numba-cuda 0.30 types a walrus whose value is stored, not one inside an operation (below)
    y = (z := x * 3)
    out[0] = y + z
    out[1] = (w := z + 1)
    out[2] = w
    out[3] = y


def walrus_in_expressions(out, x):
    # compared with Python alone: numba-cuda 0.30 cannot type a walrus in a comparison or an operation
    n = 0
    steps = 0
    while (n := n + x) < 100:
        steps += 1
    out[0] = n
    out[1] = steps
    if (y := x * 3) > 5 and (z := y + 1) > 0:
        out[2] = z
    out[3] = y


def lambdas(out, x):
    square = lambda v: v * v  # noqa: E731
    offset = x + 1
    shifted = lambda v, w=2: v * offset + w  # noqa: E731  (reads offset where it is called)
    out[0] = square(x) + shifted(3)
    out[1] = shifted(3, 0)
    out[2] = apply_device(lambda q: q + 100 + SCALE, x)  # a lambda passed on: constants only


def escapes(out, x):
    offset = x + 1
    out[0] = apply_device(lambda v: v * offset, x)  # numba's error: offset would escape


def tuples(out, x):
    t = (x, 2, 3.5)
    u = t[1:]
    v = t + (x,)
    w = t[::-1]
    out[0] = u[0] + v[3] + w[0] + len(t[:2]) + len(v)
    s = (1,)
    s = s + (x,)  # numba-cuda 0.30 has no `+=` for tuples
    out[1] = s[1]


def ranges(out, n):
    r = range(2, n, 3)
    total = 0
    for i in r:
        total += i
    for k, i in enumerate(range(n)):
        total += k * i
    backwards = range(n, 0, -2)
    for k, i in enumerate(backwards):
        total += k + i
    out[0] = total
    out[1] = len(r) + len(backwards) + len(range(n, 0))
    out[2] = r.start + r.stop + r.step


def enums(out, x):
    out[0] = Color.RED.value + Planet.EARTH.value[1]
    out[1] = Color.RED == Color.GREEN
    out[2] = Color.RED != Color.GREEN
    out[3] = Color.RED is Color.RED
    out[4] = Shape.CIRCLE == 1
    out[5] = Planet.EARTH == Planet.MARS
    out[6] = x == Color.GREEN.value
    out[7] = Shape.SQUARE + x


def array_attributes(out, a):
    out[0] = a.itemsize + a.nbytes
    s = 0.0
    for v in a.flat:
        s += v
    for k, v in enumerate(a.flat):
        s += k * v
    a.flat[0] = 5.0
    out[1] = s + a.flat[a.size - 1]
    for index in np.ndindex(a.shape):
        s += a[index]
    for i, j in np.ndindex(2, 3):
        s += i * 10 + j
    out[2] = s
    out[3] = a.dtype.type(2.75) + np.dtype(np.float32).type(1.5)


def in_place_operators(out, x, y):
    out[0] = operator.iand(x, y)
    out[1] = operator.ior(x, y)
    out[2] = operator.ixor(x, y)
    out[3] = operator.ilshift(x, 2)
    out[4] = operator.irshift(x, 1)
    out[5] = operator.imod(x, y)
    out[6] = operator.ifloordiv(x, y)
    out[7] = operator.ipow(x, 2)
    out[8] = operator.isub(x, y)
    out[9] = operator.contains((1, 2, 3), y) + operator.getitem((4, 5, 6), 1)


def more_operator_functions(out, x, y):  # numba-cuda's typing of these on numbers is not asked of it here
    out[0] = operator.concat((x,), (5,))[1]
    out[1] = operator.is_(x, x)
    out[2] = operator.is_not(x, y)


N = 3


def folded_shapes(out):
    a = cuda.local.array(1 << 4, np.int32)
    b = cuda.shared.array((2**4, N // 2 + 1, ~-3), np.int32)
    c = cuda.local.array(max(N, 2) * 2, np.int32)
    d = cuda.local.array(abs(-N) + len((1, 2)), np.int32)
    e = cuda.local.array(int(4.0) - (N if N > 2 else 1), np.int32)
    f = cuda.local.array(min(N, 8) % 2 + (64 >> 3) - 2 ** (N - 1), np.int32)
    out[0] = a.size
    out[1] = b.size
    out[2] = c.size
    out[3] = d.size
    out[4] = e.size
    out[5] = f.size


def asserted(out, x):
    assert x > 0, "x must be positive"
    out[0] = x


def half_functions(out, x, y):
    out[0] = cuda.fp16.htanh(x)
    out[1] = cuda.fp16.htanh_approx(x)
    out[2] = cuda.fp16.__hgeu(x, y)
    out[3] = cuda.fp16.__half2int_rn(x)
    out[4] = cuda.fp16.__hadd_sat(x, y)
    out[5] = cuda.fp16.__hisinf(x)
    out[6] = cuda.fp16.__ushort_as_half(cuda.fp16.__half_as_ushort(x))
    out[7] = cuda.fp16.__hmax_nan(x, y)


def bfloat16_functions(out, x, y):
    bx, by = cuda.bf16.float32_to_bfloat16(x), cuda.bf16.float32_to_bfloat16(y)
    out[0] = cuda.bf16.hgeu(bx, by)
    out[1] = cuda.bf16.hltu(bx, by)
    out[2] = cuda.bf16.bfloat16_to_float32(cuda.bf16.htanh(bx))
    out[3] = cuda.bf16.hequ(bx, by)


def bfloat16_constructor(out, x):
    out[0] = cuda.bf16.bfloat16(x) + cuda.fp16.__half(x)
