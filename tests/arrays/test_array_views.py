"""a.reshape(shape), a.view(dtype), a.T / a.transpose() in kernels, as numba's: views, never copies; a.fill(v). The device
helpers are also built for the host with the C++ compiler and compared with NumPy's own no-copy reshape over
many strided views (in CI, without a GPU); on the GPU the kernels are compared with NumPy."""

import ctypes
import itertools
import os
import shutil
import subprocess

import warnings

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c.pyjit import lib
from numba_cuda_c.pyjit.lib import arrays  # noqa: F401  (registers array_views)
from numba_cuda_c.pyjit.prelude import PRELUDE


@pytest.fixture(scope="module")
def host_reshape(tmp_path_factory):
    compiler = shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        pytest.skip("no C++ compiler to build the reshape helper for the host")
    array = PRELUDE[
        PRELUDE.index("template <typename T, int N> struct Array {") : PRELUDE.index(
            "template <typename T, int N> __device__ __forceinline__ T *ncc_at"
        )
    ]
    shim = "#define __device__\n#define __forceinline__ inline\n"
    cases = "".join(
        "    if (n == %d && m == %d) { Array<char, %d> a{data}; Array<char, %d> r; "
        "for (int d = 0; d < n; ++d) { a.shape[d] = shape[d]; a.strides[d] = strides[d]; } "
        "long long s[%d]; for (int d = 0; d < m; ++d) s[d] = newshape[d]; int status = ncc_reshape(a, s, &r); "
        "for (int d = 0; d < m; ++d) { out[d] = r.shape[d]; out[m + d] = r.strides[d]; } return status; }\n"
        % (n, m, n, m, m)
        for n, m in itertools.product((1, 2, 3), repeat=2)
    )
    wrapper = (
        'extern "C" int c_reshape(char *data, int n, long long *shape, long long *strides, int m, '
        "long long *newshape, long long *out) {\n" + cases + "    return -1;\n}\n"
    )
    folder = tmp_path_factory.mktemp("views")
    source, library = os.path.join(folder, "views.cpp"), os.path.join(folder, "views.so")
    with open(source, "w") as file:
        file.write(shim + array + lib.REQUIREMENTS["array_views"].code + wrapper)
    subprocess.run([compiler, "-O1", "-shared", "-fPIC", "-o", library, source], check=True)
    function = ctypes.CDLL(library).c_reshape
    LL = ctypes.POINTER(ctypes.c_longlong)
    function.argtypes = [ctypes.c_char_p, ctypes.c_int, LL, LL, ctypes.c_int, LL, LL]

    def reshape(a, newshape):
        def ll(values):
            return (ctypes.c_longlong * max(len(values), 1))(*values)

        out = (ctypes.c_longlong * (2 * len(newshape)))()
        status = function(None, a.ndim, ll(a.shape), ll(a.strides), len(newshape), ll(newshape), out)
        return status, tuple(out[: len(newshape)]), tuple(out[len(newshape) :])

    return reshape


def numpy_view_reshape(a, newshape):
    """NumPy's reshape where it is a view (its in-place shape assignment refuses a copy), else None; a ValueError
    where the sizes differ."""
    v = a.view()
    try:
        with warnings.catch_warnings():  # NumPy 2.5 deprecates the assignment; its rule is the one wanted here
            warnings.simplefilter("ignore", DeprecationWarning)
            v.shape = newshape
    except AttributeError:
        return None
    return v


def test_reshape_matches_numpys_no_copy_rule(host_reshape):
    base = np.zeros((4, 6, 8), np.int64)
    views = [
        base,
        base[::2],
        base[:, ::2],
        base[:, :, ::2],
        base[:, 1:5, :],
        base.transpose(1, 0, 2),
        base[0],
        base[:, 0],
        base[0, 0],
        base[:1],
        base[:, :1, :],
        base[::-1],
        base[:, :, :0],
    ]
    checked = 0
    for a in views:
        for m in (1, 2, 3):
            for newshape in itertools.product((1, 2, 3, 4, 6, 8, 12, 16, 24, 48, 0, -1), repeat=m):
                if list(newshape).count(-1) > 1:
                    continue
                resolved = list(newshape)
                if -1 in resolved:
                    known = int(np.prod([s for s in resolved if s != -1]))
                    if known == 0 or a.size % known:
                        continue
                    resolved[resolved.index(-1)] = a.size // known
                if int(np.prod(resolved)) != a.size:
                    status, _, _ = host_reshape(a, list(newshape))
                    assert status == 1, (a.shape, a.strides, newshape)
                    continue
                expected = numpy_view_reshape(a, tuple(resolved))
                status, shape, strides = host_reshape(a, list(newshape))
                if expected is None:
                    assert status == 2, (a.shape, a.strides, newshape)
                else:
                    assert status == 0 and shape == expected.shape, (a.shape, a.strides, newshape)
                    if a.size:  # an empty array's strides are anyone's
                        nontrivial = [k for k, n in enumerate(shape) if n > 1]
                        assert [strides[k] for k in nontrivial] == [expected.strides[k] for k in nontrivial], (
                            a.shape,
                            a.strides,
                            newshape,
                            strides,
                            expected.strides,
                        )
                checked += 1
    assert checked > 1000


def reshape_2d(arr, newshape, got):
    y = arr.reshape(newshape)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            got[i, j] = y[i, j]


def reshape_args_and_transpose(arr, got):
    y = arr.reshape(2, -1).T
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            got[i, j] = y[i, j]
    z = arr.reshape((3, 4)).transpose()
    got[0, 0] += z[3, 2] * 1000


def filled(out):
    scratch = cuda.local.array((2, 3), np.float64)
    scratch.fill(2.5)
    out[:2].fill(7)  # a view, in place
    out[2] = scratch.sum()


def reinterpret(byte_arr, start, stop, output):
    output[0] = byte_arr[start:stop].view(np.int32)[0]


@needs_nvrtc
def test_views_translate():
    cuda.compile_ptx(reshape_2d, "void(int64[:], UniTuple(int64, 2), int64[:, ::1])")
    cuda.compile_ptx(reshape_args_and_transpose, "void(int64[::1], int64[:, ::1])")
    cuda.compile_ptx(reinterpret, "void(uint8[::1], int64, int64, int32[::1])")
    cuda.compile_ptx(filled, "void(float64[::1])")


@requires_gpu
def test_views_on_the_gpu():
    arr = np.arange(24)
    for shape in ((4, 6), (8, -1), (-1, 2)):
        expected = arr.reshape(shape)
        got = np.zeros(expected.shape, np.int64)
        cuda.jit(reshape_2d)[1, 1](arr, shape, got)
        np.testing.assert_array_equal(got, expected)
    got = np.zeros((6, 2), np.int64)
    cuda.jit(reshape_args_and_transpose)[1, 1](arr[:12], got)
    expected = arr[:12].reshape(2, -1).T.copy()
    expected[0, 0] += arr[:12].reshape(3, 4).T[3, 2] * 1000
    np.testing.assert_array_equal(got, expected)
    byte_arr = np.arange(256, dtype=np.uint8)
    out = np.zeros(1, np.int32)
    kernel = cuda.jit(reinterpret)
    for start in range(0, 256, 4):
        kernel[1, 1](byte_arr, start, start + 4, out)
        assert out[0] == byte_arr[start : start + 4].view(np.int32)[0]
    out = np.zeros(4)
    cuda.jit(filled)[1, 1](out)
    np.testing.assert_array_equal(out, [7, 7, 15, 0])
    debug = cuda.jit(debug=True, opt=False)(reshape_2d)
    with pytest.raises(NotImplementedError, match="incompatible shape for array"):
        # a device view (a host one would be copied to the device contiguous): NumPy would copy
        debug[1, 1](cuda.to_device(arr.reshape(4, 6))[:, :3], (2, 6), np.zeros((2, 6), np.int64))
    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        debug[1, 1](arr, (5, 5), np.zeros((5, 5), np.int64))
