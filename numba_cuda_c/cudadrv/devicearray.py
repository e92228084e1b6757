"""numba.cuda.cudadrv.devicearray: device arrays, and host arrays the device can reach.

DeviceNDArray and DeviceRecord are C types (src/devicearray.c). MappedNDArray and ManagedNDArray
are NumPy arrays in mapped or managed memory that also export __cuda_array_interface__, so kernels
and other libraries can take them as device arrays. They are made at first use, so that importing
numba_cuda_c does not import NumPy.
"""

import functools

from numba_cuda_c._cuda import DeviceNDArray, DeviceRecord, MemoryPointer


def _memory_of(array):
    """The MemoryPointer at the root of a host array's chain of bases."""
    base = array
    while base is not None and not isinstance(base, MemoryPointer):
        base = getattr(base, "base", None)
    return base


@functools.lru_cache(maxsize=None)
def _host_array_classes():
    import numpy as np

    class _DeviceReachableArray(np.ndarray):
        """A NumPy array whose memory the device can address (mapped or managed)."""

        @property
        def device_pointer(self):
            memory = _memory_of(self)
            if memory is None:
                raise ValueError("this array's memory is not mapped to the device")
            return memory.device_pointer + (self.__array_interface__["data"][0] - memory.host_pointer)

        @property
        def __cuda_array_interface__(self):
            return {
                "shape": self.shape,
                "strides": None if self.flags.c_contiguous else self.strides,
                "data": (self.device_pointer if self.size else 0, False),
                "typestr": self.dtype.str,
                "stream": None,
                "version": 3,
            }

        @property
        def gpu_data(self):
            return _memory_of(self)

        def copy_to_host(self, ary=None, stream=0):
            if ary is None:
                return np.array(self, copy=True).view(np.ndarray)
            ary[...] = self
            return ary

    class MappedNDArray(_DeviceReachableArray):
        """A host array in mapped (page-locked, device-addressable) memory: cuda.mapped_array()."""

    class ManagedNDArray(_DeviceReachableArray):
        """A host array in managed (unified) memory: cuda.managed_array()."""

    for cls in (MappedNDArray, ManagedNDArray):
        cls.__module__, cls.__qualname__ = __name__, cls.__name__
    return {"MappedNDArray": MappedNDArray, "ManagedNDArray": ManagedNDArray}


def __getattr__(name):
    classes = _host_array_classes()
    if name in classes:
        return classes[name]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


__all__ = ["DeviceNDArray", "DeviceRecord", "MappedNDArray", "ManagedNDArray"]
