"""The complex part of the prelude: CUDA C for complex numbers, placed after the prelude in translations whose C
names a complex type or function (ModuleBuilder.source, module.COMPLEX_NAMES).

Complex numbers have NumPy's layout (the real part, then the imaginary part). Their arithmetic and cmath's
functions compute what numba-cuda 0.30.4 computes, bit for bit: each C function below takes numba-cuda's
algorithm for the same operation, step by step, with the same operations in the same order and precision, and
the same libdevice functions (called by their __nv_ names, as numba's lowering calls them):

- `*`, `+`, `-`, `==`: numba-cuda's cpython/numbers.py, part by part (the product as ac - bd, ad + bc).
- `/` (ncc_cdiv): numbers.py's complex division, which is CPython's (Smith's method, scaled by the larger part
  of the divisor); a zero divisor raises ZeroDivisionError in numba, which in a kernel ends the thread, so here
  the thread exits (with debug=True the translator checks the divisor first and records the exception,
  exceptions.py). The C operator `/` (NumPy's ufuncs use it) gives NaNs there instead.
- abs, cmath.phase, cmath.polar, cmath.log: hypot and atan2 of the parts, in the parts' type.
- `**` (ncc_cpow): numba-cuda's cpow_implement (its mathimpl.py): CPython's polar form with no special case for
  integer exponents, 1 for a zero exponent, 0 for a zero base's real part with a zero exponent's real part, and
  the result assembled as numba's typing writes it, len * (cos + sin * 1j), zero products included.
- cmath's functions: numba-cuda's cpython/cmathimpl.py, which follows CPython's cmathmodule.c and NumPy's
  npy_csqrt, with its own thresholds: FLT_MAX / 4 for acos, acosh and asinh (for complex128 too), FLT_MAX or
  DBL_MAX / (1 + sqrt 2) for sqrt, sqrt(FLT_MAX / 4) and sqrt(FLT_MIN) for atanh.

numba types those Python implementations: a Python float constant is a float64 and an int constant an int64, so
a complex64 argument computes in float64 wherever one meets a part (1.0 - z.real, z.real * 0.5, 1 - z.real),
while math.f(part) of a float32 part calls the float32 libdevice function. The C below writes the same mix:
`double` where numba computes in float64, T (the part's type) where it stays in the argument's type. So
cmath.sqrt of a complex64 computes past its special cases in float64, and acos, asin, asinh and acosh of a
complex64 take that float64 sqrt. cmath.tanh, cmath.acosh and cmath.log10 of a complex64 give a complex128, as
numba's (ncc_ctanh_wide, ncc_cacosh_wide, ncc_clog10_wide; ncc_ctanh and ncc_cacosh round that back to the
argument's type, for NumPy's ufuncs, as numba's tan rounds tanh's).

NVRTC and numba's NVVM both contract a * b + c into one fma, so the expressions keep numba's shape: the same
products added to the same values, in numba's order (ad + bc in a product, acosh's s1.re * s2.re + s1.im * s2.im).
Which product of a sum NVVM's backend fuses also depends on the code around it (how the operands were made, where
they are used next), which a C expression cannot always reproduce: numba-cuda's results on the GPU match for a
product of two loaded values, of a loaded value and one computed, and in acosh, atanh (its result's signs as
selects, as numba's IR has them), tanh and sqrt; the contexts that still differ in a last bit are listed in
tests/fuzz/known_differences.txt.

The C itself is complex.cuh, beside this file (as prelude.cuh and fp16.cuh are beside prelude.py)."""

import os


def cuh(name):
    """The text of a CUDA C file of the translator's, shipped beside its modules (pyproject.toml's package-data)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name), encoding="utf8") as f:
        return f.read()


COMPLEX = cuh("complex.cuh")
