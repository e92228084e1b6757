"""numba.cuda.cudadrv.driver / devicearray helpers and names that libraries and numba's own tests use;
monkeypatchable types; streams from any library (__cuda_stream__)."""

import ctypes
import gc
from unittest.mock import patch

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c.cudadrv import devicearray, driver

# --- CPU: names -------------------------------------------------------------------------------


def test_device_names_import_and_fail_on_host():
    from numba_cuda_c import cg, const, grid, local, shared, syncthreads, threadIdx  # noqa: F401

    assert cuda.grid is grid and cuda.shared.array.path == ("cuda", "shared", "array")
    with pytest.raises(RuntimeError, match="cuda.grid is a device function"):
        grid(1)
    with pytest.raises(RuntimeError, match="cuda.shared.array is a device function"):
        shared.array(4, np.float32)


def test_device_name_is_read_as_the_cuda_name_by_the_translator():
    from numba_cuda_c import grid

    def kernel(a):
        i = grid(1)
        if i < a.size:
            a[i] = i

    ptx, _ = cuda.compile_ptx(kernel, (cuda.float32[:],))
    assert ".entry" in ptx or ".visible" in ptx


def test_module_attributes_numba_leaks():
    assert cuda.driver is driver and cuda.devicearray is devicearray
    assert cuda.devices.get_context is not None and cuda.cudadrv.driver is driver
    assert cuda.is_float16_supported() is True
    assert cuda.implementation == "NVIDIA"


# --- CPU: the helpers ----------------------------------------------------------------------------


def test_host_memory_extents_and_size():
    ary = np.arange(100)
    start, end = driver.host_memory_extents(ary)
    assert start == ary.ctypes.data and end - start == ary.nbytes == driver.host_memory_size(ary)
    fortran = np.asfortranarray(np.arange(100).reshape(2, 50))
    assert driver.host_memory_extents(fortran)[0] == fortran.ctypes.data
    assert driver.host_memory_size(fortran) == fortran.nbytes
    assert driver.host_memory_size(np.asarray(np.uint32(1))) == 4
    assert driver.host_memory_size(np.arange(10)[::-2]) == 9 * 8  # the span, first to last element

    class Pair(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]

    pair = Pair(1, 2)
    assert driver.host_memory_size(pair) == 8 and driver.host_pointer(pair) == ctypes.addressof(pair)
    assert driver.host_memory_size(ctypes.c_double(1.5)) == 8
    assert driver.host_pointer(1234) == 1234


def test_device_memory_checks():
    assert not driver.is_device_memory(np.zeros(3))
    with pytest.raises(Exception, match="Not a CUDA memory object."):
        driver.require_device_memory(np.zeros(3))
    mem = driver.MemoryPointer(None, ctypes.c_void_p(0x1000), 64)
    assert driver.is_device_memory(mem)
    assert isinstance(mem.device_ctypes_pointer, ctypes.c_size_t)
    assert driver.device_pointer(mem) == 0x1000
    assert driver.device_memory_size(mem) == 64


def test_memory_pointer_views_count_references():
    mem = driver.MemoryPointer(None, 0x1000, 1024)
    v1 = mem.view(16)
    assert int(v1.handle) == 0x1010 and v1.owner is mem and mem.refct == 2
    v2 = v1.view(16)
    assert int(v2.handle) == 0x1020 and v2.owner is mem and mem.refct == 3
    del v2
    assert mem.refct == 2
    del v1
    assert mem.refct == 1
    with pytest.raises(RuntimeError, match="non-empty slice into empty slice"):
        driver.MemoryPointer(None, 0, 0).view(0, 4)


def test_memory_pointer_finalizer_timing():
    calls = []
    ptr = driver.MemoryPointer(
        context=None, pointer=ctypes.c_void_p(0xDEADBEEF), size=40, finalizer=lambda: calls.append(1)
    )
    owned = ptr.own()
    del owned
    assert calls == []
    del ptr
    gc.collect()
    assert calls == [1]
    auto = driver.AutoFreePointer(None, ctypes.c_void_p(0xBEEF), 8, finalizer=lambda: calls.append(2))
    assert auto.refct == 0
    owned = auto.own()
    del owned  # the last reference: freed now
    assert calls == [1, 2]
    with pytest.raises(driver.DeadMemoryError, match="Freeing dead memory"):
        auto.free()


def test_devicearray_helpers():
    assert devicearray.is_contiguous(np.zeros((3, 4)))
    assert not devicearray.is_contiguous(np.zeros((3, 4))[:, :2])
    assert devicearray.is_contiguous(np.broadcast_to(np.arange(3.0), (4, 3)))
    with pytest.raises(ValueError, match=r"^Array contains non-contiguous buffer") as info:
        devicearray.sentry_contiguous(np.arange(10)[::2])
    assert str(info.value) == devicearray.errmsg_contiguous_buffer
    devicearray.sentry_contiguous(np.broadcast_to(np.arange(3.0), (4, 3)))  # the core is contiguous
    with pytest.raises(ValueError, match="require an cuda ndarray object"):
        devicearray.verify_cuda_ndarray_interface(np.zeros(3))
    with pytest.raises(ValueError, match=r"incompatible strides: \(8, 16\) vs. \(16, 8\)"):
        devicearray.check_array_compatibility(np.zeros((2, 2)).T, np.zeros((2, 2)))


def test_types_can_be_patched_like_numba_classes():
    for cls, name in ((cuda.Stream, "synchronize"), (cuda.Context, "synchronize"), (cuda.Event, "record")):
        with patch.object(cls, name, return_value=None) as mock:
            assert getattr(cls, name) is mock
        assert getattr(cls, name) is not mock


def test_driver_object_without_a_driver_reports_it():
    if cuda.is_available():
        pytest.skip("checks the no-driver path")
    assert driver.driver.is_available is False
    with pytest.raises(cuda.CudaSupportError):
        driver.driver.get_device_count()


def test_the_no_driver_message_names_the_simulator():
    """A newcomer on a machine with no GPU learns how to run kernels anyway (issue 30)."""
    if cuda.is_available() or "was not found" not in (cuda.cuda_error() or ""):
        pytest.skip("checks the message of a machine with no driver library")
    assert "NUMBA_ENABLE_CUDASIM=1" in cuda.cuda_error()


# --- GPU ---------------------------------------------------------------------------------------


class ForeignStream:
    """A stream of another library (cuda.core, CuPy, PyTorch): only the __cuda_stream__ protocol."""

    def __init__(self, stream):
        self.stream = stream

    def __cuda_stream__(self):
        return (0, int(self.stream.handle))


@requires_gpu
def test_raw_copies_and_memset():
    ctx = cuda.current_context()
    host = np.arange(100, dtype=np.uint32)
    back = np.zeros_like(host)
    dev1, dev2 = ctx.memalloc(host.nbytes), ctx.memalloc(host.nbytes)
    driver.host_to_device(dev1, host, host.nbytes)
    driver.device_to_device(dev2, dev1, host.nbytes)
    driver.device_to_host(back, dev2, host.nbytes)
    assert (back == host).all()
    driver.device_memset(dev2, 0xAB, 40)
    driver.device_to_host(back, dev2, host.nbytes)
    assert (back[:10] == 0xABABABAB).all() and (back[10:] == host[10:]).all()
    s = cuda.stream()
    driver.device_memset(dev2, 0, host.nbytes, stream=s)
    driver.device_to_host(back, dev2, host.nbytes, stream=s)
    s.synchronize()
    assert not back.any()
    assert driver.device_memory_size(cuda.device_array(10)) == 80


@requires_gpu
def test_c_memory_views_and_context_stack():
    ctx = cuda.current_context()
    m = ctx.memalloc(1024)
    assert driver.is_device_memory(m) and isinstance(m.device_ctypes_pointer, ctypes.c_size_t)
    v1 = m.view(1)
    assert int(v1.owner.handle) == int(m.handle) and m.refct == 2 and int(v1.handle) == int(m.handle) + 1
    v2 = v1.view(1)
    assert m.refct == 3 and int(v2.handle) == int(m.handle) + 2
    del v1, v2
    assert m.refct == 1
    with driver.driver.get_active_context() as ac:
        assert int(ac.context_handle) == ctx.handle and ac.devnum == ctx.device.id
    assert driver.driver.get_device_count() == len(cuda.gpus)
    free, total = driver.driver.cuMemGetInfo()
    assert 0 < free <= total


@requires_gpu
def test_devicearray_flags_array_ravel():
    d = cuda.to_device(np.arange(12.0).reshape(3, 4))
    assert d.flags == {"C_CONTIGUOUS": True, "F_CONTIGUOUS": False}
    assert d._numba_type_.layout == "C" and d[:, ::2]._numba_type_.layout == "A"
    assert np.asarray(d, dtype=np.int32).dtype == np.int32
    assert (np.array(d) == np.arange(12.0).reshape(3, 4)).all()
    with pytest.raises(ValueError, match="`copy=False` is not supported. A copy is always created."):
        np.array(d, copy=False)
    assert d.ravel(order="A").shape == (12,)
    assert d.T.ravel(order="A").shape == (12,) and d.T.ravel(order="F").shape == (12,)
    with pytest.raises(ValueError, match=r"order not C\|F\|A"):
        d.ravel(order="K")
    with pytest.raises(NotImplementedError, match="ravel on non-contiguous array"):
        d[:, ::2].ravel()
    devicearray.verify_cuda_ndarray_interface(d)
    dev, new = devicearray.auto_device(np.arange(3))
    assert new and (dev.copy_to_host() == np.arange(3)).all()
    assert devicearray.auto_device(dev) == (dev, False)


@requires_gpu
def test_setitem_without_a_stream_calls_a_patched_synchronize_once():
    darr = cuda.to_device(np.arange(5))
    with patch.object(cuda.Stream, "synchronize", return_value=None) as mock_sync:
        darr[0] = 10
    mock_sync.assert_called_once_with()
    assert darr[0] == 10
    for stream in (cuda.stream(), cuda.default_stream(), cuda.legacy_default_stream()):
        with patch.object(cuda.Stream, "synchronize", return_value=None) as mock_sync:
            darr.setitem(1, 11, stream=stream)
            cuda.to_device(np.arange(5), stream=stream)[0] = 3
        mock_sync.assert_not_called()
        stream.synchronize()
    assert darr[1] == 11


@requires_gpu
def test_cai_import_with_a_stream_calls_a_patched_synchronize():
    s = cuda.stream()

    class Foreign:
        def __init__(self, arr):
            self.arr = arr  # the memory must outlive its description (else the import refuses a dangling pointer)
            self.__cuda_array_interface__ = arr.__cuda_array_interface__

    with patch.object(cuda.Stream, "synchronize", return_value=None) as mock_sync:
        imported = cuda.as_cuda_array(Foreign(cuda.device_array(10, stream=s)))
        cuda.as_cuda_array(Foreign(cuda.device_array(10)))
    mock_sync.assert_called_once_with()
    assert imported.stream.external and int(imported.stream) == int(s)


@requires_gpu
def test_streams_from_other_libraries():
    s = cuda.stream()
    foreign = ForeignStream(s)
    host = np.arange(1000.0)
    d = cuda.to_device(host, stream=foreign)
    assert d.stream is foreign and d.__cuda_array_interface__["stream"] == int(s)
    out = d.copy_to_host(stream=foreign)
    s.synchronize()
    assert (out == host).all()
    e = cuda.event()
    e.record(foreign)
    e.wait(foreign)
    e.synchronize()

    class BadVersion:
        def __cuda_stream__(self):
            return (1, 0)

    with pytest.raises(ValueError, match="version 1"):
        cuda.to_device(host, stream=BadVersion())
    with pytest.raises(TypeError, match="Expected a Stream object or 0, got object"):
        cuda.to_device(host, stream=object())


# --- context internals -------------------------------------------------------------------------


class CountingPlugin(cuda.HostOnlyCUDAMemoryManager):
    """An EMM plugin handing out fake pointers, recording what numba_cuda_c asks of it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allocations, self.count, self.initialized, self.reset_called = {}, 0, False, False

    def memalloc(self, size):
        if not self.initialized:
            raise RuntimeError("memalloc called before initialize")
        self.count += 1
        key, allocations = self.count, self.allocations
        allocations[key] = size
        return driver.AutoFreePointer(
            self.context, ctypes.c_void_p(key), size, finalizer=lambda: allocations.pop(key)
        )

    def initialize(self):
        self.initialized = True

    def reset(self):
        self.reset_called = True

    def get_memory_info(self):
        return cuda.MemoryInfo(free=32, total=64)

    def get_ipc_handle(self, memory):
        return "plugin handle %s" % memory.device_pointer_value

    @property
    def interface_version(self):
        return 1


class VersionTwoPlugin(CountingPlugin):
    @property
    def interface_version(self):
        return 2


def test_set_memory_manager_checks_the_interface_version():
    with pytest.raises(RuntimeError, match="EMM Plugin interface has version 2 - version 1 required"):
        cuda.set_memory_manager(VersionTwoPlugin)


@requires_gpu
def test_memory_manager_is_writable_per_context():
    ctx = cuda.current_context()
    ctx.reset()
    initial = ctx.memory_manager
    assert initial.interface_version == 1 and len(initial.deallocations) == 0
    ctx.memory_manager = CountingPlugin(context=ctx)
    try:
        mgr = ctx.memory_manager
        assert mgr.initialized
        d = cuda.device_array_like(np.arange(10))
        assert mgr.allocations == {1: 80}
        assert ctx.get_memory_info() == (32, 64)
        assert d.get_ipc_handle()._ipc_handle == "plugin handle 1"
        del d
        assert mgr.allocations == {}
        ctx.reset()
        assert mgr.reset_called
    finally:
        ctx.memory_manager = initial
    assert getattr(ctx.memory_manager, "_numba_cuda_c_builtin", False)
    d = cuda.device_array(4)  # the default allocator again
    assert d.gpu_data.kind in ("device", "pooled")


@requires_gpu
def test_deallocations_object():
    ctx = cuda.current_context()
    deallocs = ctx.memory_manager.deallocations
    deallocs.clear()
    assert len(deallocs) == 0 and deallocs._size == 0 and deallocs._max_pending_bytes > 0
    with deallocs.disable():
        del_me = cuda.device_array(1000, dtype=np.int8)
        del del_me
        assert len(deallocs) == 1 and deallocs._size == 1000
        deallocs.clear()  # nothing while disabled
        assert len(deallocs) == 1
    deallocs.clear()
    assert len(deallocs) == 0 and ctx.deallocations.count == 0


@requires_gpu
def test_mempin_and_get_ipc_handle():
    ctx = cuda.current_context()
    ary = np.arange(10)
    pinned = ctx.mempin(ary, ary.ctypes.data, ary.nbytes, mapped=True)
    assert driver.is_device_memory(pinned) and pinned.device_pointer != 0
    del pinned
    again = ctx.mempin(ary, ary.ctypes.data, ary.nbytes)  # unregistered at once: re-pinning works
    del again
    d = cuda.device_array(16)
    handle = ctx.get_ipc_handle(d.gpu_data)  # numba's IpcHandle
    assert len(handle.handle.reserved) == 64 and handle.offset == 0 and handle.size == d.nbytes
    assert handle.base is d.gpu_data and handle.source_info == cuda.get_current_device().get_device_identity()


@requires_gpu
def test_numba_messages_of_reshape_transpose_view():
    d = cuda.to_device(np.arange(12, dtype="i2").reshape(4, 3))
    with pytest.raises(ValueError, match="^reshape changes the size of the array$"):
        d.reshape(5)
    with pytest.raises(NotImplementedError, match="^operation requires copying$"):
        d[:, ::2].reshape(8)
    with pytest.raises(ValueError, match=r"^invalid axes list \(0, 0\)$"):
        np.transpose(d, axes=(0, 0))
    with pytest.raises(ValueError, match=r"^invalid axes list \(0, 2\)$"):
        np.transpose(d, axes=(0, 2))
    with pytest.raises(ValueError, match="^When changing to a larger dtype, its size must be a divisor"):
        d.view("i4")
    with pytest.raises(
        ValueError, match="^To change to a dtype of a different size, the last axis must be contiguous"
    ):
        cuda.to_device(np.arange(32, dtype="i2").reshape(4, 8))[:, ::2].view("i4")
