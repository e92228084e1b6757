"""CUDA IPC: device memory shared with another process, as numba's (IpcHandle, IpcArrayHandle,
Context.get_ipc_handle / open_ipc_handle, DeviceNDArray.get_ipc_handle, cuda.open_ipc_array).

The exporter makes an IpcHandle of an allocation (cuIpcGetMemHandle of its base, the offset of the
memory in it, and its device's PCI identity) and sends it, pickled, to another process. There,
open(context) maps the memory into the context (cuIpcOpenMemHandle) where its device can reach the
source device, and otherwise copies it through a buffer of the context's own ("staged"). close()
unmaps it: what was opened must not be used after.
"""

import contextlib

import numpy as np

from numba_cuda_c import _cuda


class IpcMemHandle:
    """The 64 bytes of a CUipcMemHandle, as cuda-python's binding exposes them (.reserved)."""

    __slots__ = ("reserved",)

    def __init__(self, reserved):
        reserved = bytes(bytearray(reserved))  # bytes, a bytearray, or a sequence of ints
        if len(reserved) != 64:
            raise ValueError("an IPC handle is 64 bytes, not %d" % len(reserved))
        self.reserved = reserved

    def __eq__(self, other):
        return isinstance(other, IpcMemHandle) and other.reserved == self.reserved

    def __hash__(self):
        return hash(self.reserved)

    def __bytes__(self):
        return self.reserved

    def __reduce__(self):
        return (IpcMemHandle, (self.reserved,))

    def __repr__(self):
        return "IpcMemHandle(%s...)" % self.reserved[:8].hex()


def device_from_identity(identity):
    """The Device of this process whose PCI identity is `identity` (numba's Device.from_identity)."""
    for device in _cuda.list_devices():
        if device.get_device_identity() == identity:
            return device
    raise RuntimeError("No device of %s is found. Target device may not be visible in this process." % (identity,))


class IpcHandle:
    """An IPC handle of an allocation (numba's IpcHandle): `base` keeps the exporter's memory alive
    (None once pickled), `handle` has the 64 bytes in `.reserved`, `size` is the shared memory's
    size, `offset` where it starts in the allocation, and `source_info` its device's identity."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = (
            handle if isinstance(handle, IpcMemHandle) else IpcMemHandle(getattr(handle, "reserved", handle))
        )
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._opened = None  # (memory the handle mapped, or None when staged; the context it is in)

    def _sentry_source_info(self):
        if self.source_info is None:
            raise RuntimeError("IPC handle doesn't have source info")

    def can_access_peer(self, context):
        """Whether `context`'s device can map memory of the handle's device."""
        self._sentry_source_info()
        if self.source_info == context.device.get_device_identity():
            return True
        return context.can_access_peer(device_from_identity(self.source_info).id)

    def _check_closed(self):
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")

    def _map(self, context):
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        return _cuda._ipc_open(self.handle.reserved, context.device.id)

    def open_direct(self, context):
        """Maps the memory into `context`: a pointer to it (its device must reach the source's)."""
        self._check_closed()
        mapped = self._map(context)
        self._opened = (mapped, context)
        return mapped.own().view(self.offset, self.offset + self.size)

    def open_staged(self, context):
        """A copy of the memory in a new allocation of `context`, made through the source device."""
        self._sentry_source_info()
        self._check_closed()
        source = device_from_identity(self.source_info)
        mapped = self._map(source.primary_context)
        try:
            copy = context.memalloc(self.size)
            # through the host where it must; a copy between device addresses returns before it is done, so it
            # is waited for, on a stream of its own, before the mapping is closed
            stream = _cuda.stream()
            _cuda._memcpy(2, copy.device_pointer, mapped.device_pointer + self.offset, self.size, stream)
            stream.synchronize()
        finally:
            mapped.free()
        self._opened = (None, context)
        return copy

    def open(self, context):
        """The memory in `context`: mapped where its device can reach the source device (or the
        source is unknown), copied (staged) otherwise."""
        if self.source_info is None or self.can_access_peer(context):
            return self.open_direct(context)
        return self.open_staged(context)

    def open_array(self, context, shape, dtype, strides=None):
        """open(context), as a DeviceNDArray of this shape, dtype and strides."""
        dtype = np.dtype(dtype)
        if strides is None:
            strides = dtype.itemsize
        return _cuda.DeviceNDArray(shape=shape, strides=strides, dtype=dtype, gpu_data=self.open(context))

    def close(self):
        """Unmaps what open() mapped: arrays over it must not be used after."""
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        mapped, _context = self._opened
        self._opened = None
        if mapped is not None:
            mapped.free()

    def __reduce__(self):
        return (_rebuild_ipc_handle, (self.handle.reserved, self.size, self.source_info, self.offset))

    def __repr__(self):
        return "<IpcHandle of %d bytes at offset %d%s>" % (
            self.size,
            self.offset,
            "" if self.source_info is None else " from %s" % (self.source_info,),
        )


def _rebuild_ipc_handle(reserved, size, source_info, offset):
    return IpcHandle(None, IpcMemHandle(reserved), size, source_info=source_info, offset=offset)


class IpcArrayHandle:
    """A picklable handle to a device array, for another process (numba's IpcArrayHandle): open()
    gives a DeviceNDArray over the shared memory in the current context, close() unmaps it; as a
    context manager it does both."""

    def __init__(self, ipc_handle, array_desc):
        self._array_desc = array_desc
        self._ipc_handle = ipc_handle

    def open(self):
        memory = self._ipc_handle.open(_cuda.get_context())
        return _cuda.DeviceNDArray(gpu_data=memory, **self._array_desc)

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


def context_ipc_handle(context, pointer, size, base):
    """An IpcHandle of the `size` bytes at device `pointer`, made in the memory's own context."""
    handle, offset, ordinal = _cuda._ipc_get_handle(pointer)
    identity = _cuda.get_device(ordinal).get_device_identity()
    return IpcHandle(base, IpcMemHandle(handle), size, source_info=identity, offset=offset)


def get_ipc_handle(array):
    """DeviceNDArray.get_ipc_handle(): an IpcArrayHandle of the array's memory (numba's: the context's
    get_ipc_handle(gpu_data), which is the EMM plugin's where one is set)."""
    gpu_data = array.gpu_data
    if getattr(getattr(gpu_data, "owner", gpu_data), "kind", "device") == "pooled":
        raise ValueError("memory from the stream-ordered pool cannot be shared through CUDA IPC")
    desc = dict(shape=array.shape, strides=array.strides, dtype=array.dtype)
    return IpcArrayHandle(_cuda.get_context().get_ipc_handle(gpu_data), desc)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """Open an IPC handle (the 64 bytes of a CUipcMemHandle: bytes, a tuple of ints) as a device
    array of this shape, dtype and strides (default: one C-contiguous dimension), for the duration
    of the block; the handle is closed at its end."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    ipc_handle = IpcHandle(None, IpcMemHandle(handle), size, offset=offset)
    yield ipc_handle.open_array(_cuda.get_context(), shape=shape, strides=strides, dtype=dtype)
    ipc_handle.close()
