"""Kernels given signatures, as numba runs them: nothing else is compiled, arguments convert to the
declared types (Python numbers to the declared number types, ints to pointers), and arguments that
convert to no signature raise numba's TypeError. CPointer parameters (numba's documentation example)."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c import _cuda, types
from numba_cuda_c.pyjit.dispatcher import _caster, _converts
from numba_cuda_c.pyjit.translate import translate_kernel


def add_one(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] += 1


def test_pointer_parameters_translate():
    sig = types.void(types.CPointer(types.uint8), types.uint32)
    source = translate_kernel(add_one, list(sig.args), "k")
    assert "unsigned char * v_x" in source and "(v_x)[v_i]" in source
    assert str(types.CPointer(types.uint8)) == "uint8*" and types.CPointer(np.uint8) is types.CPointer(types.uint8)
    try:
        _cuda.nvrtc_version()
    except cuda.NvrtcError:
        return
    ptx, _ = cuda.compile_ptx(add_one, sig)
    assert ".entry" in ptx


def test_conversions():
    assert _converts(types.int64, types.CPointer(types.uint8)) and _caster(types.int64, types.CPointer(types.uint8)) is None
    assert _converts(types.int64, types.float32) and _caster(types.int64, types.float32) is np.float32
    assert not _converts(types.complex128, types.float64)
    to_int32 = _caster(types.int64, types.int32)  # Python ints wrap, as numba's ctypes packing does
    assert to_int32(0x80000000) == np.int32(-(2**31)) and to_int32(0xFFFFFFFF) == -1 and to_int32(5) == 5
    assert _caster(types.int64, types.uint8)(-1) == 255 and type(to_int32(1)) is np.int32
    assert not _converts(types.Array(types.float32, 1, "A"), types.Array(types.float64, 1, "A"))


@requires_gpu
def test_pointer_kernel_documentation_example():
    kernel = cuda.jit(types.void(types.CPointer(types.uint8), types.uint32))(add_one)
    x = cuda.to_device(np.arange(10, dtype=np.uint8))
    kernel[1, 32](x.__cuda_array_interface__["data"][0], len(x))
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(1, 11))
    assert len(kernel.overloads) == 1  # the int arguments converted: nothing new compiled


@requires_gpu
def test_arguments_convert_to_the_declared_types():
    @cuda.jit("void(float32[:], int32, float32)")
    def fill(out, n, value):
        i = cuda.grid(1)
        if i < n:
            out[i] = value

    out = cuda.device_array(4, dtype=np.float32)
    fill[1, 4](out, 4, 2)  # Python ints: to int32 and to float32 (their bytes, not an int's)
    np.testing.assert_array_equal(out.copy_to_host(), [2, 2, 2, 2])
    fill[1, 4](out, np.int64(3), 1.5)
    np.testing.assert_array_equal(out.copy_to_host(), [1.5, 1.5, 1.5, 2])
    assert len(fill.overloads) == 1
    with pytest.raises(TypeError, match="No matching definition"):
        fill[1, 4](cuda.device_array(4), 4, 1.0)  # a float64 array converts to no float32 one
