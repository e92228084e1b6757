"""Device functions specialised on compile-time arguments, as numba does with literals and objects:
types (a shared array's dtype), literal sizes and shapes, functions (cuda.atomic.add, device functions)
and flags; a branch on a known condition is pruned (numba's dead-branch pruning), so its types do not
count. Translation with NVRTC in CI; results on the GPU (numba's atomics test pattern)."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import types, uint32, uint64
from numba_cuda_c.pyjit import KernelTypeError
from numba_cuda_c.pyjit.translate import translate_kernel


@cuda.jit(device=True)
def cast_none(num):
    return num


@cuda.jit(device=True)
def cast_to_uint64(num):
    return uint64(num)


@cuda.jit(device=True)
def shared_binop(ary, op2, dtype, shape, binop, cast, wrap):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sm = cuda.shared.array(shape, dtype)
    sm[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    index = (tx, cast(ty))
    if wrap:  # pruned when wrap is False: uint64 % int64 would make the index a float
        index = (index[0] % shape[0], index[1] % shape[1])
    binop(sm, index, op2)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


def add_uint64_index(ary):
    shared_binop(ary, 1, uint32, (4, 8), cuda.atomic.add, cast_to_uint64, False)


def max_plain(ary):
    shared_binop(ary, 3, uint32, (4, 8), cuda.atomic.max, cast_none, True)


@cuda.jit(device=True)
def reassigns(n):
    n = n + 1
    return n


def calls_reassigning(out):
    out[0] = reassigns(5)


@cuda.jit(device=True)
def reassigns_function(f):
    f = 1
    return f


def passes_a_function(out):
    out[0] = reassigns_function(cuda.atomic.add)


A2 = types.Array(types.uint32, 2, "A")


def test_specialised_on_compile_time_arguments():
    source = translate_kernel(add_uint64_index, [A2], "k")
    assert "__shared__ unsigned int" in source and "atomicAdd" in source
    body = source[source.index("__device__ void ncc_dev_shared_binop") :]
    assert "% 4LL" not in body.split("\n}\n")[0]  # the wrap branch is gone
    wrapped = translate_kernel(max_plain, [A2], "k")
    assert "atomicMax" in wrapped
    # a parameter the callee assigns stays a run-time argument; a function there is an error
    assert "ncc_dev_reassigns_1(5LL)" in translate_kernel(
        calls_reassigning, [types.Array(types.int64, 1, "A")], "k"
    )
    with pytest.raises(KernelTypeError, match="assigns its parameter 'f'"):
        translate_kernel(passes_a_function, [types.Array(types.int64, 1, "A")], "k")


@needs_nvrtc
def test_compiles():
    ptx, _ = cuda.compile_ptx(add_uint64_index, (uint32[:, :],))
    assert "atom" in ptx


@requires_gpu
def test_results():
    ary = np.zeros((4, 8), dtype=np.uint32)
    cuda.jit(add_uint64_index)[1, (4, 8)](ary)
    np.testing.assert_array_equal(ary, np.ones((4, 8)))
    ary = np.arange(32, dtype=np.uint32).reshape(4, 8)
    cuda.jit(max_plain)[1, (4, 8)](ary)
    np.testing.assert_array_equal(ary, np.maximum(np.arange(32).reshape(4, 8), 3))
