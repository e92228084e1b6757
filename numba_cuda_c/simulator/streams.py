"""Streams and events in the simulator: everything runs synchronously on the host, so a stream has nothing to wait
for and an event is recorded when its record() is called (its times are the host's clock). Owns Stream, Event,
the default streams and what may be passed where a stream is expected. Relies on time and asyncio only."""

import contextlib
import time

from numba_cuda_c._cuda import CudaAPIError

CUDA_ERROR_INVALID_HANDLE = 400


class Stream:
    """A CUDA stream: work given to it is done when the call returns, so synchronize() returns at once."""

    def __init__(self, name="stream"):
        self._name = name

    def __repr__(self):
        return "<simulated CUDA %s>" % self._name

    def synchronize(self):
        pass

    def query(self):
        """True: nothing is ever pending."""
        return True

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self

    def add_callback(self, callback, arg=None):
        """Calls callback(stream, status, arg) now: the work before it is done."""
        callback(self, 0, arg)

    def async_done(self):
        """An awaitable already resolved to this stream."""
        import asyncio

        future = asyncio.get_running_loop().create_future()
        future.set_result(self)
        return future


_DEFAULT = Stream("default stream")
_LEGACY_DEFAULT = Stream("legacy default stream")
_PER_THREAD_DEFAULT = Stream("per-thread default stream")


def stream():
    """A new stream."""
    return Stream()


def default_stream():
    return _DEFAULT


def legacy_default_stream():
    return _LEGACY_DEFAULT


def per_thread_default_stream():
    return _PER_THREAD_DEFAULT


def external_stream(ptr):
    raise RuntimeError("External streams are unsupported in the simulator")


def check_stream(stream):
    """`stream` where one may be passed: 0, None or a Stream; TypeError otherwise."""
    if (
        stream is None
        or isinstance(stream, Stream)
        or (isinstance(stream, int) and not isinstance(stream, bool) and stream == 0)
    ):
        return stream
    raise TypeError("expected a Stream (or 0 for the default stream), not %r" % (stream,))


class Event:
    """A CUDA event: record() marks the host's clock (the work before it is done); elapsed_time() gives the
    milliseconds between two recorded events."""

    def __init__(self, timing=True):
        self.timing = timing
        self._time = None

    def __repr__(self):
        return "<simulated CUDA event>"

    def record(self, stream=0):
        check_stream(stream)
        self._time = time.perf_counter()

    def wait(self, stream=0):
        check_stream(stream)

    def synchronize(self):
        pass

    def query(self):
        return True

    def elapsed_time(self, evtend):
        """Milliseconds from this event to evtend."""
        if not (self.timing and evtend.timing) or self._time is None or evtend._time is None:
            raise CudaAPIError(
                CUDA_ERROR_INVALID_HANDLE,
                "cuEventElapsedTime: CUDA_ERROR_INVALID_HANDLE: an event "
                "that was not recorded, or made with timing=False",
            )
        return (evtend._time - self._time) * 1000.0


def event(timing=True):
    """A new event."""
    return Event(timing)


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded events."""
    return evtstart.elapsed_time(evtend)
