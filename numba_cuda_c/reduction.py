"""numba's cuda.reduce (Reduce): a full reduction of a 1-d array with a binary function, on the GPU.

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    total = sum_reduce(array)                  # a host or device array; the result on the host
    sum_reduce(d_array, res=d_out)             # or into d_out[0], asynchronously

The function becomes a device function; one kernel, written here in Python and compiled by @cuda.jit for
each dtype it meets, folds each thread's grid-stride elements, then each block's values as a tree, into
one partial per block; a second launch of one block folds the partials. `init` is folded in once, as
numba does."""

import numpy as np

from numba_cuda_c import _cuda
from numba_cuda_c import stubs as cuda  # the kernel's cuda.threadIdx, cuda.shared, ...: the device-side names
from numba_cuda_c.pyjit.dispatcher import Dispatcher, jit

BLOCK = 256  # threads per block: the shared array's size
MAX_BLOCKS = 64  # partials the second pass folds in one block


def _make_kernel(op):
    def reduce_blocks(arr, partials, init, use_init, dty):
        values = cuda.shared.array(256, dty)  # BLOCK
        tid = cuda.threadIdx.x
        first = cuda.blockIdx.x * cuda.blockDim.x
        i = first + tid
        stride = cuda.blockDim.x * cuda.gridDim.x
        if i < arr.size:
            acc = arr[i]
            j = i + stride
            while j < arr.size:
                acc = op(acc, arr[j])
                j += stride
            values[tid] = acc
        cuda.syncthreads()
        count = min(cuda.blockDim.x, arr.size - first)  # the threads that hold a value
        while count > 1:
            half = (count + 1) // 2
            if tid < count // 2:
                values[tid] = op(values[tid], values[tid + half])
            cuda.syncthreads()
            count = half
        if tid == 0:
            result = values[0]
            if use_init and cuda.blockIdx.x == 0:
                result = op(result, init)
            partials[cuda.blockIdx.x] = result

    return jit(reduce_blocks)


class Reduce:
    """A reduction with the binary function `functor` (compiled as a device function, once)."""

    def __init__(self, functor):
        self._functor = functor
        op = functor if isinstance(functor, Dispatcher) else jit(device=True)(functor)
        self._kernel = _make_kernel(op)
        self.__name__ = getattr(functor, "__name__", "reduce")
        self.__doc__ = getattr(functor, "__doc__", None)

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """Reduces arr (host or device, 1-d; its first `size` elements if given). Returns the result,
        or writes it to res[0] (a device array) and returns None. init: folded in once, of arr's dtype."""
        if arr.ndim != 1:
            raise TypeError("only support 1D array")
        if size is not None:
            arr = arr[:size]
        init = arr.dtype.type(init)
        if arr.size < 1:
            return init
        if not _cuda.is_cuda_array(arr):
            arr = _cuda.to_device(np.ascontiguousarray(arr), stream=stream)
        dtype = np.dtype(arr.dtype)
        blocks = min((arr.size + BLOCK - 1) // BLOCK, MAX_BLOCKS)
        partials = _cuda.device_array(blocks, dtype=dtype, stream=stream)
        self._kernel[blocks, BLOCK, stream](arr, partials, init, True, dtype)
        if blocks > 1:
            self._kernel[1, BLOCK, stream](partials, partials[:1], init, False, dtype)
        if res is not None:
            res[:1].copy_to_device(partials[:1], stream=stream)
            return None
        return partials[0]


reduce = Reduce
