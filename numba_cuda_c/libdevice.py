"""numba.cuda.libdevice: libdevice's functions for kernels (libdevice.sin(x), libdevice.sincos(x) ->
(s, c)), named as numba names them (without __nv_). Each is a device function: calling one on the host
raises. The table is numba_cuda_c/pyjit/lib/libdevice_table.py."""

from numba_cuda_c.pyjit import lib as _lib

__getattr__, __dir__ = _lib.module_functions("libdevice", globals(), "libdevice")
