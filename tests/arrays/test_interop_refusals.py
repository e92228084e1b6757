"""What device arrays refuse and how, on the mock driver (CI) and the GPU: no path makes a device array of Python
objects or copies device bytes into host memory of Python objects; an exception other than AttributeError raised
by an object's __cuda_array_interface__ reaches the caller (numba's hasattr hides AttributeError only); a reversed
axis of one element goes to the device; boolean scalar keys (d[True], d[False], with other keys) select as NumPy's."""

import pytest
from textwrap import dedent

import numba_cuda_c as cuda
from gpu import requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

OBJECT_DTYPES = "[np.dtype(object), np.dtype([('o', 'O'), ('y', '<f8')]), np.dtype([('a', 'O', (2,))])]"

# Every way an object array could reach the device, or device bytes reach object memory: each refused with a
# TypeError that says why, on its own and in a row (nothing decided for one array is reused for the next).
OBJECTS = (
    """
    OBJECT_DTYPES = %s
    s = cuda.stream()
    memory = cuda.device_array(1 << 20, np.uint8)
    d = cuda.to_device(np.arange(4.0))

    def refused(call, what):
        try:
            call()
        except TypeError as e:
            assert "object" in str(e), (what, e)
        else:
            raise AssertionError("accepted: %%s" %% (what,))

    for dtype in OBJECT_DTYPES:
        for shape in [(0,), (), (65536,), (3, 4)]:
            host = np.empty(shape, dtype)
            views = [host, np.asfortranarray(host)]
            if host.ndim:
                views += [host[::2], host[::-1]]
            if host.ndim and host.size:
                views.append(np.broadcast_to(host[:1], (3,) + host.shape[1:]))
            views.append(np.broadcast_to(host, (2,) + host.shape))
            for view in views:
                for stream in (0, s):
                    refused(lambda: cuda.to_device(view, stream=stream), ("to_device", dtype, view.shape))
                    refused(lambda: cuda.to_device(view, stream=stream, copy=False), ("copy=False", dtype))
            refused(lambda: cuda.device_array(shape, dtype), ("device_array", dtype))
            refused(lambda: cuda.device_array_like(host), ("device_array_like", dtype))
            refused(lambda: cuda.pinned_array(shape, dtype), ("pinned_array", dtype))
            refused(lambda: cuda.mapped_array(shape, dtype), ("mapped_array", dtype))
            refused(lambda: cuda.cudadrv.devicearray.DeviceNDArray(shape, None, dtype, gpu_data=memory.gpu_data),
                    ("DeviceNDArray over gpu_data", dtype))
            refused(lambda: cuda.cudadrv.devicearray.auto_device(host), ("auto_device", dtype))
            desc = dict(memory.__cuda_array_interface__, shape=shape, typestr=dtype.str, strides=None,
                        descr=dtype.descr)
            try:  # refused, or read as raw bytes (a typestr of '|V16' where descr has one field, as numba reads it)
                assert not cuda.from_cuda_array_interface(desc, owner=memory).dtype.hasobject, dtype
            except TypeError as e:
                assert "Python objects" in str(e), e
            like = cuda.device_array(shape, np.float64)
            refused(lambda: like.copy_to_host(np.empty(shape, dtype)), ("copy_to_host into", dtype))
            refused(lambda: like.copy_to_host(np.empty(shape, dtype), stream=s), ("copy_to_host stream", dtype))
            refused(lambda: like.copy_to_device(np.empty(shape, dtype)), ("copy_to_device from", dtype))
        refused(lambda: cuda.DeviceRecord(np.dtype([("o", "O")]), gpu_data=memory.gpu_data), "DeviceRecord")
        refused(lambda: cuda.to_device(np.zeros((), [("o", "O")])[()]), "a record scalar")
    refused(lambda: d.view(object), "view")
    # numba's __array__: the values converted on the host (Python floats), never raw bytes in object memory
    assert np.asarray(d, dtype=object).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert d.__array__(object).dtype == object and np.asarray(d, dtype=np.int64).tolist() == [0, 1, 2, 3]
    print("objects refused")
    """
    % OBJECT_DTYPES
)


@pytest.mark.usefixtures("mock_driver")
def test_no_path_puts_python_objects_on_the_device_or_device_bytes_in_them_on_the_mock_driver():
    assert "objects refused" in run_mock(OBJECTS)


@requires_gpu
def test_no_path_puts_python_objects_on_the_device_or_device_bytes_in_them_on_the_gpu():
    from subproc import run_python

    assert "objects refused" in run_python("import numpy as np\nimport numba_cuda_c as cuda\n" + dedent(OBJECTS))


class RaisingInterface:
    """A tensor that requires grad: reading its interface raises something other than AttributeError."""

    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")


class MissingInterface:
    @property
    def __cuda_array_interface__(self):
        raise AttributeError("not on the device")


def test_is_cuda_array_lets_other_exceptions_than_attribute_error_through():
    with pytest.raises(RuntimeError, match="require gradient"):
        cuda.is_cuda_array(RaisingInterface())
    with pytest.raises(RuntimeError, match="require gradient"):
        cuda.as_cuda_array(RaisingInterface())
    assert cuda.is_cuda_array(MissingInterface()) is False
    with pytest.raises(TypeError, match="doesn't implement the cuda array interface"):
        cuda.as_cuda_array(MissingInterface())


@pytest.mark.usefixtures("mock_driver")
def test_copies_let_the_interfaces_exception_through_on_the_mock_driver():
    out = run_mock(
        """
        class RaisingInterface:
            @property
            def __cuda_array_interface__(self):
                raise RuntimeError("requires grad")

        d = cuda.device_array(4)
        seen = []
        for call in (lambda: cuda.to_device(RaisingInterface()), lambda: d.copy_to_device(RaisingInterface()),
                     lambda: d.__setitem__(slice(None), RaisingInterface())):
            try:
                seen.append(call())  # swallowed: not what numba's hasattr does
            except RuntimeError as e:
                seen.append(str(e))
        assert seen == ["requires grad"] * 3, seen
        print("propagated")
        """
    )
    assert "propagated" in out


# A reversed axis of one element: contiguous, with a negative stride no allocation takes
ONE_REVERSED = """
for dtype in (np.float64, np.uint8, np.dtype([("x", "<i4"), ("y", "<f8")])):
    host = np.arange(1).astype(dtype)[::-1]
    for copy in (True, False):
        d = cuda.to_device(host, copy=copy)
        assert d.shape == (1,) and d.strides == (host.itemsize,), d.strides
    assert cuda.to_device(host).copy_to_host().tobytes() == host.tobytes()
    two = np.arange(2).astype(dtype).reshape(2, 1)[:, ::-1]
    assert cuda.to_device(two).copy_to_host().tobytes() == np.ascontiguousarray(two).tobytes()
print("reversed ok")
"""


@pytest.mark.usefixtures("mock_driver")
def test_a_reversed_axis_of_one_element_goes_to_the_device_on_the_mock_driver():
    assert "reversed ok" in run_mock(ONE_REVERSED)


# Boolean scalar keys, alone and among others, against NumPy: reads and writes
BOOLEAN_KEYS = """
import random
r = random.Random(7)
a = np.arange(24).reshape(2, 3, 4)
d = cuda.to_device(a)
assert d[True].shape == (1, 2, 3, 4) and d[(True,)].shape == (1, 2, 3, 4) and d[False].shape == (0, 2, 3, 4)
assert cuda.to_device(np.array(5))[True].shape == (1,) and cuda.to_device(np.array(5))[False].shape == (0,)
items = [True, False, np.True_, np.False_, 0, 1, -1, slice(None), slice(1, None), None, Ellipsis]
checked = 0
for _ in range(1500):
    key = tuple(r.choice(items) for _ in range(r.randint(0, 4)))
    key = key[0] if len(key) == 1 and r.random() < 0.5 else key
    try:
        want = a[key]
    except IndexError:
        try:
            d[key]
        except IndexError:
            continue
        raise AssertionError(("NumPy refuses", key))
    got = d[key]
    got = got.copy_to_host() if hasattr(got, "copy_to_host") else got
    assert np.shape(got) == np.shape(want) and np.array_equal(got, want), (key, np.shape(got), np.shape(want))
    h, e = a.copy(), cuda.to_device(a)
    h[key] = -5
    e[key] = -5
    assert np.array_equal(e.copy_to_host(), h), key
    checked += 1
assert checked > 1000, checked
print("keys ok")
"""


@pytest.mark.usefixtures("mock_driver")
def test_boolean_scalar_keys_select_as_numpys_on_the_mock_driver():
    assert "keys ok" in run_mock(BOOLEAN_KEYS)


@requires_gpu
def test_boolean_scalar_keys_and_reversed_single_axes_on_the_gpu():
    from subproc import run_python

    out = run_python("import numpy as np\nimport numba_cuda_c as cuda\n" + BOOLEAN_KEYS + ONE_REVERSED)
    assert "keys ok" in out and "reversed ok" in out
