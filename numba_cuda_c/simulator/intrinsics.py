"""numba.cuda's other device functions in the simulator: the bit intrinsics (popc, brev, clz, ffs) with numba's
widths (a NumPy integer's own, 64 bits for a Python int, which numba types as int64), fma, cbrt, selp, the memory
fences, nanosleep, the cache-hinted loads and stores, and CUDA's vector types. Relies on NumPy and types.py."""

import time

import numpy as np

from numba_cuda_c import types


def _bits(value):
    if isinstance(value, np.integer):
        return value.dtype.itemsize * 8 if value.dtype.itemsize == 8 else 32
    return 32 if -(1 << 31) <= int(value) < (1 << 32) else 64  # a Python int: 32 bits where it fits, as numba's


def _unsigned(value):
    bits = _bits(value)
    return int(value) & ((1 << bits) - 1), bits


def popc(x):
    """The number of bits set."""
    return bin(_unsigned(x)[0]).count("1")


def brev(x):
    """The bits in reverse order: uint32 (uint64 for 64-bit x)."""
    value, bits = _unsigned(x)
    reversed_value = int(format(value, "0%db" % bits)[::-1], 2)
    return np.uint64(reversed_value) if bits == 64 else np.uint32(reversed_value)


def clz(x):
    """The number of zero bits above the highest bit set."""
    value, bits = _unsigned(x)
    return bits - value.bit_length()


def ffs(x):
    """The position (from 1) of the lowest bit set; 0 if none is."""
    value = _unsigned(x)[0]
    return (value & -value).bit_length()


def fma(a, b, c):
    return a * b + c


def cbrt(a):
    return np.cbrt(a)


def selp(predicate, a, b):
    return a if predicate else b


def threadfence():
    pass  # every simulated thread sees every write at once


def threadfence_block():
    pass


def threadfence_system():
    pass


def nanosleep(ns):
    time.sleep(int(ns) * 1e-9)


def _load(array, index):
    return array[index]


def _store(array, index, value):
    array[index] = value


# cuda.ldcg(a, i), cuda.stcg(a, i, v), ...: the cache policy means nothing here
ldca = ldcg = ldcs = ldlu = ldcv = _load
stcg = stcs = stwb = stwt = _store


class VectorType:
    """One of CUDA's vector types (cuda.float32x4, and its alias cuda.float4, ...): made from `count` numbers (or
    smaller vectors), read as .x .y .z .w."""

    __slots__ = ("x", "y", "z", "w")

    def __init__(self, *args):
        values = []
        for arg in args:
            values.extend(arg._values() if isinstance(arg, VectorType) else [arg])
        if len(values) != self.count:
            raise TypeError("%s takes %d numbers, not %d" % (self.name, self.count, len(values)))
        for attr, value in zip(VectorType.__slots__, values):
            setattr(self, attr, self.base(value))

    def _values(self):
        return [getattr(self, attr) for attr in VectorType.__slots__[: self.count]]  # a subclass's __slots__ is ()

    def __repr__(self):
        return "%s(%s)" % (self.name, ", ".join(map(str, self._values())))


def _vector_types():
    made = {}
    for name, vector in types.VECTOR_TYPES.items():
        cls = made.get(vector.name)
        if cls is None:
            cls = made[vector.name] = type(
                vector.name,
                (VectorType,),
                {"__slots__": (), "name": vector.name, "count": vector.count, "base": vector.base.dtype.type},
            )
        made[name] = cls
    return made


VECTOR_TYPES = _vector_types()  # numba's names and their C aliases: float32x4 and float4 are one class
