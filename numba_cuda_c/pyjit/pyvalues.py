"""Python objects a kernel reads (globals, closure variables, defaults, attributes of modules) as kernel values: numbers
and enum members as constants, NumPy arrays captured into constant memory, device arrays captured by pointer, numba's
and NumPy's types, functions and modules as compile-time objects. Helpers of the passes' rules (passes.py)."""

import enum
import inspect
import sys

import numpy as np

from numba_cuda_c import _cuda, types
from numba_cuda_c.pyjit import bindings, intrinsics, lib
from numba_cuda_c.pyjit.bindings import Captured
from numba_cuda_c.pyjit.devicefn import DeviceFunction
from numba_cuda_c.pyjit.lib import fp8
from numba_cuda_c.pyjit.values import Namespace, Value, literal
from numba_cuda_c.stubs import DeviceName


class PythonValues:
    def python_value(self, obj, node):
        """A global: a number becomes a constant; modules, functions and types stay objects."""
        if isinstance(obj, Captured):  # a nested function's parameter standing for a variable it reads
            return bindings.captured_value(self, obj, node)
        if isinstance(obj, enum.Enum) and isinstance(obj.value, (int, float)):  # Color.red: its value, as numba
            value = self.python_value(obj.value, node)  # the member kept: .value, and comparisons of members
            return Value(value.code, value.type, const=value.const, obj=obj)
        if obj is None:  # a global or closure variable holding None: numba's none type, false, known when compiling
            return Value(type=types.none)
        if isinstance(obj, bool):
            return literal(obj, types.boolean)
        if isinstance(obj, int):
            return literal(obj, types.int64)
        if isinstance(obj, float):
            return literal(obj, types.float64)
        if isinstance(obj, complex):
            return literal(obj, types.complex128)
        if isinstance(obj, np.generic) and obj.dtype.kind in "Mm":  # np.datetime64/timedelta64: its count
            count = int(obj.view(np.int64))
            return Value(
                "(%dLL - 1)" % (count + 1) if count == -(2**63) else "%dLL" % count, types.from_dtype(obj.dtype)
            )
        if isinstance(obj, np.generic) and obj.dtype.kind in "biufc":
            t = types.from_dtype(obj.dtype)
            return literal(obj.item(), t)
        if isinstance(obj, tuple) and all(isinstance(v, (int, float, bool, complex)) for v in obj):
            items = [self.python_value(v, node) for v in obj]
            return Value(type=types.tuple_type(obj, [i.type for i in items]), items=items, const=obj)
        if isinstance(obj, tuple) and obj:  # of arrays too (numba freezes each), for literal_unroll
            items = [self.python_value(v, node) for v in obj]
            if all(i.type is not None for i in items):
                return Value(type=types.Tuple([i.type for i in items]), items=items)
        if obj is sys.modules["numba_cuda_c"]:  # the cuda module (numba.cuda's alias too), known by identity
            return Value(obj=Namespace(("cuda",)))
        if isinstance(obj, DeviceName):  # from numba_cuda_c import grid: the name cuda.grid
            return Value(obj=Namespace(obj.path))
        if isinstance(obj, np.ndarray) and (obj.dtype.kind in "biufc" or obj.dtype.fields is not None):
            # numba captures its values now (records: their bytes)
            return intrinsics.constant_array_of(self, obj, node, "global array")
        if isinstance(obj, _cuda.DeviceNDArray) or _has_cuda_array_interface(obj):
            return intrinsics.captured_device_array(self, obj, node)
        if type(obj).__name__ == "CPUDispatcher" and callable(getattr(obj, "py_func", None)):
            # a @numba.jit function, which numba-cuda lets kernels call: its Python, as a device function
            return Value(obj=DeviceFunction(obj.py_func))
        if getattr(obj, "__module__", None) in _NUMBA_BF16_MODULES and callable(obj):  # numba's own bf16 bindings
            entry = lib.lookup(("bf16", getattr(obj, "__name__", "").lstrip("_")))  # its __hadd is cuda.bf16.hadd
            if entry is not None:
                return Value(obj=entry)
        if getattr(obj, "__module__", None) == fp8.NUMBA_MODULE and fp8.ours(obj) is not None:  # numba's own FP8
            return Value(obj=fp8.ours(obj))
        if isinstance(obj, type) and obj.__module__ == "numba.cuda.stubs" and obj.__name__ in types.VECTOR_TYPES:
            return Value(obj=Namespace(("cuda", obj.__name__)))  # numba's own stub of a vector type, by name
        if types.is_numba_type(obj):  # from numba import float32: ours, by name
            try:
                return Value(obj=types.from_numba(obj))
            except TypeError as exc:
                self.fail(node, str(exc))
        return Value(obj=obj)


def _has_cuda_array_interface(obj):
    """Whether a global is a CUDA array (the interface on its class, or set on the object itself as
    numba's testing ForeignArray does); modules, functions and types are not."""
    if isinstance(obj, (type, types.Type)) or inspect.ismodule(obj) or callable(obj):
        return hasattr(type(obj), "__cuda_array_interface__")
    try:
        return isinstance(getattr(obj, "__cuda_array_interface__", None), dict)
    except Exception:  # a property that raises: not usable
        return False


# Where numba-cuda defines its bfloat16 functions: a kernel naming one of them gets ours of that name
_NUMBA_BF16_MODULES = ("numba.cuda._internal.cuda_bf16", "numba.cuda.bf16")
