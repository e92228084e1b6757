"""Numbers in @cuda.jit kernels on the GPU: Python's integer semantics (floor division and modulo of negative
operands, int64 wrap-around, int32 arithmetic done in int64, powers, bitwise operators and intrinsics), math
functions, casts and the builtins abs, min, max and round.

Each kernel runs on fresh random inputs and is checked against NumPy (or the same Python function run on the
host). Kernels are defined at module level (the translator reads their source).
"""

import math

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from jit_helpers import blocks, rng  # noqa: F401  (rng: a fixture)
from numba_cuda_c import float32

pytestmark = requires_gpu


# ---------------------------------------------------------------------------------------------
# Python's integer semantics
# ---------------------------------------------------------------------------------------------


@cuda.jit
def floordiv_mod(a, b, q, r):
    i = cuda.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_int_floordiv_mod_negative_operands(rng, dtype):
    n = 10_000
    hi = min(np.iinfo(dtype).max, 10**6)
    a = rng.integers(-hi, hi, n).astype(dtype)
    b = rng.integers(-50, 50, n).astype(dtype)
    b[b == 0] = 3
    a[:8] = [7, -7, 7, -7, 0, -1, 1, -6]
    b[:8] = [2, 2, -2, -2, -5, 3, -3, 3]
    d_q, d_r = cuda.device_array(n, np.int64), cuda.device_array(n, np.int64)
    floordiv_mod[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_q, d_r)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(d_q.copy_to_host(), np.floor_divide(a64, b64))
    r = d_r.copy_to_host()
    np.testing.assert_array_equal(r, np.mod(a64, b64))
    assert (np.sign(r[r != 0]) == np.sign(b64[r != 0])).all()  # the remainder takes the divisor's sign
    assert (r < 0).any() and (np.floor_divide(a64, b64) != np.trunc(a64 / b64)).any()  # negatives were tested


def test_float_floordiv_mod_negative_operands(rng):
    n = 10_000
    a = rng.standard_normal(n) * 100
    b = rng.standard_normal(n) * 10
    b[np.abs(b) < 1e-3] = 0.5
    a[:6] = [7.5, -7.5, 7.5, -7.5, 1.0, -1.0]
    b[:6] = [2.0, 2.0, -2.0, -2.0, 0.1, 0.1]  # 1.0 // 0.1 is 9.0 in Python (and numba), not 10.0
    d_q, d_r = cuda.device_array(n), cuda.device_array(n)
    floordiv_mod[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_q, d_r)
    q, r = d_q.copy_to_host(), d_r.copy_to_host()
    np.testing.assert_array_equal(q[:6], [a[k] // b[k] for k in range(6)])
    assert q[4] == 9.0 and q[5] == -10.0
    np.testing.assert_array_equal(q, np.floor_divide(a, b))
    np.testing.assert_allclose(r, np.mod(a, b), rtol=1e-12, atol=1e-12)


@cuda.jit
def wrapping(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] * b[i] + a[i]
        out[i, 1] = a[i] - b[i]
        out[i, 2] = -a[i]


def test_int64_overflow_wraps(rng):
    n = 4096
    info = np.iinfo(np.int64)
    a = rng.integers(info.min, info.max, n, dtype=np.int64)
    b = rng.integers(info.min, info.max, n, dtype=np.int64)
    a[0], b[0] = info.max, 1  # max * 1 + max wraps
    a[1], b[1] = info.min, 1  # min - 1 wraps to max
    d_out = cuda.device_array((n, 3), np.int64)
    wrapping[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_out)
    with np.errstate(over="ignore"):
        expected = np.stack([a * b + a, a - b, -a], axis=1)
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)
    assert d_out.copy_to_host()[1, 1] == info.max


def test_int32_arithmetic_is_int64_then_stored(rng):
    n = 4096
    a = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    wide = cuda.device_array((n, 3), np.int64)
    wrapping[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), wide)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    with np.errstate(over="ignore"):
        expected = np.stack([a64 * b64 + a64, a64 - b64, -a64], axis=1)
    np.testing.assert_array_equal(wide.copy_to_host(), expected)  # int32 * int32 computes in int64
    narrow = cuda.device_array((n, 3), np.int32)
    wrapping[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), narrow)
    np.testing.assert_array_equal(narrow.copy_to_host(), expected.astype(np.int32))


@cuda.jit
def powers(ib, ie, fb, fe, iout, fout):
    i = cuda.grid(1)
    if i < ib.size:
        iout[i] = ib[i] ** ie[i]  # int ** int: an int
        fout[i, 0] = fb[i] ** fe[i]  # float ** float
        fout[i, 1] = fb[i] ** ie[i]  # float ** int
        fout[i, 2] = fb[i] ** 2
        fout[i, 3] = fb[i] ** 0.5
        fout[i, 4] = ib[i] ** 2.0  # int ** float: a float


def test_power_int_and_float(rng):
    n = 5000
    ib = rng.integers(-9, 10, n).astype(np.int64)
    ie = rng.integers(0, 13, n).astype(np.int64)
    fb = rng.uniform(0.5, 2.0, n)
    fe = rng.uniform(-3.0, 3.0, n)
    d_iout = cuda.device_array(n, np.int64)
    d_fout = cuda.device_array((n, 5), np.float64)
    powers[blocks(n, 128), 128](
        cuda.to_device(ib), cuda.to_device(ie), cuda.to_device(fb), cuda.to_device(fe), d_iout, d_fout
    )
    np.testing.assert_array_equal(d_iout.copy_to_host(), np.power(ib, ie))
    fout = d_fout.copy_to_host()
    np.testing.assert_allclose(fout[:, 0], np.power(fb, fe), rtol=1e-13)
    np.testing.assert_allclose(fout[:, 1], np.power(fb, ie.astype(np.float64)), rtol=1e-13)
    np.testing.assert_allclose(fout[:, 2], fb * fb, rtol=1e-15)
    np.testing.assert_allclose(fout[:, 3], np.sqrt(fb), rtol=1e-14)
    np.testing.assert_array_equal(fout[:, 4], ib.astype(np.float64) ** 2)


@cuda.jit
def float32_powers(x, n, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] ** n[i]  # float32 ** int64 stays float32, as numba
        out[i, 1] = x[i] ** float32(1.5)


def test_power_float32(rng):
    size = 2000
    x = rng.uniform(0.5, 1.5, size).astype(np.float32)
    n = rng.integers(0, 8, size).astype(np.int64)
    d_out = cuda.device_array((size, 2), np.float32)
    float32_powers[blocks(size, 128), 128](cuda.to_device(x), cuda.to_device(n), d_out)
    out = d_out.copy_to_host()
    np.testing.assert_allclose(out[:, 0], x.astype(np.float64) ** n, rtol=4e-6)
    np.testing.assert_allclose(out[:, 1], x.astype(np.float64) ** 1.5, rtol=1e-6)


@cuda.jit
def bit_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] & b[i]
        out[i, 1] = a[i] | b[i]
        out[i, 2] = a[i] ^ b[i]
        out[i, 3] = ~a[i]
        out[i, 4] = a[i] >> 3
        out[i, 5] = a[i] << 2


def test_bitwise_operators(rng):
    n = 3000
    a = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    b = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    d_out = cuda.device_array((n, 6), np.int64)
    bit_ops[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_out)
    expected = np.stack([a & b, a | b, a ^ b, ~a, a >> 3, a << 2], axis=1)
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)


@cuda.jit
def bit_intrinsics(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.popc(x[i])
        out[i, 1] = cuda.clz(x[i])
        out[i, 2] = cuda.brev(x[i])


def test_bit_intrinsics(rng):
    n = 2000
    x = rng.integers(1, 2**32 - 1, n, dtype=np.int64).astype(np.uint32)
    d_out = cuda.device_array((n, 3), np.int64)
    bit_intrinsics[blocks(n, 128), 128](cuda.to_device(x), d_out)
    out = d_out.copy_to_host()
    bits = [format(int(v), "032b") for v in x]
    np.testing.assert_array_equal(out[:, 0], [s.count("1") for s in bits])
    np.testing.assert_array_equal(out[:, 1], [len(s) - len(s.lstrip("0")) for s in bits])
    np.testing.assert_array_equal(out[:, 2], [int(s[::-1], 2) for s in bits])


# ---------------------------------------------------------------------------------------------
# math functions, casts, builtins
# ---------------------------------------------------------------------------------------------


@cuda.jit
def math_functions(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sqrt(v)
        out[i, 1] = math.exp(v)
        out[i, 2] = math.log(v)
        out[i, 3] = math.sin(v)
        out[i, 4] = math.cos(v)
        out[i, 5] = math.tanh(v)
        out[i, 6] = math.atan2(v, y[i])
        out[i, 7] = math.hypot(v, y[i])
        out[i, 8] = math.log1p(v)
        out[i, 9] = math.expm1(v)
        out[i, 10] = math.pow(v, y[i])
        out[i, 11] = math.fabs(y[i])
        out[i, 12] = math.log10(v)
        out[i, 13] = math.erf(y[i])
        out[i, 14] = math.copysign(v, y[i])
        out[i, 15] = math.fmod(y[i], v)


def _expected_math(x, y):
    return np.stack(
        [
            np.sqrt(x),
            np.exp(x),
            np.log(x),
            np.sin(x),
            np.cos(x),
            np.tanh(x),
            np.arctan2(x, y),
            np.hypot(x, y),
            np.log1p(x),
            np.expm1(x),
            np.power(x, y),
            np.fabs(y),
            np.log10(x),
            np.array([math.erf(float(v)) for v in y], dtype=x.dtype),
            np.copysign(x, y),
            np.fmod(y, x),
        ],
        axis=1,
    )


def test_math_float64(rng):
    n = 4000
    x = rng.uniform(0.01, 5.0, n)
    y = rng.uniform(-3.0, 3.0, n)
    d_out = cuda.device_array((n, 16), np.float64)
    math_functions[blocks(n, 128), 128](cuda.to_device(x), cuda.to_device(y), d_out)
    np.testing.assert_allclose(d_out.copy_to_host(), _expected_math(x, y), rtol=1e-13, atol=1e-15)


def test_math_float32(rng):
    n = 4000
    x = rng.uniform(0.01, 5.0, n).astype(np.float32)
    y = rng.uniform(-3.0, 3.0, n).astype(np.float32)
    d_out = cuda.device_array((n, 16), np.float32)
    math_functions[blocks(n, 128), 128](cuda.to_device(x), cuda.to_device(y), d_out)
    expected = _expected_math(x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(d_out.copy_to_host(), expected, rtol=1e-6, atol=1e-6)


@cuda.jit
def math_to_int(x, ints, flags):
    i = cuda.grid(1)
    if i < x.size:
        if math.isfinite(x[i]):  # NaN and infinities have no int
            ints[i, 0] = math.floor(x[i])
            ints[i, 1] = math.ceil(x[i])
            ints[i, 2] = math.trunc(x[i])
        else:
            ints[i, 0] = -1
            ints[i, 1] = -2
            ints[i, 2] = -3
        flags[i, 0] = math.isnan(x[i])
        flags[i, 1] = math.isinf(x[i])
        flags[i, 2] = math.isfinite(x[i])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_math_floor_and_predicates(rng, dtype):
    n = 3000
    x = (rng.standard_normal(n) * 50).astype(dtype)
    x[:4] = [-2.5, 2.5, -0.0, 3.0]
    special = rng.choice(np.arange(10, n), 60, replace=False)
    x[special[:20]] = np.nan
    x[special[20:40]] = np.inf
    x[special[40:]] = -np.inf
    finite = np.isfinite(x)
    d_ints = cuda.device_array((n, 3), np.int64)
    d_flags = cuda.device_array((n, 3), np.bool_)
    math_to_int[blocks(n, 128), 128](cuda.to_device(x), d_ints, d_flags)
    ints = d_ints.copy_to_host()
    np.testing.assert_array_equal(ints[finite, 0], np.floor(x[finite]).astype(np.int64))
    np.testing.assert_array_equal(ints[finite, 1], np.ceil(x[finite]).astype(np.int64))
    np.testing.assert_array_equal(ints[finite, 2], np.trunc(x[finite]).astype(np.int64))
    np.testing.assert_array_equal(ints[~finite], np.tile([-1, -2, -3], (int((~finite).sum()), 1)))
    np.testing.assert_array_equal(ints[:4, 0], [-3, 2, 0, 3])
    flags = d_flags.copy_to_host()
    np.testing.assert_array_equal(flags[:, 0], np.isnan(x))
    np.testing.assert_array_equal(flags[:, 1], np.isinf(x))
    np.testing.assert_array_equal(flags[:, 2], finite)


@cuda.jit
def casts(x, k, out64, out32, ints):
    i = cuda.grid(1)
    if i < x.size:
        ints[i] = int(x[i])  # truncates toward zero
        out64[i, 0] = float(k[i]) / 3
        out64[i, 1] = cuda.float32(x[i])  # rounded to float32, then widened
        out64[i, 2] = np.float32(x[i])
        out64[i, 3] = float32(k[i])
        out32[i] = np.float32(x[i]) * np.float32(3)  # float32 * float32 stays float32
        out64[i, 4] = cuda.int32(k[i])  # wraps to 32 bits


def test_casts(rng):
    n = 3000
    x = rng.standard_normal(n) * 1e3
    k = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    d_out64 = cuda.device_array((n, 5), np.float64)
    d_out32 = cuda.device_array(n, np.float32)
    d_ints = cuda.device_array(n, np.int64)
    casts[blocks(n, 128), 128](cuda.to_device(x), cuda.to_device(k), d_out64, d_out32, d_ints)
    out64 = d_out64.copy_to_host()
    np.testing.assert_array_equal(d_ints.copy_to_host(), x.astype(np.int64))
    np.testing.assert_array_equal(out64[:, 0], k.astype(np.float64) / 3)
    np.testing.assert_array_equal(out64[:, 1], x.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(out64[:, 2], x.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(out64[:, 3], k.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(out64[:, 4], k.astype(np.int32).astype(np.float64))
    np.testing.assert_array_equal(d_out32.copy_to_host(), x.astype(np.float32) * np.float32(3))
    assert (out64[:, 1] != x).any()  # the float32 rounding happened


@cuda.jit
def builtins_kernel(x, y, k, out_f, out_i):
    i = cuda.grid(1)
    if i < x.size:
        out_f[i, 0] = abs(x[i])
        out_f[i, 1] = min(x[i], y[i])
        out_f[i, 2] = max(x[i], y[i], 0.25)
        out_i[i, 0] = abs(k[i])
        out_i[i, 1] = round(x[i])  # half to even, as Python
        out_i[i, 2] = min(k[i], 3)
        out_i[i, 3] = max(k[i], -2)
        out_i[i, 4] = len(x)


def test_abs_min_max_round(rng):
    n = 3000
    x = rng.standard_normal(n) * 10
    y = rng.standard_normal(n) * 10
    x[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5]
    k = rng.integers(-10, 10, n)
    d_f = cuda.device_array((n, 3))
    d_i = cuda.device_array((n, 5), np.int64)
    builtins_kernel[blocks(n, 128), 128](cuda.to_device(x), cuda.to_device(y), cuda.to_device(k), d_f, d_i)
    out_f, out_i = d_f.copy_to_host(), d_i.copy_to_host()
    np.testing.assert_array_equal(out_f[:, 0], np.abs(x))
    np.testing.assert_array_equal(out_f[:, 1], np.minimum(x, y))
    np.testing.assert_array_equal(out_f[:, 2], np.maximum(np.maximum(x, y), 0.25))
    np.testing.assert_array_equal(out_i[:, 0], np.abs(k))
    np.testing.assert_array_equal(out_i[:, 1], [round(float(v)) for v in x])
    np.testing.assert_array_equal(out_i[:8, 1], [0, 2, 2, 0, -2, -2, 4, -4])
    np.testing.assert_array_equal(out_i[:, 2], np.minimum(k, 3))
    np.testing.assert_array_equal(out_i[:, 3], np.maximum(k, -2))
    assert (out_i[:, 4] == n).all()
