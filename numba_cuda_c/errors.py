"""numba's warning classes for what numba_cuda_c warns about as numba does (NumbaPerformanceWarning: a grid too
small to fill the GPU, a launch that copies a host array; NumbaInvalidConfigWarning: debug=True with opt=True),
and the warnings themselves, with numba's messages.

Programs written for numba filter or catch numba's classes (numba.core.errors / numba.cuda.core.errors). Where
one of those modules is loaded, a warning is also an instance of its class of the same name: a class deriving from
ours and theirs, made once. numba is never imported.
"""

import sys
import warnings

from numba_cuda_c import config


class NumbaWarning(Warning):
    """The base of numba_cuda_c's warnings, as numba's NumbaWarning."""


class NumbaPerformanceWarning(NumbaWarning):
    """Code that works but runs slower than it could."""


class NumbaInvalidConfigWarning(NumbaWarning):
    """A combination of options that CUDA does not support."""


NUMBA_ERROR_MODULES = ("numba.cuda.core.errors", "numba.core.errors")
_twins = {}


def numba_twin(ours, numba_name, attributes=None):
    """ours, or (where numba's errors modules are loaded) a class deriving from ours and their classes named
    numba_name, made once per set of classes: what we raise or warn is then also what numba's users catch or
    filter. attributes: the twin's own (ours alone where their classes cannot be combined with ours)."""
    theirs = []
    for module_name in NUMBA_ERROR_MODULES:
        cls = getattr(sys.modules.get(module_name), numba_name, None)
        if (
            isinstance(cls, type)
            and issubclass(cls, BaseException)
            and cls not in theirs
            and not issubclass(ours, cls)
        ):
            theirs.append(cls)
    if not theirs:
        return ours
    key = (ours,) + tuple(theirs)
    twin = _twins.get(key)
    if twin is None:
        try:
            twin = type(ours.__name__, key, dict(attributes or {}, __module__=ours.__module__))
        except TypeError:
            twin = ours
        _twins[key] = twin
    return twin


def warn(ours, message, stacklevel=2):
    warnings.warn(numba_twin(ours, ours.__name__)(message), stacklevel=stacklevel + 1)


def warn_low_occupancy(griddim, stacklevel=3):
    """numba's warning for a launch configuration of fewer than 128 blocks (CUDA_LOW_OCCUPANCY_WARNINGS)."""
    from numba_cuda_c import _cuda

    # not where there is no driver: the launch raises CudaSupportError, and a warning first would only mislead
    if config.performance_warnings("CUDA_LOW_OCCUPANCY_WARNINGS") and _cuda._driver_error() is None:
        blocks = griddim[0] * griddim[1] * griddim[2]
        warn(
            NumbaPerformanceWarning,
            "Grid size %d will likely result in GPU under-utilization due to low occupancy." % blocks,
            stacklevel,
        )


def warn_implicit_copy():
    """numba's warning for a NumPy array passed to a kernel (CUDA_WARN_ON_IMPLICIT_COPY): called from the launch's
    C (src/arrays/transfer.c, transfer_launch_argument), so the caller's frame is the program's."""
    if config.performance_warnings("CUDA_WARN_ON_IMPLICIT_COPY"):
        warn(NumbaPerformanceWarning, "Host array used in CUDA kernel will incur copy overhead to/from device.", 2)


def jit_target_checked(func_or_sig):
    """A slip such as cuda.jit(3), refused when decorating rather than when the result is applied."""
    if isinstance(func_or_sig, (int, float, complex, bytes, dict, set)):
        raise TypeError(
            "cuda.jit takes a function, a signature or a list of signatures, not %s (%r)"
            % (type(func_or_sig).__name__, func_or_sig)
        )


def jit_options_checked(options):
    """@cuda.jit's debug and opt as numba resolves them (NUMBA_CUDA_DEBUGINFO, NUMBA_OPT where not given), and
    numba's warning where both are on."""
    debug = options.get("debug")
    opt = options.get("opt")
    if debug is None and config.get("CUDA_DEBUGINFO_DEFAULT"):
        options["debug"] = debug = True
    if opt is None:
        opt = config.get("OPT") != 0
        if not opt:
            options["opt"] = False
    if debug and opt:
        warn(
            NumbaInvalidConfigWarning,
            "debug=True with opt=True is not supported by CUDA. This may result in a crash - set debug=False or "
            "opt=False.",
            3,
        )
    if debug and options.get("lineinfo"):
        warn(
            NumbaInvalidConfigWarning,
            "debug and lineinfo are mutually exclusive. Use debug to get full debug info (this disables some "
            "optimizations), or lineinfo for line info only with code generation unaffected.",
            3,
        )


class LinkerError(RuntimeError):
    """Linking failed, or a file to link was not found (numba's driver.LinkerError)."""


class KernelRuntimeError(RuntimeError):
    """numba's: an exception raised in a kernel's thread, naming the thread (tid) and its block (ctaid)."""

    def __init__(self, msg, tid=None, ctaid=None):
        self.msg, self.tid, self.ctaid = msg, tid, ctaid
        super().__init__("An exception was raised in thread=%s block=%s\n\t%s" % (tid, ctaid, msg))
