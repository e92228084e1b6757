"""cmath in kernels on infinities, NaNs and signed zeros: numba-cuda's values (its cmathimpl: CPython's algorithms
with numba's own thresholds and typing), part by part, signs of zeros included. The prelude's complex functions are
also built for the host with the C++ compiler and checked against numba's values (cmath_numba_values.py), in CI
without a GPU; on the GPU the kernels are checked the same way, and against numba-cuda itself where it is installed."""

import math

import numpy as np
import pytest

import cmath_kernels as ck
import complex_host
import numba_cuda_c as cuda
from cmath_numba_values import GRID, SPECIALS, values
from gpu import needs_nvrtc, numba_cuda_or_skip, rebind, requires_gpu

INF, NAN = math.inf, math.nan


def same(got, expected, rel=1e-13):
    """Equal where the value is special (zeros by sign, infinities, NaN), within rel where it is finite: numba's
    values come from the host's libm, the GPU's from libdevice."""
    if math.isnan(got) or math.isnan(expected):
        return math.isnan(got) and math.isnan(expected)
    if got == 0 or expected == 0 or math.isinf(got) or math.isinf(expected):
        return got == expected and math.copysign(1, got) == math.copysign(1, expected)
    return abs(got - expected) <= rel * abs(expected)


def mismatches(name, got):
    """The grid points where `got` (results in GRID's order) is not numba's value."""
    return [
        (z, g, e) for z, g, e in zip(GRID, got, values(name)) if not (same(g.real, e.real) and same(g.imag, e.imag))
    ]


def nan_sign_only(z, got, expected):
    """A result that differs from numba's CPU-target value only in the signs of its parts, for an input with a NaN
    part: the sign there comes from a NaN's sign bit, which x86's default NaN sets and the GPU's does not. numba-cuda
    on the GPU gives our value (test_cmath_on_the_gpu_is_numba_cudas_bit_for_bit covers these inputs)."""
    unsigned = [complex(abs(x.real), abs(x.imag)) for x in (got, expected)]
    return (
        (math.isnan(z.real) or math.isnan(z.imag))
        and same(unsigned[0].real, unsigned[1].real)
        and same(unsigned[0].imag, unsigned[1].imag)
    )


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return complex_host.built_or_skip(tmp_path_factory)


@pytest.mark.parametrize("name", ck.FUNCTIONS + ("rect",))
def test_the_prelude_gives_numbas_special_values(host, name):
    if name == "rect":
        got = [host.rect(z.real, z.imag)[0] for z in GRID]
    else:
        got = [host.unary(name, z)[0] for z in GRID]
    assert mismatches(name, got) == []


@requires_gpu
def test_cmath_special_values_on_the_gpu():
    # compared by position: -0.0 == 0.0, so a dict keyed by the inputs would merge the signed zeros
    z = np.array(GRID)
    out = np.zeros((len(ck.FUNCTIONS), len(z)), np.complex128)
    cuda.jit(ck.every_function)[1, 1](out, z)
    for k, name in enumerate(ck.FUNCTIONS):
        assert [m for m in mismatches(name, list(out[k])) if not nan_sign_only(*m)] == [], name
    rect = np.zeros(len(z), np.complex128)
    cuda.jit(ck.rect)[1, 1](rect, z.real.copy(), z.imag.copy())
    assert mismatches("rect", list(rect)) == []


def numba_inputs(dtype):
    """The special values, those past the thresholds where numba's algorithms change course (FLT_MAX / 4, the
    largest doubles, 1 for atanh), and random ones, for a comparison with numba-cuda."""
    rng = np.random.default_rng(7)
    parts = SPECIALS + [1.0, -1.0, 0.5, 1e-30, 5e-324, 20.0, 1e20, 8.6e37, 3.4e38, 1e300, -1.7976931348623157e308]
    grid = [complex(x, y) for x in parts for y in parts]
    uniform = rng.uniform(-5, 5, 400) + 1j * rng.uniform(-5, 5, 400)
    spread = rng.choice([-1, 1], (2, 200)) * 10 ** rng.uniform(-20, 40, (2, 200))
    with np.errstate(over="ignore"):
        return np.concatenate([grid, uniform, spread[0] + 1j * spread[1]]).astype(dtype)


def differing(got, want):
    """Where two complex arrays differ bit for bit (any NaN matches any NaN)."""
    bad = np.zeros(got.shape, bool)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        nan = np.isnan(g) & np.isnan(w)
        bad |= ~nan & ((g != w) | (np.signbit(g) != np.signbit(w)))
    return bad


@requires_gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cmath_on_the_gpu_is_numba_cudas_bit_for_bit(dtype):
    numba_cuda = numba_cuda_or_skip()
    z = numba_inputs(dtype)
    ours, theirs = (np.zeros((len(ck.FUNCTIONS), z.size), np.complex128) for _ in range(2))
    cuda.jit(ck.every_function)[1, 1](ours, z)
    numba_cuda.jit(ck.every_function)[1, 1](theirs, z)
    for k, name in enumerate(ck.FUNCTIONS):
        bad = differing(ours[k], theirs[k])
        assert not bad.any(), (name, z[bad][:4], ours[k][bad][:4], theirs[k][bad][:4])


@requires_gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_arithmetic_on_the_gpu_is_numba_cudas_bit_for_bit(dtype):
    numba_cuda = numba_cuda_or_skip()
    a = numba_inputs(dtype)
    b = np.random.default_rng(11).permutation(a)
    b[:8] = [0, 1, -0.0, complex(0, -0.0), 2, 1j, 0, 1]  # division by zero and logarithms to base 1
    ours, theirs = (np.full((a.size, 5), 7 + 7j) for _ in range(2))
    blocks = (a.size + 127) // 128
    cuda.jit(ck.arithmetic)[blocks, 128](ours, a, b)
    numba_cuda.jit(rebind(ck.arithmetic, cuda=numba_cuda))[blocks, 128](theirs, a, b)
    for k in range(5):
        bad = differing(ours[:, k], theirs[:, k])
        assert not bad.any(), (k, a[bad][:4], b[bad][:4], ours[bad, k][:4], theirs[bad, k][:4])
    assert (ours[b == 0, 4] == 7 + 7j).all()  # the thread ended at the division


@needs_nvrtc
@pytest.mark.parametrize("t", ["complex64", "complex128"])
def test_cmath_kernels_translate(t):
    # every libdevice function the complex functions call exists: nothing is left to link
    ptx = cuda.compile_ptx(ck.every_function, "void(%s[:, ::1], %s[::1])" % (t, t))[0]
    assert ".extern .func" not in ptx
    ptx = cuda.compile_ptx(ck.arithmetic, "void(complex128[:, ::1], %s[::1], %s[::1])" % (t, t))[0]
    assert ".extern .func" not in ptx and "exit;" in ptx
    cuda.compile_ptx(ck.rect, "void(complex128[::1], float64[::1], float64[::1])")
