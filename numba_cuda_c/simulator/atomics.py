"""cuda.atomic in the simulator: each operation reads, updates and writes an array element under one lock shared
by every thread and returns the old value, with numba's rules (max/min keep a stored NaN and never store a NaN;
nanmax/nanmin ignore NaNs; inc/dec wrap as CUDA's atomicInc/atomicDec). Relies on NumPy and threads.py."""

import threading

import numpy as np

from numba_cuda_c.simulator import threads

_lock = threading.Lock()


def _in_dtype(array, value):
    """value as the array's dtype, wrapping as the cast on a GPU does (atomic.add(uint32s, i, -1) subtracts 1)."""
    return np.array(value).astype(array.dtype)[()]


def _check_launch():
    """A thread spinning on atomics stops once another thread's exception has ended the launch."""
    t = getattr(threads._local, "thread", None)
    if t is not None and t.block.failure is not None:
        raise threads.KernelAborted


def _atomic(update, doc):
    def operation(array, index, val):
        _check_launch()
        with _lock:
            old = array[index]
            array[index] = update(old, _in_dtype(array, val))
        return old

    operation.__doc__ = doc
    return operation


def _is_nan(x):
    return x != x


# arithmetic through NumPy's ufuncs: integers wrap without overflow warnings, as on a GPU
add = _atomic(np.add, "array[index] += val; returns the old value.")
sub = _atomic(np.subtract, "array[index] -= val; returns the old value.")
and_ = _atomic(np.bitwise_and, "array[index] &= val; returns the old value.")
or_ = _atomic(np.bitwise_or, "array[index] |= val; returns the old value.")
xor = _atomic(np.bitwise_xor, "array[index] ^= val; returns the old value.")
exch = _atomic(lambda old, val: val, "array[index] = val; returns the old value.")
inc = _atomic(
    lambda old, val: 0 if old >= val else np.add(old, 1),
    "array[index] = 0 if it was >= val, else it + 1 (CUDA's atomicInc); returns the old value.",
)
dec = _atomic(
    lambda old, val: val if old == 0 or old > val else np.subtract(old, 1),
    "array[index] = val if it was 0 or > val, else it - 1 (CUDA's atomicDec); returns the old value.",
)
max = _atomic(
    lambda old, val: val if val > old else old,
    "array[index] = val where val > it (a stored NaN stays); returns the old value.",
)
min = _atomic(
    lambda old, val: val if val < old else old,
    "array[index] = val where val < it (a stored NaN stays); returns the old value.",
)
nanmax = _atomic(
    lambda old, val: val if val > old or _is_nan(old) else old,
    "max, NaNs ignored (as np.nanmax); returns the old value.",
)
nanmin = _atomic(
    lambda old, val: val if val < old or _is_nan(old) else old,
    "min, NaNs ignored (as np.nanmin); returns the old value.",
)


def cas(array, index, old, val):
    """array[index] = val if it equals old; returns what it held."""
    _check_launch()
    with _lock:
        loaded = array[index]
        if loaded == old:
            array[index] = val
    return loaded


def compare_and_swap(array, old, val):
    """cas on the first element of array."""
    return cas(array, (0,) * array.ndim, old, val)
