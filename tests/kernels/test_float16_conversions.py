"""Conversions between float16 and the other numbers as numba writes them: one PTX cvt each, from and to the
integer's own width (cvt.rn.f16.s8, cvt.rni.u16.f16, cvt.f64.f16: numba-cuda's test_casting reads them); a half
becomes an integer rounded to the nearest (numba's cvt.rni, where NumPy truncates), saturated. float() keeps a
float's width (numba's float(float32) is a float32). PTX in CI; values on the GPU, beside numba-cuda's."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, numba_cuda_or_skip, rebind, requires_gpu
from numba_cuda_c import types

INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _ptx(function, argument):
    return cuda.compile_ptx(function, (argument,), device=True, cc=(7, 5))[0]


def _converter(to):
    def convert(x):
        return to(x)

    return convert


half_to_int8, to_half, half_to_double, half_to_float = (
    _converter(t) for t in (np.int8, np.float16, np.float64, np.float32)
)
as_float = _converter(float)


@needs_nvrtc
@pytest.mark.parametrize("name", INTEGERS)
def test_each_conversion_is_one_cvt_of_the_integers_width(name):
    t, width = getattr(types, name), "%s%d" % (name[0] if name[0] == "u" else "s", getattr(types, name).bits)
    assert "cvt.rni.%s.f16" % width in _ptx(_converter(t), types.float16)
    assert "cvt.rn.f16.%s" % width in _ptx(to_half, t)


@needs_nvrtc
def test_half_to_float_and_double_directly():
    assert "cvt.f64.f16" in _ptx(half_to_double, types.float16)
    assert "cvt.f32.f16" in _ptx(half_to_float, types.float16)
    ptx = _ptx(half_to_int8, types.float16)
    assert "cvt.rni.s8.f16" in ptx and "cvt.f32.f16" not in ptx  # not through float


@needs_nvrtc
def test_float_keeps_a_floats_width():
    for argument, returned in ((types.float16, types.float16), (types.float32, types.float32)):
        _, result = cuda.compile_ptx(as_float, (argument,), device=True)
        assert result == returned
    for argument in (types.int32, types.float64, types.boolean):
        assert cuda.compile_ptx(as_float, (argument,), device=True)[1] == types.float64


def conversions(halves, ints, i8, u8, i16, u16, i32, u32, i64, u64, f64, back):
    i = cuda.grid(1)
    if i < halves.size:
        h = halves[i]
        i8[i] = np.int8(h)
        u8[i] = np.uint8(h)
        i16[i] = np.int16(h)
        u16[i] = np.uint16(h)
        i32[i] = np.int32(h)
        u32[i] = np.uint32(h)
        i64[i] = np.int64(h)
        u64[i] = np.uint64(h)
        f64[i] = np.float64(h)
        back[i] = np.float16(ints[i]) + np.float16(np.int8(ints[i])) + np.float16(np.uint16(ints[i]))


@requires_gpu
def test_conversions_on_the_gpu_as_numba_cuda():
    numba_cuda = numba_cuda_or_skip()
    halves = np.array([0.0, 0.4, 0.5, 1.5, 2.5, 2.7, -2.5, -0.6, 12.3, 300.7, -129.6, 65504.0], np.float16)
    ints = np.array([0, 1, -1, 3, 127, -128, 255, 2047, 2049, 30001, -7, 65504], np.int64)
    dtypes = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float64]
    results = {}
    for name, jit, kernel in (
        ("ours", cuda.jit, conversions),
        ("numba", numba_cuda.jit, rebind(conversions, cuda=numba_cuda)),
    ):
        outs = [np.zeros(halves.size, d) for d in dtypes] + [np.zeros(halves.size, np.float16)]
        jit(kernel)[1, 32](halves, ints, *outs)
        results[name] = outs
    for ours, theirs in zip(results["ours"], results["numba"]):
        np.testing.assert_array_equal(ours, theirs)
    in_range = halves[:9]  # rounded to the nearest, ties to even: numba's cvt.rni
    np.testing.assert_array_equal(results["ours"][4][:9], np.rint(in_range.astype(np.float64)).astype(np.int32))
