"""Device functions compiled without a GPU (cuda.compile_ptx(..., device=True)): the return type inferred as
numba's, the PTX signature, eager compilation, tuples returned, and declared signatures converting
arguments and results.

The functions live at module level: the translator reads their source with inspect.
"""

import cmath
import math
import re

import numpy as np
import pytest

import numba_cuda_c as cuda
from compile_ptx_helpers import SIG, _private_cache, returned_constant  # noqa: F401  (a fixture)
from numba_cuda_c import _cuda, float32, types
from numba_cuda_c.pyjit import KernelTypeError

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)


# ---------------------------------------------------------------------------------------------
# Device functions: the inferred return type
# ---------------------------------------------------------------------------------------------


def d_add(a, b):
    return a + b


def d_mul(a, b):
    return a * b


def d_true_div(a, b):
    return a / b


def d_floordiv(a, b):
    return a // b


def d_mul_int_literal(a):
    return a * 2


def d_mul_float_literal(a):
    return a * 2.0


def d_pow(a, b):
    return a**b


def d_sqrt(a):
    return math.sqrt(a)


def d_floor(a):
    return math.floor(a)


def d_compare(a, b):
    return a < b


def d_abs(a):
    return abs(a)


def d_round(a):
    return round(a)


def d_min(a, b):
    return min(a, b)


def d_neg(a):
    return -a


def d_invert(a):
    return ~a


def d_cast32(a):
    return cuda.float32(a)


def d_np_cast(a):
    return np.float32(a)


def d_int(a):
    return int(a)


def d_float(a):
    return float(a)


def d_two_returns(a):
    if a > 0:
        return 1
    return 2.5


def d_no_return(a):
    a[0] = 1.0


def d_syncthreads_count(a):
    return cuda.syncthreads_count(a > 0)


def d_laneid():
    return cuda.laneid


@pytest.mark.parametrize(
    "func, sig, expected",
    [
        (d_add, "float32(float32, float32)", types.float32),
        (d_add, "(float32, float32)", types.float32),
        (d_add, (float32, float32), types.float32),
        (d_add, "(int32, int32)", types.int64),
        (d_add, "(uint32, uint32)", types.uint64),
        (d_add, "(float32, int64)", types.float64),
        (d_add, "(float32, int16)", types.float32),
        (d_add, "(float32, float64)", types.float64),
        (d_add, "(boolean, boolean)", types.int64),
        (d_add, "(int8, uint8)", types.int64),
        (d_mul, "(float32, int32)", types.float64),
        (d_true_div, "(int32, int32)", types.float64),
        (d_true_div, "(int64, int64)", types.float64),
        (d_true_div, "(float32, float32)", types.float32),
        (d_true_div, "(float32, int32)", types.float64),
        (d_floordiv, "(int32, int32)", types.int64),
        (d_floordiv, "(float32, float32)", types.float32),
        (d_mul_int_literal, "(float32,)", types.float64),
        (d_mul_int_literal, "(int32,)", types.int64),
        (d_mul_float_literal, "(float32,)", types.float64),
        (d_pow, "(int32, int32)", types.int64),
        (d_pow, "(float32, float32)", types.float32),
        (d_pow, "(float32, int64)", types.float32),  # numba: float32 ** int stays float32
        (d_pow, "(float64, int32)", types.float64),
        (d_pow, "(int64, float32)", types.float64),
        (d_sqrt, "(float32,)", types.float32),
        (d_sqrt, "(float64,)", types.float64),
        (d_sqrt, "(int32,)", types.float64),
        (d_floor, "(float32,)", types.float32),  # numba-cuda's math.floor: a float of the argument's width
        (d_floor, "(float64,)", types.float64),
        (d_floor, "(int32,)", types.float64),
        (d_compare, "(float32, int32)", types.boolean),
        (d_abs, "(int32,)", types.int32),
        (d_abs, "(float32,)", types.float32),
        (d_round, "(float32,)", types.int64),
        (d_round, "(float64,)", types.int64),
        (d_min, "(int32, int32)", types.int32),
        (d_min, "(int32, int64)", types.int64),
        (d_min, "(int32, float32)", types.float64),
        (d_min, "(int8, int16)", types.int16),  # min and max unify, as numba
        (d_add, "(int64, uint64)", types.int64),
        (d_add, "(float32, uint16)", types.float64),
        (d_add, "(float32, boolean)", types.float32),
        (d_invert, "(boolean,)", types.boolean),
        (d_invert, "(uint8,)", types.uint64),
        (d_neg, "(int32,)", types.int64),
        (d_neg, "(uint32,)", types.uint64),
        (d_neg, "(float32,)", types.float32),
        (d_cast32, "(int64,)", types.float32),
        (d_np_cast, "(float64,)", types.float32),
        (d_int, "(float32,)", types.int64),
        (d_float, "(int32,)", types.float64),
        (d_two_returns, "(int64,)", types.float64),
        (d_no_return, "(float32[:],)", types.void),
        (d_syncthreads_count, "(int32,)", types.int32),
        (d_laneid, "()", types.int32),
    ],
)
def test_device_function_return_type(func, sig, expected):
    ptx, resty = cuda.compile_ptx(func, sig, device=True)
    assert resty == expected
    assert re.search(r"\.visible \.func\s.*\bncc_py_%s\(" % func.__name__, ptx)  # names.c_symbol's


def test_device_function_ptx_signature():
    ptx, resty = cuda.compile_ptx(d_add, "float32(float32, float32)", device=True)
    assert resty == types.float32
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\) ncc_py_d_add\(", ptx)
    assert "add.f32" in ptx
    ptx, resty = cuda.compile_ptx(d_add, "(float64, float64)", device=True)
    assert re.search(r"\(\.param \.b64 func_retval0\) ncc_py_d_add\(", ptx) and "add.f64" in ptx
    ptx, resty = cuda.compile_ptx(d_no_return, "(float32[:],)", device=True)
    assert re.search(r"\.visible \.func\s+ncc_py_d_no_return\(", ptx)


def test_compile_returns_ptx_and_type():
    ptx, resty = cuda.compile(d_add, "(int32, int32)", device=True)
    assert resty == types.int64 and "d_add" in ptx
    with pytest.raises(NotImplementedError):
        cuda.compile(d_add, "(int32, int32)", device=True, output="ltoir")


def test_device_dispatcher_compiles_eagerly_without_a_gpu():
    dispatcher = cuda.jit("float32(float32, float32)", device=True)(d_add)
    assert dispatcher.device
    with pytest.raises(TypeError):
        dispatcher(1.0, 2.0)  # device functions are called from kernels only
    with pytest.raises(TypeError):
        dispatcher[1, 1]


def c_polar(z):
    return cmath.polar(z)


def divmod_like(a, b):
    return a // b, a % b


def test_device_functions_return_tuples():
    assert cuda.compile_ptx(c_polar, "(complex64,)", device=True)[1] == types.Tuple([types.float32] * 2)
    ptx, resty = cuda.compile_ptx(divmod_like, "(int64, int32)", device=True)
    assert resty == types.Tuple([types.int64, types.int64])
    assert ".func  (.param .align 8 .b8 func_retval0[16]) ncc_py_divmod_like(" in ptx


@cuda.jit("float32(float64)", device=True)
def third_as_float32(x):
    return x / 3.0  # a float64 value, returned as the declared float32


def call_third():
    return third_as_float32(1)  # the int argument converts to the declared float64


def wrong_call_third(a, n):
    a[0] = third_as_float32(a)


def test_declared_device_signatures_convert_arguments_and_results():
    assert returned_constant(call_third) == (float(np.float32(1 / 3)), types.float32)
    with pytest.raises(
        KernelTypeError, match=r"third_as_float32 with parameters \(float32\[:\]\): no declared signature"
    ):
        cuda.compile_ptx(wrong_call_third, SIG)
