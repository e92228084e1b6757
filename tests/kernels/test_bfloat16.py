"""bfloat16 in kernels (numba's cuda.bf16): the type, arithmetic on it, arrays of ml_dtypes.bfloat16, and CUDA's
bfloat16 functions from one table (pyjit/lib/bf16.py). Every function compiles in CI (for compute capability
8.0); values on the GPU against ml_dtypes/NumPy."""

import numpy as np
import pytest

import bf16_kernels as bk
import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import bf16, types
from numba_cuda_c.pyjit import lib


def bf16_entries():
    lib._load()
    return sorted((path[1], entry) for path, entry in lib.TABLE.items() if path[0] == "bf16")


def test_the_module_names_numbas_functions():
    names = dir(bf16)
    for name in (
        "bfloat16",
        "hadd",
        "hfma_relu",
        "hmax_nan",
        "hisnan",
        "bfloat16_to_int8_rz",
        "uint64_to_bfloat16_ru",
        "bfloat16_as_uint16",
        "float32_to_bfloat16_rd",
        "htanh_approx",
    ):
        assert name in names, name
    assert bf16.bfloat16 is types.bfloat16
    with pytest.raises(TypeError, match="device function"):
        bf16.hadd(1, 2)
    with pytest.raises(AttributeError, match="no function 'nothing'"):
        bf16.nothing


@needs_nvrtc
@pytest.mark.parametrize("name, entry", bf16_entries(), ids=[name for name, _ in bf16_entries()])
def test_every_function_compiles(name, entry):
    argument_types, result = entry.signature
    params = ", ".join("a%d" % k for k in range(len(argument_types)))
    code = "def generated(out, %s):\n    out[0] = f(%s)\n" % (params, params)
    namespace = {"f": entry}
    exec(code, namespace)
    out = types.Array(result if result != types.boolean else types.int32, 1, "C")
    ptx, _ = cuda.compile_ptx(namespace["generated"], (out,) + argument_types, cc=(8, 0))
    assert "ld.param" in ptx and "st.global" in ptx


@needs_nvrtc
def test_kernels_translate():
    cuda.compile_ptx(bk.scale_and_add, (types.bfloat16[::1], types.bfloat16[::1]), cc=(8, 0))
    cuda.compile_ptx(bk.functions, "void(float32[::1], int32[::1], float32[::1])", cc=(8, 0))


def test_host_arrays_are_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert types.bfloat16.dtype == np.dtype(ml_dtypes.bfloat16)
    assert types.from_dtype(np.dtype(ml_dtypes.bfloat16)) is types.bfloat16


@requires_gpu
def test_bfloat16_on_the_gpu():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    if not cuda.is_bfloat16_supported():
        pytest.skip("bfloat16 needs compute capability 8.0")
    x = np.linspace(-3, 3, 64).astype(ml_dtypes.bfloat16)
    y = np.zeros_like(x)
    cuda.jit(bk.scale_and_add)[1, 1](y, x)
    np.testing.assert_array_equal(y.astype(np.float32), (x * ml_dtypes.bfloat16(2) + x).astype(np.float32))
    out, iout = np.zeros(5, np.float32), np.zeros(5, np.int32)
    cuda.jit(bk.functions)[1, 1](out, iout, np.array([1.5, 2.75], np.float32))
    a, b = ml_dtypes.bfloat16(1.5), ml_dtypes.bfloat16(2.75)
    np.testing.assert_allclose(
        out, [float(a + b), float(a * b), float(a * b + a), np.sqrt(float(b)), np.sin(float(a))], rtol=1e-2
    )
    assert list(iout) == [2, 1, 0, int(np.array(1.0, ml_dtypes.bfloat16).view(np.int16)), 1]


@needs_nvrtc
def test_float_of_a_string_is_a_constant():
    def kernel(out):
        out[0] = float("nan")
        out[1] = float("-inf")

    ptx, _ = cuda.compile_ptx(kernel, "void(float64[::1])")
    assert "9221120237041090560" in ptx and "-4503599627370496" in ptx  # the stored bits: NaN and -inf
