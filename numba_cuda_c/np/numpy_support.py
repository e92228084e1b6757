"""numba.cuda.np.numpy_support's conversions between NumPy dtypes and our types (from_dtype, as_dtype), and carray /
farray: an array over memory a pointer points at."""

import numpy as np

from numba_cuda_c import types

__all__ = ["as_dtype", "carray", "farray", "from_dtype", "numpy_version"]

numpy_version = tuple(int(part) for part in np.__version__.split(".")[:2])

from_dtype = types.from_dtype


def as_dtype(t):
    """The NumPy dtype of a type: a scalar's, a record's structured dtype, a nested array's (dtype, shape),
    the instance type of a type given as a value (class(float64)). numba's types are read by name. Raises
    NotImplementedError, as numba, for a type that has no dtype (an array, a tuple)."""
    if types.is_numba_type(t):
        try:
            t = types.from_numba(t)
        except TypeError:
            pass
    if isinstance(t, (types.Scalar, types.Record)):
        return t.dtype
    if isinstance(t, types.NestedArray):
        return np.dtype((as_dtype(t.dtype), t.shape))
    if isinstance(t, types.NumberClass):
        return as_dtype(t.instance_type)
    raise NotImplementedError("%s cannot be represented as a NumPy dtype" % (t,))


def carray(ptr, shape, dtype=None):
    """numba's carray: a C-order array of `shape` over the memory `ptr` points at, without a copy. On the host, ptr
    is a ctypes pointer (its type gives the dtype where dtype is not given); in a kernel, a pointer argument
    (CPointer), and dtype is given."""
    return _pointer_array(ptr, shape, dtype, "C")


def farray(ptr, shape, dtype=None):
    """numba's farray: carray, in Fortran order."""
    return _pointer_array(ptr, shape, dtype, "F")


def _pointer_array(ptr, shape, dtype, order):
    import ctypes

    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
    if dtype is None:
        pointed = getattr(type(ptr), "_type_", None)
        if pointed is None or isinstance(pointed, str):
            raise TypeError("carray/farray: give dtype= for a pointer of type %s" % type(ptr).__name__)
        dtype = np.dtype(pointed)
    else:
        dtype = as_dtype(dtype) if isinstance(dtype, types.Type) or types.is_numba_type(dtype) else np.dtype(dtype)
    address = ctypes.cast(ptr, ctypes.c_void_p).value if not isinstance(ptr, int) else ptr
    count = int(np.prod(shape, dtype=np.int64))
    if count and not address:
        raise ValueError("carray/farray: a NULL pointer for %d elements" % count)
    if not count:
        return np.empty(shape, dtype, order=order)
    memory = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(memory, dtype).reshape(shape, order=order)
