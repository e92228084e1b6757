"""Kernel arguments that are device memory without __cuda_array_interface__, as numba-cuda takes them:
a cuda.core Buffer (a 1-d uint8 array of its size), a cuda.core StridedMemoryView (its layout), and
objects with __dlpack__ on a CUDA device (cuda.from_dlpack).

Each becomes a DeviceNDArray view made from an interface dict, so the pointer and extent checks of
from_cuda_array_interface apply (src/core/foreign.c). The launch path (src/arrays/transfer.c,
transfer_launch_argument) and the dispatcher's typeof call `as_device_array` only after every usual kind of
argument has been ruled out."""

import numpy as np

from numba_cuda_c import _cuda


def _is_cuda_core(obj, name):
    cls = type(obj)
    return cls.__name__ == name and cls.__module__.startswith("cuda.core")


def _view(obj, pointer, shape, strides, dtype, readonly):
    interface = {
        "data": (int(pointer), bool(readonly)),
        "shape": tuple(shape),
        "strides": None if strides is None else tuple(strides),
        "typestr": np.dtype(dtype).str,
        "version": 3,
    }
    return _cuda.from_cuda_array_interface(interface, owner=obj, sync=False)


def _strided_memory_view(view):
    if not view.is_device_accessible:
        raise TypeError("a StridedMemoryView passed to a kernel must be of device memory")
    itemsize = np.dtype(view.dtype).itemsize
    strides = None if view.strides is None else [s * itemsize for s in view.strides]  # elements -> bytes
    return _view(view, view.ptr, view.shape, strides, view.dtype, view.readonly)


def as_device_array(obj):
    """obj as a DeviceNDArray over its memory, or None where it is none of the kinds above."""
    if _is_cuda_core(obj, "Buffer"):
        if not obj.is_device_accessible:
            raise TypeError("a cuda.core Buffer passed to a kernel must be of device memory")
        return _view(obj, obj.handle, (obj.size,), None, np.uint8, False)
    if _is_cuda_core(obj, "StridedMemoryView"):
        return _strided_memory_view(obj)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        device = getattr(obj, "__dlpack_device__", None)
        if device is None or device()[0] not in (2, 13):  # kDLCUDA, kDLCUDAManaged
            return None
        return _cuda.from_dlpack(obj)
    return None
