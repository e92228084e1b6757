"""cmath in kernels on infinities, NaNs and signed zeros: CPython's values (C99 Annex G), part by part, signs of
zeros included. The prelude's complex functions are also built for the host with the C++ compiler and checked
against this Python's cmath (in CI, without a GPU); on the GPU the kernels are checked the same way."""

import cmath
import ctypes
import itertools
import math
import os
import shutil
import subprocess

import numpy as np
import pytest

import cmath_kernels as ck
import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c.pyjit.prelude import COMPLEX

INF, NAN = math.inf, math.nan
SPECIALS = [-INF, -2.3, -0.0, 0.0, 2.3, INF, NAN]
GRID = [complex(x, y) for x, y in itertools.product(SPECIALS, SPECIALS)]


def same(got, expected, rel=1e-13):
    if math.isnan(got) or math.isnan(expected):
        return math.isnan(got) and math.isnan(expected)
    if got == 0 or expected == 0 or math.isinf(got) or math.isinf(expected):
        return got == expected and math.copysign(1, got) == math.copysign(1, expected)
    return abs(got - expected) <= rel * abs(expected)


def cpython(name, *args):
    """CPython's value, or None where it raises (ValueError, OverflowError): nothing to compare then."""
    try:
        return getattr(cmath, name)(*args)
    except (ValueError, OverflowError):
        return None


def mismatches(name, compute, inputs, all_inputs=False):
    """The inputs where compute(*args) is not CPython's value; all_inputs: compute is called for every input, in
    order (results read by position), also where CPython raises."""
    bad = []
    for args in inputs:
        expected = cpython(name, *args)
        got = compute(*args) if all_inputs or expected is not None else None
        if expected is None:
            continue
        if not (same(got.real, expected.real) and same(got.imag, expected.imag)):
            bad.append((args, got, expected))
    return bad


@pytest.fixture(scope="module")
def host_prelude(tmp_path_factory):
    compiler = shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        pytest.skip("no C++ compiler to build the prelude's complex functions for the host")
    body = COMPLEX[COMPLEX.index("template <typename T> struct ncc_complex {") :]
    shim = (
        "#include <cmath>\nusing namespace std;\n#define __device__\n#define __forceinline__ inline\n"
        "#define NCC_NAN NAN\n#define NCC_INFINITY INFINITY\n"
    )
    wrappers = (
        "".join(
            'extern "C" void c_%s(double x, double y, double *out) { ncc_complex<double> r = ncc_c%s(ncc_complex<double>{x, y}); '
            "out[0] = r.re; out[1] = r.im; }\n" % (name, name)
            for name in ck.FUNCTIONS
        )
        + 'extern "C" void c_rect(double r, double p, double *out) { ncc_complex<double> z = ncc_rect(r, p); '
        "out[0] = z.re; out[1] = z.im; }\n"
    )
    folder = tmp_path_factory.mktemp("prelude")
    source, library = os.path.join(folder, "complex.cpp"), os.path.join(folder, "complex.so")
    with open(source, "w") as file:
        file.write(shim + body + wrappers)
    subprocess.run([compiler, "-O1", "-shared", "-fPIC", "-o", library, source], check=True)
    return ctypes.CDLL(library)


def host_function(lib, name):
    function = getattr(lib, "c_" + name)
    function.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.POINTER(ctypes.c_double)]

    def compute(*args):
        out = (ctypes.c_double * 2)()
        function(*(list(args) if len(args) == 2 else [args[0].real, args[0].imag]), out)
        return complex(out[0], out[1])

    return compute


@pytest.mark.parametrize("name", ck.FUNCTIONS + ("rect",))
def test_the_prelude_gives_cpythons_special_values(host_prelude, name):
    inputs = list(itertools.product(SPECIALS, SPECIALS)) if name == "rect" else [(z,) for z in GRID]
    assert mismatches(name, host_function(host_prelude, name), inputs) == []


@requires_gpu
def test_cmath_special_values_on_the_gpu():
    # compared by position: -0.0 == 0.0, so a dict keyed by the inputs would merge the signed zeros
    z = np.array(GRID)
    out = np.zeros((len(ck.FUNCTIONS), len(z)), np.complex128)
    cuda.jit(ck.every_function)[1, 1](out, z)
    for k, name in enumerate(ck.FUNCTIONS):
        got = iter(out[k])
        assert mismatches(name, lambda v: next(got), [(v,) for v in GRID], all_inputs=True) == [], name
    pairs = list(itertools.product(SPECIALS, SPECIALS))
    r, phi = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    rect = np.zeros(len(pairs), np.complex128)
    cuda.jit(ck.rect)[1, 1](rect, r, phi)
    got = iter(rect)
    assert mismatches("rect", lambda a, b: next(got), pairs, all_inputs=True) == []


@needs_nvrtc
@pytest.mark.parametrize("t", ["complex64", "complex128"])
def test_cmath_kernels_translate(t):
    cuda.compile_ptx(ck.every_function, "void(%s[:, ::1], %s[::1])" % (t, t))
    cuda.compile_ptx(ck.rect, "void(complex128[::1], float64[::1], float64[::1])")
