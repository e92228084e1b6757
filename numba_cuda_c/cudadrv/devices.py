"""numba.cuda.cudadrv.devices: the device list (cuda.gpus) and the per-thread context rules.

Contexts are primary contexts; "current" is the driver's per-thread context stack, so a new
thread has none until it uses one. The work is in C (numba_cuda_c._cuda); this file gives
numba's names and the `with cuda.gpus[i]:` context manager.
"""

import functools
import threading

from numba_cuda_c import _cuda

_main_thread = threading.main_thread()


class _DeviceList:
    """An indexable list of the CUDA devices, indexed by device ID."""

    @property
    def lst(self):
        try:
            return self._lst
        except AttributeError:
            built = [_DeviceContextManager(dev) for dev in _cuda.list_devices()]  # may release the GIL
            # threads that got here together keep the first list made: `gpus[0] is gpus[0]` everywhere
            return self.__dict__.setdefault("_lst", built)

    def __getitem__(self, devnum):
        return self.lst[devnum]

    def __iter__(self):
        return iter(self.lst)

    def __len__(self):
        return len(self.lst)

    def __str__(self):
        return ", ".join(str(d) for d in self.lst)

    @property
    def current(self):
        """The device of the current context, or None when this thread has none."""
        if not _cuda._has_current_context():
            return None
        return self[_cuda.get_context().device.id]


class _DeviceContextManager:
    """A device as a context manager: `with cuda.gpus[2]:` runs the block on device 2."""

    def __init__(self, device):
        self._device = device

    def __getattr__(self, item):
        return getattr(self._device, item)

    def __enter__(self):
        _cuda.get_context(self._device.id)

    def __exit__(self, exc_type, exc_val, exc_tb):
        # pops the context __enter__ pushed, checking it is the one on top
        self._device.get_primary_context().pop()

    def __str__(self):
        return "<Managed Device {self.id}>".format(self=self)

    def __repr__(self):
        return repr(self._device)

    def __eq__(self, other):
        if isinstance(other, _DeviceContextManager):
            other = other._device
        return self._device is other

    def __hash__(self):
        return hash(self._device)


gpus = _DeviceList()


def get_context(devnum=None):
    """Get the current device or use a device by device number, and return the CUDA context."""
    return _cuda.get_context(devnum)


def require_context(fn):
    """A decorator that ensures a CUDA context is available when fn is executed.

    Note: the function fn cannot switch CUDA context.
    """

    @functools.wraps(fn)
    def _require_cuda_context(*args, **kws):
        _cuda.get_context()
        return fn(*args, **kws)

    return _require_cuda_context


def reset():
    """Clear all contexts of the current thread; destroy all contexts if this is the main thread."""
    _cuda._pop_all_contexts()
    if threading.current_thread() is _main_thread:
        _cuda._reset_all_devices()
