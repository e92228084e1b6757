"""numba_cuda_c: the host side of numba.cuda, in C.

`import numba_cuda_c as cuda` where you wrote `from numba import cuda`. Importing touches no
driver: CUDA is loaded at first use, so the import is fast and works on a machine with no GPU.
"""

import contextlib as _contextlib
import os as _os

if _os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    # numba's CUDA simulator (numba_cuda_c/simulator/): its module takes this one's place in sys.modules, so that
    # `import numba_cuda_c` gives the simulator's API. A module cannot stop part way: the rest of this file still
    # runs, into this module object, which nothing then sees (it imports the C extension, touching no driver).
    from numba_cuda_c import simulator as _simulator

    _simulator.install(__name__)

from numba_cuda_c import _cuda
from numba_cuda_c._cuda import (  # noqa: F401
    Context,
    CudaAPIError,
    CudaDriverError,
    CudaSupportError,
    Device,
    DeviceNDArray,
    DeviceRecord,
    Event,
    Graph,
    GraphExec,
    Kernel,
    LaunchConfig,
    Module,
    MemoryInfo,
    NvrtcError,
    Stream,
    as_cuda_array,
    default_stream,
    device_array,
    device_array_like,
    event,
    event_elapsed_time,
    external_stream,
    from_cuda_array_interface,
    from_dlpack,
    is_cuda_array,
    legacy_default_stream,
    list_devices,
    per_thread_default_stream,
    profile_start,
    profile_stop,
    stream,
    synchronize,
    to_device,
)
from numba_cuda_c.cudadrv import devices as _devices
from numba_cuda_c import pool  # noqa: F401
from numba_cuda_c import types  # noqa: F401

# every type name numba.cuda exports (float32, int64, void, double, float_, intp, b1, f4, ...), as numba.cuda does
globals().update(
    {_k: _v for _k, _v in vars(types).items() if isinstance(_v, types.Type) and not _k.startswith("_")}
)
from numba_cuda_c.args import In, InOut, Out  # noqa: F401,E402
from numba_cuda_c.toolchain.compiler import SourceModule, load_module  # noqa: F401,E402
from numba_cuda_c.cudadrv.devicearray import (  # noqa: F401  (host arrays the device reaches)
    _like_strides,
    managed_array,
    mapped_array,
    mapped_array_like,
    pinned_array,
    pinned_array_like,
)
from numba_cuda_c.cudadrv.emm import (  # noqa: F401
    BaseCUDAMemoryManager,
    GetIpcHandleMixin,
    HostOnlyCUDAMemoryManager,
    ManagedMemory,
    MappedMemory,
    MemoryPointer,
    PinnedMemory,
    set_memory_manager,
)
from numba_cuda_c.cudadrv.devices import gpus, require_context  # noqa: F401
from numba_cuda_c.cudadrv.runtime import runtime  # noqa: F401
from numba_cuda_c.stubs import *  # noqa: F401,F403  (grid, shared, syncthreads, ...: device-side names)
from numba_cuda_c import cudadrv  # noqa: F401
from numba_cuda_c.dask import hooks as _dask_hooks
from numba_cuda_c.cudadrv import emm as _emm
from numba_cuda_c.cudadrv import devicearray, devices  # noqa: F401  (numba.cuda leaks these modules; driver: below)


_dask_hooks.install()


def get_include():
    """The folder of numba_cuda_c.h, the C API other extensions build against (as numpy.get_include())."""
    return _os.path.join(_os.path.dirname(__file__), "include")


implementation = "NVIDIA"


def is_available():
    """Returns a boolean to indicate the availability of a CUDA GPU.

    This will initialize the driver if it hasn't been initialized.
    """
    if _cuda._driver_error() is not None:
        return False
    try:
        return len(_cuda.list_devices()) > 0
    except CudaDriverError:
        return False


def is_supported_version():
    """True if the CUDA toolkit in use (the runtime / NVRTC version) is one numba-cuda supports."""
    return runtime.is_supported_version()


def is_float16_supported():
    """Whether float16 is supported: always, as in numba-cuda."""
    return True


def is_bfloat16_supported():
    """Whether the current device supports bfloat16 (compute capability 8.0 or later)."""
    return get_current_device().compute_capability >= (8, 0)


def is_fp8_supported():
    """Whether the current device supports fp8 (compute capability 8.9 or later)."""
    return get_current_device().compute_capability >= (8, 9)


def cuda_error():
    """The reason CUDA is unusable here, or None when it is usable."""
    return _cuda._driver_error()


def current_context(devnum=None):
    """Get the current device or use a device by device number, and return the CUDA context."""
    return _cuda.get_context(devnum)


def select_device(device_id):
    """Make the context associated with device device_id the current context.

    Returns a Device instance. Raises exception on error.
    """
    return _cuda.get_context(device_id).device


def get_current_device():
    """Get current device associated with the current thread."""
    return _cuda.get_context().device


def close():
    """Explicitly clears all contexts in the current thread, and destroys all contexts if the
    current thread is the main thread."""
    _devices.reset()


@_contextlib.contextmanager
def profiling():
    """Context manager that enables profiling on entry and disables profiling on exit."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()


def _detect_facts(dev):
    """What detect() reports of a device: (name, value) pairs."""
    facts = [
        ("Compute Capability", "%d.%d" % dev.compute_capability),
        ("PCI Device ID", dev.PCI_DEVICE_ID),
        ("PCI Bus ID", dev.PCI_BUS_ID),
        ("UUID", dev.uuid),
        ("Watchdog", "Enabled" if dev.KERNEL_EXEC_TIMEOUT else "Disabled"),
    ]
    if _os.name == "nt":
        facts.append(("Compute Mode", "TCC" if dev.TCC_DRIVER else "WDDM"))
    facts.append(("FP32/FP64 Performance Ratio", dev.SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO))
    facts.append(("Supported", "no: CC < 5.0" if dev.compute_capability < (5, 0) else "yes"))
    return facts


def _in_notebook():
    import sys

    if "ipykernel" not in sys.modules:  # the cheap test first: no notebook without a Jupyter kernel
        return False
    from numba_cuda_c import notebook  # the notebook helpers: loaded in a notebook only

    return notebook.in_notebook()


def detect():
    """Detect supported CUDA hardware and print a summary of the detected hardware.

    Returns a boolean indicating whether any supported devices were detected. In a notebook, the
    summary is a table.
    """
    why = _cuda._driver_error()
    if why is not None:
        print("CUDA driver not available:", why)
        return False
    devlist = list_devices()
    supported_count = sum(dev.compute_capability >= (5, 0) for dev in devlist)
    if _in_notebook():
        from numba_cuda_c import notebook

        notebook.show_detect(devlist, _detect_facts)
        return supported_count > 0
    print("Found %d CUDA devices" % len(devlist))
    for dev in devlist:
        support = "[SUPPORTED]" if dev.compute_capability >= (5, 0) else "[NOT SUPPORTED: CC < 5.0]"
        print("%-3s %-40s %s" % ("id %d" % dev.id, dev.name, support))
        for key, val in _detect_facts(dev)[:-1]:
            print("%40s: %s" % (key, val))
    print("Summary:")
    print("\t%d/%d devices are supported" % (supported_count, len(devlist)))
    return supported_count > 0


def _free_all(locks):
    """Frees every lock, each even if another fails; returns the first failure, or None."""
    failure = None
    for lock in locks:
        try:
            lock.free()
        except Exception as error:  # noqa: BLE001 - returned
            failure = failure or error
    return failure


@_contextlib.contextmanager
def _freeing(locks):
    """Frees every lock at the block's end. A failure is raised only when the block itself raised
    nothing: the block's own exception wins."""
    try:
        yield
    except BaseException:
        _free_all(locks)
        raise
    failure = _free_all(locks)
    if failure is not None:
        raise failure


@_contextlib.contextmanager
def pinned(*arylist):
    """A context manager that page-locks the host arrays for the duration of the block."""
    locks = [_cuda._register(ary, False) for ary in arylist]
    with _freeing(locks):  # unpinned now, not when the last reference goes (a traceback may hold one)
        yield


@_contextlib.contextmanager
def mapped(*arylist, **kws):
    """A context manager that maps the host arrays into device memory for the block; yields the
    device array (one argument) or the list of them."""
    if kws and set(kws) != {"stream"}:
        raise TypeError("mapped() only accepts the keyword stream")
    on_stream = kws.get("stream", 0)
    locks, devarys = [], []
    for ary in arylist:
        lock = _cuda._register(ary, True)
        locks.append(lock)
        devarys.append(DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=on_stream or None, gpu_data=lock))
    with _freeing(locks):  # unmapped at the block's end, as numba's: the device arrays end with it
        yield devarys[0] if len(devarys) == 1 else devarys


@_contextlib.contextmanager
def defer_cleanup():
    """Within this block, memory is not freed: frees wait in the deallocation queue (nestable); with
    a memory-manager plugin, its own defer_cleanup() applies."""
    manager = current_context().memory_manager
    if manager is not None:
        with manager.defer_cleanup():
            yield
        return
    _cuda._defer_cleanup(1)
    try:
        yield
    finally:
        _cuda._defer_cleanup(-1)


_emm.memory_manager_from_environment()  # NUMBA_CUDA_MEMORY_MANAGER, at import as numba reads it


# Names loaded when first asked for (`import numba_cuda_c` loads neither NumPy nor the translator): name ->
# (module, attribute), attribute None for the module itself. __getattr__ reads this table alone.
_LAZY = {
    "__version__": ("numba_cuda_c._version", "__version__"),  # which the dispatcher's disk cache reads too
    "driver": ("numba_cuda_c.cudadrv.driver", None),  # numba.cuda leaks it too; its helpers: ctypes, EMM glue
    "KernelRuntimeError": ("numba_cuda_c.errors", "KernelRuntimeError"),  # a kernel that raised (the simulator's)
    "open_ipc_array": ("numba_cuda_c.cudadrv.ipc", "open_ipc_array"),  # IPC, which imports NumPy
    "load_bundle": ("numba_cuda_c.pyjit.bundles", "load_bundle"),  # kernels compiled ahead of time (not numba's)
    # the Python-kernel compiler, which imports NumPy
    **{
        name: ("numba_cuda_c.pyjit", name)
        for name in ("jit", "compile_ptx", "compile_ptx_for_current_device", "compile", "compile_all",
                     "compile_for_current_device", "declare_device")
    },
    "vectorize": ("numba_cuda_c.ufunc", "vectorize"),  # CUDA (generalized) ufuncs: functions compiled by @cuda.jit
    "guvectorize": ("numba_cuda_c.gufunc", "guvectorize"),
    "reduce": ("numba_cuda_c.reduction", "reduce"),  # cuda.reduce: a reduction kernel compiled by @cuda.jit
    "Reduce": ("numba_cuda_c.reduction", "Reduce"),
    # what cuda.jit(link=...) takes from memory
    **{
        name: ("numba_cuda_c.toolchain.linkable_code", name)
        for name in ("LinkableCode", "PTXSource", "CUSource", "Fatbin", "Cubin", "Archive", "Object", "LTOIR")
    },
    # numba.cuda's submodules that its package has as attributes once imported (cuda.random, cuda.bf16, ...)
    **{
        name: ("numba_cuda_c." + name, None)
        for name in ("random", "bf16", "kernels", "launchconfig", "errors", "np", "compiler")
    },
}  # fmt: skip


def __getattr__(name):
    found = _LAZY.get(name)
    if found is None:
        raise AttributeError("module 'numba_cuda_c' has no attribute %r" % name)
    import importlib

    module = importlib.import_module(found[0])
    value = globals()[name] = module if found[1] is None else getattr(module, found[1])
    return value


if (
    _os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
):  # the simulator's cudadrv, once this package's own modules are in
    _simulator.finish_install(__name__)
