"""@cuda.jit kernels over complex numbers, float16 and tuples, on the GPU, against the same Python
functions run on the host (complex: Python's complex and cmath) or NumPy (float16).

The functions that compute are plain module-level Python functions: the host calls them directly
and kernels call them as device functions (cuda.jit(device=True) of the same function).
"""

import cmath
import math

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import numba_cuda_or_skip, requires_gpu
from numba_cuda_c.pyjit import KernelTypeError

pytestmark = requires_gpu


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print("random seed:", seed)
    return np.random.default_rng(seed)


def blocks(n, tpb):
    return (n + tpb - 1) // tpb


def random_complex(rng, n, dtype=np.complex128, scale=2.0):
    return (rng.uniform(-scale, scale, n) + 1j * rng.uniform(-scale, scale, n)).astype(dtype)


# ---------------------------------------------------------------------------------------------
# complex numbers
# ---------------------------------------------------------------------------------------------


def complex_arithmetic(z, w, k):
    a = z * w + z / w - z**2 + w**3
    b = (a - 1j) * k + 2 - abs(z) + z.conjugate() * w.real - w.imag
    if z != w and not (z == 0):
        b += 1
    b -= z**-2
    c = complex(z.real, -w.imag) + complex(k)
    return b + c * 0.5


complex_arithmetic_device = cuda.jit(device=True)(complex_arithmetic)


@cuda.jit
def complex_arithmetic_kernel(z, w, k, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = complex_arithmetic_device(z[i], w[i], k)


@pytest.mark.parametrize("k", [3, 0.25, 1.5 - 2j])
def test_complex_arithmetic_as_python(rng, k):
    n = 2000
    z, w = random_complex(rng, n), random_complex(rng, n)
    out = cuda.device_array(n, np.complex128)
    complex_arithmetic_kernel[blocks(n, 128), 128](cuda.to_device(z), cuda.to_device(w), k, out)
    expected = np.array([complex_arithmetic(complex(a), complex(b), k) for a, b in zip(z, w)])
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-12)


def complex_powers(z, w):
    return z**w + z**0.5 + z**3 + (2 + 0j) ** z


complex_powers_device = cuda.jit(device=True)(complex_powers)


@cuda.jit
def complex_powers_kernel(z, w, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = complex_powers_device(z[i], w[i])


def test_complex_power_as_python(rng):
    n = 1000
    z, w = random_complex(rng, n, scale=1.5), random_complex(rng, n, scale=1.5)
    out = cuda.device_array(n, np.complex128)
    complex_powers_kernel[blocks(n, 128), 128](cuda.to_device(z), cuda.to_device(w), out)
    expected = np.array([complex_powers(complex(a), complex(b)) for a, b in zip(z, w)])
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-11)


CMATH = [
    "exp",
    "log",
    "log10",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
]


@cuda.jit
def cmath_kernel(z, out, parts, flags):
    i = cuda.grid(1)
    if i < z.size:
        v = z[i]
        out[i, 0] = cmath.exp(v)
        out[i, 1] = cmath.log(v)
        out[i, 2] = cmath.log10(v)
        out[i, 3] = cmath.sqrt(v)
        out[i, 4] = cmath.sin(v)
        out[i, 5] = cmath.cos(v)
        out[i, 6] = cmath.tan(v)
        out[i, 7] = cmath.sinh(v)
        out[i, 8] = cmath.cosh(v)
        out[i, 9] = cmath.tanh(v)
        out[i, 10] = cmath.asin(v)
        out[i, 11] = cmath.acos(v)
        out[i, 12] = cmath.atan(v)
        out[i, 13] = cmath.asinh(v)
        out[i, 14] = cmath.acosh(v)
        out[i, 15] = cmath.atanh(v)
        r, phi = cmath.polar(v)
        parts[i, 0] = r
        parts[i, 1] = phi
        parts[i, 2] = cmath.phase(v)
        back = cmath.rect(r, phi)
        parts[i, 3] = abs(back - v)
        flags[i, 0] = cmath.isnan(v + cmath.nan)  # (v / 0j raises ZeroDivisionError, ending the thread)
        flags[i, 1] = cmath.isinf(v * 1e308 * 1e308)
        flags[i, 2] = cmath.isfinite(v)


def test_cmath_functions_as_python(rng):
    n = 500
    z = random_complex(rng, n, scale=1.8)
    out = cuda.device_array((n, len(CMATH)), np.complex128)
    parts = cuda.device_array((n, 4), np.float64)
    flags = cuda.device_array((n, 3), np.bool_)
    cmath_kernel[blocks(n, 64), 64](cuda.to_device(z), out, parts, flags)
    got = out.copy_to_host()
    for column, name in enumerate(CMATH):
        expected = np.array([getattr(cmath, name)(complex(v)) for v in z])
        np.testing.assert_allclose(got[:, column], expected, rtol=1e-9, atol=1e-12, err_msg="cmath." + name)
    p = parts.copy_to_host()
    np.testing.assert_allclose(p[:, 0], np.abs(z), rtol=1e-15)
    np.testing.assert_allclose(p[:, 1], np.angle(z), rtol=1e-15)
    np.testing.assert_array_equal(p[:, 1], p[:, 2])
    assert p[:, 3].max() < 1e-14
    np.testing.assert_array_equal(flags.copy_to_host(), np.tile([True, True, True], (n, 1)))


@cuda.jit
def complex64_shared(z, scale, out):
    tile = cuda.shared.array(64, np.complex64)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    if i < z.size:
        tile[t] = z[i] * scale
    cuda.syncthreads()
    if i < z.size:
        neighbour = tile[(t + 1) % 64]
        out[i] = tile[t] + neighbour * np.float32(0.5)


def test_complex64_arrays_shared_memory_and_scalar_argument(rng):
    n = 64 * 20
    z = random_complex(rng, n, np.complex64)
    out = cuda.device_array(n, np.complex64)
    scale = np.complex64(0.5 - 0.25j)
    complex64_shared[n // 64, 64](cuda.to_device(z), scale, out)
    tiles = (z * scale).reshape(-1, 64)
    expected = (tiles + np.roll(tiles, -1, axis=1) * np.float32(0.5)).ravel()
    got = out.copy_to_host()
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_complex64_kernel_types_stay_single_precision():
    def scale(z, out):
        out[0] = z[0] * np.float32(2) + 1  # complex64 * float32 + int64 -> complex128, stored as complex64

    ptx = cuda.compile_ptx(scale, "void(complex64[:], complex64[:])")[0]
    assert "f32" in ptx


@cuda.jit
def complex_ordering(z, out):
    out[0] = z[0] < z[1]


@cuda.jit
def complex_to_float(z, out):
    out[0] = z[0]


def test_complex_errors_name_the_line():
    d = cuda.to_device(np.zeros(2, np.complex128))
    with pytest.raises(KernelTypeError, match=r"test_jit_types.py:\d+: complex numbers are not ordered"):
        complex_ordering[1, 1](d, cuda.device_array(1, np.bool_))
    with pytest.raises(KernelTypeError, match=r"cannot convert complex128 to float64.*\n\s+out\[0\] = z\[0\]"):
        complex_to_float[1, 1](d, cuda.device_array(1, np.float64))


# ---------------------------------------------------------------------------------------------
# float16
# ---------------------------------------------------------------------------------------------


@cuda.jit
def half_arithmetic(a, b, k, out16, out32):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i] + b[i]  # float16
        y = x * k - a[i] / b[i]  # still float16
        out16[i, 0] = x
        out16[i, 1] = y
        out16[i, 2] = -y if y > x else y
        out16[i, 3] = abs(a[i])
        out16[i, 4] = a[i] * np.int8(3)  # float16 with int8: float16
        out32[i, 0] = a[i] * np.float32(1.5)  # with float32: float32
        out32[i, 1] = a[i] ** 2  # numba-cuda computes half powers in float32
        out32[i, 2] = a[i] // b[i]


def test_float16_arithmetic_as_numpy(rng):
    n = 4000
    a = rng.uniform(-4, 4, n).astype(np.float16)
    b = rng.uniform(0.5, 4, n).astype(np.float16)
    k = np.float16(1.25)
    out16 = cuda.device_array((n, 5), np.float16)
    out32 = cuda.device_array((n, 3), np.float32)
    half_arithmetic[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), k, out16, out32)
    h16, h32 = out16.copy_to_host(), out32.copy_to_host()
    x = a + b
    y = x * k - a / b
    np.testing.assert_allclose(h16[:, 0].astype(np.float32), x.astype(np.float32), rtol=1e-3)
    np.testing.assert_allclose(h16[:, 1].astype(np.float32), y.astype(np.float32), rtol=2e-3, atol=4e-3)
    np.testing.assert_array_equal(h16[:, 3], np.abs(a))
    np.testing.assert_allclose(h16[:, 4].astype(np.float32), (a * np.float16(3)).astype(np.float32), rtol=1e-3)
    np.testing.assert_array_equal(h32[:, 0], a.astype(np.float32) * np.float32(1.5))
    np.testing.assert_allclose(h32[:, 1], a.astype(np.float32) ** 2, rtol=1e-6)
    np.testing.assert_array_equal(h32[:, 2], np.floor_divide(a.astype(np.float32), b.astype(np.float32)))


@cuda.jit
def half_math(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = math.sin(a[i]) + math.sqrt(abs(a[i]))


def test_float16_math_is_float16(rng):
    n = 1000
    a = rng.uniform(-3, 3, n).astype(np.float16)
    out = cuda.device_array(n, np.float16)
    half_math[blocks(n, 128), 128](cuda.to_device(a), out)
    a32 = a.astype(np.float32)
    expected = (np.sin(a32).astype(np.float16) + np.sqrt(np.abs(a32)).astype(np.float16)).astype(np.float32)
    np.testing.assert_allclose(out.copy_to_host().astype(np.float32), expected, rtol=2e-3, atol=2e-3)


# ---------------------------------------------------------------------------------------------
# tuples
# ---------------------------------------------------------------------------------------------


def split(x, n):
    return x // n, x % n


split_device = cuda.jit(device=True)(split)


@cuda.jit
def tuple_variables(a, out):
    i = cuda.grid(1)
    if i < a.size:
        t = (a[i], i)  # (float64, int64)
        t = (t[1], t[0])  # swaps through temporaries; item types unify
        q, r = split_device(i, 7)  # a device function returning a tuple
        dims = (10, 20, 30, 40)
        pick = dims[i % 4] + dims[-1 - i % 4]  # variable indices into a tuple of one type
        shape = a.shape
        out[i, 0] = t[0]
        out[i, 1] = t[1]
        out[i, 2] = q * 100 + r
        out[i, 3] = pick + shape[0]


def test_tuples_in_variables_and_device_function_returns(rng):
    n = 300
    a = rng.standard_normal(n)
    out = cuda.device_array((n, 4))
    tuple_variables[blocks(n, 64), 64](cuda.to_device(a), out)
    got = out.copy_to_host()
    i = np.arange(n)
    dims = np.array([10, 20, 30, 40])
    np.testing.assert_array_equal(got[:, 0], i)
    np.testing.assert_array_equal(got[:, 1], a)
    np.testing.assert_array_equal(got[:, 2], (i // 7) * 100 + i % 7)
    np.testing.assert_array_equal(got[:, 3], dims[i % 4] + dims[-1 - i % 4] + n)


# ---------------------------------------------------------------------------------------------
# math functions returning tuples, and round(x, ndigits)
# ---------------------------------------------------------------------------------------------


@cuda.jit
def math_tuples(x, out, exponents):
    i = cuda.grid(1)
    if i < x.size:
        m, e = math.frexp(x[i])
        f, whole = math.modf(x[i])
        out[i, 0] = m
        exponents[i] = e
        out[i, 1] = f
        out[i, 2] = whole
        out[i, 3] = math.ldexp(m, e)
        out[i, 4] = math.remainder(x[i], 0.75)
        out[i, 5] = round(x[i], 2)
        out[i, 6] = round(x[i] * 1000, -2)


def test_frexp_modf_ldexp_remainder_round_digits_as_python(rng):
    n = 1000
    x = rng.uniform(-50, 50, n)
    out = cuda.device_array((n, 7))
    exponents = cuda.device_array(n, np.int32)
    math_tuples[blocks(n, 128), 128](cuda.to_device(x), out, exponents)
    got, e = out.copy_to_host(), exponents.copy_to_host()
    frexp = [math.frexp(v) for v in x]
    modf = [math.modf(v) for v in x]
    np.testing.assert_array_equal(got[:, 0], [m for m, _ in frexp])
    np.testing.assert_array_equal(e, [k for _, k in frexp])
    np.testing.assert_array_equal(got[:, 1], [f for f, _ in modf])
    np.testing.assert_array_equal(got[:, 2], [w for _, w in modf])
    np.testing.assert_array_equal(got[:, 3], x)
    np.testing.assert_array_equal(got[:, 4], [math.remainder(v, 0.75) for v in x])
    np.testing.assert_allclose(got[:, 5], [round(v, 2) for v in x], rtol=1e-15)
    np.testing.assert_allclose(got[:, 6], [round(v * 1000, -2) for v in x], rtol=1e-15)


@cuda.jit
def round_digits(out32, x32, out64, x64, digits):
    for i in range(x32.size):
        out32[i] = round(x32[i], digits[i])
        out64[i] = round(x64[i], digits[i])


def _numba_round_digits(x, digits):
    """numba-cuda's round(x, ndigits) (CPython's fallback double_round, in its types): in double, the power of ten by
    squaring (split in two past 22 digits; infinite past 308), rounded to an int64 (saturating, as llrint), back."""
    x = float(x)
    if math.isinf(x) or math.isnan(x):
        return x
    power = lambda k: math.inf if k > 308 else float(10**k)  # noqa: E731 -- exact to 1e22, as squaring is
    pow2 = 1.0
    if digits >= 0:
        pow1 = power(digits - 22 if digits > 22 else digits)
        pow2 = 1e22 if digits > 22 else 1.0
        y = (x * pow1) * pow2
        if math.isinf(y):
            return x
    else:
        pow1 = power(-digits)
        y = x / pow1

    def llrint(v):
        return 0 if math.isnan(v) else max(-(2**63), min(2**63 - 1, round(v)))

    z = float(llrint(y))
    if abs(y - z) == 0.5:
        z = 2.0 * llrint(y / 2.0)
    return (z / pow2) / pow1 if digits >= 0 else z * pow1


def test_round_digits_works_in_double_precision_as_numba():
    # float32 0.3425 is 0.34250000119...: 343 in double (numba's and Python's answer), a tie (342) in float32;
    # past 22 digits the power of ten is split in two; past 1e308 it overflows. numba rounds through an int64, so a
    # scaled value past 2**63 saturates (round(1.5, 25) is 9.2e-07) and 0 * inf is NaN (round(-0.125, -400)),
    # where Python's exact algorithm gives 1.5 and -0.0.
    x32 = np.array([0.3425, 2.6749, 1.5, -0.125, 7.0], np.float32)
    x64 = np.array([0.12345678987654321 * 10e-15, 2.6749, 1e300, -0.125, 12345.0])
    digits = np.array([3, 2, 25, -400, -1], np.int64)
    out32, out64 = np.zeros(5, np.float32), np.zeros(5)
    round_digits[1, 1](out32, x32, out64, x64, digits)
    np.testing.assert_array_equal(out32, [np.float32(_numba_round_digits(v, int(d))) for v, d in zip(x32, digits)])
    np.testing.assert_array_equal(out64, [_numba_round_digits(v, int(d)) for v, d in zip(x64, digits)])
    assert out32[0] == np.float32(0.343) and out64[1] == 2.67 and out64[2] == 1e300
    assert 9e-07 < out32[2] < 1e-06 and np.isnan(out32[3]) and np.isnan(out64[3])


# ---------------------------------------------------------------------------------------------
# print and assert
# ---------------------------------------------------------------------------------------------

PRINTING = """
import sys
sys.path.insert(0, {directory!r})
import numpy as np
import numba_cuda_c as cuda
import printing_kernel
printing_kernel.say[1, 2](cuda.to_device(np.array([1.5, -2.0])))
cuda.synchronize()
"""

PRINTING_MODULE = """
import numba_cuda_c as cuda
import numpy as np

@cuda.jit
def say(a):
    i = cuda.grid(1)
    assert i < 2  # not checked, as numba without debug=True
    print("thread", i, "has", a[i], np.uint8(200), "100%")
"""


def test_print_and_assert_in_kernels(tmp_path):
    from subproc import run_python

    (tmp_path / "printing_kernel.py").write_text(PRINTING_MODULE)
    out = run_python(PRINTING.format(directory=str(tmp_path)))
    assert sorted(out.splitlines()) == ["thread 0 has 1.500000 200 100%", "thread 1 has -2.000000 200 100%"]


# ---------------------------------------------------------------------------------------------
# records (structured dtypes): arrays of them, and a DeviceRecord argument
# ---------------------------------------------------------------------------------------------

PACKED = np.dtype([("flag", np.int8), ("x", np.float32), ("n", np.int64)])  # x, n at odd offsets
ALIGNED = np.dtype([("flag", np.int8), ("x", np.float32), ("n", np.int64)], align=True)


@cuda.jit(device=True)
def bump(r, by):
    r.n += by  # writes through the reference
    return r.x


@cuda.jit
def record_fields(a, params, out):
    i = cuda.grid(1)
    if i < a.size:
        e = a[i]  # a reference to the element
        e.x = e.x * 2 + params["x"]
        a[i]["flag"] = i % 3
        out[i] = bump(e, params.n) + a[i].flag


@pytest.mark.parametrize("dtype", [PACKED, ALIGNED], ids=["packed", "aligned"])
def test_record_arrays_and_device_records(rng, dtype):
    n = 1000
    host = np.zeros(n, dtype)
    host["x"] = rng.standard_normal(n).astype(np.float32)
    host["n"] = rng.integers(-100, 100, n)
    params = np.zeros(1, dtype)[0]
    params["x"], params["n"] = 0.5, 7
    d = cuda.to_device(host)
    d_params = cuda.to_device(params)
    assert isinstance(d_params, cuda.cudadrv.devicearray.DeviceRecord)
    out = cuda.device_array(n)
    record_fields[blocks(n, 128), 128](d, d_params, out)
    got = d.copy_to_host()
    x = host["x"] * np.float32(2) + np.float32(0.5)
    np.testing.assert_array_equal(got["x"], x)
    np.testing.assert_array_equal(got["n"], host["n"] + 7)
    np.testing.assert_array_equal(got["flag"], np.arange(n) % 3)
    # float32 + int8 is float32 (numba's rule), then stored as float64
    np.testing.assert_array_equal(out.copy_to_host(), x + (np.arange(n) % 3).astype(np.float32))


def test_record_errors():
    @cuda.jit
    def whole(a):
        a[0] = 1.0

    @cuda.jit
    def missing(a):
        a[0].nothing = 1

    d = cuda.to_device(np.zeros(2, ALIGNED))
    with pytest.raises(KernelTypeError, match="is assigned a float64"):
        whole.inspect_source((cuda.types.from_dtype(ALIGNED)[:],))
    with pytest.raises(KernelTypeError, match="no field 'nothing'"):
        missing[1, 1](d)


@cuda.jit
def fp16_intrinsics(a, b, out, flags):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = cuda.fp16.hadd(a[i], b[i])
        out[i, 1] = cuda.fp16.hmul(a[i], b[i])
        out[i, 2] = cuda.fp16.hfma(a[i], b[i], a[i])
        out[i, 3] = cuda.fp16.hsqrt(cuda.fp16.habs(a[i]))
        out[i, 4] = cuda.fp16.hmax(a[i], cuda.fp16.hneg(b[i]))
        flags[i] = cuda.fp16.hgt(a[i], b[i])


def test_fp16_intrinsics_as_numpy(rng):
    n = 1000
    a = rng.uniform(-4, 4, n).astype(np.float16)
    b = rng.uniform(-4, 4, n).astype(np.float16)
    out = cuda.device_array((n, 5), np.float16)
    flags = cuda.device_array(n, np.bool_)
    fp16_intrinsics[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), out, flags)
    got = out.copy_to_host().astype(np.float32)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    expected = [a32 + b32, a32 * b32, a32 * b32 + a32, np.sqrt(np.abs(a32)), np.maximum(a32, -b32)]
    for column, want in enumerate(expected):
        np.testing.assert_allclose(got[:, column], want.astype(np.float16).astype(np.float32), rtol=2e-3, atol=2e-3)
    np.testing.assert_array_equal(flags.copy_to_host(), a > b)


@cuda.jit
def tuple_arguments(out, pair, triple, mixed):
    i = cuda.grid(1)
    if i < out.shape[0]:
        scale, shift = pair
        out[i, 0] = i * scale + shift
        out[i, 1] = triple[i % 3]
        flag, z, small = mixed
        out[i, 2] = (z * small).real + flag


def test_tuples_as_kernel_arguments(rng):
    n = 100
    out = cuda.device_array((n, 3))
    triple = tuple(np.float32(v) for v in rng.standard_normal(3))
    tuple_arguments[1, 128](out, (3, 0.5), triple, (True, 2 - 1j, np.int8(-3)))
    got = out.copy_to_host()
    i = np.arange(n)
    np.testing.assert_array_equal(got[:, 0], i * 3 + 0.5)
    np.testing.assert_array_equal(got[:, 1], np.array(triple, np.float64)[i % 3])
    np.testing.assert_array_equal(got[:, 2], ((2 - 1j) * -3).real + 1)
    # a nested tuple is taken (flattened, as numba does); this kernel then adds a tuple to a number
    with pytest.raises(TypeError, match="arithmetic works on numbers, not int64 and Tuple"):
        tuple_arguments[1, 1](out, (1, (2, 3)), triple, (True, 1j, np.int8(1)))
    with pytest.raises(TypeError, match="cannot pass a str to a kernel"):
        tuple_arguments[1, 1](out, (1, "text"), triple, (True, 1j, np.int8(1)))


def powers_and_rounding(x32, x64, n, digits, out32, out64, rounded32, rounded64):
    for i in range(x64.size):
        out32[i] = x32[i] ** n[i]
        out64[i] = x64[i] ** n[i]
        rounded32[i] = round(x32[i], digits[i])
        rounded64[i] = round(x64[i], digits[i])


def test_float_int_powers_and_rounding_bit_for_bit_as_numba_cuda(rng):
    # numba computes float ** int by repeated squaring and round(x, n) in double precision: the same bits here
    numba_cuda = numba_cuda_or_skip()
    size = 4096
    x64 = np.concatenate(
        [rng.uniform(-3, 3, size - 6), [2.675, 0.3425, 1e300, -0.125, 0.5, np.nan]]
    )  # 2.675: a tie
    x32 = x64.astype(np.float32)
    n = rng.integers(-30, 30, size)
    n[-6:] = [2, 3, 25, -30, 0, 3]
    # numba's round(x, ndigits) rounds x * 10**ndigits through an int64, so it is wrong once that passes 2**63
    # (ndigits > 18 for these x; ours stays in floating point, as Python): compared where numba is right
    digits = np.clip(n, -15, 15)
    results = {}
    for name, jit in (("ours", cuda.jit), ("numba", numba_cuda.jit)):
        outs = [np.zeros(size, np.float32), np.zeros(size), np.zeros(size, np.float32), np.zeros(size)]
        jit(powers_and_rounding)[1, 1](x32, x64, n, digits, *outs)
        results[name] = outs
    for ours, theirs in zip(results["ours"], results["numba"]):
        np.testing.assert_array_equal(ours, theirs)
