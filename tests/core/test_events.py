"""Events: the seed's "Events"."""

import gc

import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from spin import spinner

pytestmark = requires_gpu


def test_record_query_synchronize():
    s = cuda.stream()
    e = cuda.event()
    assert isinstance(e, cuda.Event)
    e.record(s)
    e.synchronize()
    assert e.query() is True
    e.record()  # default stream
    e.record(stream=s)
    e.wait(s)
    e.wait()
    s.synchronize()


def test_query_false_while_busy():
    s = cuda.stream()
    spinner(cuda.get_current_device())(s, 200)
    e = cuda.event()
    e.record(s)
    assert e.query() is False
    e.synchronize()
    assert e.query() is True


def test_elapsed_time_of_a_known_sleep():
    s = cuda.stream()
    spin = spinner(cuda.get_current_device())
    spin(s, 1)
    start, end = cuda.event(), cuda.event()
    start.record(s)
    spin(s, 20)
    end.record(s)
    end.synchronize()
    ms = cuda.event_elapsed_time(start, end)
    assert ms == start.elapsed_time(end)
    assert 15 < ms < 60


def test_event_timing_disabled_and_unrecorded():
    a, b = cuda.event(timing=False), cuda.event(timing=False)
    a.record()
    b.record()
    b.synchronize()
    with pytest.raises(ValueError, match="timing"):
        cuda.event_elapsed_time(a, b)
    c, d = cuda.event(), cuda.event()
    with pytest.raises(cuda.CudaDriverError, match="recorded"):
        cuda.event_elapsed_time(c, d)
    with pytest.raises(TypeError):
        cuda.event_elapsed_time(c, "not an event")


def test_many_events():
    events = [cuda.event() for _ in range(10_000)]
    for e in events[:100]:
        e.record()
    events[99].synchronize()
    del events
    gc.collect()
