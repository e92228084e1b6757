"""Complex arithmetic and cmath follow numba-cuda's implementations step by step (complex_prelude.py): which
libdevice functions each calls and in which precision (a complex64 computes in float64 wherever numba's Python
float constants meet its parts), numba's thresholds and special cases, its ** without an integer fast path, and its
ZeroDivisionError, which ends the thread. Checked without a GPU: on the prelude built for the host (complex_host.py)
and on the C the translator writes."""

import cmath
import math

import pytest

import complex_host
import numba_cuda_c as cuda
from gpu import needs_nvrtc
from numba_cuda_c import types
from numba_cuda_c.pyjit.translate import translate_kernel

INF, NAN = math.inf, math.nan


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return complex_host.built_or_skip(tmp_path_factory)


# (function, complex64?, argument, the libdevice functions it calls): a name ending in f is the float32 function
CALLS = [
    ("exp", True, 1 + 1j, {"cosf", "sinf", "expf"}),
    ("log", True, 1 + 1j, {"hypotf", "logf", "atan2f"}),
    ("log10", True, 1 + 1j, {"hypotf", "logf", "atan2f"}),
    ("sin", True, 1 + 1j, {"cosf", "sinf", "sinhf", "coshf"}),
    ("cosh", False, 1 + 1j, {"cos", "sin", "sinh", "cosh"}),
    ("sqrt", True, 3 + 4j, {"hypot", "sqrt"}),  # float64 past the special values (numba's * 0.25 widens them)
    ("tanh", True, 0.5 + 0.5j, {"tanhf", "tanf", "coshf"}),
    ("tanh", True, complex(INF, 1), {"sin"}),  # sin(2.0 * y): float64
    ("tan", True, 0.5 + 0.5j, {"tanhf", "tanf", "coshf"}),
    ("acos", True, 0.5 + 0.5j, {"hypot", "sqrt", "atan2", "asinh"}),  # complex128 square roots of 1 -/+ z
    ("acos", True, 1e38 + 1j, {"atan2f", "hypot", "log"}),  # past FLT_MAX / 4: log(hypot(z / 2)) + ln 4
    ("acos", False, 1e38 + 1j, {"atan2", "hypot", "log"}),  # the float32 threshold for complex128 too
    ("asin", True, 0.5 + 0.5j, {"hypot", "sqrt", "atan2", "asinh"}),
    ("asinh", True, 1j * 1e38, {"hypot", "log", "atan2f"}),
    ("acosh", True, 0.5 + 0.5j, {"hypot", "sqrt", "atan2", "asinh"}),
    ("acosh", True, 1e38 + 1j, {"hypot", "log", "atan2f"}),
    ("atanh", True, 0.5 + 0.5j, {"log1p", "atan2"}),
    ("atanh", True, 1 + 1e-20j, {"sqrtf", "hypot", "sqrt", "log", "atan2"}),  # z near 1: sqrt(ay) in float32
    ("atanh", True, 1e20 + 1j, {"hypot"}),
    ("atan", True, 0.5 + 0.5j, {"log1p", "atan2"}),
]


@pytest.mark.parametrize("name, single, z, calls", CALLS)
def test_the_libdevice_functions_numba_calls(host, name, single, z, calls):
    assert set(host.unary(name, z, single)[1]) == calls


def close(got, expected, rel=1e-14):
    def part(g, e):
        if math.isnan(e) or math.isinf(e) or e == 0:
            return (g == e and math.copysign(1, g) == math.copysign(1, e)) or (math.isnan(g) and math.isnan(e))
        return abs(g - e) <= rel * abs(e)

    return part(got.real, expected.real) and part(got.imag, expected.imag)


# numba-cuda's values where its algorithms part from CPython's (the GPU's, from the fuzzer's reports)
QUIRKS = [
    ("asin", False, complex(-1.7976931348623157e308, 2.98), -1.5707963267948966 + 710.475860073944j),  # FLT_MAX / 4
    ("sin", True, complex(-0.0, 8550.3505859375), complex(NAN, INF)),  # sin(-0) * cosh of an infinite cosh
    ("acos", False, 5 + 0j, complex(0.0, -2.2924316695611773)),  # asinh of the square roots' products
    ("atanh", False, 1 + 0j, complex(INF, 0.0)),
    ("atan", False, complex(INF, NAN), complex(math.pi / 2, -0.0)),  # numba keeps atanh's real part's sign
]


@pytest.mark.parametrize("name, single, z, expected", QUIRKS)
def test_numbas_values(host, name, single, z, expected):
    got = host.unary(name, z, single)[0]
    assert close(got, expected, 1e-13), got


def test_power_is_numbas_polar_form(host):
    # no repeated multiplication for integer exponents: (1+1j)**2 is not exactly 2j
    got, calls, raised = host.binary("pow", 1 + 1j, 2 + 0j)
    assert calls == ["hypot", "pow", "atan2", "cos", "sin"] and not raised
    assert got != 2j and abs(got - 2j) < 1e-15
    assert host.binary("pow", 3 + 4j, 0j)[0] == 1
    # a zero real part of both gives 0 (numba's test reads b.real where CPython's reads a.imag)
    assert host.binary("pow", 1j, 2j)[0] == 0 and host.binary("pow", 0j, 1j)[0] == 0
    # 0 ** -1: numba's polar form, not ZeroDivisionError
    got = host.binary("pow", 0j, -1 + 0j)[0]
    assert math.isinf(got.real) and math.isnan(got.imag)
    # cos + sin * 1j and len * that as numba's complex arithmetic: the products with zero parts make NaNs
    got = host.binary("pow", 1e300 + 0j, 2.5 + 0j)[0]
    assert math.isinf(got.real) and math.isnan(got.imag)
    assert host.binary("pow", 2 + 0j, 0.5 + 0j, single=True)[1] == ["hypotf", "powf", "atan2f", "cosf", "sinf"]


def test_division_by_zero_raises_and_the_operator_gives_nans(host):
    value, _, raised = host.binary("cdiv", 1 + 2j, 0j)
    assert raised
    assert host.binary("cdiv", 1 + 2j, complex(-0.0, 0))[2]
    assert not host.binary("cdiv", 1 + 2j, complex(NAN, 0))[2]
    value, _, raised = host.binary("div", 1 + 2j, 0j)
    assert not raised and math.isnan(value.real) and math.isnan(value.imag)
    # Smith's method (CPython's): scaled by the divisor's larger part
    assert abs(host.binary("cdiv", 1 + 2j, 3 + 4j)[0] - (1 + 2j) / (3 + 4j)) < 1e-16
    assert abs(host.binary("cdiv", 1 + 2j, 4 + 3j)[0] - (1 + 2j) / (4 + 3j)) < 1e-16


def test_rect_computes_cos_and_sin_in_phis_type(host):
    assert host.rect(2.0, 0.5, r_single=False, phi_single=True)[1] == ["cosf", "sinf"]
    assert host.rect(2.0, 0.5, r_single=True, phi_single=False)[1] == ["cos", "sin"]
    assert host.rect(INF, 0.0)[0] == complex(INF, 0)  # sin 0 stays 0 (divided by r, not multiplied)
    assert host.rect(0.0, INF)[0] == 0 and host.rect(INF, NAN)[0].real == INF


def divide(out, a, b):
    out[0] = a[0] / b[0]


def divide_by_unsigned(out, a, b):
    out[0] = a[0] / b[0]  # complex128 / uint32: the uint32 as a complex, numba's complex division


def logarithms(out, z, base):
    out[0] = cmath.log(z[0], base[0])


def tanh_of(out, z):
    out[0] = cmath.tanh(z[0])


def rect_of(out, r, phi):
    out[0] = cmath.rect(r[0], phi[0])


C128, C64 = types.complex128[::1], types.complex64[::1]


@needs_nvrtc
def test_complex_division_ends_the_thread_on_zero():
    for kernel, b in ((divide, C128), (divide_by_unsigned, types.uint32[::1])):
        source = translate_kernel(kernel, [C128, C128, b], "k")
        assert "ncc_cdiv(" in source
        ptx = cuda.compile_ptx(kernel, (C128, C128, b))[0]
        assert "exit;" in ptx


@needs_nvrtc
def test_complex_division_by_zero_raises_in_debug_mode():
    source = translate_kernel(divide, [C64, C64, C64], "k", debug=True)
    assert "ncc_checked_cdivisor(" in source and "'complex division by zero'" in source
    cuda.compile_ptx(divide, (C64, C64, C64), debug=True)
    source = translate_kernel(logarithms, [C128, C64, C128], "k", debug=True)  # log(z, 1): the same raise
    assert "ncc_checked_cdivisor(ncc_clog(" in source and "'complex division by zero'" in source


@needs_nvrtc
def test_cmath_argument_types_as_numbas():
    # tanh of a complex64: computed from the complex64 (float32 libdevice functions), a complex128 result
    source = translate_kernel(tanh_of, [C128, C64], "k")
    assert "ncc_ctanh_wide(" in source and "ncc_to_complex<double>" not in source.split("ncc_ctanh_wide(")[-1][:40]
    assert cuda.compile_ptx(tanh_of, (C128, C64))[0]
    # log(z, base): both converted to their common type first, then numba's division
    source = translate_kernel(logarithms, [C128, C64, C128], "k")
    assert "ncc_cdiv(ncc_clog(ncc_to_complex<double>(" in source
    # rect: cos and sin in phi's type, the products in the wider one
    source = translate_kernel(rect_of, [C128, types.float32[::1], types.float64[::1]], "k")
    assert "ncc_rect<double>(" in source
    for r, phi in ((types.float32, types.float64), (types.float64, types.float32), (types.float32, types.float32)):
        cuda.compile_ptx(rect_of, (types.complex128[::1], r[::1], phi[::1]))


# --- which product of a complex multiplication NVVM fuses into an FMA ----------------------------------------------
# x * y's imaginary part is ad + bc; NVVM fuses one product and rounds the other, choosing by the order in which the
# parts were loaded. numba loads x's parts, then y's; its PTX (numba-cuda 0.30.4, cc 9.0) fuses b * c for two array
# elements (also where x is a complex64 widened), and a * d for the second product of `v *= y; v *= y`.


def _mul_ab(c0, a, b):
    i = cuda.grid(1)
    if i < a.size:
        c0[i] = a[i] * b[i]


def _mul_twice(c0, a, b):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        v *= b[i]
        v *= b[i]
        c0[i] = v


def _symbolic_stores(ptx):
    """Each global store of straight-line PTX as an expression of the loads (array k's part at +offset) it uses."""
    import re

    env, stores = {}, []
    for line in ptx.splitlines():
        m = re.match(r"\s*([a-z][\w.]*)\s+([^;]*);", line)
        if not m:
            continue
        op, args = m.group(1), [a.strip() for a in m.group(2).split(",")]

        def sub(a):
            return env.get(a, a)

        def address(a):
            base, _, offset = a.strip("[]").partition("+")
            param = re.search(r"_param_(\d+)", sub(base))
            return "array%s+%s" % (param.group(1) if param else "?", offset or "0")

        if op.startswith("st.global"):
            stores.append((address(args[0]), sub(args[1])))
        elif op.startswith("ld.param"):
            env[args[0]] = args[1]
        elif op.startswith("ld.global"):
            env[args[0]] = address(args[1])
        elif op.startswith(("mov", "cvta")):
            env[args[0]] = sub(args[1])
        elif op.startswith("cvt.f64.f32"):
            env[args[0]] = sub(args[1])
        elif op.startswith(("mul.f", "fma.", "sub.f", "add.f")):
            operands = [sub(a) for a in args[1:]]
            if op.startswith(("mul", "fma")):  # a product's factors in one order
                operands[:2] = sorted(operands[:2])
            env[args[0]] = "%s(%s)" % (op.split(".")[0], ", ".join(operands))
        elif len(args) > 1:
            env[args[0]] = "%s(%s)" % (op, ", ".join(sub(a) for a in args[1:]))
    return stores


@needs_nvrtc
@pytest.mark.parametrize("x", ["complex128", "complex64"])
def test_complex_product_fuses_as_numba(x):
    sig = "void(complex128[::1], %s[::1], complex128[::1])" % x
    ptx, _ = cuda.compile_ptx(_mul_ab, sig, cc=(9, 0))
    step = 4 if x == "complex64" else 8
    imaginary = dict(_symbolic_stores(ptx))["array0+8"]
    a, b, c, d = "array1+0", "array1+%d" % step, "array2+0", "array2+8"
    assert imaginary == "fma(%s, %s, mul(%s, %s))" % (b, c, a, d), imaginary


@needs_nvrtc
def test_complex_product_of_a_product_fuses_as_numba():
    ptx, _ = cuda.compile_ptx(_mul_twice, "void(complex128[::1], complex128[::1], complex128[::1])", cc=(9, 0))
    imaginary = dict(_symbolic_stores(ptx))["array0+8"]
    # the second product: a = the first product's real part (a sub), d = y's imaginary part: a * d is fused
    assert imaginary.startswith("fma(array2+8, sub("), imaginary
