"""The prelude's complex part (complex_prelude.COMPLEX) built for the host with the C++ compiler, for tests without a
GPU: libdevice's functions become libm's, each call logged by its libdevice name (which ones a function calls, in
which precision), and numba's ZeroDivisionError, which ends the thread on the device, sets a flag instead."""

import ctypes
import os
import shutil
import subprocess

from numba_cuda_c.pyjit.complex_prelude import COMPLEX

UNARY = ("cos", "sin", "tan", "exp", "log", "sqrt", "cosh", "sinh", "tanh", "asinh", "log1p")
BINARY = ("hypot", "atan2", "pow")
FUNCTIONS = ("exp", "log", "log10", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
             "asinh", "acosh", "atanh")  # fmt: skip
WIDE = ("tanh", "acosh", "log10")  # cmath's result is complex128 for a complex64 argument too

SHIM = r"""#include <cmath>
#include <cstring>
using namespace std;
#define __device__
#define __forceinline__ inline
#define NCC_NAN NAN
#define NCC_INFINITY INFINITY
static int ncc_raised;
static char ncc_log[1 << 14];
#define NCC_COMPLEX_RAISE() (ncc_raised = 1)
static void ncc_called(const char *name) {
    if (strlen(ncc_log) + strlen(name) + 2 < sizeof ncc_log) strcat(strcat(ncc_log, name), " ");
}
"""


def _libm():
    code = ""
    for name in UNARY:
        code += 'extern "C" double __nv_%s(double x) { ncc_called("%s"); return %s(x); }\n' % (name, name, name)
        code += 'extern "C" float __nv_%sf(float x) { ncc_called("%sf"); return %sf(x); }\n' % (name, name, name)
    for name in BINARY:
        code += 'extern "C" double __nv_%s(double x, double y) { ncc_called("%s"); return %s(x, y); }\n' % (
            name, name, name,
        )  # fmt: skip
        code += 'extern "C" float __nv_%sf(float x, float y) { ncc_called("%sf"); return %sf(x, y); }\n' % (
            name, name, name,
        )  # fmt: skip
    return code


def _wrappers():
    code = (
        'extern "C" const char *ncc_calls() { return ncc_log; }\n'
        'extern "C" int ncc_take_raised() { int r = ncc_raised; ncc_raised = 0; ncc_log[0] = 0; return r; }\n'
    )
    out = "out[0] = r.re; out[1] = r.im;"
    for part, tag in (("double", "d"), ("float", "f")):
        c = "ncc_complex<%s>" % part
        for name in FUNCTIONS:
            function = "ncc_c%s%s" % (name, "_wide" if name in WIDE else "")
            code += 'extern "C" void c_%s_%s(%s x, %s y, double *out) { auto r = %s(%s{x, y}); %s }\n' % (
                name, tag, part, part, function, c, out,
            )  # fmt: skip
        for name, expression in (("pow", "ncc_cpow(a, b)"), ("cdiv", "ncc_cdiv(a, b)"), ("div", "a / b"),
                                 ("mul", "a * b")):  # fmt: skip
            code += (
                'extern "C" void c_%s_%s(%s ar, %s ai, %s br, %s bi, double *out) '
                "{ %s a = {ar, ai}, b = {br, bi}; auto r = %s; %s }\n"
            ) % (name, tag, part, part, part, part, c, expression, out)
    for r, rtag in (("double", "d"), ("float", "f")):
        for phi, ptag in (("double", "d"), ("float", "f")):
            wide = "double" if "double" in (r, phi) else "float"
            code += 'extern "C" void c_rect_%s%s(%s r, %s phi, double *out) { auto z = ncc_rect<%s>(r, phi); %s }\n' % (
                rtag, ptag, r, phi, wide, "out[0] = z.re; out[1] = z.im;",
            )  # fmt: skip
    return code


class Host:
    """The built library: complex functions by name, each giving (result, the libdevice functions called)."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.ncc_calls.restype = ctypes.c_char_p

    def _run(self, symbol, args, types):
        function = getattr(self.lib, symbol)
        function.argtypes = list(types) + [ctypes.POINTER(ctypes.c_double)]
        out = (ctypes.c_double * 2)()
        self.lib.ncc_take_raised()
        function(*args, out)
        calls = self.lib.ncc_calls().decode().split()
        raised = bool(self.lib.ncc_take_raised())
        return complex(out[0], out[1]), calls, raised

    def unary(self, name, z, single=False):
        part = ctypes.c_float if single else ctypes.c_double
        value, calls, _ = self._run("c_%s_%s" % (name, "f" if single else "d"), (z.real, z.imag), (part, part))
        return value, calls

    def binary(self, name, a, b, single=False):
        """pow, cdiv (Python's /: raised says ZeroDivisionError), div (C's operator /), mul."""
        part = ctypes.c_float if single else ctypes.c_double
        return self._run("c_%s_%s" % (name, "f" if single else "d"), (a.real, a.imag, b.real, b.imag), (part,) * 4)

    def rect(self, r, phi, r_single=False, phi_single=False):
        types = [ctypes.c_float if s else ctypes.c_double for s in (r_single, phi_single)]
        symbol = "c_rect_%s%s" % ("f" if r_single else "d", "f" if phi_single else "d")
        value, calls, _ = self._run(symbol, (r, phi), types)
        return value, calls


def build(folder):
    """The host library built in `folder`, or None where there is no C++ compiler."""
    compiler = shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        return None
    source, library = os.path.join(folder, "complex.cpp"), os.path.join(folder, "complex.so")
    with open(source, "w") as file:
        file.write(SHIM + COMPLEX + _libm() + _wrappers())
    # no -ffast-math and no FMA (x86-64's baseline): each operation rounds on its own, as the C says
    subprocess.run([compiler, "-std=c++17", "-O1", "-ffp-contract=off", "-shared", "-fPIC", "-o", library, source],
                   check=True)  # fmt: skip
    return Host(library)


def built_or_skip(tmp_path_factory):
    """build() in a fresh folder, for a module's fixture: the test skips where there is no C++ compiler."""
    import pytest

    built = build(str(tmp_path_factory.mktemp("complex")))
    if built is None:
        pytest.skip("no C++ compiler to build the prelude's complex functions for the host")
    return built
