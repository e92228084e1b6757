"""numba.cuda.cudadrv.devicearray: device arrays, and host arrays the device can reach.

DeviceNDArray and DeviceRecord are C types (src/arrays/devicearray.c). MappedNDArray and ManagedNDArray
are NumPy arrays in mapped or managed memory that also export __cuda_array_interface__, so kernels
and other libraries can take them as device arrays. They are made at first use, so that importing
numba_cuda_c does not import NumPy.
"""

import functools

from numba_cuda_c import _cuda, types
from numba_cuda_c._cuda import DeviceNDArray, DeviceRecord, MemoryPointer


def _memory_of(array):
    """The MemoryPointer at the root of a host array's chain of bases."""
    base = array
    while base is not None and not isinstance(base, MemoryPointer):
        base = getattr(base, "base", None)
    return base


def _stream_value(stream):
    """The CUDA array interface's "stream": the handle of a stream the array was made on, None for the default."""
    handle = getattr(stream, "handle", stream)
    value = getattr(handle, "value", handle)
    return None if value in (0, None) else int(value)


@functools.lru_cache(maxsize=None)
def _host_array_classes():
    import numpy as np

    class _DeviceReachableArray(np.ndarray):
        """A NumPy array whose memory the device can address (mapped or managed)."""

        __cuda_memory__ = True
        stream = 0  # the stream it was made on (numba's attribute); views share it

        def __array_finalize__(self, obj):
            self.stream = getattr(obj, "stream", 0)

        @property
        def device_ctypes_pointer(self):
            import ctypes

            return ctypes.c_size_t(self.device_pointer)

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
                "stream": _stream_value(self.stream),
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

        def __reduce__(self):
            """Pickled as its data, rebuilt in new memory of the same kind (mapped or managed) in the unpickling
            process's current context: NumPy's own pickling would give an array of this class in ordinary memory,
            which the device cannot reach."""
            return (_rebuild_host_array, (self._kind, self.copy_to_host(), _layout_order(self)))

        def __reduce_ex__(self, protocol):  # ndarray's own __reduce_ex__ would bypass __reduce__
            return self.__reduce__()

    class MappedNDArray(_DeviceReachableArray):
        """A host array in mapped (page-locked, device-addressable) memory: cuda.mapped_array()."""

    class ManagedNDArray(_DeviceReachableArray):
        """A host array in managed (unified) memory: cuda.managed_array()."""

    MappedNDArray._kind, ManagedNDArray._kind = "mapped", "managed"
    for cls in (MappedNDArray, ManagedNDArray):
        cls.__module__, cls.__qualname__ = __name__, cls.__name__
    return {"MappedNDArray": MappedNDArray, "ManagedNDArray": ManagedNDArray}


errmsg_contiguous_buffer = (
    "Array contains non-contiguous buffer and cannot "
    "be transferred as a single memory region. Please "
    "ensure contiguous buffer with numpy "
    ".ascontiguousarray()"
)


def is_cuda_ndarray(obj):
    """Whether obj is a device array (it has __cuda_ndarray__)."""
    return getattr(obj, "__cuda_ndarray__", False)


def require_cuda_ndarray(obj):
    """Raises ValueError unless obj is a device array."""
    if not is_cuda_ndarray(obj):
        raise ValueError("require an cuda ndarray object")


def verify_cuda_ndarray_interface(obj):
    """Check that obj is a device array with numba's attributes and their types."""
    require_cuda_ndarray(obj)
    import numpy as np

    for attr, typ in (("shape", tuple), ("strides", tuple), ("dtype", np.dtype), ("size", int)):
        if not hasattr(obj, attr):
            raise AttributeError(attr)
        if not isinstance(getattr(obj, attr), typ):
            raise AttributeError("%s must be of type %s" % (attr, typ))


def is_contiguous(ary):
    """True iff ary is C-contiguous, ignoring broadcast (stride 0) and length-1 dimensions."""
    size = ary.dtype.itemsize
    for extent, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if extent > 1 and stride != 0:
            if size != stride:
                return False
            size *= extent
    return True


def array_core(ary):
    """The repeated core of a broadcast array: the view without its stride-0 dimensions."""
    if not ary.strides or not ary.size:
        return ary
    return ary[tuple(0 if stride == 0 else slice(None) for stride in ary.strides)]


def sentry_contiguous(ary):
    """Raises ValueError unless the core of ary is C- or F-contiguous."""
    core = array_core(ary)
    if not core.flags["C_CONTIGUOUS"] and not core.flags["F_CONTIGUOUS"]:
        raise ValueError(errmsg_contiguous_buffer)


def check_array_compatibility(ary1, ary2):
    """Raises unless the two arrays have the same dtype, and shapes and strides once squeezed."""
    ary1sq, ary2sq = ary1.squeeze(), ary2.squeeze()
    if ary1.dtype != ary2.dtype:
        raise TypeError("incompatible dtype: %s vs. %s" % (ary1.dtype, ary2.dtype))
    if ary1sq.shape != ary2sq.shape:
        raise ValueError("incompatible shape: %s vs. %s" % (ary1.shape, ary2.shape))
    if ary1.size and ary1sq.strides != ary2sq.strides:
        raise ValueError("incompatible strides: %s vs. %s" % (ary1.strides, ary2.strides))


def from_array_like(ary, stream=0, gpu_data=None):
    """A DeviceNDArray with ary's shape, strides and dtype (uninitialised, or over gpu_data)."""
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)


def from_record_like(rec, stream=0, gpu_data=None):
    """A DeviceRecord with rec's dtype."""
    return DeviceRecord(rec.dtype, stream=stream, gpu_data=gpu_data)


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """(device object like obj, whether it is new): device memory is returned as is, a CUDA array
    interface wrapped; anything else is copied to a new device array (if copy)."""
    import numpy as np

    if getattr(obj, "__cuda_memory__", False):
        return obj, False
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return _cuda.from_cuda_array_interface(interface, owner=obj), False
    if isinstance(obj, np.void):
        devobj = from_record_like(obj, stream=stream)
    else:
        obj = np.array(obj, copy=None, subok=True)
        sentry_contiguous(obj)
        devobj = from_array_like(obj, stream=stream)
    if copy:
        devobj.copy_to_device(obj, stream=stream)
    return devobj, True


def _numba_type_of(array):
    """DeviceNDArray._numba_type_: Array(dtype, ndim, layout), layout 'C' or 'F' when contiguous
    and not broadcast, else 'A' (numba's rule)."""
    if isinstance(array, DeviceRecord):  # a record is typed as its dtype, as in numba
        return types.from_dtype(array.dtype)
    broadcast = 0 in array.strides and array.size != 0
    flags = array.flags
    if flags["C_CONTIGUOUS"] and not broadcast:
        layout = "C"
    elif flags["F_CONTIGUOUS"] and not broadcast:
        layout = "F"
    else:
        layout = "A"
    return types.Array(types.from_dtype(array.dtype), array.ndim, layout)


def _rebuild_device_array(kind, span, low, shape, strides, dtype):
    """A pickled device array (DeviceNDArray.__reduce__, src/arrays/transfer.c) made again in the current
    context: its spanned bytes copied to new device memory, viewed with the same layout."""
    if kind == "record":
        record = DeviceRecord(dtype)
        if span.size:
            record.copy_to_device(span.view(dtype).reshape(()))
        return record
    if span.size == 0:
        return DeviceNDArray(shape, strides, dtype)
    return _view_of_span(_cuda.to_device(span), low, shape, strides, dtype)


def _layout_order(array):
    return "F" if array.ndim > 1 and array.flags["F_CONTIGUOUS"] and not array.flags["C_CONTIGUOUS"] else "C"


def pinned_array(shape, dtype=float, strides=None, order="C"):
    """Allocate an np.ndarray with a buffer that is pinned (pagelocked)."""
    return _cuda._host_array("pinned", shape, dtype, strides, order)


def pinned_array_like(ary):
    """Allocate a pinned np.ndarray with the same shape, strides and dtype as ary."""
    return _cuda._host_array("pinned", ary.shape, ary.dtype, _like_strides(ary), None)


def mapped_array(shape, dtype=float, strides=None, order="C", stream=0, portable=False, wc=False):
    """Allocate a mapped ndarray: page-locked host memory the device addresses directly.

    portable: usable by every context; wc: write-combined (fast to write from the host, slow to read).
    """
    array = _cuda._host_array("mapped", shape, dtype, strides, order, portable, wc)
    return _on_stream(array.view(_host_array_classes()["MappedNDArray"]), stream)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """Allocate a mapped ndarray with the same shape, strides and dtype as ary."""
    array = _cuda._host_array("mapped", ary.shape, ary.dtype, _like_strides(ary), None, portable, wc)
    return _on_stream(array.view(_host_array_classes()["MappedNDArray"]), stream)


def managed_array(shape, dtype=float, strides=None, order="C", stream=0, attach_global=True):
    """Allocate an ndarray in managed (unified) memory, reachable from the host and the device."""
    array = _cuda._host_array("managed", shape, dtype, strides, order, attach_global=attach_global)
    return _on_stream(array.view(_host_array_classes()["ManagedNDArray"]), stream)


def _on_stream(array, stream):
    """A mapped or managed array that remembers the stream it was made on (its CUDA array interface names it)."""
    array.stream = stream
    return array


def _like_strides(ary):
    """The strides of a new contiguous array like `ary` (NumPy or device array): device_array_like's."""
    return _cuda._strides_like(ary)


def _rebuild_host_array(kind, data, order):
    """A pickled mapped or managed array made again: new memory of that kind in the current context, holding
    `data` (a NumPy array), C or F ordered as the original was (a strided view comes back contiguous, as NumPy
    pickles views)."""
    allocate = mapped_array if kind == "mapped" else managed_array
    array = allocate(data.shape, dtype=data.dtype, order=order)
    array[...] = data
    return array


def _view_of_span(raw, low, shape, strides, dtype):
    """An array of `shape`, `strides` and `dtype` over the device bytes `raw` (a 1-d uint8 device array, the
    bytes the array spans), element (0, ..., 0) `-low` bytes in: laid out from the lowest byte with every stride
    positive, then reversed where a stride was negative. Pickling and Dask's serializers rebuild with it."""
    array = DeviceNDArray(shape, tuple(abs(s) for s in strides), dtype, gpu_data=raw.gpu_data)
    if low:
        array = array[tuple(slice(None, None, -1) if s < 0 else slice(None) for s in strides)]
    return array


def __getattr__(name):
    if name in ("MappedNDArray", "ManagedNDArray"):  # made at first use (NumPy): not for other names (__path__)
        return _host_array_classes()[name]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


__all__ = [
    "DeviceNDArray",
    "DeviceRecord",
    "MappedNDArray",  # noqa: F822  (made at first use: module __getattr__)
    "ManagedNDArray",  # noqa: F822  (made at first use: module __getattr__)
    "array_core",
    "auto_device",
    "check_array_compatibility",
    "errmsg_contiguous_buffer",
    "from_array_like",
    "from_record_like",
    "is_contiguous",
    "is_cuda_ndarray",
    "require_cuda_ndarray",
    "sentry_contiguous",
    "verify_cuda_ndarray_interface",
]
