"""The simulated GPU: one device (id 0, named SIMULATOR, compute capability 5.2 as numba's simulator reports) with
one context, cuda.gpus, device selection, detect(), is_available() and the profiler switches, none of which touch
a CUDA driver. Relies on os (the host's memory size, reported as the device's)."""

import contextlib
import os

import numpy as np

from numba_cuda_c._cuda import CudaSupportError, MemoryInfo
from numba_cuda_c.simulator import streams

COMPUTE_CAPABILITY = (5, 2)


class Device:
    """The simulated device. Its attributes are those of a small CUDA GPU: what launches are checked against."""

    id = 0
    name = "SIMULATOR"
    compute_capability = COMPUTE_CAPABILITY
    uuid = "GPU-00000000-0000-0000-0000-000000000000"
    supports_float16 = True
    supports_bfloat16 = False
    MAX_THREADS_PER_BLOCK = 1024
    MAX_BLOCK_DIM_X, MAX_BLOCK_DIM_Y, MAX_BLOCK_DIM_Z = 1024, 1024, 64
    MAX_GRID_DIM_X, MAX_GRID_DIM_Y, MAX_GRID_DIM_Z = 2**31 - 1, 65535, 65535
    MAX_SHARED_MEMORY_PER_BLOCK = 48 * 1024
    WARP_SIZE = 32
    MULTIPROCESSOR_COUNT = 1
    MAX_THREADS_PER_MULTI_PROCESSOR = 2048
    ASYNC_ENGINE_COUNT = 0
    UNIFIED_ADDRESSING = 1
    COMPUTE_CAPABILITY_MAJOR, COMPUTE_CAPABILITY_MINOR = COMPUTE_CAPABILITY

    def __repr__(self):
        return "<CUDA device 0 'SIMULATOR'>"

    def get_primary_context(self):
        return _CONTEXT

    primary_context = property(get_primary_context)

    def release_primary_context(self):
        pass

    def reset(self):
        pass


class Context:
    """The simulated device's one context: a context manager, as gpus[0] is."""

    def __init__(self, device):
        self.device = device

    def __repr__(self):
        return "<simulated CUDA context of device 0>"

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def __getattr__(self, name):
        """gpus[0].name, .compute_capability, ...: the device's, as numba's device context managers forward them."""
        return getattr(self.device, name)

    def memalloc(self, size):
        """size bytes of simulated device memory (host memory: a uint8 NumPy array), as numba's simulator."""
        return np.empty(int(size), np.uint8)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        return self.memalloc(size)

    def get_memory_info(self):
        """The host's memory, as (free, total) bytes: device arrays live there."""
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
            free = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            total = free = 16 << 30
        return MemoryInfo(free, total)

    def synchronize(self):
        pass

    def reset(self):
        pass

    def push(self):
        pass

    def pop(self):
        pass

    def create_stream(self):
        return streams.Stream()

    def create_event(self, timing=True):
        return streams.Event(timing)

    def get_default_stream(self):
        return streams.default_stream()


_DEVICE = Device()
_CONTEXT = Context(_DEVICE)


class _DeviceList:
    """cuda.gpus: the one simulated device's context, as gpus[0]; `with cuda.gpus[0]:` selects it."""

    def __getitem__(self, devnum):
        return current_context(devnum)

    def __iter__(self):
        return iter([_CONTEXT])

    def __len__(self):
        return 1

    def __repr__(self):
        return "<simulated CUDA device list: 1 device>"

    @property
    def current(self):
        return _CONTEXT

    @property
    def lst(self):
        """numba's list of the device contexts: the one simulated device's."""
        return [_CONTEXT]


gpus = _DeviceList()


def get_context(devnum=0):
    """numba's cudadrv.devices.get_context: the simulated device's context."""
    return _CONTEXT


def reset():
    pass


def current_context(devnum=None):
    """The context of the device (the simulated one, 0)."""
    if devnum not in (None, 0):
        raise CudaSupportError("the CUDA simulator has one device, 0; there is no device %r" % (devnum,))
    return _CONTEXT


def select_device(device_id):
    return current_context(device_id).device


def get_current_device():
    return _DEVICE


def list_devices():
    return [_DEVICE]


def close():
    pass


def synchronize():
    pass


def require_context(fn):
    return fn


def is_available():
    """True: the simulator is always there."""
    return True


def cuda_error():
    """Why CUDA is unusable: never, in the simulator."""
    return None


def is_supported_version():
    return True


def is_float16_supported():
    return True


def is_bfloat16_supported():
    return False  # as numba's simulator


def is_fp8_supported():
    return False


def detect():
    """Prints the simulated device, saying that it is the simulator; returns True."""
    print("Found 1 CUDA devices")
    print("%-3s %-40s %s" % ("id 0", "SIMULATOR", "[SUPPORTED]"))
    print("%40s: %s" % ("Compute Capability", "%d.%d" % COMPUTE_CAPABILITY))
    print("%40s: %s" % ("Note", "the CUDA simulator (NUMBA_ENABLE_CUDASIM=1): kernels run in Python on the CPU"))
    print("Summary:")
    print("\t1/1 devices are supported")
    return True


def profile_start():
    pass


def profile_stop():
    pass


@contextlib.contextmanager
def profiling():
    yield


@contextlib.contextmanager
def defer_cleanup():
    yield
