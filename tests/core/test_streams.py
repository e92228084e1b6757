"""Streams: the seed's "Stream Management"."""

import asyncio
import gc
import sys
import threading
import warnings

import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from spin import spinner
from subproc import run_python

pytestmark = requires_gpu


def test_stream_kinds():
    s = cuda.stream()
    assert isinstance(s, cuda.Stream)
    assert int(s) == s.handle != 0
    assert repr(s).startswith("<CUDA stream %d on <CUDA context" % s.handle)
    default = cuda.default_stream()
    assert int(default) == 0 and repr(default).startswith("<Default CUDA stream on")
    legacy = cuda.legacy_default_stream()
    assert int(legacy) == 1 and repr(legacy).startswith("<Legacy default CUDA stream on")
    per_thread = cuda.per_thread_default_stream()
    assert int(per_thread) == 2 and repr(per_thread).startswith("<Per-thread default CUDA stream on")
    assert default == cuda.default_stream() and default != legacy
    assert s.__cuda_stream__() == (0, s.handle)
    for stream in (s, default, legacy, per_thread):
        stream.synchronize()
        assert stream.query() is True
    assert cudadrv_stream_is_stream(s)


def cudadrv_stream_is_stream(s):
    from numba_cuda_c.cudadrv.driver import Stream

    return isinstance(s, Stream)


def test_external_stream_is_never_destroyed():
    owner = cuda.stream()
    external = cuda.external_stream(owner.handle)
    assert external.external and int(external) == owner.handle
    assert repr(external).startswith("<External CUDA stream %d" % owner.handle)
    external.synchronize()
    del external
    gc.collect()
    owner.synchronize()  # still valid
    with pytest.raises(ValueError):
        cuda.external_stream(0)


def test_auto_synchronize():
    s = cuda.stream()
    with s.auto_synchronize() as inside:
        assert inside is s
    assert s.query()


def test_callbacks_run_in_order_with_arguments():
    s = cuda.stream()
    calls = []
    for i in range(5):
        s.add_callback(lambda stream, status, arg: calls.append((stream, status, arg)), i)
    s.synchronize()
    assert [c[2] for c in calls] == list(range(5))
    assert all(c[0] is s and c[1] == 0 for c in calls)


def test_ten_thousand_callbacks_leak_nothing():
    s = cuda.stream()
    arg = object()
    count = [0]

    def callback(stream, status, a):
        count[0] += 1

    before = sys.getrefcount(arg), sys.getrefcount(callback), sys.getrefcount(s)
    for _ in range(10_000):
        s.add_callback(callback, arg)
    s.synchronize()
    assert count[0] == 10_000
    assert (sys.getrefcount(arg), sys.getrefcount(callback), sys.getrefcount(s)) == before


def test_callback_that_raises_warns():
    s = cuda.stream()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s.add_callback(lambda *args: 1 / 0, None)
        s.synchronize()
        s.add_callback(lambda *args: None)  # the stream still works
        s.synchronize()
    assert any("Exception in stream callback" in str(w.message) for w in caught)


def test_callback_must_be_callable():
    with pytest.raises(TypeError, match="callable"):
        cuda.stream().add_callback(42, None)


def test_async_done_with_several_streams():
    streams = [cuda.stream() for _ in range(4)]
    spin = spinner(cuda.get_current_device())

    async def main():
        done = []
        for s in streams:
            spin(s, 5)
            done.append(cuda.event())
            done[-1].record(s)
        await asyncio.gather(*(s.async_done() for s in streams))
        # the work queued before is finished (the stream itself may still be returning from the host
        # callback that woke us, so its query() can say False for a moment)
        return [e.query() for e in done]

    assert asyncio.run(main()) == [True] * 4


def test_synchronize_releases_the_gil():
    s = cuda.stream()
    spin = spinner(cuda.get_current_device())
    spin(s, 300)
    progress = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            progress[0] += 1

    thread = threading.Thread(target=count)
    thread.start()
    s.synchronize()
    stop.set()
    thread.join()
    assert progress[0] > 1000


def test_overlap_of_two_streams():
    spin = spinner(cuda.get_current_device())
    a, b = cuda.stream(), cuda.stream()
    start, end = cuda.event(), cuda.event()
    spin(a, 1)  # warm up the kernel
    cuda.synchronize()

    start.record(a)
    spin(a, 50)
    spin(a, 50)
    end.record(a)
    end.synchronize()
    serial = cuda.event_elapsed_time(start, end)

    start.record(0)
    start.wait(a)
    start.wait(b)
    spin(a, 50)
    spin(b, 50)
    done_b = cuda.event()
    done_b.record(b)
    done_b.wait(a)
    end.record(a)
    end.synchronize()
    parallel = cuda.event_elapsed_time(start, end)
    assert 90 < serial < 200
    assert parallel < 0.75 * serial


def test_per_thread_default_stream_env():
    code = """
import threading
import numba_cuda_c as cuda
s = cuda.default_stream()
assert int(s) == 2 and repr(s).startswith('<Per-thread default CUDA stream'), repr(s)
ok = []
def work():
    e = cuda.event()
    e.record()
    e.synchronize()
    cuda.default_stream().synchronize()
    ok.append(e.query())
threads = [threading.Thread(target=work) for _ in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
assert ok == [True] * 8, ok
print('per-thread ok')
"""
    assert "per-thread ok" in run_python(code, NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM="1")


@pytest.mark.serial
def test_many_streams_leak_no_device_memory():
    context = cuda.current_context()
    for _ in range(100):
        cuda.stream()
    before = context.get_memory_info().free
    for _ in range(10_000):
        cuda.stream()
    after = context.get_memory_info().free
    assert abs(before - after) < 8 * 2**20


def test_bad_stream_argument():
    with pytest.raises(TypeError, match="stream"):
        cuda.event().record("not a stream")


def test_copies_on_a_stream_are_ordered_and_asynchronous():
    import time

    import numpy as np

    s = cuda.stream()
    n = 1 << 20
    host = cuda.pinned_array(n, dtype=np.float32)
    host[:] = np.arange(n, dtype=np.float32)
    out = cuda.pinned_array(n, dtype=np.float32)
    out[:] = -1
    spinner(cuda.get_current_device())(s, 200)  # the stream is busy for 200 ms
    started = time.perf_counter()
    d = cuda.to_device(host, stream=s)
    d2 = cuda.device_array_like(d, stream=s)
    d2.copy_to_device(d, stream=s)
    d2.copy_to_host(out, stream=s)
    queued = time.perf_counter() - started
    assert queued < 0.1  # nothing waited for the spinning kernel
    assert s.query() is False
    s.synchronize()
    np.testing.assert_array_equal(out, host)
