"""CUDA graphs by stream capture: `with stream.capture() as graph:` records launches instead of running
them, graph.instantiate()/launch() replays them with one cuGraphLaunch, GraphExec.update() takes new
arguments from a graph of the same shape. The mock driver records each replayed launch; the GPU tests
check results, lifetimes and the driver's refusals."""

import gc

import numpy as np
import pytest

from gpu import requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

import numba_cuda_c as cuda

PTX = '''
PTX = b"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry first(.param .u64 first_param_0, .param .u32 first_param_1) { ret; }
.visible .entry second(.param .u64 second_param_0) { ret; }
"""
module = cuda.load_module(PTX)
first, second = module.get_function("first"), module.get_function("second")


def refused(kind, call, *words):
    """call() must raise `kind` with each of `words` in its message."""
    try:
        call()
    except kind as e:
        assert all(w in str(e) for w in words), e
        return e
    raise AssertionError("%s did not raise %s" % (call, kind.__name__))
'''


def test_capture_records_launches_and_each_graph_launch_replays_them(mock_driver):
    out = run_mock(
        [
            PTX,
            """
        import struct
        s = cuda.stream()
        d = cuda.device_array(8, np.float32)
        before = mock.launch_count()
        with s.capture() as graph:
            assert s.is_capturing()
            first[2, 32, s](d, 7)
            second[1, 64, s](d)
        assert not s.is_capturing()
        assert mock.launch_count() == before, "captured launches must not run"
        assert graph.node_count == 2, graph.node_count
        executable = graph.instantiate()
        executable.launch(s)
        executable.launch(s)
        assert mock.launch_count() == before + 4
        last, earlier = mock.launch(0), mock.launch(1)
        assert (earlier["name"], earlier["grid"], earlier["block"]) == ("first", (2, 1, 1), (32, 1, 1))
        assert earlier["params"][1] == struct.pack("<I", 7)
        assert (last["name"], last["block"], last["stream"]) == ("second", (64, 1, 1), s.handle)
        graph.launch(s)                      # instantiated once, on its first launch
        graph.launch(stream=s)
        assert mock.launch_count() == before + 8 and mock.calls("cuGraphInstantiate") == 2
        print(repr(graph))
    """,
        ]
    )
    assert "CUDA graph of 2 nodes" in out


def test_update_takes_new_arguments_and_refuses_another_shape(mock_driver):
    run_mock(
        [
            PTX,
            """
        import struct
        s = cuda.stream()
        d = cuda.device_array(8, np.float32)
        with s.capture() as g1:
            first[1, 1, s](d, 1)
        with s.capture() as g2:
            first[1, 1, s](d, 2)
        with s.capture() as g3:
            second[1, 1, s](d)
        executable = g1.instantiate()
        executable.update(g2)
        assert executable.graph is g2
        executable.launch(s)
        assert mock.launch()["params"][1] == struct.pack("<I", 2)
        refused(cuda.CudaAPIError, lambda: executable.update(g3), "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "topology")
        refused(TypeError, lambda: executable.update(d), "Graph")
    """,
        ]
    )


def test_what_a_graph_cannot_capture_is_a_clear_error(mock_driver):
    run_mock(
        [
            PTX,
            """
        s = cuda.stream()
        d = cuda.device_array(8, np.float32)
        # a NumPy argument is copied around the launch: refused, and the capture goes on
        with s.capture() as graph:
            refused(ValueError, lambda: first[1, 1, s](np.zeros(8, np.float32), 1), "NumPy array", "to_device")
            first[1, 1, s](d, 1)
            for pageable in (lambda: d.copy_to_host(stream=s), lambda: cuda.to_device(np.ones(8), stream=s)):
                refused(ValueError, pageable, "pageable", "pinned")
            pinned = cuda.pinned_array(8, np.float32)
            d.copy_to_host(pinned, stream=s)  # pinned memory can be captured
        assert graph.node_count == 1
        # the stream's own synchronize() is refused before the driver sees it: the capture goes on
        with s.capture() as kept:
            first[1, 1, s](d, 1)
            e = refused(cuda.CudaAPIError, s.synchronize, "end the capture")
            assert e.code == CU["CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"]
        assert kept.node_count == 1
        # a context-wide synchronize inside the capture: the driver refuses it and the capture has no graph
        broken = s.capture()

        def capture_with_a_context_sync():
            with broken:
                first[1, 1, s](d, 1)
                refused(cuda.CudaAPIError, cuda.synchronize, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED")

        refused(cuda.CudaAPIError, capture_with_a_context_sync, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "synchroniz")
        refused(RuntimeError, broken.instantiate, "failed")
        # the legacy default stream cannot be captured; a Graph captures once; captures do not nest
        refused(ValueError, lambda: cuda.default_stream().capture(), "legacy default stream")
        refused(ValueError, lambda: s.capture(mode="eager"), "mode")
        with s.capture() as once:
            pass
        refused(RuntimeError, once.__enter__, "captured once")
        with s.capture():
            refused(RuntimeError, s.begin_capture, "already")
        # an exception in the block: the capture ends, the exception goes on
        try:
            with s.capture() as dropped:
                first[1, 1, s](d, 1)
                raise KeyError("inside")
        except KeyError:
            pass
        assert not s.is_capturing() and "capture failed" in repr(dropped)
    """,
        ]
    )


def test_begin_and_end_capture_and_lifetimes(mock_driver):
    run_mock(
        [
            PTX,
            """
        import weakref
        s = cuda.stream()
        warm = cuda.device_array(1)  # the context's first allocation also makes one of its own
        base = mock.live()["device"]
        d = cuda.device_array(8, np.float32)
        watch = weakref.ref(d)
        s.begin_capture(mode="global")
        first[1, 1, s](d, 3)
        graph = s.end_capture()
        assert graph.node_count == 1 and graph.stream is s
        executable = graph.instantiate()
        del d, graph
        gc.collect()
        assert watch() is not None, "a captured argument must live as long as the graph"
        executable.launch(s)
        del executable
        gc.collect()
        assert watch() is None, "the graph's arguments must go with it"
        cuda._cuda._flush_deallocations()
        assert mock.live()["device"] == base, mock.live()
        for _ in range(3):  # graphs and executables are destroyed with their objects
            with s.capture() as g:
                first[1, 1, s](cuda.device_array(4), 1)
            g.launch(s)
            del g
        gc.collect()
        assert mock.lib.mock_live(b"graphs") == 0 and mock.lib.mock_live(b"graph_execs") == 0
        cuda._cuda._flush_deallocations()
        assert mock.live()["device"] == base, mock.live()
        refused(RuntimeError, s.end_capture, "not being captured")
    """,
        ]
    )


# ---- on the GPU ----

SOURCE = r"""
extern "C" __global__ void add(float *x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}
"""


@requires_gpu
def test_graph_replays_kernels_and_copies_on_the_gpu():
    add = cuda.SourceModule(SOURCE).get_function("add")
    s = cuda.stream()
    n = 1000
    d = cuda.to_device(np.zeros(n, np.float32), stream=s)
    host = cuda.pinned_array(n, np.float32)
    with s.capture() as graph:
        for _ in range(10):
            add[(n + 127) // 128, 128, s](d, 1.0, n)
        d.copy_to_host(host, stream=s)  # pinned: capturable
    assert graph.node_count == 11
    s.synchronize()
    assert d.copy_to_host().sum() == 0, "captured work must not run before the graph is launched"
    executable = graph.instantiate()
    executable.upload(s)
    for _ in range(3):
        executable.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(host, np.full(n, 30, np.float32))


@requires_gpu
def test_jit_kernels_in_a_graph_and_update_on_the_gpu():
    @cuda.jit
    def scale(a, f):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= f

    s = cuda.stream()
    a = cuda.to_device(np.ones(256, np.float64), stream=s)
    scale[2, 128, s](a, 1.0)  # compiled outside the capture
    with s.capture() as g2:
        scale[2, 128, s](a, 2.0)
    with s.capture() as g3:
        scale[2, 128, s](a, 3.0)
    executable = g2.instantiate()
    executable.launch(s)
    executable.update(g3)
    executable.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), np.full(256, 6.0))


@requires_gpu
def test_captured_arrays_live_with_the_graph_on_the_gpu():
    add = cuda.SourceModule(SOURCE).get_function("add")
    s = cuda.stream()
    d = cuda.to_device(np.zeros(64, np.float32), stream=s)
    pointer = d.device_ctypes_pointer.value
    with s.capture() as graph:
        add[1, 64, s](d, 5.0, 64)
    del d
    gc.collect()
    graph.launch(s)
    s.synchronize()
    again = cuda.from_cuda_array_interface(
        {"shape": (64,), "typestr": "<f4", "data": (pointer, False), "version": 3, "strides": None}, owner=graph
    )
    np.testing.assert_array_equal(again.copy_to_host(), np.full(64, 5.0, np.float32))


@requires_gpu
def test_synchronizing_inside_a_capture_is_a_clear_error_on_the_gpu():
    add = cuda.SourceModule(SOURCE).get_function("add")
    s = cuda.stream()
    d = cuda.device_array(64, np.float32)
    with pytest.raises(cuda.CudaAPIError) as info:
        with s.capture():
            add[1, 64, s](d, 1.0, 64)
            d.copy_to_host()  # a synchronous copy: not capturable
    assert "CAPTURE" in str(info.value)
    assert not s.is_capturing()
    add[1, 64, s](d, 1.0, 64)  # the stream works again
    s.synchronize()
