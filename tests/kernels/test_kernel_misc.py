"""Smaller parts of numba's kernel language: a tuple of indices held in a variable (old[gid] with gid =
cuda.grid(2)), pow(), `in` on a tuple of numbers, np.invert, NumPy's math ufuncs on complex numbers
(cmath's functions). Translation in CI; results on the GPU."""

import cmath

import numpy as np
import pytest

import misc_kernels as mk
import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c.pyjit import KernelTypeError


@needs_nvrtc
def test_misc_kernels_translate():
    cuda.compile_ptx(mk.cas_2d, "void(int32[:, :], int32[:, :])")
    cuda.compile_ptx(mk.builtins_and_membership, "void(float64[::1], float64[::1], float64[::1])")
    cuda.compile_ptx(mk.complex_ufuncs, "void(complex128[::1], complex128[::1])")


@requires_gpu
def test_misc_kernels_on_the_gpu():
    res, old = np.zeros((4, 3), np.int32), np.ones((4, 3), np.int32)
    res[1, 2] = 5
    cuda.jit(mk.cas_2d)[(1, 1), (4, 3)](res, old)
    expected_old = np.zeros((4, 3), np.int32)
    expected_old[1, 2] = 5
    np.testing.assert_array_equal(old, expected_old)
    assert res[1, 2] == 5 and res[0, 0] == 7
    r = np.zeros(4)
    cuda.jit(mk.builtins_and_membership)[1, 1](r, np.array([2.0]), np.array([3.0]))
    np.testing.assert_array_equal(r, [8.0, 1.0, 1.0, float(~np.int32(5))])
    c = np.array([1 + 2j, 3 - 1j])
    out = np.zeros(2, np.complex128)
    cuda.jit(mk.complex_ufuncs)[1, 1](c, out)
    np.testing.assert_allclose(out, [cmath.sin(c[0]), cmath.log(c[1])])


@needs_nvrtc
def test_dtypes_named_by_strings():
    cuda.compile_ptx(mk.string_dtypes, "void(int32[::1])")
    with pytest.raises(KernelTypeError, match="Invalid NumPy dtype specified: 'int33'"):
        cuda.compile_ptx(mk.bad_string_dtype, "void(int32[::1])")


@needs_nvrtc
def test_record_arrays_in_shared_and_local_memory_translate():
    from numba_cuda_c.pyjit.translate import translate_kernel
    from numba_cuda_c import types

    source = translate_kernel(mk.record_arrays_in_shared_and_local_memory, [types.float64[::1]], "k")
    assert "__shared__ __align__(16) unsigned char" in source and "[64];" in source  # 4 records of 16 bytes
    cuda.compile_ptx(mk.record_arrays_in_shared_and_local_memory, "void(float64[::1])")


@requires_gpu
def test_record_arrays_in_shared_and_local_memory_on_the_gpu():
    out = np.zeros(4)
    cuda.jit(mk.record_arrays_in_shared_and_local_memory)[1, 4](out)
    np.testing.assert_array_equal(out, [i + i * 0.5 + (3 - i) for i in range(4)])


@needs_nvrtc
def test_array_shapes_from_constant_arithmetic():
    from numba_cuda_c.pyjit.translate import translate_kernel
    from numba_cuda_c import types

    source = translate_kernel(mk.computed_shapes, [types.float64[::1]], "k")
    assert "[32];" in source and "7LL" in source  # 4 x 8 floats; (16 - 1) // 2 folded
    cuda.compile_ptx(mk.computed_shapes, "void(float64[::1])")


@needs_nvrtc
def test_a_list_shape_is_refused_as_numba_refuses_it():
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(mk.list_shape, "void(float64[::1])")
    assert "No implementation of function Function(<function shared.array>) found for signature" in str(info.value)
    assert ">>> array(shape=list(int64)<iv=[4, 2]>, dtype=class(float32))" in str(info.value)


@requires_gpu
def test_array_shapes_from_constant_arithmetic_on_the_gpu():
    r = np.zeros(1)
    cuda.jit(mk.computed_shapes)[1, 1](r)
    assert r[0] == 1 + 2 + 8 + 7


@needs_nvrtc
def test_starred_arguments_translate():
    cuda.compile_ptx(mk.starred_arguments, "void(complex128[::1], complex128[::1], float64[::1])")
    with pytest.raises(KernelTypeError, match=r"\*args in a kernel takes a tuple"):
        cuda.compile_ptx(mk.starred_number, "void(float64[::1])")


@requires_gpu
def test_starred_arguments_on_the_gpu():
    z = np.array([1 + 2j, -3 + 0.5j, 0.25 - 1j])
    x = np.array([0.5, 4.0, -2.0])
    r = np.zeros(3, np.complex128)
    expected_x = np.maximum(x, 2 * x - 3) + np.minimum(1.0, np.minimum(x, 2 * x - 3))
    cuda.jit(mk.starred_arguments)[1, 1](r, z, x)
    np.testing.assert_allclose(r, [complex(*cmath.polar(v)) for v in z], rtol=1e-14)  # complex(r, phi)
    np.testing.assert_allclose(x, expected_x)


@needs_nvrtc
def test_type_errors_are_numbas_typingerror_where_numbas_errors_are_loaded(monkeypatch):
    import sys
    import types as pytypes

    errors = pytypes.ModuleType("numba.core.errors")
    exec("class NumbaError(Exception):\n    pass\nclass TypingError(NumbaError):\n    pass\n", errors.__dict__)
    monkeypatch.delitem(sys.modules, "numba.cuda.core.errors", raising=False)
    monkeypatch.delitem(sys.modules, "numba.core.errors", raising=False)
    with pytest.raises(KernelTypeError) as plain:
        cuda.compile_ptx(mk.starred_number, "void(float64[::1])")
    assert type(plain.value) is KernelTypeError

    monkeypatch.setitem(sys.modules, "numba.core.errors", errors)
    with pytest.raises(errors.TypingError, match=r"\*args in a kernel takes a tuple") as info:
        cuda.compile_ptx(mk.starred_number, "void(float64[::1])")
    assert isinstance(info.value, KernelTypeError) and isinstance(info.value, TypeError)
    assert str(info.value) == str(plain.value) and info.value.msg == str(plain.value)
    with pytest.raises(errors.TypingError) as again:  # the class is made once
        cuda.jit("void(float64[::1])")(mk.starred_number)
    assert type(again.value) is type(info.value)


@needs_nvrtc
def test_isinstance_is_known_when_the_kernel_compiles():
    from numba_cuda_c import types
    from numba_cuda_c.pyjit.translate import translate_kernel

    source = translate_kernel(mk.isinstance_checks, [types.float64[::1], types.float64, types.int64], "k")
    body = source[source.index('extern "C" __global__ void k(') :]
    assert body.count("(true)") == 3 and body.count("(false)") == 1
    assert "-1.0" not in body  # the branch isinstance rules out is not translated
    cuda.compile_ptx(mk.isinstance_checks, "void(float64[::1], float64, int64)")


@requires_gpu
def test_isinstance_on_the_gpu():
    out = np.zeros(5)
    cuda.jit(mk.isinstance_checks)[1, 1](out, 2.5, 3)
    np.testing.assert_array_equal(out, [1, 1, 0, 1, 2.5])


def grid_of_a_variable(out, n):
    out[0] = cuda.grid(n)


@needs_nvrtc
def test_grid_needs_a_literal_dimension_count():
    with pytest.raises(KernelTypeError, match="RequireLiteralValue"):
        cuda.compile_ptx(grid_of_a_variable, "void(int64[::1], int64)")


@needs_nvrtc
def test_a_local_assigned_a_constant_once_is_a_constant_shape():
    cuda.compile_ptx(mk.local_constant_shape, "void(int32[::1])")


@requires_gpu
def test_a_local_constant_shape_on_the_gpu():
    ary = np.zeros(100, np.int32)
    cuda.jit("void(int32[::1])")(mk.local_constant_shape)[1, 128](ary)
    np.testing.assert_array_equal(ary, np.arange(100))


@needs_nvrtc
def test_constant_record_arrays_translate():
    cuda.compile_ptx(mk.constant_records, "void(float64[::1], int64[::1], int64[::1])")


@requires_gpu
def test_constant_record_arrays_on_the_gpu():
    A, B, C = np.zeros(2), np.zeros(2, np.int64), np.zeros(2, np.int64)
    cuda.jit(mk.constant_records)[2, 1](A, B, C)
    np.testing.assert_array_equal(A, mk.CONST_RECORD["x"])
    np.testing.assert_array_equal(B, mk.CONST_RECORD["y"])
    np.testing.assert_array_equal(C, mk.CONST_RECORD_ALIGN["y"].astype(np.int64) + mk.CONST_RECORD["y"])


def _aligned_arrays(alignment):
    def f(dest_array):
        i = cuda.grid(1)
        local_array = cuda.local.array(shape=50, dtype=np.uint8, alignment=alignment)
        shared_array = cuda.shared.array(shape=(2, 3), dtype=np.uint64, alignment=alignment)
        local_array[i % 50] = 1
        shared_array[0, 0] = local_array[0]
        if i == 0:
            dest_array[0] = local_array.ctypes.data
            dest_array[1] = shared_array.ctypes.data

    return f


@needs_nvrtc
def test_array_alignment_as_numba():
    import re

    ptx, _ = cuda.compile_ptx(_aligned_arrays(256), "void(uint64[::1])")
    assert re.findall(r"\.align (\d+)", ptx).count("256") == 2
    for bad, message in (
        (0, "Alignment must be positive"),
        (17, "Alignment must be a power of 2"),
        (4, "Alignment must be a multiple of 8"),
    ):
        with pytest.raises(ValueError, match=message):
            cuda.compile_ptx(_aligned_arrays(bad), "void(uint64[::1])")
    with pytest.raises(KernelTypeError, match="RequireLiteralValue: alignment must be a constant integer"):
        cuda.compile_ptx(_aligned_arrays(1.5), "void(uint64[::1])")


@requires_gpu
def test_array_alignment_on_the_gpu():
    for alignment in (16, 64, 256):
        addresses = np.zeros(2, np.uint64)
        cuda.jit(_aligned_arrays(alignment))[1, 1](addresses)
        assert all(int(a) % alignment == 0 for a in addresses), addresses


@needs_nvrtc
def test_a_name_re_bound_to_another_type_gets_a_variable_of_its_own():
    source = cuda.jit(mk.rebinding).inspect_source("void(float64[:, ::1], float64[:, ::1], float64[::1])")
    assert "Array<double, 1> v_arr__1" in source and "double v_x__s1" in source


@requires_gpu
def test_re_bound_names_on_the_gpu():
    arr = np.arange(6.0).reshape(3, 2)
    result, out = np.zeros((3, 2)), np.array([1.0])
    cuda.jit(mk.rebinding)[1, 1](result, arr, out)
    np.testing.assert_array_equal(result, arr)
    assert out[0] == 3.5


@needs_nvrtc
def test_np_dtype_calls_are_dtypes_and_an_untypeable_one_says_which_variable():
    source = cuda.jit(mk.dtype_by_call).inspect_source("void(int64[::1])")
    assert "short" in source
    with pytest.raises(
        KernelTypeError, match="Cannot infer the type of variable 'arr'.*no device type for dtype object"
    ):
        cuda.compile_ptx(mk.object_dtype_array, "void()")


@needs_nvrtc
def test_a_function_exec_d_from_a_string_is_read_from_its_bytecode_whatever_linecache_holds():
    # Python 3.13 keeps a `-c` program's text in linecache under "<string>", the file name functions exec'd
    # from strings carry too: that text (here, a stand-in) is not the function's, so its bytecode is read
    import linecache

    saved = linecache.cache.get("<string>")
    linecache.cache["<string>"] = (40, None, ["import sys;exec(eval(sys.stdin.readline()))\n"], "<string>")
    try:
        namespace = {}
        exec(compile("def store_one(a):\n    a[0] = 1\n", "<string>", "exec"), namespace)
        ptx, _ = cuda.compile_ptx(namespace["store_one"], (cuda.int32[:],))
    finally:
        if saved is None:
            linecache.cache.pop("<string>", None)
        else:
            linecache.cache["<string>"] = saved
    assert ".entry" in ptx and "store_one" in ptx
