"""The device-side names of numba.cuda in the simulator: threadIdx, blockIdx, blockDim, gridDim, grid, gridsize,
syncthreads and its _count/_and/_or, shared, local and const arrays, cg.this_grid(). Each reads the calling
thread's identity from threads.current(), so that the kernel's globals need no swapping. Relies on threads.py."""

import sys

import numpy as np

from numba_cuda_c import types
from numba_cuda_c.simulator.threads import current

# numba's simulator swaps a kernel's globals that name the cuda module for a per-thread fake module while it runs.
# Here nothing is swapped: `cuda` in a kernel is this package, and each of its device-side names looks up the
# calling Python thread's simulated CUDA thread (a threading.local set when the thread starts). So a kernel, its
# device functions and anything they import see per-thread values however they spell the names (cuda.threadIdx.x,
# `from numba_cuda_c import threadIdx`, an alias), and two host threads may launch kernels at once.


class _Indices:
    """cuda.threadIdx, cuda.blockIdx, cuda.blockDim, cuda.gridDim: .x .y .z of the calling thread's."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    x = property(lambda self: getattr(current(), self._name).x)
    y = property(lambda self: getattr(current(), self._name).y)
    z = property(lambda self: getattr(current(), self._name).z)

    def __iter__(self):
        return iter(getattr(current(), self._name))

    def __repr__(self):
        return "<cuda.%s>" % self._name


threadIdx = _Indices("threadIdx")
blockIdx = _Indices("blockIdx")
blockDim = _Indices("blockDim")
gridDim = _Indices("gridDim")
warpsize = 32


def laneid():
    """cuda.laneid (read through the package's __getattr__, as it is a number, not an object)."""
    return current().lane


def grid(ndim):
    """The thread's absolute position in the grid: an int (ndim 1) or a tuple of ndim ints."""
    t = current()
    position = tuple(b * d + i for b, d, i in zip(t.blockIdx, t.blockDim, t.threadIdx))
    return _dimensions(position, ndim, "Global ID")


def gridsize(ndim):
    """The number of threads of the grid: along x (ndim 1), or a tuple of ndim counts."""
    t = current()
    return _dimensions(tuple(b * g for b, g in zip(t.blockDim, t.gridDim)), ndim, "Global grid")


def _dimensions(values, ndim, what):
    if ndim == 1:
        return values[0]
    if ndim in (2, 3):
        return values[:ndim]
    raise RuntimeError("%s has 1-3 dimensions. %d requested" % (what, ndim))


def syncthreads():
    """A barrier for the threads of the block that are still running."""
    t = current()
    t.block.meet(t, "block", None)


def syncthreads_count(predicate):
    """syncthreads(), then the number of threads whose predicate was true."""
    t = current()
    return sum(1 for value in t.block.meet(t, "block", predicate).values() if value)


def syncthreads_and(predicate):
    t = current()
    return int(all(t.block.meet(t, "block", predicate).values()))


def syncthreads_or(predicate):
    t = current()
    return int(any(t.block.meet(t, "block", predicate).values()))


def as_dtype(dtype):
    """A NumPy dtype of what array constructors take: one of our types, numba's, or anything np.dtype takes."""
    if isinstance(dtype, types.Type):
        return dtype.dtype
    if types.is_numba_type(dtype):
        return types.from_numba(dtype).dtype
    return np.dtype(dtype)


def _no_alignment(alignment):
    if alignment is not None:
        raise RuntimeError("Array alignment is not supported in cudasim (alignment=%r)" % (alignment,))


class _Shared:
    """cuda.shared: arrays shared by the threads of a block."""

    def array(self, shape, dtype, alignment=None):
        """The block's array declared at this call site (the same one for every thread of the block, and for each
        time the site runs, as CUDA's static shared memory); shape 0: the launch's dynamic shared memory, which
        every such array shares."""
        _no_alignment(alignment)
        t = current()
        dtype = as_dtype(dtype)
        if shape == 0 or shape == (0,):
            raw = t.block.dynamic_shared
            return raw[: raw.size - raw.size % dtype.itemsize].view(dtype)
        caller = sys._getframe(1)
        return t.block.shared_array((caller.f_code, caller.f_lasti), shape, dtype)


class _Local:
    """cuda.local: arrays private to a thread."""

    def array(self, shape, dtype, alignment=None):
        _no_alignment(alignment)
        return np.empty(shape, as_dtype(dtype))


class _Const:
    """cuda.const: constant memory, read-only in kernels."""

    def array_like(self, ary):
        view = np.asarray(ary).view()
        view.flags.writeable = False
        return view


shared = _Shared()
local = _Local()
const = _Const()


class _GridGroup:
    """cuda.cg.this_grid(): the whole grid. The simulator runs blocks one after another, so sync() can only work
    in a grid of one block (as numba's simulator: max_cooperative_grid_blocks is 1)."""

    def sync(self):
        t = current()
        if tuple(t.gridDim) != (1, 1, 1):
            raise RuntimeError(
                "the CUDA simulator runs a grid's blocks one after another: grid.sync() needs a grid "
                "of one block, not %s" % (tuple(t.gridDim),)
            )
        syncthreads()


class _CooperativeGroups:
    """cuda.cg: cooperative groups."""

    def this_grid(self):
        return _GridGroup()


cg = _CooperativeGroups()
