"""Device arrays in the simulator: DeviceNDArray is a NumPy array's storage behind numba's device-array API, and
to_device, device_array(_like), pinned/mapped/managed arrays, pinned(), mapped(), as_cuda_array, is_cuda_array.
Copies are synchronous. Relies on NumPy and streams.py (what may be passed as a stream)."""

import contextlib

import numpy as np

from numba_cuda_c import types
from numba_cuda_c.cudadrv.devicearray import (  # noqa: F401  (numba's devicearray helpers: the same here)
    array_core,
    check_array_compatibility,
    errmsg_contiguous_buffer,
    is_contiguous,
    is_cuda_ndarray,
    require_cuda_ndarray,
    sentry_contiguous,
    verify_cuda_ndarray_interface,
)
from numba_cuda_c.simulator.streams import check_stream


class DeviceNDArray:
    """An array "on the device": NumPy storage with numba's DeviceNDArray methods. Indexing gives views (or a
    scalar for one element), as numba's does; kernels get the storage itself. No __cuda_array_interface__ (as in
    numba's simulator): its memory is host memory, which other libraries must not take for device memory."""

    __cuda_ndarray__ = True

    def __init__(self, shape, strides, dtype, stream=0, gpu_data=None):
        """numba's constructor: gpu_data, where given, is the NumPy array to use as storage."""
        if gpu_data is None:
            gpu_data = _empty(shape, dtype, strides, "C")
        self._array = gpu_data
        self.stream = check_stream(stream)

    @classmethod
    def _of(cls, array, stream=0):
        """The device array whose storage is `array` (a view, not a copy)."""
        self = cls.__new__(DeviceRecord if array.ndim == 0 and array.dtype.fields is not None else cls)
        self._array, self.stream = array, stream
        return self

    def __repr__(self):
        return "<simulated %s shape=%s dtype=%s>" % (type(self).__name__, self.shape, self.dtype)

    # -- attributes ----------------------------------------------------------------------------------------------

    shape = property(lambda self: self._array.shape)
    strides = property(lambda self: self._array.strides)
    dtype = property(lambda self: self._array.dtype)
    ndim = property(lambda self: self._array.ndim)
    size = property(lambda self: self._array.size)
    itemsize = property(lambda self: self._array.itemsize)
    nbytes = property(lambda self: self._array.nbytes)
    alloc_size = nbytes
    flags = property(lambda self: self._array.flags)

    def is_c_contiguous(self):
        return self._array.flags.c_contiguous

    def is_f_contiguous(self):
        return self._array.flags.f_contiguous

    def __len__(self):
        return len(self._array)

    def __array__(self, dtype=None, copy=None):
        """np.asarray(d): a host copy, as numba's."""
        return np.array(self._array, dtype=dtype)

    # -- copies --------------------------------------------------------------------------------------------------

    def copy_to_host(self, ary=None, stream=0):
        """A new host array with the contents, or `ary` filled with them."""
        check_stream(stream)
        if ary is None:
            return self._array.copy(order="K")
        _check_compatible(ary, self._array)
        np.copyto(ary, self._array)
        return ary

    def copy_to_device(self, ary, stream=0):
        """Fills this array from a host array (or another device array) of the same dtype and shape."""
        check_stream(stream)
        source = ary._array if isinstance(ary, DeviceNDArray) else np.asarray(ary)
        _check_compatible(source, self._array)
        np.copyto(self._array, source)

    def to_host(self, stream=0):
        return self.copy_to_host(stream=stream)

    # -- views ---------------------------------------------------------------------------------------------------

    def __getitem__(self, index):
        return self.getitem(index)

    def getitem(self, index, stream=0):
        _check_index(index)
        value = self._array[index]
        if isinstance(value, np.ndarray):
            return DeviceNDArray._of(value, stream or self.stream)
        if isinstance(value, np.void):  # one record: numba's DeviceRecord, a 0-d view
            return DeviceNDArray._of(
                self._array[(index if isinstance(index, tuple) else (index,)) + (Ellipsis,)], self.stream
            )
        return value

    def __setitem__(self, index, value):
        self.setitem(index, value)

    def setitem(self, index, value, stream=0):
        _check_index(index)
        self._array[index] = value._array if isinstance(value, DeviceNDArray) else value

    def bind(self, stream=0):
        return DeviceNDArray._of(self._array, check_stream(stream))

    def reshape(self, *newshape, **kws):
        order = kws.pop("order", "C")
        if kws:
            raise TypeError("reshape() takes order= only, not %s" % ", ".join(kws))
        shape = newshape[0] if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)) else newshape
        return self._view(self._array.reshape(shape, order=order))

    def ravel(self, order="C", stream=0):
        return self._view(self._array.ravel(order=order))

    def _view(self, result):
        """A reshaped array, which numba's makes only where no copy is needed."""
        if result.size and not np.may_share_memory(result, self._array):
            raise NotImplementedError("operation requires copying")
        return DeviceNDArray._of(result, self.stream)

    def view(self, dtype):
        return DeviceNDArray._of(self._array.view(dtype), self.stream)

    @property
    def T(self):
        return self.transpose()

    def transpose(self, axes=None):
        return DeviceNDArray._of(self._array.transpose(axes), self.stream)

    def squeeze(self, axis=None, stream=0):
        return DeviceNDArray._of(self._array.squeeze(axis), stream or self.stream)

    def split(self, section, stream=0):
        """1-d only: views of `section` elements each (the last one shorter)."""
        if self.ndim != 1:
            raise ValueError("only support 1d array")
        return [
            DeviceNDArray._of(self._array[i : i + section], stream or self.stream)
            for i in range(0, len(self._array), section)
        ]


class DeviceRecord(DeviceNDArray):
    """One record on the device (numba's DeviceRecord): a 0-d array of a structured dtype."""

    def __init__(self, dtype, stream=0, gpu_data=None):
        super().__init__((), None, dtype, stream, gpu_data)


def _check_index(index):
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, (list, np.ndarray, DeviceNDArray)):
            raise TypeError(
                "device arrays take integers, slices, ... and None as indices, not %s" % type(item).__name__
            )


def _check_compatible(source, target):
    if source.dtype != target.dtype:
        raise TypeError("incompatible dtype: %s vs. %s" % (source.dtype, target.dtype))
    if source.shape != target.shape and (
        source.size != target.size or np.squeeze(source).shape != np.squeeze(target).shape
    ):
        raise ValueError("incompatible shape: %s vs. %s" % (source.shape, target.shape))


def _dtype(dtype):
    if isinstance(dtype, types.Type):
        dtype = dtype.dtype
    elif types.is_numba_type(dtype):
        dtype = types.from_numba(dtype).dtype
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError("device arrays cannot hold Python objects (dtype %s)" % dtype)
    return dtype


def _empty(shape, dtype, strides, order):
    dtype = _dtype(dtype)
    if strides is None:
        return np.empty(shape, dtype, order=order)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    strides = (strides,) if isinstance(strides, int) else tuple(strides)
    span = sum((n - 1) * abs(s) for n, s in zip(shape, strides)) + dtype.itemsize if all(shape) else 0
    return np.ndarray(shape, dtype, buffer=np.empty(span, np.uint8), strides=strides)


def _host(ary):
    """A host array's NumPy array, as to_device takes it."""
    array = np.asarray(ary)
    if array.dtype.hasobject:
        raise TypeError("device arrays cannot hold Python objects (dtype %s)" % array.dtype)
    return array


# -- allocation ----------------------------------------------------------------------------------------------------


def to_device(obj, stream=0, copy=True, to=None):
    """A device array holding a copy of the host array `obj` (a device array is returned as it is); with `to`,
    copies into that device array and returns it."""
    check_stream(stream)
    if to is not None:
        if copy:
            to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, DeviceNDArray):
        return obj
    array = _host(obj)
    return DeviceNDArray._of(
        np.array(array, order="K", copy=True) if copy else np.empty_like(array, order="K"), stream
    )


def from_array_like(ary, stream=0, gpu_data=None):
    """numba's devicearray.from_array_like: a device array of ary's shape, strides and dtype."""
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)


def from_record_like(rec, stream=0, gpu_data=None):
    """numba's devicearray.from_record_like: a device record of rec's dtype."""
    return DeviceRecord(rec.dtype, stream=stream, gpu_data=gpu_data)


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """numba's devicearray.auto_device: (a device array of obj, whether it was made): a device array as it is,
    anything else copied (a host array must be one contiguous region, as numba requires)."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    array = obj if isinstance(obj, np.void) else np.array(obj, copy=None, subok=True)
    if array.ndim:
        sentry_contiguous(array)
    return to_device(array, stream, copy), True


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """A new device array (its contents are not initialised, as on a GPU)."""
    check_stream(stream)
    return DeviceNDArray._of(_empty(shape, dtype, strides, order), stream)


def device_array_like(ary, stream=0):
    """A new device array of the shape and dtype of `ary`, contiguous in the same order of dimensions."""
    check_stream(stream)
    return DeviceNDArray._of(_like(ary), stream)


def _like(ary):
    array = ary._array if isinstance(ary, DeviceNDArray) else _host(ary)
    return np.empty_like(array, order="K")


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A host array (page-locked on a GPU; plain here)."""
    return _empty(shape, dtype, strides, order)


def pinned_array_like(ary):
    return _like(ary)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """A host array that kernels may take as it is (as a mapped one is on a GPU)."""
    check_stream(stream)
    return _empty(shape, dtype, strides, order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return _like(ary)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    """An array both the host and kernels use (managed memory on a GPU): a host array here."""
    check_stream(stream)
    return _empty(shape, dtype, strides, order)


@contextlib.contextmanager
def pinned(*arylist):
    """Page-locks the host arrays for the block on a GPU: nothing to do here."""
    yield


@contextlib.contextmanager
def mapped(*arylist, **kws):
    """Device arrays that are the host arrays' own memory, for the block: one, or a list of them."""
    if kws and set(kws) != {"stream"}:
        raise TypeError("mapped() only accepts the keyword stream")
    stream = check_stream(kws.get("stream", 0))
    devarys = [DeviceNDArray._of(_host(ary), stream) for ary in arylist]
    yield devarys[0] if len(devarys) == 1 else devarys


def is_cuda_array(obj):
    """Whether obj is a device array: one of the simulator's, or anything with a CUDA array interface."""
    return isinstance(obj, DeviceNDArray) or hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True):
    """A device array viewing obj's memory: the simulator's own device arrays only."""
    if isinstance(obj, DeviceNDArray):
        return DeviceNDArray._of(obj._array, obj.stream)
    if hasattr(obj, "__cuda_array_interface__"):
        raise NotImplementedError("the CUDA simulator cannot read another library's device memory")
    raise TypeError("*obj* doesn't implement the cuda array interface.")


def from_cuda_array_interface(desc, owner=None, sync=True):
    raise NotImplementedError("the CUDA simulator cannot read device memory through a CUDA array interface")


def from_dlpack(obj):
    raise NotImplementedError("the CUDA simulator cannot read device memory through DLPack")
