"""CUDA IPC: a device array shared with another process (numba's get_ipc_handle / open_ipc_array).

The exporter calls DeviceNDArray.get_ipc_handle() and sends the IpcArrayHandle (it pickles) to
another process, which opens it as a DeviceNDArray over the same memory. The mapping is closed
when the last array over it goes.
"""

import numpy as np

from numba_cuda_c import _cuda


def _open(handle, shape, dtype, strides, offset):
    dtype = np.dtype(dtype)
    memory = _cuda._ipc_open(bytes(handle))
    desc = {
        "shape": tuple(shape),
        "strides": None if strides is None else tuple(strides),
        "typestr": dtype.str,
        "descr": dtype.descr,
        "data": (memory.device_pointer + offset, False),
        "version": 3,
    }
    return _cuda.from_cuda_array_interface(desc, owner=memory)


class IpcArrayHandle:
    """A picklable handle to a device array in another process; open() maps it here."""

    def __init__(self, handle, offset, shape, strides, dtype):
        self.handle, self.offset = bytes(handle), offset
        self.shape, self.strides, self.dtype = tuple(shape), tuple(strides), np.dtype(dtype)
        self._opened = None

    def open(self):
        """The exported array, mapped into this process (which must not be the exporter)."""
        if self._opened is None:
            self._opened = _open(self.handle, self.shape, self.dtype, self.strides, self.offset)
        return self._opened

    def close(self):
        """Drop this handle's array; the mapping closes once no array uses it."""
        self._opened = None

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_opened"}

    def __setstate__(self, state):
        self.__dict__.update(state, _opened=None)


def get_ipc_handle(array):
    """DeviceNDArray.get_ipc_handle(): the handle another process opens. With an EMM plugin, the
    plugin makes it (its get_ipc_handle(memory)), as in numba; _ipc_handle is what it gave."""
    context = _cuda.get_context()
    manager = context.memory_manager
    if not getattr(manager, "_numba_cuda_c_builtin", False):
        foreign = manager.get_ipc_handle(array.gpu_data)
        handle = IpcArrayHandle(b"", 0, array.shape, array.strides, array.dtype)
        handle._ipc_handle = foreign
        return handle
    if array.gpu_data is not None and getattr(array.gpu_data, "kind", "device") == "pooled":
        raise ValueError("memory from the stream-ordered pool cannot be shared through CUDA IPC")
    handle, offset = _cuda._ipc_get_handle(array.device_pointer)
    result = IpcArrayHandle(handle, offset, array.shape, array.strides, array.dtype)
    result._ipc_handle = handle
    return result
