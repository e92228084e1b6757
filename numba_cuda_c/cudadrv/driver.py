"""numba.cuda.cudadrv.driver: the driver-level classes and functions under numba's names."""

import contextlib as _contextlib

from numba_cuda_c import _cuda
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
from numba_cuda_c.cudadrv.deallocations import (  # noqa: F401  (Context's Python halves, src/core/context.c)
    _builtin_memory_manager,
    _context_get_ipc_handle,
    _context_mempin,
    _context_open_ipc_handle,
    _pending_deallocations,
)
from numba_cuda_c.cudadrv.ipc import IpcHandle, IpcMemHandle  # noqa: F401
from numba_cuda_c.errors import LinkerError  # noqa: F401
from numba_cuda_c.cudadrv.memory_functions import (  # noqa: F401
    AutoFreePointer,
    DeadMemoryError,
    MappedMemory,
    _array_gpu_data,
    ManagedMemory,
    MemoryPointer,
    OwnedPointer,
    PinnedMemory,
    _memory_ctypes_pointer,
    _memory_own,
    _memory_refct,
    _memory_view,
    device_ctypes_pointer,
    device_extents,
    device_memory_size,
    device_memset,
    device_pointer,
    device_to_device,
    device_to_host,
    host_memory_extents,
    host_memory_size,
    host_pointer,
    host_to_device,
    is_device_memory,
    require_device_memory,
)


def get_version():
    """The CUDA driver's version as (major, minor)."""
    return driver_get_version()


class _ActiveContext:
    """numba's driver.get_active_context(): a context manager whose context_handle and devnum
    describe this thread's current context (None and None when it has none)."""

    def __enter__(self):
        self.context_handle, self.devnum = _cuda._active_context()
        return self

    def __exit__(self, *exc):
        return None

    def __bool__(self):
        return self.devnum is not None


class _Driver:
    """numba's `driver.driver`: device count, the current context, the driver's version; other
    cu* names go to NVIDIA's cuda.bindings (as numba's do), with errors raised as CudaAPIError."""

    @property
    def is_available(self):
        return _cuda._driver_error() is None

    @property
    def initialization_error(self):
        return _cuda._driver_error()

    def get_version(self):
        return driver_get_version()

    def get_device(self, devnum=0):
        return get_device(devnum)

    def get_device_count(self):
        return len(list_devices())

    def get_active_context(self):
        return _ActiveContext()

    def pop_active_context(self):
        """Pop this thread's current context; its handle, or None when there is none."""
        return _cuda._pop_context()

    def cuMemGetInfo(self):
        """(free, total) bytes of the current context's device."""
        info = _cuda.get_context().get_memory_info()
        return info[0], info[1]

    def __getattr__(self, name):
        if not name.startswith("cu"):
            raise AttributeError(name)
        function = getattr(_binding(), name)

        def checked(*args):
            result = function(*args)
            code = result[0] if isinstance(result, tuple) else result
            if int(code) != 0:
                raise CudaAPIError(int(code), "Call to %s results in %s" % (name, getattr(code, "name", code)))
            if not isinstance(result, tuple) or len(result) == 1:
                return None
            return result[1] if len(result) == 2 else result[1:]

        checked.__name__ = name
        checked._ncc_native = name  # set back on the object, it restores the driver's own copies
        return checked

    # Copy functions set on the object are what copies call (numba's copies call these attributes): test suites
    # replace driver.cuMemcpyHtoD to forbid or count transfers. Removing it, or setting back what the object
    # gave, restores the driver's own.
    _COPIES = frozenset(
        [
            "cuMemcpyHtoD",
            "cuMemcpyDtoH",
            "cuMemcpyDtoD",
            "cuMemcpyHtoDAsync",
            "cuMemcpyDtoHAsync",
            "cuMemcpyDtoDAsync",
        ]
    )

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name in self._COPIES:
            _cuda._driver_override(name, None if getattr(value, "_ncc_native", None) == name else value)

    def __delattr__(self, name):
        object.__delattr__(self, name)
        if name in self._COPIES:
            _cuda._driver_override(name, None)


def _binding():
    try:
        from cuda.bindings import driver as binding
    except ImportError as error:
        raise CudaSupportError(
            "numba_cuda_c calls the driver from C; the raw cu* functions of numba's driver object need "
            "NVIDIA's cuda.bindings (pip install cuda-bindings)"
        ) from error
    return binding


driver = _Driver()


def _have_nvjitlink():
    """numba's check for nvJitLink (LTO linking): numba_cuda_c links with the driver's linker, not
    nvJitLink, so code that needs LTO is told it is not available."""
    return False


def __getattr__(name):
    # numba's driver.binding is NVIDIA's cuda.bindings.driver: imported only when asked for
    if name == "binding":
        return _binding()
    if name in ("Linker", "_Linker", "FILE_EXTENSION_MAP"):  # linking: loaded when first asked for
        from numba_cuda_c.toolchain import linkable_code, linker

        value = linkable_code.FILE_EXTENSION_MAP if name == "FILE_EXTENSION_MAP" else linker.Linker
        globals()[name] = value  # _Linker: numba-cuda 0.30's name for Linker
        return value
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


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


# Stream.auto_synchronize() and Stream.async_done() call these (src/core/stream.c): generator and
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


__all__ += [
    "Event",
    "Stream",
    "AutoFreePointer",
    "DeadMemoryError",
    "Linker",  # noqa: F822  (loaded at first use: module __getattr__)
    "LinkerError",
    "MappedMemory",
    "ManagedMemory",
    "MemoryPointer",
    "OwnedPointer",
    "PinnedMemory",
    "device_ctypes_pointer",
    "device_extents",
    "device_memory_size",
    "device_memset",
    "device_pointer",
    "device_to_device",
    "device_to_host",
    "host_memory_extents",
    "host_memory_size",
    "host_pointer",
    "host_to_device",
    "is_device_memory",
    "require_device_memory",
]
