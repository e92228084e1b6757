"""numba_cuda_c.np.numpy_support (numba.cuda.np.numpy_support): our types to NumPy dtypes and back."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import types
from numba_cuda_c.np import numpy_support


@pytest.mark.parametrize(
    "name",
    ["bool_", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"],
)
def test_scalars_round_trip(name):
    t = getattr(types, name)
    dtype = numpy_support.as_dtype(t)
    assert dtype == np.dtype("bool" if name == "bool_" else name)
    assert numpy_support.from_dtype(dtype) is t


def test_records_nested_arrays_and_type_values():
    rec = np.dtype([("a", np.int32), ("b", np.float64, (2, 3))])
    record = numpy_support.from_dtype(rec)
    assert isinstance(record, types.Record) and numpy_support.as_dtype(record) == rec
    nested = record.fields["b"][0]
    assert numpy_support.as_dtype(nested) == np.dtype((np.float64, (2, 3)))
    assert numpy_support.as_dtype(types.NumberClass(types.float32)) == np.float32
    assert numpy_support.numpy_version == tuple(int(p) for p in np.__version__.split(".")[:2])


def test_types_without_a_dtype_raise_numbas_error():
    for t in (types.float32[:], types.UniTuple(types.int32, 2)):
        with pytest.raises(NotImplementedError, match="cannot be represented as a NumPy dtype"):
            numpy_support.as_dtype(t)


def test_aligned_and_packed_records_are_distinct_types():
    # NumPy's == does not tell align=True apart; numba's Record types do (kernels are compiled for each)
    packed = np.dtype([("x", np.float16), ("y", np.float16)])
    aligned = np.dtype([("x", np.float16), ("y", np.float16)], align=True)
    assert packed == aligned
    assert numpy_support.from_dtype(packed) is not numpy_support.from_dtype(aligned)
    assert numpy_support.from_dtype(aligned) is numpy_support.from_dtype(aligned)
    assert numpy_support.as_dtype(numpy_support.from_dtype(aligned)).isalignedstruct


def test_carray_and_farray_view_host_memory_through_a_pointer():
    import ctypes

    from numba_cuda_c.np.numpy_support import carray, farray

    x = np.arange(6, dtype=np.float64)
    pointer = x.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    np.testing.assert_array_equal(carray(pointer, (2, 3)), x.reshape(2, 3))
    np.testing.assert_array_equal(farray(pointer, (2, 3)), x.reshape(2, 3, order="F"))
    view = carray(x.ctypes.data, 3, np.float64)  # an address and a dtype
    view[0] = 42
    assert x[0] == 42  # no copy
    with pytest.raises(TypeError, match="give dtype="):
        carray(ctypes.c_void_p(x.ctypes.data), 3)
    with pytest.raises(ValueError, match="NULL pointer"):
        carray(0, 3, np.float64)


carray_by_another_name = numpy_support.carray  # found by what it is, not by its name


def pointer_arrays(a_ptr):
    a = carray_by_another_name(a_ptr, (1,), dtype=cuda.float32)
    a[0] += 1.25
    b = numpy_support.farray(a_ptr, (2, 3), cuda.float32)
    b[1, 2] = 7  # element 5 in Fortran order


@needs_nvrtc
def test_carray_and_farray_in_kernels_translate():
    cuda.compile_ptx(pointer_arrays, types.void(types.CPointer(types.float32)))


@requires_gpu
def test_carray_and_farray_in_kernels_on_the_gpu():
    a = cuda.to_device(np.zeros(6, np.float32))
    cuda.jit(types.void(types.CPointer(types.float32)))(pointer_arrays)[1, 1](a.device_ctypes_pointer.value)
    np.testing.assert_array_equal(a.copy_to_host(), [1.25, 0, 0, 0, 0, 7])
