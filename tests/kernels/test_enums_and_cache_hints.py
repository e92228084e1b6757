"""Enum members in kernels as numba takes them (globals, Color["red"], arguments, `is` comparing values,
IntEnum coercing to integers), and the cache-hinted loads and stores (cuda.ldcg, cuda.stwt, ...).
Translation in CI; an enum argument's packing on the mock driver; results on the GPU."""

import re

import numpy as np
import pytest

import enum_kernels as ek
import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c.pyjit import KernelTypeError


@needs_nvrtc
def test_enum_kernels_translate():
    cuda.compile_ptx(ek.f, "void(int64, int64, boolean[::1])")
    cuda.compile_ptx(ek.g, "void(boolean[::1])")
    cuda.compile_ptx(ek.h, "void(int64, int32[::1])")


@needs_nvrtc
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "float16", "float32", "float64"])
def test_cache_hints_reach_the_ptx(dtype):
    ptx, _ = cuda.compile_ptx(ek.cache_hints, "void(%s[::1], %s[::1])" % (dtype, dtype), cc=(9, 0))
    for op in ("ld.global.cs.", "ld.global.cg.", "ld.global.ca.", "st.global.wt."):
        assert re.search(re.escape(op) + r"[bsuf]\d+", ptx), op


CACHE_HINT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"]  # fmt: skip


@needs_nvrtc
@pytest.mark.parametrize("dtype", CACHE_HINT_TYPES)
def test_cache_hints_are_numbas_instructions_on_the_elements_bits(dtype):
    # numba writes ld.global.cg.b8 ... st.global.wt.b64 (numba-cuda's test_cache_hints reads them in the PTX)
    bits = np.dtype(dtype).itemsize * 8
    loads, stores = ("ca", "cg", "cs", "lu", "cv"), ("cg", "cs", "wb", "wt")
    ptx, _ = cuda.compile_ptx(ek.every_cache_hint, "void(%s[::1], %s[::1])" % (dtype, dtype), cc=(9, 0))
    for instruction in ["ld.global.%s.b%d" % (h, bits) for h in loads] + [
        "st.global.%s.b%d" % (h, bits) for h in stores
    ]:
        assert instruction in ptx
    ptx, _ = cuda.compile_ptx(ek.every_cache_hint_2d, "void(%s[:, :], %s[:, :])" % (dtype, dtype), cc=(9, 0))
    for instruction in ("ld.global.cv", "ld.global.lu", "st.global.cs", "st.global.wb"):
        assert "%s.b%d" % (instruction, bits) in ptx
    t = getattr(cuda.types, dtype)
    ptx, _ = cuda.compile_ptx(ek.cache_hints_through_a_pointer, (cuda.types.CPointer(t), t[::1], cuda.types.int64))
    assert "ld.global.cv.b%d" % bits in ptx and "st.global.cs.b%d" % bits in ptx


def test_an_enum_argument_goes_as_its_value(mock_driver):
    out = run_mock(
        r"""
import sys; sys.path.insert(0, %r)
import enum_kernels as ek
k = cuda.jit(ek.f)
k[1, 1](ek.Color.green, ek.Shape.square, np.zeros(4, np.bool_))
params = mock.launch()["params"]
assert params[0] == (2).to_bytes(8, "little") and params[1] == (2).to_bytes(8, "little"), params
print("ok")
"""
        % __import__("os").path.dirname(__file__)
    )
    assert out.strip().endswith("ok")


@requires_gpu
def test_enums_on_the_gpu_match_python():
    kernel = cuda.jit(ek.f)
    for a, b in [(ek.Color.red, ek.Color.green), (ek.Shape.circle, ek.Shape.circle)]:
        got, expected = np.zeros(4, np.bool_), np.zeros(4, np.bool_)
        kernel[1, 1](a, b, got)
        ek.f(a, b, expected)
        np.testing.assert_array_equal(got, expected)
    got = np.zeros(2, np.bool_)
    cuda.jit(ek.g)[1, 1](got)
    assert not got.any()
    for x in (300, 450, 550):
        got, expected = np.zeros(1, np.int32), np.zeros(1, np.int32)
        cuda.jit(ek.h)[1, 1](x, got)
        ek.h(x, expected)
        assert got[0] == expected[0]


@requires_gpu
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float16, np.float32, np.float64])
def test_cache_hints_on_the_gpu(dtype):
    x = np.arange(5).astype(dtype)
    r = np.zeros_like(x)
    cuda.jit(ek.cache_hints)[1, 1](r, x)
    np.testing.assert_array_equal(r, (x + x + x).astype(dtype))


def _float_index(x):
    cuda.ldcs(x, 1.0)


def _two_indices(x):
    cuda.ldcs(x, (1, 2))


def _scalar_index_2d(x):
    cuda.ldcs(x, 1)


def _complex_load(r, x):
    r[0] = cuda.ldcs(x, 0)


@needs_nvrtc
def test_cache_hints_refuse_what_numba_refuses_in_its_words():
    with pytest.raises(KernelTypeError, match="float64 is not a valid index"):
        cuda.compile_ptx(_float_index, "void(float32[::1])")
    with pytest.raises(KernelTypeError, match="Expected 1 indices, got 2"):
        cuda.compile_ptx(_two_indices, "void(float32[::1])")
    with pytest.raises(KernelTypeError, match="Expected 2 indices, got a scalar"):
        cuda.compile_ptx(_scalar_index_2d, "void(float32[:, ::1])")
    with pytest.raises(KernelTypeError, match="ldcs requires array of integer or float type"):
        cuda.compile_ptx(_complex_load, "void(complex64[::1], complex64[::1])")


@requires_gpu
@pytest.mark.parametrize("dtype", CACHE_HINT_TYPES)
def test_every_cache_hint_moves_the_elements_bits_on_the_gpu(dtype):
    x = (np.arange(12) * 37 - 100).astype(dtype)  # negative and wide values: all of each element's bits
    r = np.zeros_like(x)
    cuda.jit(ek.every_cache_hint)[1, 1](r, x)
    np.testing.assert_array_equal(r[:9], x[:9])
    x2, r2 = x.reshape(3, 4), np.zeros((3, 4), dtype)
    cuda.jit(ek.every_cache_hint_2d)[1, 1](r2, x2)
    np.testing.assert_array_equal(r2, x2)
    values, out = x[:4].copy(), np.zeros(4, dtype)
    d_out = cuda.to_device(out)
    t = getattr(cuda.types, dtype)
    signature = cuda.types.void(cuda.types.CPointer(t), t[::1], cuda.types.int64)
    through_a_pointer = cuda.jit(signature)(ek.cache_hints_through_a_pointer)
    through_a_pointer[1, 1](d_out.device_ctypes_pointer.value, values, 4)
    np.testing.assert_array_equal(d_out.copy_to_host(), values)
