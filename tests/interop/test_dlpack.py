"""DLPack both ways (the Python array API standard's exchange): DeviceNDArray.__dlpack__ and
__dlpack_device__, cuda.from_dlpack (and as_cuda_array of a DLPack-only producer), the capsule's
consumption rules, the deleter called exactly once, streams ordered with an event, and clear errors. On
the mock driver; with CuPy and PyTorch on the GPU."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)


def test_round_trip_and_lifetimes(mock_driver):
    out = run_mock(r"""
import gc, weakref, ctypes
d = cuda.to_device(np.arange(12, dtype=np.float32).reshape(3, 4))
assert d.__dlpack_device__() == (2, 0)
view = cuda.from_dlpack(d)                       # through d.__dlpack__: versioned capsule
assert view.device_ctypes_pointer.value == d.device_ctypes_pointer.value
assert view.shape == (3, 4) and view.strides == (16, 4) and view.dtype == np.float32
np.testing.assert_array_equal(view.copy_to_host(), np.arange(12).reshape(3, 4))
t = d.T                                          # strided: strides go in elements and come back
tv = cuda.from_dlpack(t)
assert tv.strides == (4, 16) and tv.device_ctypes_pointer.value == d.device_ctypes_pointer.value
watch = weakref.ref(d)
del d, t
gc.collect()
assert watch() is not None                       # the views keep the exported array alive
del view, tv
gc.collect()
assert watch() is None                           # and let it go: each deleter ran

# capsules: versioned when asked for a version, legacy otherwise; one consumption each
a = cuda.to_device(np.arange(5))
get_name = ctypes.pythonapi.PyCapsule_GetName
get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
assert get_name(a.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
assert get_name(a.__dlpack__()) == b"dltensor"
capsule = a.__dlpack__(stream=-1)
v = cuda.from_dlpack(capsule)
assert get_name(capsule) == b"used_dltensor"
try:
    cuda.from_dlpack(capsule)
except ValueError as e:
    assert "not yet consumed" in str(e), e
else:
    raise AssertionError("a capsule was consumed twice")
watch = weakref.ref(a)
unconsumed = a.__dlpack__()
del a, v, capsule
gc.collect()
assert watch() is not None
del unconsumed                                   # a capsule nobody took releases its tensor
gc.collect()
assert watch() is None

# as_cuda_array takes a DLPack-only producer
class Producer:
    def __init__(self, array):
        self.array = array
    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)
    def __dlpack_device__(self):
        return self.array.__dlpack_device__()
p = Producer(cuda.to_device(np.arange(3.0)))
assert cuda.as_cuda_array(p).copy_to_host().tolist() == [0.0, 1.0, 2.0]

class OldProducer(Producer):                     # before DLPack 1.0: no max_version
    def __dlpack__(self, stream=None):
        return self.array.__dlpack__(stream=stream)
assert cuda.from_dlpack(OldProducer(cuda.to_device(np.arange(2)))).copy_to_host().tolist() == [0, 1]

# streams: the consumer's stream waits for the array's with an event, not a synchronisation
s = cuda.stream()
bound = cuda.to_device(np.arange(4), stream=s)
waits, syncs = mock.calls("cuStreamWaitEvent"), mock.calls("cuStreamSynchronize")
bound.__dlpack__(stream=1)                       # the legacy default stream waits for s
bound.__dlpack__(stream=2)                       # the per-thread default stream too
assert mock.calls("cuStreamWaitEvent") == waits + 2 and mock.calls("cuStreamSynchronize") == syncs
unbound = cuda.to_device(np.arange(4))
unbound.__dlpack__(stream=1)                     # the same stream: nothing to order
unbound.__dlpack__(stream=-1)                    # the consumer asked for no ordering
assert mock.calls("cuStreamWaitEvent") == waits + 2
print("round trip ok")
""")
    assert "round trip ok" in out


def test_refusals(mock_driver):
    out = run_mock(r"""
def expect(exc, text, action):
    try:
        action()
    except exc as e:
        assert text in str(e), (text, str(e))
    else:
        raise AssertionError("no %s (%s)" % (exc.__name__, text))

d = cuda.to_device(np.arange(4))
expect(ValueError, "stream 0 is not a CUDA stream", lambda: d.__dlpack__(stream=0))
expect(TypeError, "stream must be an int", lambda: d.__dlpack__(stream="s"))
expect(BufferError, "cannot be exported to device (1, 0)", lambda: d.__dlpack__(dl_device=(1, 0)))
expect(BufferError, "has no type for dtype", lambda: cuda.device_array(2, dtype=[("a", "i4")]).__dlpack__())
packed = cuda.device_array(3, dtype=np.dtype([("a", "i2"), ("b", "i4")]))
expect(BufferError, "not a multiple of the item size", lambda: packed["b"].__dlpack__())
expect(TypeError, "not in CUDA device memory", lambda: cuda.from_dlpack(np.arange(3)))
expect(TypeError, "not a DLPack producer", lambda: cuda.from_dlpack(object()))
expect(TypeError, "doesn't implement the cuda array interface", lambda: cuda.as_cuda_array(object()))
copied = d.__dlpack__(copy=True, max_version=(1, 0))
v = cuda.from_dlpack(copied)
assert v.device_ctypes_pointer.value != d.device_ctypes_pointer.value and v.copy_to_host().tolist() == [0, 1, 2, 3]
print("refusals ok")
""")
    assert "refusals ok" in out


@requires_gpu
def test_cupy_both_ways():
    cp = pytest.importorskip("cupy")
    d = cuda.to_device(np.arange(10, dtype=np.float32))
    c = cp.from_dlpack(d)
    assert c.data.ptr == d.device_ctypes_pointer.value
    c *= 2  # the same memory
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10) * 2)
    source = cp.arange(6, dtype=cp.int64).reshape(2, 3)[:, ::2]
    back = cuda.from_dlpack(source)
    assert back.device_ctypes_pointer.value == source.data.ptr and back.strides == source.strides
    np.testing.assert_array_equal(back.copy_to_host(), cp.asnumpy(source))


@requires_gpu
def test_torch_both_ways():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    d = cuda.to_device(np.arange(8, dtype=np.float64))
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.device_ctypes_pointer.value and t.is_cuda
    t.add_(1)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8) + 1)
    source = torch.arange(12, device="cuda", dtype=torch.int32).reshape(3, 4).t()
    back = cuda.from_dlpack(source)
    assert back.device_ctypes_pointer.value == source.data_ptr()
    np.testing.assert_array_equal(back.copy_to_host(), source.cpu().numpy())
    del source  # the capsule's deleter keeps the tensor's storage until `back` dies
    torch.cuda.empty_cache()
    np.testing.assert_array_equal(back.copy_to_host(), np.arange(12, dtype=np.int32).reshape(3, 4).T)
