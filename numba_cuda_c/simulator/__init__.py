"""numba's CUDA simulator for numba_cuda_c: with NUMBA_ENABLE_CUDASIM=1, `import numba_cuda_c as cuda` gives this
API, under which kernels run in Python on the CPU (one Python thread per CUDA thread, blocks one after another) and
device arrays are NumPy arrays. Owns the public names and install(), which makes the package this API.

    NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/

What it has: @cuda.jit kernels (launch configurations, forall, signatures) and device functions; the thread
indices, grid/gridsize, syncthreads (and _count/_and/_or), shared/local/const arrays, atomics, the warp functions,
the bit and math intrinsics, cuda.fp16, vector types, cuda.random, cuda.reduce, cg.this_grid() (grids of one
block); device arrays and host-array allocators; streams and events (synchronous); one device, SIMULATOR. What it
has not: CUDA C (SourceModule), linking, compile_ptx and the inspect_* methods, CUDA ufuncs (cuda.vectorize, as
numba's simulator), libdevice, IPC, graphs, memory managers, other libraries' device arrays.
"""

import sys
import types as _types

from numba_cuda_c import _cuda, args, config, types  # noqa: F401
from numba_cuda_c._cuda import CudaAPIError, CudaDriverError, CudaSupportError, MemoryInfo, NvrtcError  # noqa: F401
from numba_cuda_c.args import In, InOut, Out  # noqa: F401
from numba_cuda_c.simulator import atomics as atomic  # noqa: F401
from numba_cuda_c.simulator import arrays as devicearray  # noqa: F401  (cuda.devicearray.auto_device, as numba's)
from numba_cuda_c.simulator import fp16, random  # noqa: F401
from numba_cuda_c.simulator.arrays import (  # noqa: F401
    DeviceNDArray,
    DeviceRecord,
    as_cuda_array,
    device_array,
    device_array_like,
    from_cuda_array_interface,
    from_dlpack,
    is_cuda_array,
    managed_array,
    mapped,
    mapped_array,
    mapped_array_like,
    pinned,
    pinned_array,
    pinned_array_like,
    to_device,
)
from numba_cuda_c.simulator.device import (  # noqa: F401
    blockDim,
    blockIdx,
    cg,
    const,
    grid,
    gridDim,
    gridsize,
    local,
    shared,
    syncthreads,
    syncthreads_and,
    syncthreads_count,
    syncthreads_or,
    threadIdx,
    warpsize,
)
from numba_cuda_c.simulator.driver import (  # noqa: F401
    Context,
    Device,
    close,
    cuda_error,
    current_context,
    defer_cleanup,
    detect,
    get_current_device,
    gpus,
    is_available,
    is_bfloat16_supported,
    is_float16_supported,
    is_fp8_supported,
    is_supported_version,
    list_devices,
    profile_start,
    profile_stop,
    profiling,
    require_context,
    select_device,
    synchronize,
)
from numba_cuda_c.simulator.intrinsics import (  # noqa: F401
    VECTOR_TYPES,
    brev,
    cbrt,
    clz,
    ffs,
    fma,
    ldca,
    ldcg,
    ldcs,
    ldcv,
    ldlu,
    nanosleep,
    popc,
    selp,
    stcg,
    stcs,
    stwb,
    stwt,
    threadfence,
    threadfence_block,
    threadfence_system,
)
from numba_cuda_c.simulator.kernel import jit  # noqa: F401
from numba_cuda_c.simulator.reduction import Reduce, reduce  # noqa: F401
from numba_cuda_c.simulator.streams import (  # noqa: F401
    Event,
    Stream,
    default_stream,
    event,
    event_elapsed_time,
    external_stream,
    legacy_default_stream,
    per_thread_default_stream,
    stream,
)
from numba_cuda_c.simulator.threads import in_kernel  # noqa: F401
from numba_cuda_c.simulator.warp import (  # noqa: F401
    activemask,
    all_sync,
    any_sync,
    ballot_sync,
    eq_sync,
    lanemask_lt,
    match_all_sync,
    match_any_sync,
    shfl_down_sync,
    shfl_sync,
    shfl_up_sync,
    shfl_xor_sync,
    syncwarp,
)

implementation = "NVIDIA"  # as numba.cuda's, simulated or not


def literal_unroll(container):
    """numba's literal_unroll: in Python, the container itself."""
    return container


def _unsupported(name, what):
    def unsupported(*arguments, **keywords):
        raise NotImplementedError("cuda.%s: the CUDA simulator has no %s" % (name, what))

    unsupported.__name__ = name
    return unsupported


compile = _unsupported("compile", "compiler")
compile_ptx = _unsupported("compile_ptx", "compiler")
compile_for_current_device = _unsupported("compile_for_current_device", "compiler")
compile_ptx_for_current_device = _unsupported("compile_ptx_for_current_device", "compiler")
compile_all = _unsupported("compile_all", "compiler")
SourceModule = _unsupported("SourceModule", "CUDA C compiler")
load_module = _unsupported("load_module", "module loader")
open_ipc_array = _unsupported("open_ipc_array", "IPC")
set_memory_manager = _unsupported("set_memory_manager", "memory managers")
vectorize = _unsupported("vectorize", "CUDA ufuncs")
guvectorize = _unsupported("guvectorize", "CUDA ufuncs")


def declare_device(name, sig, link=None, use_cooperative=False):
    """numba's declare_device: here a device function that raises when called, as the simulator cannot link the
    code that defines it."""
    return _unsupported(name, "linker: %s is declared, not defined in Python" % name)


# every type name numba.cuda exports (float32, int64, void, double, f4, ...), as the package does
_TYPE_NAMES = {k: v for k, v in vars(types).items() if isinstance(v, types.Type) and not k.startswith("_")}
globals().update(_TYPE_NAMES)
globals().update(VECTOR_TYPES)  # float32x4, float4, ...


_package = []  # the package module install() stood in for: its __version__


def __getattr__(name):
    """cuda.laneid: a number, the calling thread's lane, so read when asked for; names loaded when first asked for."""
    if name == "laneid" and in_kernel():
        from numba_cuda_c.simulator.device import laneid  # not a global: this module's globals are the API

        return laneid()
    if name == "__version__" and _package:
        return _package[0].__version__
    if name == "KernelRuntimeError":  # numba's simulator exports it too
        from numba_cuda_c.errors import KernelRuntimeError

        return KernelRuntimeError
    raise AttributeError("module 'numba_cuda_c' (the CUDA simulator) has no attribute %r" % name)


_PRIVATE = {"install", "in_kernel", "sys", "VECTOR_TYPES"}
__all__ = sorted(k for k in globals() if not k.startswith("_") and k not in _PRIVATE)


def install(package_name):
    """Makes `import numba_cuda_c` give the simulator: a module of this API, with the package's path (so that its
    submodules still import: numba_cuda_c.types, numba_cuda_c.simulator, ...), takes the package's place in
    sys.modules, which is what the import system returns once the package has run. numba_cuda_c.random is the
    simulator's."""
    package = sys.modules[package_name]
    face = _types.ModuleType(package_name, __doc__)
    for name in ("__file__", "__path__", "__spec__", "__loader__", "__package__"):
        setattr(face, name, getattr(package, name))
    face.__dict__.update({name: globals()[name] for name in __all__})
    face.__getattr__ = __getattr__
    _package.append(package)
    face._cuda = _cuda
    face.simulator = sys.modules[__name__]
    sys.modules[package_name] = face
    sys.modules[package_name + ".random"] = random


def finish_install(package_name):
    """After the package has run (its own modules loaded): numba_cuda_c.cudadrv and its driver, devices and
    devicearray modules are the simulator's, as numba's simulator makes numba.cuda.cudadrv (programs and tests
    import driver.host_to_device, devices.get_context, devicearray.auto_device from there)."""
    from numba_cuda_c.simulator import arrays, driver, memory  # not globals: this module's globals are the API

    real = sys.modules[package_name + ".cudadrv"]
    cudadrv = _types.ModuleType(
        package_name + ".cudadrv", "numba's cudadrv modules, as the CUDA simulator has them"
    )
    # its other submodules (nvvm, linkable_code, ...) are the package's own, from the same folder: imported, they
    # let a program's imports work where the simulator has no use for them (numba's simulator has stubs there)
    cudadrv.__path__, cudadrv.__package__ = real.__path__, real.__name__
    # the package's spec (the import system reads it: `from numba.cuda.cudadrv import driver` through the alias
    # finds it by this name), and its way of importing a submodule when first asked for as an attribute
    cudadrv.__spec__, cudadrv.__loader__, cudadrv.__file__ = real.__spec__, real.__loader__, real.__file__
    cudadrv.__getattr__ = real.__getattr__
    cudadrv.driver, cudadrv.devices, cudadrv.devicearray = memory, driver, arrays
    sys.modules[package_name + ".cudadrv"] = cudadrv
    for name in ("driver", "devices", "devicearray"):
        sys.modules["%s.cudadrv.%s" % (package_name, name)] = getattr(cudadrv, name)
    sys.modules[package_name].cudadrv = cudadrv
