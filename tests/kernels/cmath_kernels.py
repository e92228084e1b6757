"""Kernels for tests/kernels/test_cmath_special_values.py (the translator reads their source here)."""

import cmath

import numba_cuda_c as cuda

FUNCTIONS = (
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
)


def every_function(out, z):
    for i in range(z.size):
        out[0, i] = cmath.exp(z[i])
        out[1, i] = cmath.log(z[i])
        out[2, i] = cmath.log10(z[i])
        out[3, i] = cmath.sqrt(z[i])
        out[4, i] = cmath.sin(z[i])
        out[5, i] = cmath.cos(z[i])
        out[6, i] = cmath.tan(z[i])
        out[7, i] = cmath.sinh(z[i])
        out[8, i] = cmath.cosh(z[i])
        out[9, i] = cmath.tanh(z[i])
        out[10, i] = cmath.asin(z[i])
        out[11, i] = cmath.acos(z[i])
        out[12, i] = cmath.atan(z[i])
        out[13, i] = cmath.asinh(z[i])
        out[14, i] = cmath.acosh(z[i])
        out[15, i] = cmath.atanh(z[i])


def rect(out, r, phi):
    for i in range(r.size):
        out[i] = cmath.rect(r[i], phi[i])


def arithmetic(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] * b[i]
        out[i, 1] = a[i] ** b[i]
        out[i, 2] = cmath.rect(a[i].real, b[i].imag)
        out[i, 3] = cmath.log(a[i], b[i])  # a base of 1: ZeroDivisionError, which ends the thread
        out[i, 4] = a[i] / b[i]  # by zero: the same
