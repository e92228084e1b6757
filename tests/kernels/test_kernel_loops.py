"""For loops beyond range() (arrays, tuples, enumerate, zip, literal_unroll), NumPy's whole-array
reductions (np.sum(a), a.max(), np.nanmean, ...) and kernels that call @cuda.jit functions made without
device=True, as numba takes them. Translation and NVRTC compilation in CI; results on the GPU against
NumPy."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import literal_unroll
from numba_cuda_c.pyjit import KernelTypeError

CASES = (
    np.float64([1.0, -2.5, 0.0, 4.0]),
    np.float64([[1.0, 1.5], [np.inf, -3.0]]),
    np.float32([0.5, np.nan, -1.0]),
    np.int32([3, -7, 0, 2, 9]),
    np.float64([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])[:, ::-1, :],  # strided
)
REDUCTIONS = (
    "sum",
    "prod",
    "min",
    "max",
    "mean",
    "var",
    "std",
    "all",
    "any",
    "argmin",
    "argmax",
    "nansum",
    "nanprod",
    "nanmin",
    "nanmax",
    "nanmean",
    "count_nonzero",
)


def iterate(out, a, b, t):
    for i, (x, y) in enumerate(zip(a, b)):  # nested unpacking
        out[i] = x * y
    for v in a:  # an array's elements
        out[4] += v
    for i, j in enumerate(range(9, 1, -3), 1):  # a range with a negative step, a start
        out[4 + i] += j
    for q in t:  # a tuple argument, unrolled
        out[8] += q
    for x in a[::2]:  # an expression, evaluated once
        out[9] += x
    for k, v in enumerate(a):
        if v < 0:
            continue
        if k == 3:
            break
        out[10] += v
    else:
        out[11] = 1.0  # not reached: the loop breaks
    n = 0
    for arr in literal_unroll(CASES):  # items of different types and dimensions
        out[12] += arr.size
        n += 1
    for z in (1, 2.5):
        out[13] += z
    else:
        out[14] = n


def iterate_expected(a, b, t):
    out = np.zeros(16)
    for i, (x, y) in enumerate(zip(a, b)):
        out[i] = x * y
    out[4] = a.sum()
    for i, j in enumerate(range(9, 1, -3), 1):
        out[4 + i] += j
    out[8] = sum(t)
    out[9] = a[::2].sum()
    for k, v in enumerate(a):
        if v < 0:
            continue
        if k == 3:
            break
        out[10] += v
    out[12] = sum(c.size for c in CASES)
    out[13] = 3.5
    out[14] = len(CASES)
    return out


def rows_of_a_matrix(out, m):
    for i, row in enumerate(m):  # a 2-D array iterates over its rows, as views
        for x in row:
            out[i] += x


def reductions(out):
    i = 0
    for arr in literal_unroll(CASES):
        out[i, 0] = np.sum(arr)
        out[i, 1] = np.prod(arr)
        out[i, 2] = np.min(arr)
        out[i, 3] = np.max(arr)
        out[i, 4] = np.mean(arr)
        out[i, 5] = np.var(arr)
        out[i, 6] = np.std(arr)
        out[i, 7] = np.all(arr)
        out[i, 8] = np.any(arr)
        out[i, 9] = np.argmin(arr)
        out[i, 10] = np.argmax(arr)
        out[i, 11] = np.nansum(arr)
        out[i, 12] = np.nanprod(arr)
        out[i, 13] = np.nanmin(arr)
        out[i, 14] = np.nanmax(arr)
        out[i, 15] = np.nanmean(arr)
        out[i, 16] = np.count_nonzero(arr)
        i += 1


METHODS = ("sum", "prod", "min", "max", "mean", "var", "std", "all", "any", "argmin", "argmax")


def methods(out, a):
    out[0] = a.sum()
    out[1] = a.prod()
    out[2] = a.min()
    out[3] = a.max()
    out[4] = a.mean()
    out[5] = a.var()
    out[6] = a.std()
    out[7] = a.all()
    out[8] = a.any()
    out[9] = a.argmin()
    out[10] = a.argmax()


def fma3(x, y, z):  # made with plain @cuda.jit below: numba-cuda lets kernels call it
    return x * y + z


jitted_fma3 = cuda.jit(fma3)


def calls_a_kernel_function(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = jitted_fma3(a[i], 2.0, 1.0)


A1 = "float64[::1]"


@needs_nvrtc
def test_loops_translate_and_compile():
    ptx, _ = cuda.compile_ptx(iterate, "void(float64[::1], float64[::1], float64[::1], UniTuple(int64, 3))")
    assert ".entry" in ptx or ".visible .entry" in ptx
    cuda.compile_ptx(rows_of_a_matrix, "void(float64[::1], float64[:, :])")


@needs_nvrtc
def test_reductions_and_methods_compile():
    cuda.compile_ptx(reductions, "void(float64[:, ::1])")
    for dtype in ("float32", "float64", "int32", "uint8", "boolean"):
        cuda.compile_ptx(methods, "void(float64[::1], %s[:, :])" % dtype)


@needs_nvrtc
def test_a_kernel_calls_a_function_jitted_without_device_true():
    ptx, _ = cuda.compile_ptx(calls_a_kernel_function, "void(float64[::1], float64[::1])")
    assert "fma" in ptx or "mul" in ptx


@pytest.mark.parametrize(
    "source, words",
    [
        ("def k(a, n):\n    for x in n:\n        a[0] = x\n", "arrays, tuples"),
        ("def k(a, n):\n    for x in literal_unroll(n):\n        a[0] = x\n", "tuple"),
        ("def k(a, n):\n    for i, j in zip(range(0, 5, n)):\n        a[0] = i\n", "literal step"),
        ("def k(a, n):\n    a[0] = np.sum(n)\n", "array"),
        ("def k(a, n):\n    a[0] = a.sum(0)\n", "no axis"),
    ],
)
def test_what_is_refused_says_why(tmp_path, source, words):
    path = tmp_path / "refused_loops.py"
    path.write_text("import numpy as np\nfrom numba_cuda_c import literal_unroll\n" + source)
    import runpy

    kernel = runpy.run_path(str(path))["k"]
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(kernel, "void(float64[::1], int64)")
    assert words in str(info.value) and "refused_loops.py" in str(info.value)


@requires_gpu
def test_loops_on_the_gpu_match_python():
    a = np.array([1.5, -2.0, 3.0, 4.0])
    b = np.array([2.0, 3.0, -1.0, 0.5])
    t = (1, 2, 3)
    out = np.zeros(16)
    cuda.jit(iterate)[1, 1](out, a, b, t)
    np.testing.assert_array_equal(out, iterate_expected(a, b, t))
    m = np.arange(12.0).reshape(3, 4)[:, ::2]
    rows = np.zeros(3)
    cuda.jit(rows_of_a_matrix)[1, 1](rows, m)
    np.testing.assert_array_equal(rows, m.sum(axis=1))


@requires_gpu
def test_reductions_on_the_gpu_match_numpy():
    out = np.zeros((len(CASES), len(REDUCTIONS)))
    with np.errstate(all="ignore"):
        cuda.jit(reductions)[1, 1](out)
        for i, arr in enumerate(CASES):
            expected = [getattr(np, name)(arr) for name in REDUCTIONS]
            np.testing.assert_allclose(
                out[i], np.array(expected, dtype=np.float64), rtol=1e-6, err_msg="case %d" % i
            )


@requires_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.bool_])
def test_array_methods_on_the_gpu_match_numpy(dtype):
    a = np.array([[3, 1, 4], [1, 5, 9]]).astype(dtype)
    out = np.zeros(len(METHODS))
    cuda.jit(methods)[1, 1](out, a)
    expected = [getattr(a, name)() for name in METHODS]
    np.testing.assert_allclose(out, np.array(expected, dtype=np.float64), rtol=1e-6)


@requires_gpu
def test_a_kernel_calling_a_plain_jit_function_on_the_gpu():
    a = np.arange(5.0)
    out = np.zeros(5)
    cuda.jit(calls_a_kernel_function)[1, 8](out, a)
    np.testing.assert_array_equal(out, a * 2 + 1)
