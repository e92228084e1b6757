"""numba.cuda.np.numpy_support's conversions between NumPy dtypes and our types: from_dtype, as_dtype."""

import numpy as np

from numba_cuda_c import types

__all__ = ["as_dtype", "from_dtype", "numpy_version"]

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
