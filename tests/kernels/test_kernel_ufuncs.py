"""NumPy ufuncs inside kernels, as numba takes them: on numbers (np.sin(x) is the C math function of
x's float type) and on arrays into an out array (positional or out=), elementwise with broadcasting of
size-1 dimensions and numbers. Translation in CI; results on the GPU against NumPy."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c import libdevice, types
from numba_cuda_c.pyjit import KernelTypeError
from numba_cuda_c.pyjit.translate import translate_kernel


def sine(r, x):
    np.sin(x, r)


def mixed(r, x, y):
    if cuda.grid(1) == 0:
        np.add(x, y, out=r)
        np.multiply(r, 2, r)


def scalars(out, x):
    out[0] = np.sqrt(x[0]) + np.arctan2(x[0], 2)
    out[1] = np.exp(np.float32(1))


def no_out(r, x):
    y = np.sin(x)
    r[0] = y[0]


A1 = types.Array(types.float32, 1, "A")


def test_translation():
    source = translate_kernel(sine, [A1, A1], "k")
    assert "ncc_map(v_r, [=](float e0) { return sinf(e0); }, v_x);" in source
    source = translate_kernel(scalars, [types.Array(types.float64, 1, "A"), A1], "k")
    # np.arctan2(float32, int64) takes numba's loop ff->f (integers convert to any float where the inputs mix)
    assert "sqrtf(" in source and "atan2f(" in source and "expf(" in source
    with pytest.raises(KernelTypeError, match="needs an out array"):
        translate_kernel(no_out, [A1, A1], "k")


@requires_gpu
def test_ufunc_documentation_example():
    kernel = cuda.jit(sine)
    x = np.arange(10, dtype=np.float32) - 5
    r = np.zeros_like(x)
    kernel[1, 1](r, x)
    np.testing.assert_allclose(r, np.sin(x), rtol=1e-6)


@requires_gpu
def test_binary_ufuncs_broadcast_and_scalars():
    kernel = cuda.jit(mixed)
    x = np.arange(12.0).reshape(3, 4)
    y = np.arange(4, dtype=np.int32).reshape(1, 4)  # broadcast along the first axis
    r = np.zeros((3, 4))
    kernel[1, 32](r, x, y)
    np.testing.assert_array_equal(r, (x + y) * 2)
    out = np.zeros(2)
    cuda.jit(scalars)[1, 1](out, np.array([4.0], dtype=np.float32))
    np.testing.assert_allclose(out, [2 + np.arctan2(4, 2), np.exp(np.float32(1))], rtol=1e-6)


def libdevice_calls(out, ints, x):
    i = cuda.grid(1)
    s, c = libdevice.sincos(x[i])
    frac, e = libdevice.frexp(x[i])
    out[i] = s * s + c * c + frac * 0 + libdevice.powi(x[i], 2) * 0
    ints[i] = e + libdevice.sad(1, 4, 3)


def test_libdevice_translation():
    import numba_cuda_c.libdevice as ld

    assert len(dir(ld)) > 300 and {"sincos", "ullmax", "umul64hi", "usad"} <= set(
        dir(ld)
    )  # multi-line declarations too
    with pytest.raises(TypeError, match="device function"):
        ld.sin(1.0)
    with pytest.raises(AttributeError):
        ld.no_such_function
    source = translate_kernel(
        libdevice_calls,
        [types.Array(types.float64, 1, "A"), types.Array(types.int32, 1, "A"), types.Array(types.float64, 1, "A")],
        "k",
    )
    assert 'extern "C" __device__ void __nv_sincos(double, double *, double *);' in source
    assert "__nv_frexp(" in source and "__nv_sad(((int)(1LL)), ((int)(4LL)), ((int)(3LL)))" in source


@requires_gpu
def test_libdevice_results():
    kernel = cuda.jit(libdevice_calls)
    x = np.linspace(1.0, 10.0, 64)
    out, ints = np.zeros(64), np.zeros(64, dtype=np.int32)
    kernel[2, 32](out, ints, x)
    np.testing.assert_allclose(out, 1.0, rtol=1e-12)
    np.testing.assert_array_equal(ints, np.frexp(x)[1] + 6)


def complex_parts(z, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = z.real[i] * 10 + z.imag[i]
        cuda.atomic.add(z.imag, i, 1.0)


def test_complex_array_parts_translate():
    source = translate_kernel(
        complex_parts, [types.Array(types.complex128, 1, "A"), types.Array(types.float64, 1, "A")], "k"
    )
    assert "ncc_field_view<double>(v_z, 0LL)" in source and "ncc_field_view<double>(v_z, 8LL)" in source


@requires_gpu
def test_complex_array_parts():
    z = np.arange(4) + 1j * np.arange(4, 8)
    out = np.zeros(4)
    cuda.jit(complex_parts)[1, 4](z, out)
    np.testing.assert_array_equal(out, np.arange(4) * 10 + np.arange(4, 8))
    np.testing.assert_array_equal(z.imag, np.arange(4, 8) + 1)


def assign_views(m, v, out):
    m[1:, 0] = v[0]  # a number into a view
    m[:, 1] = v[:3]  # an array into a view
    lm = cuda.local.array(4, dtype=m.dtype)  # the dtype of an argument
    lm[0] = m[1, 0]
    out[0] = lm[0]


def test_assignment_into_views_translates():
    cuda.compile_ptx(assign_views, "void(float64[:, :], int32[::1], float64[::1])")
    with pytest.raises(KernelTypeError, match="2-dimensional"):
        cuda.compile_ptx(assign_views, "void(float64[:, :, :], int32[::1], float64[::1])")


@requires_gpu
def test_assignment_into_views_on_the_gpu():
    m = np.zeros((3, 2))
    v = np.array([4, 5, 6, 7], dtype=np.int32)
    out = np.zeros(1)
    cuda.jit(assign_views)[1, 1](m, v, out)
    expected = np.zeros((3, 2))
    expected[1:, 0] = v[0]
    expected[:, 1] = v[:3]
    np.testing.assert_array_equal(m, expected)
    assert out[0] == 4


MORE_BINARY = [
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "equal",
    "not_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "minimum",
    "maximum",
    "fmin",
    "fmax",
    "floor_divide",
    "remainder",
]
MORE_UNARY = [
    "logical_not",
    "negative",
    "positive",
    "absolute",
    "square",
    "reciprocal",
    "radians",
    "degrees",
    "deg2rad",
    "rad2deg",
]


def more_ufunc_kernel(name, binary):
    ufunc = getattr(np, name)
    if binary:

        def kernel(r, x, y):
            for i in range(r.size):
                r[i] = ufunc(x[i], y[i])
    else:

        def kernel(r, x, y):
            for i in range(r.size):
                r[i] = ufunc(x[i])

    return kernel


@pytest.mark.parametrize("name", MORE_BINARY + MORE_UNARY)
def test_more_ufuncs_translate(name):
    kernel = more_ufunc_kernel(name, name in MORE_BINARY)
    for t in ("float32", "float64"):
        cuda.compile_ptx(kernel, "void(float64[::1], %s[::1], %s[::1])" % (t, t))
    with pytest.raises(KernelTypeError, match=r"can't resolve ufunc degrees for types \(complex128\)"):
        cuda.compile_ptx(
            more_ufunc_kernel("degrees", False), "void(float64[::1], complex128[::1], complex128[::1])"
        )


COMPLEX_BINARY = [
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "equal",
    "not_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "minimum",
    "maximum",
    "fmin",
    "fmax",
]
COMPLEX_UNARY = ["logical_not", "negative", "positive", "absolute", "square", "reciprocal", "log2"]


def complex_result_dtype(name, binary):
    x = np.array([1 + 1j])
    return (getattr(np, name)(x, x) if binary else getattr(np, name)(x)).dtype


@pytest.mark.parametrize("name", COMPLEX_BINARY + COMPLEX_UNARY)
def test_ufuncs_on_complex_translate(name):
    binary = name in COMPLEX_BINARY
    result = complex_result_dtype(name, binary)
    cuda.compile_ptx(more_ufunc_kernel(name, binary), "void(%s[::1], complex128[::1], complex128[::1])" % result)


@requires_gpu
@pytest.mark.parametrize("name", COMPLEX_BINARY + COMPLEX_UNARY)
def test_ufuncs_on_complex_on_the_gpu_match_numpy(name):
    # ties in the real part, NaN parts, zeros: NumPy's order and NaN rules
    x = np.array([1 + 2j, 1 + 3j, complex(np.nan, 1), 2 + 0j, 0j, -1 - 1j, complex(1, np.nan), 4 - 2j])
    y = np.array([1 + 3j, 1 + 2j, 2 + 2j, complex(np.nan, 0), 0j, -1 + 1j, 1 + 1j, 4 - 2j])
    binary = name in COMPLEX_BINARY
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x, y) if binary else getattr(np, name)(x)
    r = np.zeros(len(x), expected.dtype)
    cuda.jit(more_ufunc_kernel(name, binary))[1, 1](r, x, y)
    np.testing.assert_allclose(r, expected, rtol=1e-14, equal_nan=True)


@requires_gpu
@pytest.mark.parametrize("name", MORE_BINARY + MORE_UNARY)
def test_more_ufuncs_on_the_gpu_match_numpy(name):
    x = np.array([1.5, -2.0, np.nan, 0.0, 3.0, -0.5])
    y = np.array([2.0, -2.0, 1.0, np.nan, -4.0, 0.25])
    binary = name in MORE_BINARY
    r = np.zeros(6)
    cuda.jit(more_ufunc_kernel(name, binary))[1, 1](r, x, y)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x, y) if binary else getattr(np, name)(x)
    np.testing.assert_allclose(r, expected.astype(np.float64), equal_nan=True)
