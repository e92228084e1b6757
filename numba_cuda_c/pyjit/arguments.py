"""Kernel arguments: their types as the dispatcher specialises on them (typeof, numba's rules), and how a launch
passes those the C launcher does not take as they are (tuples holding arrays flattened, NumPy records copied to
the device and back, enum members as their values, cuda.In/Out/InOut, numbers converted to declared types,
numba's argument extensions)."""

import enum
import functools
import itertools

import numpy as np

from numba_cuda_c import _cuda, types
from numba_cuda_c.args import as_hint
from numba_cuda_c.cudadrv import foreign_arguments

_SCALAR_OF_PYTHON = {int: types.int64, float: types.float64, bool: types.boolean, complex: types.complex128}
_SCALAR_OF_DTYPE = {}


def _scalar_of_dtype(dtype):
    # NumPy's == (and hash) ignore align=True; numba's Record types do not: the flag is part of the key
    key = dtype if dtype.fields is None else (dtype, dtype.isalignedstruct)
    t = _SCALAR_OF_DTYPE.get(key)
    if t is None:
        t = _SCALAR_OF_DTYPE[key] = types.from_dtype(dtype)
    return t


def _array_dtype(dtype):
    """An array's element type. Kernels read elements in the machine's byte order: an array in the
    other (dtype('>f8') on x86) is refused, as numba refuses to type it."""
    if not dtype.isnative:
        raise ValueError(
            "unsupported array dtype %r for a kernel: not in the machine's byte order; convert it first, "
            "e.g. a.astype(a.dtype.newbyteorder('='))" % dtype
        )
    return _scalar_of_dtype(dtype)


_DeviceNDArray = _cuda.DeviceNDArray
_DeviceRecord = _cuda.DeviceRecord


def typeof(value):
    """numba's typeof for kernel arguments: arrays by dtype and dimensions (every layout shares one
    translation: the code indexes through strides), Python scalars as int64/float64/bool, NumPy
    scalars by their dtype."""
    cls = type(value)
    t = _SCALAR_OF_PYTHON.get(cls)
    if t is not None:
        return t
    if value is None:  # numba's none: known when compiling, not passed (pyjit/optional.py)
        return types.none
    if isinstance(value, tuple):  # numbers: one struct; with arrays or tuples in it: flattened (_flattening)
        items = tuple(typeof(item) for item in value)
        if not all(isinstance(item, (types.Scalar, types.Array, types.Tuple)) for item in items):
            raise TypeError("tuples passed to kernels hold numbers, arrays and tuples of them")
        return types.tuple_type(value, items)
    if cls is _DeviceRecord:  # a record in device memory: passed by reference
        return _scalar_of_dtype(value.dtype)
    if cls is _DeviceNDArray or isinstance(value, (_DeviceNDArray, np.ndarray)):
        return types.Array(_array_dtype(value.dtype), value.ndim, "A")
    if isinstance(value, np.void):  # copied to the device for the launch, and back (_with_conversions)
        return _scalar_of_dtype(value.dtype)
    if isinstance(value, enum.Enum) and isinstance(value.value, (int, float)):  # its value (_with_conversions)
        return typeof(value.value)
    if isinstance(value, np.generic):
        return _scalar_of_dtype(value.dtype)
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        return types.Array(_array_dtype(np.dtype(cai["typestr"])), len(cai["shape"]), "A")
    kind = _type_argument(value)
    if kind is not None:
        return kind
    device = foreign_arguments.as_device_array(value)  # cuda.core Buffer, StridedMemoryView, DLPack
    if device is not None:
        return types.Array(_array_dtype(device.dtype), device.ndim, "A")
    hint = as_hint(value)  # cuda.In(x), cuda.Out(x), cuda.InOut(x): x's type (_with_conversions)
    if hint is not None:
        return typeof(hint.value)
    raise TypeError("cannot pass a %s to a kernel" % type(value).__name__)


def _type_argument(value):
    """A type given as an argument (np.float64, np.dtype('f4'), numba_cuda_c.int32 or numba's):
    numba's class(float64), on which the kernel is specialised. None for anything else."""
    try:
        if isinstance(value, types.Scalar):
            return types.NumberClass(value)
        if types.is_numba_type(value):  # numba.float64, or numba's typeof(np.float64) itself
            ours = types.from_numba(value)
            return ours if isinstance(ours, types.NumberClass) else types.NumberClass(ours)
        if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.number)):
            return types.NumberClass(_scalar_of_dtype(np.dtype(value)))
    except TypeError:
        return None
    return None


def _with_defaults(py_func, argtypes):
    """The argument types of a call that leaves out arguments with defaults: numba's Omitted(default) for each."""
    defaults = py_func.__defaults__ or ()
    count = py_func.__code__.co_argcount
    missing = count - len(argtypes)
    if 0 < missing <= len(defaults):
        return argtypes + tuple(types.Omitted(d) for d in defaults[len(defaults) - missing :])
    return argtypes


def _needs_conversion(value):
    return (
        isinstance(value, np.void)
        or (isinstance(value, enum.Enum) and not isinstance(value, int))  # an IntEnum member is the int it is
        or (isinstance(value, tuple) and type(value) is not tuple)  # a namedtuple: as the tuple it is
        or as_hint(value) is not None
    )


def _plain_tuple(value):
    return tuple(_plain_tuple(v) if isinstance(v, tuple) else v for v in value)


def converted_argument(value, after, stream=0):
    """An argument the C launcher does not take as it is, as numba passes it (ArgumentPlan's converter): a NumPy
    record copied to the device first and back into it after the launch (a record read from an array is a view of
    it, so the array sees the kernel's writes), an enum member as its value, a namedtuple as its tuple,
    cuda.In/Out/InOut copying one way or both; on the launch's stream. What runs after the launch goes in after."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return _plain_tuple(value)
    if isinstance(value, np.void):
        device = _cuda.to_device(value, stream=stream)
        after.append(functools.partial(device.copy_to_host, value, stream=stream))
        return device
    return as_hint(value).to_device(after, stream=stream)


def argument_plan(launch, argtypes, convert, stream, casts=None, check=None):
    """What a launch with arguments of these types (numba's Omitted for those left out) does before launch takes
    them: the launch itself where nothing, else one _cuda.ArgumentPlan (src/launch/argument_plan.c): conversions
    at the positions `convert` (converted_argument: where _needs_conversion), the arguments known when compiling
    left out (None, defaults), tuples holding arrays passed as their leaves (types.flattens), a declared
    signature's casts, debug=True's check."""
    kept = [k for k, t in enumerate(argtypes) if t is not types.none and not isinstance(t, types.Omitted)]
    flatten = tuple(j for j, k in enumerate(kept) if types.flattens(argtypes[k]))
    kept = tuple(kept) if len(kept) != len(argtypes) else None
    if not (convert or kept or flatten or casts or check):
        return launch
    return _cuda.ArgumentPlan(
        launch,
        convert=convert or None,
        converter=functools.partial(converted_argument, stream=stream) if convert else None,
        kept=kept,
        flatten=flatten or None,
        casts=casts,
        check=check,
    )


def _with_layouts(argtypes, args):
    """The argument types with their arrays' layouts as numba's typeof gives them ('C', 'F' or 'A'), for messages
    (kernels are keyed with layout 'A': one translation serves every layout)."""
    shown = []
    for t, value in itertools.zip_longest(argtypes, args):
        flags = getattr(value, "flags", None)
        if isinstance(t, types.Array) and flags is not None:
            layout = "C" if flags["C_CONTIGUOUS"] else "F" if flags["F_CONTIGUOUS"] else "A"
            t = types.Array(t.dtype, t.ndim, layout)
        shown.append(t)
    return shown[: len(argtypes)]


def _caster(actual, declared):
    """The host conversion of one argument (None: passed as it is)."""
    if actual == declared or isinstance(declared, types.CPointer):
        return None
    if isinstance(declared, types.Scalar):
        convert = declared.dtype.type
        if declared.kind in "iu":  # a Python int wraps into a declared integer, as numba's ctypes packing does

            def wrapping(value, bits=declared.bits, signed=declared.kind == "i"):
                if isinstance(value, int) and not isinstance(value, bool):
                    value &= (1 << bits) - 1
                    if signed and value >> (bits - 1):
                        value -= 1 << bits
                return convert(value)

            return wrapping
        return convert
    return None
