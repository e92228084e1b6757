"""numba's view of a context's memory bookkeeping: ctx.deallocations and ctx.memory_manager
(the built-in manager, when no EMM plugin is installed). The queue itself is in C (src/core/memory.c);
these objects only read and drive it. Also Context.mempin and Context.get_ipc_handle.
"""

import contextlib

from numba_cuda_c import _cuda
from numba_cuda_c.cudadrv.emm import _pointer_value
from numba_cuda_c.cudadrv.ipc import context_ipc_handle


class _PendingDeallocs:
    """A context's pending-deallocation queue (numba's _PendingDeallocs): frees wait here until
    the count or byte limit, an allocation failure, clear(), or Context.reset()."""

    def __init__(self, context):
        self._context = context

    def __len__(self):
        return self._context._pending[0]

    @property
    def count(self):
        return self._context._pending[0]

    @property
    def _size(self):
        return self._context._pending[1]

    @property
    def _max_pending_bytes(self):
        return self._context._pending[2]

    @property
    def is_disabled(self):
        return self._context._pending[3] > 0

    def clear(self):
        """Free everything queued now (nothing while disabled)."""
        self._context._flush_pending()

    @contextlib.contextmanager
    def disable(self):
        """Within the block nothing is freed (nestable); frees still queue."""
        self._context._defer(1)
        try:
            yield
        finally:
            self._context._defer(-1)


class _BuiltinMemoryManager:
    """What ctx.memory_manager is without an EMM plugin: numba_cuda_c's own allocator (cuMemAlloc
    and the deallocation queue), with the plugin interface numba's built-in manager has."""

    _numba_cuda_c_builtin = True
    interface_version = 1

    def __init__(self, context):
        self.context = context
        self.deallocations = _PendingDeallocs(context)

    def initialize(self):
        pass

    def memalloc(self, size):
        return self.context.memalloc(size)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        return self.context.memhostalloc(size, mapped=mapped, portable=portable, wc=wc)

    def memallocmanaged(self, size, attach_global=True):
        return self.context.memallocmanaged(size, attach_global=attach_global)

    def mempin(self, owner, pointer, size, mapped=False):
        return self.context.mempin(owner, pointer, size, mapped=mapped)

    def get_memory_info(self):
        return self.context.get_memory_info()

    def get_ipc_handle(self, memory):
        return self.context.get_ipc_handle(memory)

    def reset(self):
        self.deallocations.clear()

    def defer_cleanup(self):
        return self.deallocations.disable()

    def __eq__(self, other):
        return isinstance(other, _BuiltinMemoryManager) and other.context == self.context

    def __hash__(self):
        return hash(self.context)


def _builtin_memory_manager(context):
    return _BuiltinMemoryManager(context)


def _pending_deallocations(context):
    return _PendingDeallocs(context)


def _context_mempin(context, owner, pointer, size, mapped):
    """Context.mempin: page-locks owner's buffer (pointer and size must be its data)."""
    manager = context.memory_manager
    if not getattr(manager, "_numba_cuda_c_builtin", False):
        return manager.mempin(owner, pointer, size, mapped=mapped)
    return _cuda._register(owner, mapped)


def _context_get_ipc_handle(context, memory):
    """Context.get_ipc_handle: the plugin's handle, or ours (cuIpcGetMemHandle) for our memory."""
    import sys

    if not sys.platform.startswith("linux"):
        raise OSError("OS does not support CUDA IPC")
    manager = context.memory_manager
    if not getattr(manager, "_numba_cuda_c_builtin", False):
        return manager.get_ipc_handle(memory)
    return context_ipc_handle(context, _pointer_value(memory.device_pointer), memory.size, memory)


def _context_open_ipc_handle(context, handle, size):
    """Context.open_ipc_handle(handle, size): another process's memory mapped into this context."""
    return _cuda._ipc_open(bytes(getattr(handle, "reserved", handle)), context.device.id)
