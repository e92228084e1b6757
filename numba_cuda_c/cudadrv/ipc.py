"""CUDA IPC: a device array shared with another process (numba's get_ipc_handle / open_ipc_array).

The exporter calls DeviceNDArray.get_ipc_handle() and sends the IpcArrayHandle (it pickles) to
another process, which opens it as a DeviceNDArray over the same memory, on the device the memory
is on (found by its UUID: device numbers differ between processes under CUDA_VISIBLE_DEVICES). The
mapping is closed when the last array over it goes.
"""

import numpy as np

from numba_cuda_c import _cuda


def _device_of(uuid):
    """The number, in this process, of the device with this UUID."""
    for device in _cuda.list_devices():
        if device.uuid == uuid:
            return device.id
    raise RuntimeError("No device of UUID %s is found. Target device may not be visible in this process." % uuid)


def _open(handle, shape, dtype, strides, offset, device_uuid=None):
    dtype = np.dtype(dtype)
    devnum = None if device_uuid is None else _device_of(device_uuid)
    memory = _cuda._ipc_open(bytes(handle), devnum)
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

    def __init__(self, handle, offset, shape, strides, dtype, device_uuid=None):
        self.handle, self.offset = bytes(handle), offset
        self.shape, self.strides, self.dtype = tuple(shape), tuple(strides), np.dtype(dtype)
        self.device_uuid = device_uuid
        self._opened = None

    def open(self):
        """The exported array, mapped into this process (which must not be the exporter), on the
        device it is on."""
        if self._opened is None:
            self._opened = _open(self.handle, self.shape, self.dtype, self.strides, self.offset, self.device_uuid)
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
        self.__dict__.setdefault("device_uuid", None)


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
    handle, offset, ordinal = _cuda._ipc_get_handle(array.device_pointer)
    uuid = _cuda.get_device(ordinal).uuid
    result = IpcArrayHandle(handle, offset, array.shape, array.strides, array.dtype, uuid)
    result._ipc_handle = handle
    return result
