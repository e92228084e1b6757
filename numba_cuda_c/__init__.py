"""numba_cuda_c: the host side of numba.cuda, in C.

`import numba_cuda_c as cuda` where you wrote `from numba import cuda`. Importing touches no
driver: CUDA is loaded at first use, so the import is fast and works on a machine with no GPU.
"""

import contextlib as _contextlib
import os as _os

from numba_cuda_c import _cuda
from numba_cuda_c._cuda import (  # noqa: F401
    Context,
    CudaAPIError,
    CudaDriverError,
    CudaSupportError,
    Device,
    Event,
    MemoryInfo,
    NvrtcError,
    Stream,
    default_stream,
    event,
    event_elapsed_time,
    external_stream,
    legacy_default_stream,
    list_devices,
    per_thread_default_stream,
    profile_start,
    profile_stop,
    stream,
    synchronize,
)
from numba_cuda_c.cudadrv import devices as _devices
from numba_cuda_c.cudadrv import driver as _driver  # noqa: F401  (numba_cuda_c.cudadrv.driver)
from numba_cuda_c.cudadrv.devices import gpus, require_context  # noqa: F401
from numba_cuda_c.cudadrv.runtime import runtime  # noqa: F401

__version__ = "0.1.0"


def is_available():
    """Returns a boolean to indicate the availability of a CUDA GPU.

    This will initialize the driver if it hasn't been initialized.
    """
    if _cuda._driver_error() is not None:
        return False
    try:
        return len(_cuda.list_devices()) > 0
    except CudaDriverError:
        return False


def cuda_error():
    """The reason CUDA is unusable here, or None when it is usable."""
    return _cuda._driver_error()


def current_context(devnum=None):
    """Get the current device or use a device by device number, and return the CUDA context."""
    return _cuda.get_context(devnum)


def select_device(device_id):
    """Make the context associated with device device_id the current context.

    Returns a Device instance. Raises exception on error.
    """
    return _cuda.get_context(device_id).device


def get_current_device():
    """Get current device associated with the current thread."""
    return _cuda.get_context().device


def close():
    """Explicitly clears all contexts in the current thread, and destroys all contexts if the
    current thread is the main thread."""
    _devices.reset()


@_contextlib.contextmanager
def profiling():
    """Context manager that enables profiling on entry and disables profiling on exit."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()


def detect():
    """Detect supported CUDA hardware and print a summary of the detected hardware.

    Returns a boolean indicating whether any supported devices were detected.
    """
    why = _cuda._driver_error()
    if why is not None:
        print("CUDA driver not available:", why)
        return False
    devlist = list_devices()
    print("Found %d CUDA devices" % len(devlist))
    supported_count = 0
    for dev in devlist:
        cc = dev.compute_capability
        attrs = [
            ("Compute Capability", "%d.%d" % cc),
            ("PCI Device ID", dev.PCI_DEVICE_ID),
            ("PCI Bus ID", dev.PCI_BUS_ID),
            ("UUID", dev.uuid),
            ("Watchdog", "Enabled" if dev.KERNEL_EXEC_TIMEOUT else "Disabled"),
        ]
        if _os.name == "nt":
            attrs.append(("Compute Mode", "TCC" if dev.TCC_DRIVER else "WDDM"))
        attrs.append(("FP32/FP64 Performance Ratio", dev.SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO))
        if cc < (5, 0):
            support = "[NOT SUPPORTED: CC < 5.0]"
        else:
            support = "[SUPPORTED]"
            supported_count += 1
        print("%-3s %-40s %s" % ("id %d" % dev.id, dev.name, support))
        for key, val in attrs:
            print("%40s: %s" % (key, val))
    print("Summary:")
    print("\t%d/%d devices are supported" % (supported_count, len(devlist)))
    return supported_count > 0
