"""numba.cuda.cudadrv.driver's memory helpers on raw pointers and buffers, as libraries call them:
host_to_device, device_to_host, device_to_device, device_memset, the pointer and size queries, and
the bookkeeping behind MemoryPointer.view()/own()/refct of the C allocations. The copies are in C
(src/arrays/raw_copies.c); stream 0 means a synchronous copy, a stream an asynchronous one.
"""

import sys

from numba_cuda_c import _cuda
from numba_cuda_c.cudadrv.emm import (  # noqa: F401
    AutoFreePointer,
    DeadMemoryError,
    ManagedMemory,
    MappedMemory,
    MemoryPointer,
    OwnedPointer,
    PinnedMemory,
    _c_references,
    _pointer_value,
    _view,
)

_HOST_TO_DEVICE, _DEVICE_TO_HOST, _DEVICE_TO_DEVICE = 0, 1, 2


def is_device_memory(obj):
    """True if obj is device memory (it has __cuda_memory__, as numba's device objects do)."""
    return getattr(obj, "__cuda_memory__", False)


def require_device_memory(obj):
    """Raise if obj is not device memory."""
    if not is_device_memory(obj):
        raise Exception("Not a CUDA memory object.")


def device_ctypes_pointer(obj):
    """The device pointer of a device-memory object, as a ctypes value."""
    require_device_memory(obj)
    return obj.device_ctypes_pointer


def device_pointer(obj):
    """The device pointer of a device-memory object, as an int."""
    return _pointer_value(device_ctypes_pointer(obj).value)


def device_extents(devmem):
    """(start, end) of the allocation holding devmem (cuMemGetAddressRange)."""
    return _cuda._device_extents(device_pointer(devmem))


def device_memory_size(devmem):
    """The size in bytes of a device-memory object."""
    size = getattr(devmem, "_cuda_memsize_", None)
    if size is None:
        size = getattr(devmem, "alloc_size", None)
    if size is None:
        start, end = device_extents(devmem)
        size = end - start
    return size


def _host_buffer(obj):
    """(address, nbytes spanned) of a host object: an int, a ctypes object, or a buffer exporter."""
    ctypes = sys.modules.get("ctypes")  # a ctypes object means ctypes is loaded; the import stays lazy
    if ctypes is not None and isinstance(obj, ctypes._SimpleCData | ctypes.Structure | ctypes.Union | ctypes.Array):
        return ctypes.addressof(obj), ctypes.sizeof(obj)
    import numpy as np

    if isinstance(obj, np.void):
        obj = np.array(obj)
    array = obj if isinstance(obj, np.ndarray) else np.asarray(memoryview(obj))
    address = array.__array_interface__["data"][0]
    if array.size == 0:
        return address, 0
    low = high = 0
    for extent, stride in zip(array.shape, array.strides):
        reach = (extent - 1) * stride
        if reach < 0:
            low += reach
        else:
            high += reach
    return address + low, high - low + array.itemsize


def host_pointer(obj, readonly=False):
    """The host address of obj's data (ints pass through)."""
    if isinstance(obj, int):
        return obj
    ctypes = sys.modules.get("ctypes")
    if not readonly and not (ctypes is not None and isinstance(obj, ctypes._SimpleCData | ctypes.Structure)):
        view = memoryview(obj) if not hasattr(obj, "__array_interface__") else None
        if view is not None and view.readonly:
            raise BufferError("buffer is read-only")
    return _host_buffer(obj)[0]


def host_memory_extents(obj):
    """(start, end) addresses of the host memory obj spans."""
    start, size = _host_buffer(obj)
    return start, start + size


def host_memory_size(obj):
    """The bytes of host memory obj spans."""
    return _host_buffer(obj)[1]


def host_to_device(dst, src, size, stream=0):
    """Copy size bytes from host object src to device memory dst."""
    _cuda._memcpy(_HOST_TO_DEVICE, device_pointer(dst), host_pointer(src, readonly=True), size, stream)


def device_to_host(dst, src, size, stream=0):
    """Copy size bytes from device memory src to host object dst."""
    _cuda._memcpy(_DEVICE_TO_HOST, host_pointer(dst), device_pointer(src), size, stream)


def device_to_device(dst, src, size, stream=0):
    """Copy size bytes between two device-memory objects."""
    _cuda._memcpy(_DEVICE_TO_DEVICE, device_pointer(dst), device_pointer(src), size, stream)


def device_memset(dst, val, size, stream=0):
    """Set size bytes of device memory dst to the byte val."""
    _cuda._memset(device_pointer(dst), val, size, stream)


# numba_cuda_c.MemoryPointer (the C allocation) calls these (src/core/memory.c)


def _memory_view(memory, start, stop):
    return _view(memory, start, stop)


def _array_gpu_data(array, owner):
    """DeviceNDArray.gpu_data of a view or a foreign array: its bytes, keeping the owner alive."""
    low = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s < 0) if array.size else 0
    span = (
        sum((n - 1) * abs(s) for n, s in zip(array.shape, array.strides)) + array.dtype.itemsize
        if array.size
        else 0
    )
    pointer = array.device_pointer + low
    if isinstance(owner, _cuda.MemoryPointer):
        start = pointer - owner.device_pointer
        return owner.view(start, start + span)
    return MemoryPointer(_cuda.get_context(), pointer, span, owner=owner)


def _memory_own(memory):
    return OwnedPointer(memory)


def _memory_refct(memory):
    return 1 + _c_references.get(memory, 0)


def _memory_ctypes_pointer(memory):
    import ctypes

    return ctypes.c_size_t(memory.device_pointer)
