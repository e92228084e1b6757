"""numba.cuda.cudadrv.driver: the driver-level classes and functions under numba's names."""

import contextlib as _contextlib

from numba_cuda_c._cuda import (
    Context,
    CudaAPIError,
    CudaDriverError,
    CudaSupportError,
    Device,
    MemoryInfo,
    driver_get_version,
)
from numba_cuda_c._cuda import get_device, list_devices  # noqa: F401


def get_version():
    """The CUDA driver's version as (major, minor)."""
    return driver_get_version()


class _Driver:
    """numba's `driver.driver`: is_available and the initialisation error, loaded lazily."""

    @property
    def is_available(self):
        from numba_cuda_c import _cuda

        return _cuda._driver_error() is None

    @property
    def initialization_error(self):
        from numba_cuda_c import _cuda

        return _cuda._driver_error()

    def get_version(self):
        return driver_get_version()


driver = _Driver()

__all__ = [
    "Context",
    "CudaAPIError",
    "CudaDriverError",
    "CudaSupportError",
    "Device",
    "MemoryInfo",
    "driver",
    "get_version",
]

from numba_cuda_c._cuda import Event, Stream  # noqa: E402


# Stream.auto_synchronize() and Stream.async_done() call these (src/stream.c): generator and
# asyncio glue belongs in Python.
@_contextlib.contextmanager
def _stream_auto_synchronize(stream):
    yield stream
    stream.synchronize()


def _stream_async_done(stream):
    import asyncio

    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def resolve(future, status):
        if future.done():
            return
        if status == 0:
            future.set_result(None)
        else:
            future.set_exception(CudaAPIError(status, "stream reported an error in async_done"))

    def callback(stream, status, future):
        loop.call_soon_threadsafe(resolve, future, status)

    stream.add_callback(callback, future)
    return future


__all__ += ["Event", "Stream"]
