"""@cuda.jit in the simulator: kernels and device functions stay Python functions. Owns the launch configuration
(kernel[griddim, blockdim, stream, sharedmem], forall), what a kernel's arguments become, and device function
calls. Relies on threads.py to run the blocks one after another and on arrays.py for device arrays."""

import builtins
import contextlib
import functools
import numbers
import sys
import threading

import numpy as np

from numba_cuda_c import config, errors, types
from numba_cuda_c._cuda import CudaAPIError
from numba_cuda_c.args import as_hint
from numba_cuda_c.simulator import arrays, threads
from numba_cuda_c.simulator.arrays import DeviceNDArray

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)  # every CUDA device's (compute capability 3.0 on)
MAX_LAUNCH_SIZE = 2**32 - 1
CUDA_ERROR_INVALID_VALUE = 1


def jit(func_or_sig=None, device=False, debug=None, link=None, **options):
    """numba's @cuda.jit: @jit, @jit(sig), @jit([sig, ...]), @jit(device=True). The function is not compiled: a
    launch runs it in Python, one thread per CUDA thread. Options numba's compiler takes (fastmath, opt, cache,
    lineinfo, max_registers, inline, ...) are accepted and change nothing."""
    if link:
        raise NotImplementedError("the CUDA simulator cannot link CUDA C, PTX or other device code (link=)")
    errors.jit_target_checked(func_or_sig)
    if debug is None:
        debug = bool(config.get("CUDA_DEBUGINFO_DEFAULT"))
    if (
        callable(func_or_sig)
        and not isinstance(func_or_sig, (types.Type, types.Signature))
        and not (types.is_numba_type(func_or_sig))
    ):
        return Kernel(func_or_sig, None, device, debug)
    sigs = None
    if func_or_sig is not None:
        sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]

    def decorate(func):
        return Kernel(func, sigs, device, debug)

    return decorate


class Kernel:
    """A @cuda.jit function in the simulator. A kernel is launched as kernel[griddim, blockdim](*args); a device
    function (device=True) is called as it is, from a kernel or from the host."""

    def __init__(self, py_func, sigs, device, debug):
        functools.update_wrapper(self, py_func)
        self.py_func, self.device, self.debug = py_func, device, debug
        self._sigs = list(sigs or [])
        self.extensions = []  # numba's: objects whose prepare_args(ty, val, stream=, retr=) map each argument

    def __repr__(self):
        return "<simulated %s %s>" % ("device function" if self.device else "kernel", self.__name__)

    def __call__(self, *args, **kwargs):
        if self.device or threads.in_kernel():
            return self.py_func(*args, **kwargs)
        raise ValueError(
            "launch configuration was not specified for kernel %s. Use the syntax: "
            "%s[griddim, blockdim](*args)" % (self.__name__, self.__name__)
        )

    def __getitem__(self, configuration):
        if not isinstance(configuration, tuple) or not 2 <= len(configuration) <= 4:
            raise ValueError(
                "a launch configuration is [griddim, blockdim], [griddim, blockdim, stream] or "
                "[griddim, blockdim, stream, sharedmem]"
            )
        griddim, blockdim, stream, sharedmem = configuration + (0, 0)[len(configuration) - 2 :]
        return LaunchConfiguration(self, griddim, blockdim, stream, sharedmem)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launch covering ntasks threads (at most tpb per block; 128 by default)."""
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %s" % ntasks)
        tpb = tpb or 128
        return self[max(1, (ntasks + tpb - 1) // tpb), tpb, stream, sharedmem]

    def specialize(self, *args):
        return self

    def bind(self):
        pass

    @property
    def signatures(self):
        return list(self._sigs)

    @property
    def overloads(self):
        return _Overloads()

    def _scalar_types(self, count):
        """The scalar argument types of the kernel's one signature (None where not a scalar), or None."""
        if len(self._sigs) != 1:
            return None
        try:
            argtypes = types.parse_signature(self._sigs[0]).args
        except TypeError:
            return None
        if len(argtypes) != count:
            return None
        return [t if isinstance(t, types.Scalar) else None for t in argtypes]


class _Overload:
    def max_cooperative_grid_blocks(self, blockdim):
        return 1  # blocks run one after another: cuda.cg.this_grid().sync() can only work in a grid of one block


class _Overloads(dict):
    """numba's simulator's: every signature has an overload, as nothing is compiled."""

    def __getitem__(self, key):
        return _Overload()


class LaunchConfiguration:
    """kernel[griddim, blockdim, stream, sharedmem]: call it with the kernel's arguments to launch it. The launch
    is synchronous (streams are), and raises what a thread raised."""

    def __init__(self, kernel, griddim, blockdim, stream, sharedmem):
        self.dispatcher = kernel
        self.griddim = threads.Dim3(*_dims(griddim, "griddim"))
        self.blockdim = threads.Dim3(*_dims(blockdim, "blockdim"))
        self.stream, self.sharedmem = stream, int(sharedmem)
        # the names threads.Block reads
        self.gridDim, self.blockDim = self.griddim, self.blockdim
        x, y, z = self.blockdim
        if x * y * z > MAX_THREADS_PER_BLOCK or any(d > m for d, m in zip(self.blockdim, MAX_BLOCK_DIM)):
            raise CudaAPIError(
                CUDA_ERROR_INVALID_VALUE,
                "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE: block %s is more "
                "than a block may have (1024 threads; 1024, 1024, 64)" % (tuple(self.blockdim),),
            )

    def __call__(self, *args):
        kernel = self.dispatcher
        writebacks = []
        scalar_types = kernel._scalar_types(len(args))
        values = []
        for position, value in enumerate(args):
            for extension in kernel.extensions:
                _, value = extension.prepare_args(None, value, stream=self.stream, retr=writebacks)
            value = _kernel_argument(value, writebacks)
            if scalar_types is not None and scalar_types[position] is not None:
                value = _as_scalar(value, scalar_types[position])
            values.append(value)
        gx, gy, gz = self.griddim
        if any(d > m for d, m in zip(self.griddim, MAX_GRID_DIM)):  # the GPU's launch refuses it: so do we
            raise CudaAPIError(
                CUDA_ERROR_INVALID_VALUE,
                "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE: grid %s is more than a grid may have (%d, %d, %d)"
                % ((tuple(self.griddim),) + MAX_GRID_DIM),
            )
        with _kernel_builtins():
            for z in range(gz):
                for y in range(gy):
                    for x in range(gx):
                        threads.Block(self, threads.Dim3(x, y, z)).run(kernel.py_func, values, kernel.debug)
        for writeback in writebacks:
            writeback()


_builtins_lock = threading.Lock()
_launches_running = [0]  # launches running now (kernels may launch from several host threads)
_saved_builtins = {}


def _print_whole_lines(*values, sep=" ", end="\n", file=None, flush=False):
    """print, as a kernel's threads call it: each call's text written at once, as a GPU's printf writes a line,
    not word by word between the writes of the block's other threads."""
    stream = sys.stdout if file is None else file
    text = (" " if sep is None else sep).join(map(str, values)) + ("\n" if end is None else end)
    with _builtins_lock:
        stream.write(text)
        if flush:
            stream.flush()


def _round_as_numba(number, ndigits=None):
    """round, as a kernel calls it: a float32 rounded to digits from its exact value, as numba does (NumPy's
    own rounds a scaled float32, so 0.3425 -> 0.342, not 0.343)."""
    if ndigits is not None and isinstance(number, np.floating):
        return type(number)(_saved_builtins["round"](float(number), ndigits))
    return _saved_builtins["round"](number, ndigits)


_KERNEL_BUILTINS = {"print": _print_whole_lines, "round": _round_as_numba}


@contextlib.contextmanager
def _kernel_builtins():
    """The builtins a kernel's Python function reads behave as on the GPU while a launch runs: print writes whole
    lines, round rounds float32 as numba does (put in builtins: the kernel's own globals are left as they are)."""
    with _builtins_lock:
        if _launches_running[0] == 0:
            for name, replacement in _KERNEL_BUILTINS.items():
                _saved_builtins[name] = getattr(builtins, name)
                setattr(builtins, name, replacement)
        _launches_running[0] += 1
    try:
        yield
    finally:
        with _builtins_lock:
            _launches_running[0] -= 1
            if _launches_running[0] == 0:
                for name, original in _saved_builtins.items():
                    setattr(builtins, name, original)


def _dims(value, name):
    """griddim or blockdim as three ints, checked as the compiled package checks them (launch_parse_dims)."""
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(items) <= 3:
        raise ValueError("%s must be a sequence of 1, 2 or 3 integers, got %r" % (name, items))
    if not all(isinstance(v, numbers.Integral) for v in items):
        raise TypeError("%s must be a sequence of integers, got %r" % (name, items))
    if not all(v > 0 for v in items):
        raise ValueError("%s must hold positive sizes, got %r" % (name, items))
    if any(v > MAX_LAUNCH_SIZE for v in items):  # a launch's sizes are 32-bit
        raise OverflowError(
            "%s is too large: each size must be at most %d, got %r" % (name, MAX_LAUNCH_SIZE, items)
        )
    return [int(v) for v in items] + [1] * (3 - len(items))


def _kernel_argument(value, writebacks):
    """What the kernel's Python function gets for an argument: a NumPy array as it is (written in place), a device
    array's NumPy storage, an In/Out/InOut hint's device array's storage, a record as a view of a copy written back
    after the launch, anything else as it is. Arrays of records are recarrays, so fields read as attributes."""
    hint = as_hint(value)
    if hint is not None:
        value = hint.to_device(writebacks, arrays=arrays)
    if isinstance(value, DeviceNDArray):
        value = value._array
    if isinstance(value, np.ndarray):
        return value.view(np.recarray) if value.dtype.fields is not None else value
    if isinstance(value, np.void) and value.dtype.fields is not None:
        holder = np.array(value)

        def write_back():
            for name in value.dtype.names:
                value[name] = holder[name]

        writebacks.append(write_back)
        return holder.view(np.recarray)[()]
    return value


def _as_scalar(value, scalar_type):
    """A number as the kernel's signature declares it: float32 arithmetic for a float32 argument; an integer
    argument a Python int (math.ldexp and others take no NumPy integers; numba's simulator passes ints), wrapped
    to the declared width as C converts it (0xFFFFFFFF for an int32 is -1)."""
    if not isinstance(value, (numbers.Number, np.generic)):
        return value
    dtype = getattr(scalar_type, "dtype", None)
    if (
        dtype is not None
        and dtype.kind in "iu"
        and isinstance(value, numbers.Integral)
        and not isinstance(value, bool)
    ):
        bits = dtype.itemsize * 8
        wrapped = int(value) & ((1 << bits) - 1)
        return wrapped - (1 << bits) if dtype.kind == "i" and wrapped >> (bits - 1) else wrapped
    try:
        return scalar_type.dtype.type(value)
    except (TypeError, ValueError, OverflowError):
        return value
