"""Dask's transport for our arrays (numba_cuda_c/dask/serializers.py): registered with distributed's
`cuda` and `dask` serializer families when distributed.protocol is imported, before or after numba_cuda_c,
without numba_cuda_c importing distributed; arrays of every layout round trip through both families and
through distributed's own serialize()/deserialize(). On the mock driver; skipped where distributed is not
installed (the test extra installs it)."""

import pytest

from mock_driver import ARRAY_LAYOUTS, mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from subproc import run_python

pytest.importorskip("distributed")


def test_registered_whichever_is_imported_first_and_distributed_never_imported_by_us():
    out = run_python("""
        import sys
        import numba_cuda_c as cuda
        assert "distributed" not in sys.modules and "dask" not in sys.modules
        from distributed.protocol.cuda import cuda_serialize
        from distributed.protocol.serialize import dask_serialize
        print(dask_serialize.dispatch(cuda.DeviceNDArray).__name__, cuda_serialize.dispatch(cuda.DeviceRecord).__name__)
    """)
    assert out.split() == ["serialize_on_host", "serialize_on_device"]
    out = run_python("""
        import distributed.protocol
        import numba_cuda_c as cuda
        from distributed.protocol.cuda import cuda_deserialize
        print(cuda_deserialize.dispatch(cuda.DeviceNDArray).__name__)
    """)
    assert out.split() == ["deserialize_on_device"]


def test_arrays_round_trip_through_both_families(mock_driver):
    out = run_mock(
        ARRAY_LAYOUTS
        + r"""
from distributed.protocol import serialize, deserialize
for family in ("dask", "cuda"):
    for name, d in cases.items():
        header, frames = serialize(d, serializers=[family])
        assert header["serializer"] == family, (family, name, header)
        if family == "cuda":  # device memory, the array's own: no copy
            assert all(hasattr(f, "__cuda_array_interface__") for f in frames), name
        else:
            assert all(isinstance(f, memoryview) for f in frames), name
        e = deserialize(header, frames, deserializers=[family])
        assert type(e) is type(d) and (e.shape, e.strides, e.dtype) == (d.shape, d.strides, d.dtype), (family, name)
        np.testing.assert_array_equal(e.copy_to_host(), d.copy_to_host())
rec = cuda.to_device(np.zeros(1, dtype=[("a", "i4")]))[0]
rec["a"] = 7
for family in ("dask", "cuda"):
    clone = deserialize(*serialize(rec, serializers=[family]), deserializers=[family])
    assert type(clone).__name__ == "DeviceRecord" and clone["a"] == 7
print("families ok")
"""
    )
    assert "families ok" in out


def test_a_device_frame_keeps_its_memory_alive(mock_driver):
    out = run_mock(r"""
import gc
from distributed.protocol import serialize, deserialize
d = cuda.to_device(np.arange(1000.0))
header, frames = serialize(d, serializers=["cuda"])
del d
gc.collect()
e = deserialize(header, frames, deserializers=["cuda"])
del frames
gc.collect()
np.testing.assert_array_equal(e.copy_to_host(), np.arange(1000.0))
print("alive ok")
""")
    assert "alive ok" in out


def test_a_registration_that_fails_leaves_distributed_importable():
    out = run_python("""
        import warnings
        import numba_cuda_c as cuda
        from numba_cuda_c.dask import serializers

        def broken():
            raise AttributeError("no such registry")

        serializers.register = broken
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import distributed.protocol  # noqa: F401
        print([str(w.message) for w in caught if "could not register" in str(w.message)])
    """)
    assert "no such registry" in out and "travel by pickling" in out


def test_mapped_and_managed_arrays_travel_as_their_kind(mock_driver):
    out = run_mock(r"""
from distributed.protocol import serialize, deserialize
for make in (cuda.mapped_array, cuda.managed_array):
    for order in ("C", "F"):
        a = make((3, 4), dtype=np.float64, order=order)
        a[...] = np.arange(12.0).reshape(3, 4)
        header, frames = serialize(a, serializers=["dask"])
        assert header["serializer"] == "dask"
        b = deserialize(header, frames, deserializers=["dask"])
        assert type(b) is type(a) and b.flags["F_CONTIGUOUS"] == (order == "F"), (make, order, type(b))
        np.testing.assert_array_equal(b, a)
        assert b.device_pointer != a.device_pointer
print("host kinds ok")
""")
    assert "host kinds ok" in out
