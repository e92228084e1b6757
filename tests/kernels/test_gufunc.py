"""cuda.guvectorize: numba's generalized ufuncs on the GPU. Layouts, loop selection, broadcasting of the
loop dimensions, outputs allocated or given (after the inputs or as out=), host and device arrays, and
numba's errors. The host side on the mock driver in CI; results on the GPU against NumPy."""

import numpy as np
import pytest

import gufunc_kernels as gk
import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c.gufunc import parse_layout
from numba_cuda_c.pyjit import KernelTypeError


def test_layouts_parse():
    assert parse_layout("(m,n),(n,p)->(m,p)") == ([("m", "n"), ("n", "p")], [("m", "p")])
    assert parse_layout("(),(t) -> (t),()") == ([(), ("t",)], [("t",), ()])
    with pytest.raises(ValueError, match="layout"):
        parse_layout("(m)(n)")


def test_decoration_errors_are_numba_s():
    with pytest.raises(TypeError, match="guvectorized functions cannot return values.*specifies int32 return type"):
        cuda.guvectorize(["int32(int32[:], int32[:])"], "(m)->(m)")(lambda x, y: None)
    with pytest.raises(TypeError, match="nopython flag must be True"):
        cuda.guvectorize(["void(int32[:], int32[:])"], "(m)->(m)", nopython=False)(lambda x, y: None)
    with pytest.raises(TypeError, match="The following target options are not supported: 'ever2', 'what1'"):
        cuda.guvectorize(["void(int32[:], int32[:])"], "(m)->(m)", what1=True, ever2=False)(lambda x, y: None)
    with pytest.raises(TypeError, match="core dimensions"):
        cuda.guvectorize(["void(int32[:, :], int32[:])"], "(m)->(m)")(lambda x, y: None)
    assert gk.matmul.__name__ == "matmul" and gk.matmul.ntypes == 2


def test_calls_on_the_mock_driver(mock_driver):
    out = run_mock(
        r"""
import sys; sys.path.insert(0, %r)
import gufunc_kernels as gk
a = np.zeros((3, 2, 4), np.float32)
b = np.zeros((4, 5), np.float32)
c = gk.matmul(a, b)  # b broadcast over the loop dimension
assert isinstance(c, np.ndarray) and c.shape == (3, 2, 5) and c.dtype == np.float32, (type(c), c.shape)
launch = mock.launch()
assert launch["grid"][0] == 1 and launch["block"][0] == 128, launch
d = gk.matmul(cuda.to_device(a), b)  # a device input: a device result
assert cuda.is_cuda_array(d) and d.shape == (3, 2, 5)
b2, c2 = gk.copy_and_scale(np.arange(4, dtype=np.int32))
assert gk.twice(10).shape == ()  # a Python int is weak (NumPy 2): int32's loop takes it
assert b2.dtype == np.int32 and c2.dtype == np.float64 and b2.shape == (4,)
given = np.zeros(4, np.int32), np.zeros(4)
assert gk.copy_and_scale(np.arange(4, dtype=np.int32), *given)[0] is given[0]
r = gk.dot(np.ones((6, 3)), np.ones((6, 3)))
assert r.shape == (6,), r.shape
b3, _ = gk.copy_and_scale(np.arange(4))  # numba's fallback: int64 from the host into int32's loop
assert b3.dtype == np.int32 and b3.shape == (4,)
# numba's loop dimensions: the largest outer shape, one-element ones pinned ((,) and (1,) make ())
assert np.shape(gk.dot(np.ones(3), np.ones((1, 3)))) == ()
assert gk.dot(np.ones((2, 1, 3)), np.ones((4, 3))).shape == (2, 4)  # otherwise NumPy's broadcasting
for call, error, words in [
    (lambda: gk.copy_and_scale(np.array(["a", "b"])), TypeError, "no loop"),  # str and int32 cast neither way
    # numba's fallback takes int64 into int32's loop from the host, but cannot convert a device array
    (lambda: gk.copy_and_scale(cuda.to_device(np.arange(4))), TypeError, "does not support .astype()"),
    (lambda: gk.dot(np.ones(3)), TypeError, "gufunc accepts 2 positional arguments, or 3 positional arguments"),
    (lambda: gk.dot(np.ones(3), np.ones(3), np.ones(1), out=np.ones(1)), ValueError,
     "cannot specify argument 'out' as both positional and keyword"),
    (lambda: gk.dot(np.ones(3), np.ones(4)), ValueError, "dimension n"),
    (lambda: gk.matmul(a, b, out=np.zeros((3, 2, 6), np.float32)), ValueError, "shape"),
]:
    try:
        call()
    except error as e:
        assert words in str(e), e
    else:
        raise AssertionError(words)
print("ok")
"""
        % __import__("os").path.dirname(__file__)
    )
    assert out.strip().endswith("ok")


@requires_gpu
def test_matmul_matches_numpy_with_broadcasting_and_streams():
    a = np.arange(1001 * 2 * 4, dtype=np.float32).reshape(1001, 2, 4)
    b = np.arange(1001 * 4 * 5, dtype=np.float32).reshape(1001, 4, 5)
    np.testing.assert_allclose(gk.matmul(a, b), np.matmul(a, b), rtol=1e-6)
    x, y = np.random.randn(10, 3, 3), np.random.randn(3, 3)
    np.testing.assert_allclose(gk.matmul(x, y), np.matmul(x, y))  # float64's loop, y broadcast
    hidim = a[:100].reshape(4, 25, 2, 4), b[:100].reshape(4, 25, 4, 5)
    np.testing.assert_allclose(gk.matmul(*hidim), np.matmul(*hidim), rtol=1e-6)
    stream = cuda.stream()
    da, db = cuda.to_device(a, stream), cuda.to_device(b, stream)
    dc = cuda.device_array((1001, 2, 5), np.float32, stream=stream)
    assert gk.matmul(da, db, out=dc, stream=stream) is dc
    np.testing.assert_allclose(dc.copy_to_host(stream=stream), np.matmul(a, b), rtol=1e-6)


@requires_gpu
def test_scalars_multiple_outputs_and_given_outputs():
    assert gk.twice(10) == 20
    arg = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(gk.twice(arg), arg * 2)
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.ones_like(x)
    np.testing.assert_allclose(gk.saxpy(np.float32(2), x, y), 2 * x + y)
    b, c = np.zeros(10, np.int32), np.zeros(10)
    gk.copy_and_scale(arg, b, c)
    np.testing.assert_array_equal(b, arg)
    np.testing.assert_allclose(c, arg * 1.5)
    a = ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0))  # tuples convert as NumPy's gufuncs take them
    np.testing.assert_allclose(gk.dot(a, a), np.sum(np.square(a), axis=1))
    d_out = cuda.device_array(2)
    gk.dot(cuda.to_device(np.asarray(a)), a, out=d_out)
    np.testing.assert_allclose(d_out.copy_to_host(), np.sum(np.square(a), axis=1))


def test_cuda_array_interface_objects_in_and_out(mock_driver):
    # numba: any object with __cuda_array_interface__ is a device argument; given as an output, the result is
    # returned as a device array (the object itself need not have shape or copy_to_host)
    out = run_mock(
        r"""
import sys; sys.path.insert(0, %r)
import gufunc_kernels as gk

class Foreign:
    def __init__(self, array):
        self.__cuda_array_interface__ = array.__cuda_array_interface__
        self.keep = array

b, c = Foreign(cuda.device_array(4, np.int32)), Foreign(cuda.device_array(4))
results = gk.copy_and_scale(Foreign(cuda.to_device(np.arange(4, dtype=np.int32))), b, c)
assert all(isinstance(r, cuda.DeviceNDArray) for r in results), results
assert results[0].device_ctypes_pointer.value == b.keep.device_ctypes_pointer.value  # written in place
ufunc = cuda.vectorize(["float64(float64, float64)"])(lambda x, y: x + y)
target = Foreign(cuda.device_array(3))
returned = ufunc(np.arange(3.0), 6.0, out=target)
assert isinstance(returned, cuda.DeviceNDArray) and returned.shape == (3,)
assert isinstance(ufunc(Foreign(cuda.to_device(np.arange(3.0))), 1.0), cuda.DeviceNDArray)
print("ok")
"""
        % __import__("os").path.dirname(__file__)
    )
    assert out.strip().endswith("ok")


dot = gk.dot


def calls_a_gufunc(a, b):
    return dot(a, b)


@needs_nvrtc
def test_calling_a_gufunc_in_a_kernel_is_numbas_typing_error():
    # numba's words (a TypingError where numba is loaded): the call's error, not the return's that follows
    with pytest.raises(KernelTypeError, match="Untyped global name 'dot'"):
        cuda.compile_ptx(calls_a_gufunc, "void(float64[::1], float64[::1])")
