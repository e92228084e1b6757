"""numba's External Memory Management (EMM) plugin interface.

A plugin is a class derived from BaseCUDAMemoryManager (usually through HostOnlyCUDAMemoryManager,
as RMM's is). cuda.set_memory_manager(cls), or NUMBA_CUDA_MEMORY_MANAGER=<module> naming a module
with `_numba_memory_manager = cls`, makes every device allocation a call to memalloc(size) on an
instance made once per context (cls(context=ctx), then initialize()). memalloc returns a
MemoryPointer that frees the memory when it dies (its finalizer, or its owner going away);
Context.get_memory_info() asks the plugin.
"""

import abc
import contextlib
import importlib
import os
import weakref

from numba_cuda_c import _cuda
from numba_cuda_c.pool import StreamOrderedMemoryManager

MemoryInfo = _cuda.MemoryInfo  # a namedtuple (free, total), as numba's: plugins make their own


class DeadMemoryError(RuntimeError):
    """Memory freed twice (numba's driver.DeadMemoryError)."""


class MemoryPointer:
    """Device memory a plugin hands out: MemoryPointer(context, pointer, size, owner=None, finalizer=None).

    pointer is an int (or a ctypes pointer); finalizer, if given, is called once when the pointer is
    freed (free()) or garbage-collected. view() and own() make pointers that keep it alive; refct
    counts them (numba's rules).
    """

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.device_pointer = pointer
        self.size = size
        self._cuda_memsize_ = size
        self.is_managed = finalizer is not None
        self.refct = 1
        self.handle = pointer
        self._owner = owner
        self._finalizer = weakref.finalize(self, finalizer) if finalizer is not None else None

    @property
    def owner(self):
        """The pointer that owns the memory: this one, or the one it is a view of."""
        return self if self._owner is None else self._owner

    def own(self):
        """A pointer to the same memory that keeps this one alive (numba's OwnedPointer)."""
        return OwnedPointer(self)

    def free(self):
        """Free the memory now (the finalizer runs once)."""
        if self.is_managed:
            if not self._finalizer.alive:
                raise DeadMemoryError("Freeing dead memory")
            self._finalizer()
            assert not self._finalizer.alive

    def memset(self, byte, count=None, stream=0):
        """Set `count` bytes (default: all of them) to `byte`, on `stream` (0: synchronously)."""
        _cuda._memset(_pointer_value(self.device_pointer), byte, self.size if count is None else count, stream)

    @property
    def device_pointer_value(self):
        """The device address as an int (None for a null pointer)."""
        return _pointer_value(self.device_pointer) or None

    @property
    def device_ctypes_pointer(self):
        """The device address as a ctypes.c_size_t."""
        import ctypes

        return ctypes.c_size_t(_pointer_value(self.device_pointer))

    def view(self, start, stop=None):
        """A pointer to bytes [start, stop) of this memory (default: to its end), keeping it alive."""
        return _view(self, start, stop)


def _pointer_value(pointer):
    """An int from an int or a ctypes pointer (c_void_p(0).value is None)."""
    if pointer is None or isinstance(pointer, int):
        return pointer or 0
    value = getattr(pointer, "value", pointer)
    return int(value or 0)


def _view(memory, start, stop):
    """numba's MemoryPointer.view: a pointer into memory that keeps its owner alive."""
    size = memory.size - start if stop is None else stop - start
    base = _pointer_value(memory.device_pointer)
    if not base:
        if size != 0:
            raise RuntimeError("non-empty slice into empty slice")
        view = memory
    else:
        if size < 0:
            raise RuntimeError("size cannot be negative")
        view = MemoryPointer(memory.context, base + start, size, owner=memory.owner)
    owner = memory.owner
    if view is memory or not hasattr(owner, "refct"):
        return view
    return OwnedPointer(owner, view)


# refct of the C allocations (numba_cuda_c.MemoryPointer): its views and own()s, counted here
_c_references = weakref.WeakKeyDictionary()


def _incref(memory):
    if isinstance(memory, MemoryPointer):
        memory.refct += 1
    else:
        _c_references[memory] = _c_references.get(memory, 0) + 1


def _decref(memory):
    if isinstance(memory, MemoryPointer):
        memory.refct -= 1
        if memory.refct == 0:
            memory.free()
    elif memory in _c_references:
        _c_references[memory] -= 1


class OwnedPointer:
    """A reference to an allocation (and optionally a view into it): refct + 1 while it lives."""

    def __init__(self, memptr, view=None):
        self._mem = memptr
        self._view = memptr if view is None else view
        _incref(memptr)
        weakref.finalize(self, _decref, memptr)

    def __getattr__(self, name):
        return getattr(self._view, name)


class AutoFreePointer(MemoryPointer):
    """A MemoryPointer freed when its last own()ed reference goes: refct starts at 0."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refct -= 1


class MappedMemory(MemoryPointer):
    """Host memory mapped into the device's address space."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.host_pointer = pointer
        super().__init__(context, pointer, size, owner=owner, finalizer=finalizer)


class PinnedMemory(MemoryPointer):
    """Page-locked host memory."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.host_pointer = pointer
        super().__init__(context, pointer, size, owner=owner, finalizer=finalizer)


class ManagedMemory(MemoryPointer):
    """Managed (unified) memory."""


class BaseCUDAMemoryManager(abc.ABC):
    """The interface a memory-manager plugin implements (numba's, version 1)."""

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    @abc.abstractmethod
    def memalloc(self, size):
        """Allocate size bytes of device memory; return a MemoryPointer."""

    @abc.abstractmethod
    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """Allocate pinned (or mapped) host memory."""

    @abc.abstractmethod
    def mempin(self, owner, pointer, size, mapped=False):
        """Page-lock existing host memory."""

    @abc.abstractmethod
    def initialize(self):
        """Called once, after construction, with the context current."""

    @abc.abstractmethod
    def get_ipc_handle(self, memory):
        """An IPC handle for memory allocated by this manager."""

    @abc.abstractmethod
    def get_memory_info(self):
        """MemoryInfo(free, total) in bytes."""

    @abc.abstractmethod
    def reset(self):
        """Free everything this manager allocated."""

    @abc.abstractmethod
    def defer_cleanup(self):
        """A context manager inside which frees are held back."""

    @property
    @abc.abstractmethod
    def interface_version(self):
        """1: numba's EMM interface."""


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """Host memory from the driver (as numba_cuda_c allocates it); device memory left to the plugin."""

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        return _cuda._alloc(size, "mapped" if mapped else "pinned", portable, wc)

    def mempin(self, owner, pointer, size, mapped=False):
        return _cuda._register(owner, mapped)

    def memallocmanaged(self, size, attach_global):
        """Allocate `size` bytes of managed (unified) memory; return a ManagedMemory."""
        return _cuda._alloc(size, "managed")

    def reset(self):
        _cuda._flush_deallocations()

    @contextlib.contextmanager
    def defer_cleanup(self):
        _cuda._defer_cleanup(1)
        try:
            yield
        finally:
            _cuda._defer_cleanup(-1)


class GetIpcHandleMixin:
    """get_ipc_handle for plugins whose memory is ordinary device memory (cuIpcGetMemHandle)."""

    def get_ipc_handle(self, memory):
        """An IPC handle (cuIpcGetMemHandle) for `memory`, a MemoryPointer this plugin allocated."""
        from numba_cuda_c.cudadrv.ipc import context_ipc_handle  # ipc imports NumPy, which the package does not

        return context_ipc_handle(self.context, _pointer_value(memory.device_pointer), memory.size, memory)


def set_memory_manager(mm_plugin):
    """Choose how device memory is allocated, as numba's set_memory_manager: an EMM plugin class
    (derived from BaseCUDAMemoryManager), numba_cuda_c.pool.StreamOrderedMemoryManager (the built-in
    stream-ordered pool), or None for the default (cuMemAlloc and the deallocation queue)."""
    if mm_plugin is StreamOrderedMemoryManager:
        _cuda._set_memory_plugin(None)
        _cuda._use_memory_pool(True)
    elif mm_plugin is None:
        _cuda._set_memory_plugin(None)
        _cuda._use_memory_pool(False)
    elif isinstance(mm_plugin, type) and issubclass(mm_plugin, BaseCUDAMemoryManager):
        version = mm_plugin(context=None).interface_version
        if version != 1:
            raise RuntimeError("EMM Plugin interface has version %d - version 1 required" % version)
        _cuda._use_memory_pool(False)
        _cuda._set_memory_plugin(mm_plugin)
    else:
        raise TypeError("set_memory_manager takes a BaseCUDAMemoryManager subclass, not %r" % (mm_plugin,))


def memory_manager_from_environment():
    """At import: the plugin NUMBA_CUDA_MEMORY_MANAGER names (numba's variable), if any."""
    name = os.environ.get("NUMBA_CUDA_MEMORY_MANAGER", "default")
    if name == "default":
        return
    if name == "numba_cuda_c.pool":
        _cuda._use_memory_pool(True)
        return
    try:
        plugin = importlib.import_module(name)._numba_memory_manager
    except (ImportError, AttributeError) as error:
        raise RuntimeError(
            "NUMBA_CUDA_MEMORY_MANAGER=%r: expected 'default', 'numba_cuda_c.pool' or the name of an importable "
            "module that defines _numba_memory_manager (%s)" % (name, error)
        ) from error
    set_memory_manager(plugin)
