"""numba.cuda.libdevice: libdevice's functions for kernels (libdevice.sin(x), libdevice.sincos(x) ->
(s, c)), named as numba names them (without __nv_). Each is a device function: calling one on the host
raises. The table is numba_cuda_c/pyjit/lib/libdevice_table.py."""

from numba_cuda_c.pyjit import lib as _lib


def __getattr__(name):
    entry = _lib.lookup(("libdevice", name))
    if entry is None:
        raise AttributeError("libdevice has no function %r" % name)
    globals()[name] = entry
    return entry


def __dir__():
    _lib._load()
    return sorted(path[1] for path in _lib.TABLE if path[0] == "libdevice")
