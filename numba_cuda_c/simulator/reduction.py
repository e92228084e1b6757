"""cuda.reduce in the simulator: the binary function folded over a 1-d array on the host, `init` folded in once, as
numba's Reduce gives it. Relies on functools, NumPy and arrays.py."""

import functools

import numpy as np

from numba_cuda_c.simulator.arrays import DeviceNDArray


class Reduce:
    """A reduction with the binary function `functor` (a Python function or a device function)."""

    def __init__(self, functor):
        self._functor = functor
        self.__name__ = getattr(functor, "__name__", "reduce")
        self.__doc__ = getattr(functor, "__doc__", None)

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """Reduces arr (host or device, 1-d; its first `size` elements if given). Returns the result, or writes it
        to res[0] and returns None."""
        if arr.ndim != 1:
            raise TypeError("only support 1D array")
        values = arr._array if isinstance(arr, DeviceNDArray) else np.asarray(arr)
        if size is not None:
            values = values[:size]
        result = values.dtype.type(functools.reduce(self._functor, values, values.dtype.type(init)))
        if res is None:
            return result
        res[0] = result
        return None


reduce = Reduce
