"""Complex numbers, float16 and tuples in kernels, compiled by NVRTC without a GPU (cuda.compile_ptx):
complex arithmetic folded to Python's values, cmath's result types, the errors that quote the line, NaN
and infinity literals, half-precision arithmetic and CUDA's fp16 intrinsics, math functions' argument
counts, frexp/modf/ldexp.

The kernels live at module level: the translator reads their source with inspect.
"""

import cmath
import math
import os
import re

import pytest

import numba_cuda_c as cuda
from compile_ptx_helpers import SIG, _private_cache, body_of, ptx_of, returned_constant  # noqa: F401  (a fixture)
from numba_cuda_c import _cuda, types
from numba_cuda_c.pyjit import KernelTypeError

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)

HERE = os.path.basename(__file__)


# ---------------------------------------------------------------------------------------------
# Complex numbers, float16, tuples
# ---------------------------------------------------------------------------------------------


def c_mul():
    z = (1 + 2j) * (3 - 1j)
    return z.real * 10 + z.imag


def c_div():
    z = (1 + 2j) / (3 - 4j)
    return z.imag


def test_complex_arithmetic_folds_to_pythons_values():
    product = (1 + 2j) * (3 - 1j)
    assert returned_constant(c_mul) == (product.real * 10 + product.imag, types.float64)
    value, resty = returned_constant(c_div)
    assert value == pytest.approx(((1 + 2j) / (3 - 4j)).imag, rel=1e-15) and resty == types.float64


def c_sqrt(x):
    return cmath.sqrt(x)


@pytest.mark.parametrize(
    "argument, result",
    [
        ("int8", types.complex64),
        ("float32", types.complex64),
        ("float16", types.complex64),
        ("int32", types.complex128),
        ("float64", types.complex128),
        ("complex64", types.complex64),
    ],
)
def test_cmath_result_types(argument, result):
    assert cuda.compile_ptx(c_sqrt, "(%s,)" % argument, device=True)[1] == result


def complex_floordiv(a, n):
    z = a[0] * 1j
    a[0] = (z // 2).real


def complex_less(a, n):
    if a[0] * 1j < 1:
        a[0] = 0


def complex_math_sin(a, n):
    a[0] = math.sin(a[0] * 1j)


def complex_int(a, n):
    a[0] = int(a[0] * 1j)


def mixed_tuple_index(a, n):
    t = (a[0], n)
    a[0] = t[n]


@pytest.mark.parametrize(
    "func, message",
    [
        (complex_floordiv, "complex numbers have no // or %"),
        (complex_less, "complex numbers are not ordered"),
        (complex_math_sin, "math.sin takes real numbers; cmath takes complex ones"),
        (complex_int, "cannot convert complex128 to int64"),
        (mixed_tuple_index, "a tuple of mixed types is indexed by constants only"),
    ],
)
def test_complex_and_tuple_errors_quote_the_line(func, message):
    with pytest.raises(KernelTypeError, match=r"%s:\d+: %s" % (re.escape(HERE), re.escape(message))):
        cuda.compile_ptx(func, SIG)


def nan_and_infinity(a, n):
    a[0] = math.nan
    a[1] = -math.inf
    a[2] = cmath.inf


def test_nan_and_infinity_literals_compile():
    body = body_of(ptx_of(nan_and_infinity), "nan_and_infinity")
    assert "2143289344" in body and "-8388608" in body and "2139095040" in body  # NaN, -inf, inf bits


def half_sum(a, n):
    a[0] = a[1] + a[2]


def test_float16_arithmetic_is_half_precision():
    body = body_of(ptx_of(half_sum, "void(float16[:], int64)"), "half_sum")
    assert "add.f16" in body or "add.rn.f16" in body
    assert "cvt.f32.f16" not in body  # not widened to float32


def sin_of_two(a, n):
    a[0] = math.sin(a[0], 2)


def log_of_base(a, n):
    a[0] = math.log(a[0], 2)


@pytest.mark.parametrize("func", [sin_of_two, log_of_base])
def test_math_functions_check_their_argument_count(func):
    with pytest.raises(KernelTypeError, match=r"%s:\d+: wrong number of arguments" % re.escape(HERE)):
        cuda.compile_ptx(func, SIG)


def frexp_modf(a, n):
    m, e = math.frexp(a[0])
    f, whole = math.modf(a[1])
    a[2] = math.ldexp(m, e) + f + whole + round(a[3], 2)


def test_frexp_modf_ldexp_round_digits_compile():
    body = body_of(ptx_of(frexp_modf), "frexp_modf")
    assert "st.global.f32" in body


def fp16_intrinsics(a, n):
    x = cuda.fp16.hfma(a[0], a[1], a[2])
    y = cuda.fp16.hsqrt(cuda.fp16.habs(x))
    if cuda.fp16.hgt(y, a[3]):
        a[4] = cuda.fp16.hmax(cuda.fp16.hadd(x, y), cuda.fp16.hneg(a[5]))


def test_fp16_intrinsics():
    body = body_of(ptx_of(fp16_intrinsics, "void(float16[:], int64)"), "fp16_intrinsics")
    assert "fma.rn.f16" in body and "abs.f16" in body and "add.f16" in body


def ldexp_float_exponent(a, n):
    a[0] = math.ldexp(a[1], 2.5)


def test_ldexp_converts_a_float_exponent_as_numba():
    # numba-cuda's ldexp(float32, int32) case takes a float exponent by an unsafe conversion (2.5 -> 2), as its
    # ConcreteTemplate choice does
    from numba_cuda_c.pyjit.translate import translate_kernel

    source = translate_kernel(ldexp_float_exponent, types.parse_signature(SIG).args, "k")
    assert "((int)(2.5)))" in source and "ldexpf(" in source
    cuda.compile_ptx(ldexp_float_exponent, SIG)  # and NVRTC compiles it
