"""The package's normal flows against the mock CUDA driver (tests/support/mockcuda), in CI without a GPU: devices,
contexts, memory, copies with exact data, streams, events, pinned and mapped arrays, and NVRTC-compiled
kernels launched with the argument bytes checked as the driver received them. Fault injection is in
test_mock_faults.py; fuzzing in test_fuzz_arrays.py."""

import os

import pytest

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

pytestmark = pytest.mark.usefixtures("mock_driver")

HAS_NVRTC = any(
    os.path.exists(os.path.join(d, "lib64")) for d in ("/usr/local/cuda", os.environ.get("CUDA_HOME", "")) if d
)


def test_devices_contexts_and_memory_info():
    out = run_mock(
        """
        devices = list(cuda.gpus)
        assert len(devices) == 2 and devices[1].name == "Mock CUDA Device 1", devices
        assert cuda.is_available() and devices[0].compute_capability == (8, 6)
        mock.check_same_image()
        ctx = cuda.current_context()
        assert ctx.device.id == 0 and mock.live()["contexts"] == 1
        free, total = ctx.get_memory_info()
        assert total == 1 << 30 and free <= total
        d = cuda.device_array(1 << 20, np.uint8)
        free2, _ = ctx.get_memory_info()
        assert free - free2 >= 1 << 20, (free, free2)
        with cuda.gpus[1]:
            assert cuda.current_context().device.id == 1
            d1 = cuda.to_device(np.arange(3))
            assert mock.live()["contexts"] == 2
        assert cuda.current_context().device.id == 0
        assert cuda.get_current_device().MAX_THREADS_PER_BLOCK == 1024
        del d, d1
        cuda.close()
        gc.collect()
        live = mock.live()
        assert all(v == 0 for v in live.values()), live
        print("ok")
    """,
        MOCK_CUDA_DEVICES="2",
        MOCK_CUDA_CC="8.6",
        MOCK_CUDA_TOTAL_MEMORY=str(1 << 30),
    )
    assert out.strip() == "ok"


def test_round_trips_exact_data_contiguous_strided_slices_views():
    run_mock("""
        rng = np.random.default_rng(0)
        for dtype in (np.int8, np.int32, np.float64, np.complex64):
            a = (rng.standard_normal((6, 5, 4)) * 100).astype(dtype)
            for host in (a, np.asfortranarray(a), a[::2, 1:, ::-1], a.transpose(2, 0, 1), a[3]):
                d = cuda.to_device(host)
                assert d.shape == host.shape and d.dtype == host.dtype
                assert np.array_equal(d.copy_to_host(), host)
                assert np.array_equal(d[1:].copy_to_host(), host[1:])
                assert np.array_equal(d[::2].copy_to_host(), host[::2])
                assert np.array_equal(d.T.copy_to_host(), host.T)
                out = np.empty_like(host)
                d.copy_to_host(out)
                assert np.array_equal(out, host)
        d = cuda.to_device(np.arange(24, dtype=np.float32))
        r = d.reshape(4, 6)
        assert np.array_equal(r.copy_to_host(), np.arange(24, dtype=np.float32).reshape(4, 6))
        assert np.array_equal(d.view(np.int32).copy_to_host(), np.arange(24, dtype=np.float32).view(np.int32))
        for empty_shape in ((0, -1), (-1, 0, 3)):  # any length fits -1: ambiguous, refused as NumPy does
            try:
                cuda.device_array((0,), np.int8).reshape(empty_shape)
            except ValueError:
                pass
            else:
                raise AssertionError(empty_shape)
        assert cuda.device_array((0, 4)).reshape(-1, 2).shape == (0, 2)
        e = cuda.device_array_like(r)
        e.copy_to_device(r)
        assert np.array_equal(e.copy_to_host(), r.copy_to_host())
        e[1:3, ::2].copy_to_device(np.full((2, 3), -1, np.float32))
        want = r.copy_to_host(); want[1:3, ::2] = -1
        assert np.array_equal(e.copy_to_host(), want)
        rec = np.zeros(3, dtype=[("x", "<i4"), ("y", "<f8")]); rec["x"] = [1, 2, 3]; rec["y"] = [.5, 1.5, 2.5]
        dr = cuda.to_device(rec)
        assert np.array_equal(dr.copy_to_host(), rec)
        assert dr[1].copy_to_host() == rec[1]
    """)


def test_setitem_slices_scalars_and_arrays():
    run_mock("""
        host = np.arange(40, dtype=np.int32).reshape(5, 8)
        d = cuda.to_device(host)
        d[1] = 7; host[1] = 7
        d[2:4, ::3] = np.array([[-1, -2, -3]] * 2, np.int32); host[2:4, ::3] = [[-1, -2, -3]] * 2
        d[4, 5] = 99; host[4, 5] = 99
        d[:, 0] = cuda.to_device(np.full(5, 11, np.int32)); host[:, 0] = 11
        assert np.array_equal(d.copy_to_host(), host)
        for dtype in (np.uint8, np.int16, np.float32, np.float64):
            z = cuda.device_array(17, dtype)
            z[:] = 3; z[5:9] = 0
            want = np.full(17, 3, dtype); want[5:9] = 0
            assert np.array_equal(z.copy_to_host(), want), dtype
        s = cuda.stream()
        d[0] = 5
        d[0, ::2] = np.arange(4, dtype=np.int32)
        d.copy_to_host(stream=s); s.synchronize()
    """)


def test_streams_events_and_callbacks_on_a_driver_thread():
    out = run_mock("""
        import threading
        s = cuda.stream()
        assert mock.live()["streams"] == 1 and s.handle != 0
        seen = []
        def callback(stream, status, arg):
            seen.append((stream is s, status, arg, threading.get_ident() != threading.main_thread().ident))
        s.add_callback(callback, "arg")
        s.synchronize()
        assert seen == [(True, 0, "arg", True)], seen
        assert s.query()
        start, end = cuda.event(), cuda.event()
        start.record(s)
        d = cuda.to_device(np.arange(100), stream=s)
        end.record(s)
        end.synchronize()
        assert end.query() and start.elapsed_time(end) >= 0
        end.wait(cuda.stream())
        notime = cuda.event(timing=False)
        notime.record()
        never = cuda.event()
        try:
            never.elapsed_time(end)  # never recorded: the driver refuses
        except cuda.CudaDriverError as e:
            assert "CUDA_ERROR_INVALID_HANDLE" in str(e)
        else:
            raise AssertionError("elapsed time of an event never recorded")
        del never
        with s.auto_synchronize():
            cuda.to_device(np.arange(4), stream=s)
        assert mock.live()["events"] == 3
        del start, end, notime, s, d
        gc.collect()
        live = mock.live()
        assert live["streams"] == 0 and live["events"] == 0, live
        print("ok")
    """)
    assert out.strip() == "ok"


def test_pinned_mapped_managed_and_registered_host_memory():
    run_mock("""
        p = cuda.pinned_array((3, 4), np.float32)  # pages of our own, registered
        assert mock.live()["registered"] == 1
        p[:] = np.arange(12).reshape(3, 4)
        d = cuda.to_device(p)
        assert np.array_equal(d.copy_to_host(), p)
        m = cuda.mapped_array(8, np.int64)
        assert mock.live()["registered"] == 2, mock.live()
        m[:] = np.arange(8)
        ptr = m.__cuda_array_interface__["data"][0] if hasattr(m, "__cuda_array_interface__") else None
        assert ptr is None or ptr == m.ctypes.data or mock.is_device_range(ptr, 64)  # registered: the same address
        g = cuda.managed_array(5, np.int32)
        assert mock.live()["managed"] == 1
        g[:] = 4
        host = np.arange(6.0)
        with cuda.pinned(host):
            assert mock.live()["registered"] == 3, mock.live()
            assert np.array_equal(cuda.to_device(host).copy_to_host(), host)
        assert mock.live()["registered"] == 2, mock.live()
        w = cuda.mapped_array(8, np.int64, wc=True)  # write-combined: the driver's own pages
        assert mock.live()["mapped"] == 1, mock.live()
        del p, m, g, d, w
        gc.collect()
        cuda.current_context().reset()
        live = mock.live()
        assert live["registered"] == 0 and live["mapped"] == 0 and live["managed"] == 0, live
    """)


@pytest.mark.skipif(not HAS_NVRTC, reason="no CUDA toolkit (NVRTC) at /usr/local/cuda or CUDA_HOME")
def test_source_module_compiled_by_nvrtc_launched_with_exact_argument_bytes():
    run_mock(r"""
        import struct
        src = '''
        struct S { double a; int b; };
        extern "C" __global__ void k(float *x, int n, double d, char c, S s, short h, float f) {
            if (n) x[0] = d + c + s.a + s.b + h + f; }
        extern "C" __global__ void add(long long *p, long long v) { p[threadIdx.x] += v; }
        '''
        m = cuda.SourceModule(src)
        k = m.get_function("k")
        assert mock.live()["modules"] == 1
        d = cuda.device_array(4, np.float32)
        s = cuda.stream()
        k[(2, 3), 32, s, 128](d, 5, 2.5, 7, (1.0, np.int32(2)), np.int16(-3), np.float32(1.5))
        rec = mock.launch()
        assert rec["name"] == "k" and rec["grid"] == (2, 3, 1) and rec["block"] == (32, 1, 1), rec
        assert rec["shared"] == 128 and rec["stream"] == s.handle, rec
        ptr = d.__cuda_array_interface__["data"][0]
        want = [struct.pack("<Q", ptr), struct.pack("<i", 5), struct.pack("<d", 2.5), struct.pack("<b", 7),
                struct.pack("<di", 1.0, 2) + b"\0" * 4, struct.pack("<h", -3), struct.pack("<f", 1.5)]
        got = rec["params"]
        assert got[:4] == want[:4] and got[5:] == want[5:], (got, want)
        assert got[4][:12] == want[4][:12], got[4]
        add = m.get_function("add")
        host = np.zeros(3, np.int64)
        add[1, 3](host, 2**40 + 1)
        rec = mock.launch()
        p, v = struct.unpack("<Qq", b"".join(rec["params"]))
        assert v == 2**40 + 1 and p != host.ctypes.data, rec
        assert mock.launch_count() == 2
        try:
            m.get_function("missing")
        except cuda.CudaAPIError as e:
            assert "missing" in str(e)
        else:
            raise AssertionError("a kernel the image lacks")
        try:
            k[1, 1](d, 1)
        except TypeError as e:
            assert "7" in str(e)
        else:
            raise AssertionError("wrong argument count")
        assert mock.launch_count() == 2
    """)


def test_ptx_image_and_parameter_layout_set_from_the_control_api():
    run_mock(r"""
        import struct
        ptx = b'''
        .version 8.0
        .target sm_90
        .address_size 64
        .visible .entry scale(
            .param .u64 scale_param_0,
            .param .f32 scale_param_1,
            .param .align 8 .b8 scale_param_2[24]
        )
        { ret; }
        '''
        mod = cuda.load_module(ptx)
        f = mod.get_function("scale")
        d = cuda.device_array((2, 3), np.float64)
        v = cuda.device_array(10, np.int16)[::2]
        f[1, 1](d, 2.0, v)
        rec = mock.launch()
        assert [len(p) for p in rec["params"]] == [8, 4, 24], rec
        assert rec["params"][1] == struct.pack("<f", 2.0)
        assert rec["params"][2] == struct.pack("<Qqq", v.__cuda_array_interface__["data"][0], 5, 4), rec
        mock.set_params("anything", [8, 8])
        g = cuda.load_module(b"not an image").get_function("anything")
        g[1, 1](d, 7)
        assert mock.launch()["params"] == [struct.pack("<Q", d.__cuda_array_interface__["data"][0]),
                                           struct.pack("<q", 7)]
    """)


def test_first_use_of_gpus_from_many_threads_gives_one_list():
    # the first use loads the driver with the GIL released: threads arriving together must still
    # share one device list (issue 10 item 6), in C (the Devices) and in Python (cuda.gpus' managers)
    run_mock("""
        import threading
        barrier, seen = threading.Barrier(16), [None] * 16

        def worker(t):
            barrier.wait()
            seen[t] = (cuda.gpus[0], cuda.gpus.lst, cuda.list_devices()[0], cuda.get_current_device())

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        first = seen[0]
        assert all(s[0] is first[0] and s[1] is first[1] and s[2] is first[2] for s in seen), seen
        assert all(s[3].id == 0 for s in seen)
    """)


def test_frees_in_a_stream_callback_wait_for_a_thread_outside_it():
    # CUDA forbids driver calls in a stream callback (a real driver deadlocks: it waits for the callback,
    # which waits for the driver); a device array whose last reference the callback drops, or a garbage
    # collection there, must only queue its free (issue 10 item 18: the SourceModule/callback deadlock)
    run_mock(
        """
        s = cuda.stream()
        s.add_callback(lambda *args: None, None)
        s.synchronize()
        warm = cuda.device_array(1)  # the context's first allocation also makes one of its own
        before = mock.live()["device"]
        held = [cuda.device_array(100) for _ in range(4)]
        pool = [cuda.device_array(100, stream=s) for _ in range(2)]
        def callback(stream, status, arg):
            held.clear()  # the last references: their frees are queued, and the queue is over its limit
            pool.clear()
        s.add_callback(callback, None)
        s.synchronize()
        assert mock.callback_violations() == 0, mock.callback_violations()
        assert held == [] and mock.live()["device"] == before + 6, (before, mock.live())  # queued, not freed yet
        cuda._cuda._flush_deallocations()
        assert mock.live()["device"] == before, mock.live()
    """,
        NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT="1",
    )


def test_a_stream_held_only_by_its_callback_is_destroyed_outside_the_callback():
    run_mock("""
        import time
        called = []
        cuda.stream().add_callback(lambda stream, status, arg: called.append(arg), 7)  # nobody keeps the stream
        cuda.synchronize()
        for _ in range(100):  # the main thread drops it at its next chance
            if mock.live()["streams"] == 0:
                break
            time.sleep(0.01)
        assert called == [7] and mock.callback_violations() == 0, (called, mock.callback_violations())
        assert mock.live()["streams"] == 0, mock.live()
    """)


def test_context_attaches_to_a_primary_context_another_library_retained():
    # numba's driver.Context(device, handle) for a third-party context: its primary context works,
    # no other does (numba's message, which users grep)
    run_mock("""
        import pytest
        ctx = cuda.current_context()
        from numba_cuda_c.cudadrv import driver
        for device in (0, cuda.gpus[0], ctx.device):
            assert driver.Context(device, ctx.handle) is ctx
        with pytest.raises(RuntimeError, match="Numba cannot operate on non-primary CUDA context "):
            driver.Context(0, ctx.handle + 64)
        with pytest.raises((TypeError, ValueError)):
            driver.Context("zero", ctx.handle)
    """)


def test_to_device_keeps_the_host_strides_of_empty_arrays():
    # numba's from_array_like: the host's strides (numba issue 8477: copies between empty arrays whose
    # strides differ work both ways)
    run_mock("""
        from numba_cuda_c.cudadrv import devicearray
        dev_array = devicearray.DeviceNDArray(shape=(0,), strides=(8,), dtype=np.int8)
        host_array = np.ndarray(shape=(0,), strides=(0,), dtype=np.int8)
        dev_array.copy_to_host(host_array)
        dev_array.copy_to_device(host_array)
        from_host = cuda.to_device(host_array)
        assert from_host.shape == (0,) and from_host.strides == (0,), from_host.strides
        dev_array.copy_to_device(from_host)
        from_host.copy_to_device(dev_array)
        f = np.asfortranarray(np.arange(6.0).reshape(2, 3))
        assert cuda.to_device(f).strides == f.strides and cuda.to_device(f).copy_to_host().tolist() == f.tolist()
    """)


def test_ipc_handles_as_numba_s():
    # numba's IpcHandle / IpcArrayHandle: attributes, pickling, open/close and their errors. The mock
    # opens a handle in the exporting process itself, which a real driver refuses.
    run_mock("""
        import pickle
        import pytest
        d = cuda.to_device(np.arange(10, dtype=np.intp))
        view = d[3:8]
        ctx = cuda.current_context()
        ipch = ctx.get_ipc_handle(view.gpu_data)
        assert ipch.base is not None and ipch.size == 5 * 8 and ipch.offset == 24, (ipch.size, ipch.offset)
        assert len(ipch.handle.reserved) == 64
        assert ipch.source_info == cuda.get_current_device().get_device_identity()
        with pytest.raises(ValueError, match="opening IpcHandle from original process"):
            ipch.open(ctx)
        again = pickle.loads(pickle.dumps(ipch))
        assert again.base is None and again.size == ipch.size and again.offset == ipch.offset
        assert again.handle.reserved == ipch.handle.reserved and again.source_info == ipch.source_info
        with pytest.raises(ValueError, match="IpcHandle not opened"):
            again.close()
        array = again.open_array(ctx, shape=5, dtype=np.intp)
        assert array.copy_to_host().tolist() == [3, 4, 5, 6, 7]
        assert mock.live()["ipc"] == 1
        with pytest.raises(ValueError, match="IpcHandle is already opened"):
            again.open(ctx)
        again.close()
        assert mock.live()["ipc"] == 0
        staged = pickle.loads(pickle.dumps(ipch))
        copy = staged.open_staged(ctx)  # a copy of its own, made through the source device
        host = np.zeros(5, np.intp)
        cuda.driver.device_to_host(host, copy, size=staged.size)
        assert host.tolist() == [3, 4, 5, 6, 7] and mock.live()["ipc"] == 0
        staged.close()
        # the array handle: a context manager, opened once at a time
        handle = pickle.loads(pickle.dumps(d[2:].get_ipc_handle()))
        with handle as darr:
            assert darr.copy_to_host().tolist() == list(range(2, 10))
            with pytest.raises(ValueError, match="IpcHandle is already opened"):
                with handle:
                    pass
        assert mock.live()["ipc"] == 0
        # cuda.open_ipc_array takes the handle's bytes (or a tuple of ints)
        with cuda.open_ipc_array(tuple(ipch.handle.reserved), shape=10, dtype=np.intp) as whole:
            assert whole.copy_to_host().tolist() == list(range(10))
        with cuda.open_ipc_array(ipch.handle.reserved, shape=2, dtype=np.intp, offset=16) as part:
            assert part.copy_to_host().tolist() == [2, 3]
        assert mock.live()["ipc"] == 0
        opened = ctx.open_ipc_handle(ipch.handle, 80)
        assert opened.device_pointer == d.device_ctypes_pointer.value
        opened.free()
    """)


def test_streams_events_and_modules_dropped_in_a_callback_are_destroyed_outside_it():
    # the driver must not be called from a callback: their handles wait for the main thread
    run_mock("""
        import time
        src = b'.version 8.0\\n.target sm_90\\n.address_size 64\\n.visible .entry k(.param .u64 p)\\n{ ret; }\\n'
        s = cuda.stream()
        before = mock.live()
        held = [cuda.stream(), cuda.event(), cuda.event(timing=False), cuda.load_module(src)]
        def callback(stream, status, arg):
            held.clear()  # the last references
        s.add_callback(callback, None)
        s.synchronize()
        assert held == [] and mock.callback_violations() == 0, mock.callback_violations()
        for _ in range(100):  # the main thread destroys them at its next chance
            live = mock.live()
            if (live["streams"], live["events"], live["modules"]) == (before["streams"], before["events"],
                                                                    before["modules"]):
                break
            time.sleep(0.01)
        assert (live["streams"], live["events"], live["modules"]) == (
            before["streams"], before["events"], before["modules"]), (before, live)
        assert mock.callback_violations() == 0
    """)


@pytest.mark.skipif(not HAS_NVRTC, reason="no CUDA toolkit (NVRTC) at /usr/local/cuda or CUDA_HOME")
def test_specialized_kernels_report_attributes_as_numbers():
    # numba's rule: one signature given at decoration (not a list), or specialize(): numbers; else dicts
    run_mock("""
        import importlib, os, tempfile
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "kernels_of_test.py"), "w") as file:  # the translator reads the source
            file.write("def f(x):\\n    x[0] = 1\\n")
        sys.path.insert(0, folder)
        f = importlib.import_module("kernels_of_test").f

        one = cuda.jit("void(int32[:])")(f)
        several = cuda.jit(["void(int32[:])"])(f)
        assert one.specialized and not several.specialized and not cuda.jit(f).specialized
        assert isinstance(one.get_regs_per_thread(), int) and isinstance(one.get_max_threads_per_block(), int)
        assert isinstance(several.get_regs_per_thread(), dict)
        lazy = cuda.jit(f)
        special = lazy.specialize(cuda.device_array(4, np.int32))
        assert special.specialized and isinstance(special.get_shared_mem_per_block(), int)
        try:
            special.specialize(cuda.device_array(4, np.int32))
            raise AssertionError("specialised twice")
        except RuntimeError as e:
            assert "already specialized" in str(e)
    """)


def test_shapes_given_as_numpy_arrays_and_lists():
    run_mock("""
        assert cuda.device_array(shape=np.array([10, 10]), dtype=np.bool_).shape == (10, 10)
        assert cuda.device_array([2, 3]).shape == (2, 3)
        assert cuda.device_array(np.int64(5)).shape == (5,) and cuda.device_array(np.array(4)).shape == (4,)
    """)


def test_driver_calls_while_a_callback_waits_for_the_gil_do_not_deadlock():
    # a real driver can make every call wait while a stream callback runs; the callback needs the GIL,
    # so a thread that holds the GIL must not make a driver call then (issue 10 item 18): here every
    # create, copy and free the main thread makes while callbacks run must let them take the GIL
    run_mock(
        """
        import threading, time
        started = threading.Event()
        def callback(stream, status, arg):
            started.set()
            time.sleep(0.05)  # holds the mock's "driver" a while, and needs the GIL to finish
        s = cuda.stream()
        for round_ in range(20):
            s.add_callback(callback, round_)
            started.wait(5)
            started.clear()
            d = cuda.device_array(1000)       # cuMemAlloc
            e = cuda.event()                  # cuEventCreate
            h = d.copy_to_host()              # copies release the GIL anyway
            t = cuda.stream()                 # cuStreamCreate
            del d, e, t
        s.synchronize()
        print("ok")
    """,
        timeout=60,
        MOCK_CUDA_CALLBACKS_BLOCK="1",
    )


def test_arrays_made_on_a_stream_name_it_in_their_interface():
    # numba: the CUDA array interface's "stream" is the stream an array was made on (None: the default stream)
    out = run_mock("""
        s = cuda.stream()
        handle = int(s.handle)
        for make in (cuda.device_array, cuda.mapped_array, cuda.managed_array):
            on_stream, on_default = make(10, stream=s), make(10)
            assert on_stream.__cuda_array_interface__["stream"] == handle, make
            assert on_default.__cuda_array_interface__["stream"] is None, make
        view = cuda.mapped_array(10, stream=s)[2:5]
        assert view.__cuda_array_interface__["stream"] == handle and view.stream is s
        like = cuda.mapped_array_like(np.zeros(4), stream=s)
        assert like.__cuda_array_interface__["stream"] == handle
        print("ok")
    """)
    assert "ok" in out


def test_copy_functions_set_on_numbas_driver_object_are_what_copies_call():
    # test suites replace driver.cuMemcpyHtoD to forbid (or count) transfers, as numba's copies call it
    out = run_mock("""
        from numba_cuda_c.cudadrv.driver import driver, CudaAPIError

        d = cuda.to_device(np.arange(4.0))
        calls = []

        def forbid(*args):
            calls.append(args)
            raise CudaAPIError(999, "Transfer not allowed")

        driver.cuMemcpyHtoD = forbid
        driver.cuMemcpyDtoH = forbid
        for action in (d.copy_to_host, lambda: cuda.to_device([1.0]), lambda: d.copy_to_device(np.zeros(4))):
            try:
                action()
            except CudaAPIError as e:
                assert "Transfer not allowed" in str(e)
            else:
                raise AssertionError("no error")
        assert len(calls) == 3 and calls[0][0] != 0 and calls[0][2] == 32, calls  # (dst, src, size)
        e = cuda.device_array(4)
        e.copy_to_device(d)  # device to device: not replaced
        del driver.cuMemcpyHtoD
        del driver.cuMemcpyDtoH
        np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))  # the driver's own again
        s = cuda.stream()
        counted = []
        driver.cuMemcpyDtoHAsync = lambda dst, src, size, stream: counted.append(stream)
        host = np.zeros(4)
        d.copy_to_host(host, stream=s)
        assert counted == [int(s.handle)] and not host.any()  # it replaced the copy
        del driver.cuMemcpyDtoHAsync
        d.copy_to_host(host, stream=s)
        s.synchronize()
        np.testing.assert_array_equal(host, np.arange(4.0))
        print("ok")
    """)
    assert "ok" in out


LAUNCH_PTX = r"""
ptx = b'''
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(
    .param .u64 k_param_0,
    .param .align 8 .b8 k_param_1[24]
)
{ ret; }
'''
k = cuda.load_module(ptx).get_function("k")
"""


def test_arguments_that_are_not_device_arrays_of_ours():
    """A CUDA-array-interface object passes its bare pointer to an 8-byte parameter and a view (data, shape,
    strides) to an array struct; a NumPy array is copied to the device and back after the launch unless it is
    read-only, and is refused on a capturing stream; anything else is a TypeError naming the argument."""
    out = run_mock(
        [
            LAUNCH_PTX,
            r"""
        import struct
        d = cuda.device_array(5, np.float64)
        pointer = d.__cuda_array_interface__["data"][0]

        class Exported:
            @property
            def __cuda_array_interface__(self):
                return d.__cuda_array_interface__

        k[1, 1](Exported(), Exported())
        assert mock.launch()["params"] == [struct.pack("<Q", pointer), struct.pack("<Qqq", pointer, 5, 8)]

        def copies(host):
            mock.reset()
            k[1, 1](host, d)
            return mock.calls("cuMemcpyHtoD"), mock.calls("cuMemcpyDtoH")

        host = np.arange(5.0)
        assert copies(host) == (1, 1)
        host.flags.writeable = False
        assert copies(host) == (1, 0)
        for bad, words in (("text", "argument 0 of k: cannot pass a str"), (None, "cannot pass a NoneType")):
            try:
                k[1, 1](bad, d)
            except TypeError as e:
                assert words in str(e), e
            else:
                raise AssertionError(bad)
        s = cuda.stream()
        with s.capture():
            try:
                k[1, 1, s](np.arange(5.0), d)
            except ValueError as e:
                assert "argument 0 of k is a NumPy array" in str(e) and "to_device" in str(e), e
            else:
                raise AssertionError("a NumPy array in a captured launch")
            k[1, 1, s](Exported(), d)
        print("ok")
    """,
        ]
    )
    assert "ok" in out


def test_peer_access_at_a_launch_is_enabled_once_and_its_failures_name_the_call():
    out = run_mock(
        [
            LAUNCH_PTX,
            r"""
        with cuda.gpus[1]:
            other = cuda.device_array(3, np.float64)
        mine = cuda.device_array(3, np.float64)
        mock.fail("cuDeviceCanAccessPeer", "CUDA_ERROR_INVALID_DEVICE")
        mock.fail("cuCtxEnablePeerAccess", "CUDA_ERROR_TOO_MANY_PEERS")
        for call in ("cuDeviceCanAccessPeer", "cuCtxEnablePeerAccess"):
            try:
                k[1, 1](other, mine)
            except cuda.CudaAPIError as e:
                assert "Call to %s results in" % call in str(e), e
            else:
                raise AssertionError(call)
        mock.reset()
        k[1, 1](other, mine)
        k[1, 1](other, mine)
        assert (mock.calls("cuDeviceCanAccessPeer"), mock.calls("cuCtxEnablePeerAccess"), mock.launch_count()) == (
            1,
            1,
            2,
        )
        print("ok")
    """,
        ],
        MOCK_CUDA_DEVICES="2",
    )
    assert "ok" in out
