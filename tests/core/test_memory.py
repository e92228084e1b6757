"""Memory: pinned, mapped and managed host arrays, the deallocation queue, defer_cleanup, OOM."""

import gc
import sys

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from subproc import run_python

pytestmark = requires_gpu


def test_pinned_array():
    a = cuda.pinned_array((4, 5), dtype=np.float32)
    assert isinstance(a, np.ndarray) and a.shape == (4, 5) and a.dtype == np.float32
    a[:] = np.arange(20).reshape(4, 5)
    d = cuda.to_device(a)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    f = cuda.pinned_array((3, 2), order="F")
    assert f.flags.f_contiguous
    like = cuda.pinned_array_like(np.zeros((2, 3), dtype=np.int16))
    assert like.shape == (2, 3) and like.dtype == np.int16
    view = a[1:]
    del a
    gc.collect()
    view[:] = 1  # the memory lives as long as any view
    assert view.sum() == 15


def test_mapped_array_is_device_reachable():
    m = cuda.mapped_array(8, dtype=np.int64)
    m[:] = np.arange(8)
    cai = m.__cuda_array_interface__
    assert cai["data"][0] != 0
    d = cuda.as_cuda_array(m)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8))
    d[3] = 42  # a device write lands in host memory
    assert m[3] == 42
    like = cuda.mapped_array_like(np.zeros(3, np.float32))
    assert like.__cuda_array_interface__["typestr"] == "<f4"


def test_managed_array():
    m = cuda.managed_array(16, dtype=np.float64)
    m[:] = 2.0
    d = cuda.as_cuda_array(m)
    np.testing.assert_array_equal(d.copy_to_host(), np.full(16, 2.0))


def test_pinned_and_mapped_context_managers():
    host = np.arange(10.0)
    with cuda.pinned(host):
        d = cuda.to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)
    with cuda.mapped(host) as mapped:
        assert isinstance(mapped, cuda.DeviceNDArray)
        mapped[0] = -5.0
    assert host[0] == -5.0
    a, b = np.zeros(4), np.ones(4)
    with cuda.mapped(a, b) as (da, db):
        np.testing.assert_array_equal(db.copy_to_host(), b)


def test_deallocation_queue_count_threshold():
    out = run_python(
        """
        import numba_cuda_c as cuda
        from numba_cuda_c import _cuda
        _cuda._flush_deallocations()
        arrays = [cuda.device_array(1024) for _ in range(10)]
        del arrays
        count, size = _cuda._pending_deallocations()
        assert count == 10, count   # at the limit, not over it: still queued
        a = cuda.device_array(1024)
        del a
        assert _cuda._pending_deallocations()[0] == 0  # the 11th flushed them all
        print("queue ok")
        """,
        NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT="10",
    )
    assert "queue ok" in out


def test_deallocation_queue_ratio_threshold():
    out = run_python(
        """
        import numba_cuda_c as cuda
        from numba_cuda_c import _cuda
        total = cuda.current_context().get_memory_info().total
        big = cuda.device_array(int(total * 0.06), dtype='u1')
        del big
        assert _cuda._pending_deallocations()[0] == 1
        big = cuda.device_array(int(total * 0.06), dtype='u1')
        del big
        assert _cuda._pending_deallocations()[0] == 0  # over 10% of the device: flushed
        print("ratio ok")
        """,
        NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO="0.1",
    )
    assert "ratio ok" in out


def test_defer_cleanup_holds_frees():
    out = run_python(
        """
        import numba_cuda_c as cuda
        from numba_cuda_c import _cuda
        with cuda.defer_cleanup():
            with cuda.defer_cleanup():
                for _ in range(50):
                    cuda.device_array(100)
            assert _cuda._pending_deallocations()[0] == 50
        cuda.device_array(100)  # the next free past the limit flushes
        assert _cuda._pending_deallocations()[0] == 0
        print("defer ok")
        """
    )
    assert "defer ok" in out


@pytest.mark.serial
def test_get_memory_info_reflects_frees():
    context = cuda.current_context()
    from numba_cuda_c import _cuda

    _cuda._flush_deallocations()
    before = context.get_memory_info().free
    a = cuda.device_array(256 * 2**20, dtype=np.uint8)
    during = context.get_memory_info().free
    assert before - during >= 256 * 2**20
    del a
    _cuda._flush_deallocations()
    assert context.get_memory_info().free >= during + 200 * 2**20


def test_out_of_memory_then_recovery():
    context = cuda.current_context()
    total = context.get_memory_info().total
    with pytest.raises(cuda.CudaAPIError) as info:
        cuda.device_array(total * 2, dtype=np.uint8)
    assert "CUDA_ERROR_OUT_OF_MEMORY" in str(info.value) and info.value.code == 2
    d = cuda.to_device(np.arange(4))
    assert list(d.copy_to_host()) == [0, 1, 2, 3]


@pytest.mark.serial
def test_oom_flushes_queue_and_retries():
    out = run_python(
        """
        import numba_cuda_c as cuda
        from numba_cuda_c import _cuda
        free = cuda.current_context().get_memory_info().free
        chunk = int(free * 0.6)
        a = cuda.device_array(chunk, dtype='u1')
        del a  # queued (count 1, under the ratio limit set below)
        assert _cuda._pending_deallocations()[0] == 1
        b = cuda.device_array(chunk, dtype='u1')  # fails, flushes, retries
        assert _cuda._pending_deallocations()[0] == 0
        print("retry ok")
        """,
        NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO="0.9",
    )
    assert "retry ok" in out


@pytest.mark.serial
def test_hundred_thousand_allocations_leak_nothing():
    context = cuda.current_context()
    from numba_cuda_c import _cuda

    host = np.arange(4.0)
    for _ in range(1000):
        cuda.to_device(host)
    _cuda._flush_deallocations()
    free_before = context.get_memory_info().free
    refs_before = sys.getrefcount(host), sys.getrefcount(None)
    for _ in range(100_000):
        d = cuda.device_array(8)
        del d
    for _ in range(10_000):
        cuda.to_device(host).copy_to_host()
    _cuda._flush_deallocations()
    gc.collect()
    assert abs(context.get_memory_info().free - free_before) < 4 * 2**20
    assert sys.getrefcount(host) == refs_before[0]


def test_stream_ordered_pool():
    out = run_python(
        """
        import numpy as np
        import numba_cuda_c as cuda
        d = cuda.device_array(1000)
        assert d.gpu_data.kind == "pooled", d.gpu_data.kind
        d[:] = 2.0
        assert (d.copy_to_host() == 2.0).all()
        pointers = set()
        for _ in range(1000):
            a = cuda.device_array(16)
            pointers.add(a.device_pointer)
            del a
        assert len(pointers) < 10, len(pointers)  # reused from the pool
        s = cuda.stream()
        h = cuda.to_device(np.arange(10.0), stream=s)
        s.synchronize()
        assert list(h.copy_to_host()) == list(np.arange(10.0))
        print("pool ok")
        """,
        NUMBA_CUDA_MEMORY_MANAGER="numba_cuda_c.pool",
    )
    assert "pool ok" in out


def test_ipc_across_two_processes(tmp_path):
    import pickle

    host = np.arange(100, dtype=np.float64)
    d = cuda.to_device(host)
    view = d[10:60]
    handle = view.get_ipc_handle()
    path = tmp_path / "handle.pickle"
    path.write_bytes(pickle.dumps(handle))
    out = run_python(
        """
        import pickle, sys
        import numpy as np
        import numba_cuda_c as cuda
        handle = pickle.loads(open(sys.argv[1] if len(sys.argv) > 1 else %r, "rb").read())
        with handle as array:  # mapped, then unmapped at the block's end (numba's IpcArrayHandle)
            assert array.shape == (50,)
            assert (array.copy_to_host() == np.arange(10, 60)).all(), array.copy_to_host()
            array[0] = -1.0  # visible to the exporter
        ipc = handle._ipc_handle
        assert ipc.base is None and ipc.size == 50 * 8 and ipc.offset == 80
        with cuda.open_ipc_array(ipc.handle.reserved, 100, np.float64) as whole:  # the whole allocation
            assert whole[99] == 99.0
        print("ipc ok")
        """
        % str(path)
    )
    assert "ipc ok" in out
    assert d.copy_to_host()[10] == -1.0


def test_external_memory_manager_plugin():
    cupy = pytest.importorskip("cupy")
    from numba_cuda_c import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryPointer
    from numba_cuda_c.cudadrv.emm import MemoryInfo

    freed = []

    class CupyManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
        """Device memory from CuPy's pool, as RMM's plugin takes it from RMM."""

        allocations = 0

        def initialize(self):
            self.initialized = True

        def memalloc(self, size):
            CupyManager.allocations += 1
            memory = cupy.cuda.alloc(size)
            return MemoryPointer(self.context, memory.ptr, size, owner=memory, finalizer=lambda: freed.append(size))

        def get_memory_info(self):
            free, total = cupy.cuda.runtime.memGetInfo()
            return MemoryInfo(free=free, total=total)

        @property
        def interface_version(self):
            return 1

    cuda.set_memory_manager(CupyManager)
    try:
        host = np.arange(1000, dtype=np.float32)
        d = cuda.to_device(host)
        assert CupyManager.allocations == 1 and d.gpu_data.kind == "external"
        np.testing.assert_array_equal(d.copy_to_host(), host)
        manager = cuda.current_context().memory_manager
        assert isinstance(manager, CupyManager) and manager.initialized
        assert cuda.current_context().get_memory_info().total > 0
        with cuda.defer_cleanup():
            pass
        view = d[10:]
        del d
        assert freed == []  # the view holds the memory
        del view
        gc.collect()
        assert freed == [4000]
    finally:
        cuda.set_memory_manager(None)
    assert cuda.device_array(4).gpu_data.kind == "device"
    with pytest.raises(TypeError):
        cuda.set_memory_manager(object)


def test_context_raw_allocations_as_numba():
    ctx = cuda.current_context()
    device = ctx.memalloc(1 << 20)
    assert device.kind == "device" and device.size == 1 << 20 and device.device_pointer != 0
    device.memset(7)
    view = cuda.from_cuda_array_interface(
        {"shape": (1 << 20,), "typestr": "|u1", "data": (device.device_pointer, False), "version": 3},
        owner=device,
    )
    assert (view.copy_to_host() == 7).all()
    pinned = ctx.memhostalloc(4096)
    mapped = ctx.memhostalloc(4096, mapped=True)
    assert (pinned.kind, mapped.kind) == ("pinned", "mapped") and mapped.device_pointer != 0
    managed = ctx.memallocmanaged(4096, attach_global=False)
    assert managed.kind == "managed" and managed.host_pointer == managed.device_pointer
    for bad in (0, -5):
        with pytest.raises(ValueError, match="bytesize must be positive"):
            ctx.memalloc(bad)
    with pytest.raises(TypeError):
        ctx.memalloc("8")
