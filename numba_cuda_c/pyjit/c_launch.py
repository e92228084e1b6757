"""A @cuda.jit kernel launched from compiled code: numba's @njit and @cfunc functions call ctypes function pointers
in nopython mode, so a specialisation gives one (Dispatcher.c_launcher(signature)), with a fixed convention:

    launch(handle, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_memory, stream, packed) -> CUresult

handle is the kernel's (for the context current when the launcher was made), stream a CUstream (0: the default),
packed the address of the arguments packed as the kernel takes them (pack(*args) makes them once, in Python: a
device array as its data pointer, extents and strides, a number as its C type). src/launch/c_api.c launches; the C
API's launch (numba_cuda_c.h) is the same call for C callers."""

import ctypes

import numpy as np

from numba_cuda_c import _cuda, types

LAUNCH = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, *(ctypes.c_uint,) * 7, ctypes.c_void_p, ctypes.c_void_p
)  # fmt: skip


class CLauncher:
    """What compiled code needs to launch one specialisation: `launch` (a ctypes function), `handle` (an int), and
    pack(*args), the arguments' bytes (a NumPy uint8 array: pass its .ctypes.data). The launcher keeps the kernel
    alive; keep the launcher alive while compiled code may launch through it."""

    def __init__(self, kernel, argtypes):
        self._kernel, self.argtypes = kernel, tuple(argtypes)
        self._capsule, self.handle, address, self._offsets, self._sizes = _cuda._c_launch_handle(kernel)
        if len(self._offsets) != len(self.argtypes):
            raise TypeError(
                "the kernel takes %d parameters, its signature %d" % (len(self._offsets), len(argtypes))
            )
        self.launch = LAUNCH(address)
        self.nbytes = max((o + s for o, s in zip(self._offsets, self._sizes)), default=0)

    def pack(self, *args):
        """The arguments as the kernel takes them, at its parameters' offsets: a NumPy uint8 array."""
        if len(args) != len(self.argtypes):
            raise TypeError("the kernel takes %d arguments, %d given" % (len(self.argtypes), len(args)))
        packed = np.zeros(max(self.nbytes, 1), np.uint8)
        for index, (arg, t, offset, size) in enumerate(zip(args, self.argtypes, self._offsets, self._sizes)):
            if isinstance(t, types.Array):
                if getattr(arg, "ndim", None) != t.ndim or not hasattr(arg, "device_ctypes_pointer"):
                    raise TypeError("argument %d: a %d-d device array (%s), not %r" % (index, t.ndim, t, arg))
                words = [arg.device_ctypes_pointer.value or 0, *arg.shape, *arg.strides]
                raw = np.array(words, np.int64).tobytes()
            elif isinstance(t, types.Scalar):
                raw = np.asarray(arg, dtype=np.dtype(str(t))).tobytes()
            else:
                raise TypeError(
                    "argument %d: launches from compiled code take arrays and numbers, not %s" % (index, t)
                )
            if len(raw) != size:
                raise TypeError(
                    "argument %d (%s) packs %d bytes, the kernel's parameter has %d" % (index, t, len(raw), size)
                )
            packed[offset : offset + size] = np.frombuffer(raw, np.uint8)
        return packed
