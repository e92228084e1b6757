"""CUDA's vector types in kernels (numba's cuda.float32x4, cuda.int8x2, ... and the C aliases cuda.float4,
cuda.double2, cuda.long3, ...): made from numbers and vectors of the same base type, read as .x .y .z .w.
Translation in CI, values on the GPU."""

import numpy as np
import pytest

import numba_cuda_c as cuda
import vector_kernels as vk
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import types
from numba_cuda_c.pyjit import KernelTypeError


def test_every_name_numba_gives_exists():
    for prefix, bits in (("int", (8, 16, 32, 64)), ("uint", (8, 16, 32, 64)), ("float", (32, 64))):
        for b in bits:
            for n in (1, 2, 3, 4):
                name = "%s%dx%d" % (prefix, b, n)
                assert getattr(cuda, name).path == ("cuda", name)
                vector = types.VECTOR_TYPES[name]
                assert vector.base is getattr(types, "%s%d" % (prefix, b)) and vector.count == n
    assert types.VECTOR_TYPES["float4"] is types.VECTOR_TYPES["float32x4"]
    assert cuda.float4 is cuda.float32x4 and cuda.long2 is cuda.int64x2 and cuda.ulonglong1 is cuda.uint64x1
    assert types.VECTOR_TYPES["double2"].ctype == "double2" and types.VECTOR_TYPES["long3"].ctype == "longlong3"
    with pytest.raises(RuntimeError, match="can only be called inside a kernel"):
        cuda.float32x2(1, 2)


@needs_nvrtc
def test_vector_types_translate():
    cuda.compile_ptx(vk.fancy_float32, "void(float32[::1])")
    cuda.compile_ptx(vk.every_vector_type, "void(float64[::1], int64)")


@needs_nvrtc
@pytest.mark.parametrize(
    "kernel, words",
    [
        (vk.wrong_count, "cuda.float32x3 takes 3 elements, 2 given"),
        (vk.wrong_attribute, "float32x2 has the elements x, y"),
        (vk.mixed_bases, "cuda.float32x2 takes float32 vectors, not float64x1"),
    ],
)
def test_vector_type_errors(kernel, words):
    with pytest.raises(KernelTypeError, match=words):
        cuda.compile_ptx(kernel, "void(float32[::1])")


@requires_gpu
def test_vector_types_on_the_gpu():
    res = np.zeros(12, np.float32)
    cuda.jit(vk.fancy_float32)[1, 1](res)
    np.testing.assert_array_equal(res, [2, 3, 1, 1, 2, 3, 1, 2, 3, 1, 3 + 4, 3])
    out = np.zeros(8)
    cuda.jit(vk.every_vector_type)[1, 1](out, 0)
    np.testing.assert_array_equal(out, [4, 7, -8, 10, 2.5, 12, 14, 19])
