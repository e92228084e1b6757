"""cuda.vectorize (numba's CUDA ufuncs): signatures, loop selection by NumPy's safe casting, scalars and
broadcasting, host and device inputs and outputs, out= and streams. Signature handling in CI; results on
the GPU against NumPy."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import float32, float64, int32


def add(a, b):
    return a + b


@needs_nvrtc
def test_signatures_and_loops():
    ufunc = cuda.vectorize([int32(int32, int32), float32(float32, float32), "float64(float64, float64)"])(add)
    assert ufunc.ntypes == 3 and ufunc.nin == 2 and ufunc.__name__ == "add"
    assert ufunc._loop([np.dtype("i4"), np.dtype("i2")])[1] == np.int32
    assert ufunc._loop([np.dtype("f4"), np.dtype("i2")])[1] == np.float32
    assert ufunc._loop([np.dtype("i8"), np.dtype("f4")])[1] == np.float64
    with pytest.raises(TypeError, match="no loop"):
        ufunc._loop([np.dtype("c16"), np.dtype("f8")])
    with pytest.raises(TypeError, match="needs signatures"):
        cuda.vectorize(add)
    with pytest.raises(ValueError, match="target must be 'cuda'"):
        cuda.vectorize(["f8(f8, f8)"], target="cpu")
    with pytest.raises(TypeError, match="has 1 arguments"):
        cuda.vectorize(["f8(f8)"])(add)
    ptx, _ = cuda.compile_ptx(ufunc._kernel.py_func, (float32[:], float32[:], float32[:]))
    assert ".entry" in ptx


@requires_gpu
def test_results():
    ufunc = cuda.vectorize(["int32(int32, int32)", "float32(float32, float32)", float64(float64, float64)])(add)
    assert ufunc(1.2, 2.3) == 1.2 + 2.3
    for dtype in (np.float64, np.float32, np.int32):
        data = (np.random.default_rng(1).random(1001) * 100).astype(dtype)
        got = ufunc(data, data)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, data + data)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(ufunc(a, np.float32(2)), a + 2)  # a number broadcast
    np.testing.assert_allclose(ufunc(np.asfortranarray(a), a[0]), a + a[0])  # a row broadcast, F order in
    d = cuda.to_device(a)
    result = ufunc(d, d)
    assert isinstance(result, cuda.DeviceNDArray)
    np.testing.assert_allclose(result.copy_to_host(), 2 * a)
    out = cuda.device_array((3, 4), dtype=np.float32)
    s = cuda.stream()
    assert ufunc(d, a, out=out, stream=s) is out
    s.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), 2 * a)


@requires_gpu
def test_reduce():
    ufunc = cuda.vectorize(["float64(float64, float64)"])(add)
    data = np.arange(1.0, 1001.0)
    assert ufunc.reduce(data) == data.sum()
    assert ufunc.reduce(cuda.to_device(data[:1])) == 1.0


@requires_gpu
def test_host_out():
    ufunc = cuda.vectorize(["float32(float32, float32)"])(add)
    a = np.arange(10, dtype=np.float32)
    out = np.empty_like(a)
    assert ufunc(a, a, out=out) is out
    np.testing.assert_array_equal(out, 2 * a)
    with pytest.raises(ValueError, match="out has shape"):
        ufunc(a, a, out=np.empty(3, dtype=np.float32))


def test_options_as_numba():
    with pytest.raises(KeyError, match="Unrecognized options"):
        cuda.vectorize(["f8(f8, f8)"], nonexistent=2)
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        cuda.vectorize(["f8(f8, f8)"], nopython=True)
