"""What device functions take and give as numba's do: tuples of numbers as arguments, arrays (views) and records
(by value) as results; globals holding None (false, `is None` known when compiling); a recursive function whose
return type grows is numba's error, not a Python RecursionError. Translation in CI; results on the GPU."""

import numpy as np
import pytest

import device_value_kernels as dv
import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c.np.numpy_support import from_dtype
from numba_cuda_c.pyjit import KernelTypeError

RECORDS = (from_dtype(dv.RECORD)[::1], from_dtype(dv.RECORD)[::1], cuda.int32[::1])


@needs_nvrtc
def test_device_function_values_translate():
    cuda.compile_ptx(dv.tuple_arguments, "void(float32[::1], float32[::1])")
    cuda.compile_ptx(dv.records_and_arrays, RECORDS)
    cuda.compile_ptx(dv.record_fields_by_position, (RECORDS[0], cuda.int32[::1]))
    ptx, _ = cuda.compile_ptx(dv.none_globals, "void(float64[::1])")
    assert ptx.count("st.global") == 2  # b[1] and b[3]: the other branches are pruned
    assert "4611686018427387904" in ptx and "4616189618054758400" in ptx  # 2.0 and 4.0 stored, not 1.0 or 3.0


@needs_nvrtc
def test_growing_recursive_return_type_is_numbas_error():
    @cuda.jit
    def make_list(n):
        if n <= 0:
            return None
        return (n, make_list(n - 1))

    with pytest.raises(KernelTypeError, match="Return type of recursive function does not converge"):

        @cuda.jit("void()")
        def kernel():
            make_list(100)


@requires_gpu
def test_device_function_values_on_the_gpu():
    A = np.arange(100, dtype=np.float32)
    B = np.arange(100, dtype=np.float32)
    expected = A + A + B + B + 1
    cuda.jit(dv.tuple_arguments)[1, 100](A, B)
    np.testing.assert_allclose(B, expected)

    ary = np.zeros(2, dv.RECORD)
    ary[0]["i"], ary[0]["j"] = 7, np.arange(6).reshape(2, 3)
    out = np.zeros(2, dv.RECORD)
    flat = np.arange(10, 16, dtype=np.int32)
    cuda.jit(dv.records_and_arrays)[1, 1](ary, out, flat)
    assert out[0] == ary[0] and out[1]["i"] == 42
    assert flat[0] == 5 and flat[1] == 11  # ary[0].j[1, 2]; then item 1 of row 0 of flat as (2, 3)

    ary = np.zeros(2, dv.RECORD)
    ary[0]["i"] = 7
    one = np.zeros(1, np.int32)
    cuda.jit(dv.record_fields_by_position)[1, 1](ary, one)
    assert one[0] == 7 and ary[1]["i"] == 9

    b = np.zeros(4)
    cuda.jit(dv.none_globals)[1, 1](b)
    np.testing.assert_array_equal(b, [0.0, 2.0, 0.0, 4.0])
