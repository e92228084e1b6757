"""numba_cuda_c.cudadrv.driver under the CUDA simulator: the driver-level memory functions numba's simulator keeps
(memset and copies between memory that is all NumPy here, the device count) so that programs and tests that import
them run; launching and linking through the driver are refused."""

import numpy as np

from numba_cuda_c._cuda import CudaAPIError, NvrtcError  # noqa: F401  (the names the driver module has)


class LinkerError(RuntimeError):
    pass


def _bytes(memory):
    """A writable uint8 view of simulated memory: a device array's storage, a NumPy array (pinned, mapped, or
    what Context.memalloc gave)."""
    storage = getattr(memory, "_array", memory)
    array = np.asarray(storage)
    flat = array.ravel(order="K")
    if not np.shares_memory(flat, array) and array.size:
        raise ValueError("simulated memory must be one contiguous region, not strides %s" % (array.strides,))
    return flat.view(np.uint8)


def device_memset(dst, val, size, stream=0):
    _bytes(dst)[:size] = val & 0xFF


def host_to_device(dst, src, size, stream=0):
    _bytes(dst)[:size] = _bytes(src)[:size]


device_to_host = device_to_device = host_to_device


def device_memory_size(obj):
    return _bytes(obj).size


def get_device_count():
    return 1


class _Driver:
    """numba's `driver` object: here only the device count."""

    @staticmethod
    def get_device_count():
        return 1


driver = _Driver()


class _Linker:
    """What imports of the driver's linker find: the simulator links nothing (numba's simulator has the same)."""

    lto = False

    @classmethod
    def new(cls, max_registers=0, lineinfo=False, cc=None):
        return cls()


def _have_nvjitlink():
    return False


def launch_kernel(*args, **kwargs):
    raise RuntimeError("the CUDA simulator launches kernels through kernel[griddim, blockdim](...), not the driver")
