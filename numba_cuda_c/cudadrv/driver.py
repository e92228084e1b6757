"""numba.cuda.cudadrv.driver: the driver-level classes and functions under numba's names."""

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
