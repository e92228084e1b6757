"""NumPy records in kernels as numba takes them: a record (np.void, np.record) passed straight to a kernel
is copied to the device and back (a record read from an array is a view of it: the array sees the
kernel's writes); nested records and nested arrays in fields read and write in place. Translation in
CI; results on the GPU."""

import numpy as np

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import types

INNER = np.dtype([("x", np.int16), ("y", np.float32)])
REC = np.dtype([("a", np.int32), ("d", np.uint8, (3,)), ("m", np.float64, (2, 2)), ("n", INNER)], align=True)


def set_fields(r, value):
    r.a = value
    r.n.x = value + 1
    for i in range(3):
        r.d[i] = i + value
    r.m[1, 0] = 0.5 * value


def read_fields(arr, out):
    for i in range(arr.size):
        r = arr[i]
        out[i] = r.a + r.n.y + r.d.sum() + r.m[1, 1]


@needs_nvrtc
def test_nested_records_and_arrays_translate():
    cuda.compile_ptx(set_fields, (types.from_dtype(REC), types.int64))
    cuda.compile_ptx(read_fields, (types.from_dtype(REC)[:], types.float64[:]))


@requires_gpu
def test_a_record_passed_to_a_kernel_comes_back_changed():
    arr = np.zeros(3, dtype=REC)
    kernel = cuda.jit(set_fields)
    kernel[1, 1](arr[1], 4)  # a view of arr[1]
    assert arr[1]["a"] == 4 and arr[1]["n"]["x"] == 5
    assert list(arr[1]["d"]) == [4, 5, 6] and arr[1]["m"][1, 0] == 2.0
    assert arr[0]["a"] == 0 and arr[2]["a"] == 0  # the others untouched
    record = np.rec.array(np.zeros(1, dtype=REC))[0]  # np.record
    kernel[1, 1](record, 7)
    assert record["a"] == 7


@requires_gpu
def test_nested_fields_read_on_the_gpu():
    arr = np.zeros(2, dtype=REC)
    arr["a"] = [1, 2]
    arr["n"]["y"] = [0.5, 1.5]
    arr["d"] = [[1, 2, 3], [4, 5, 6]]
    arr["m"][:, 1, 1] = [10.0, 20.0]
    out = np.zeros(2)
    cuda.jit(read_fields)[1, 1](arr, out)
    expected = arr["a"] + arr["n"]["y"] + arr["d"].sum(axis=1) + arr["m"][:, 1, 1]
    np.testing.assert_allclose(out, expected)


def copy_records(arr, src, values, i, j):
    arr[i] = arr[j]  # a whole record, as numba copies it
    arr[i].n = arr[j].n  # a nested record
    arr[j].d = values  # a nested array from an array
    arr[j].m = 1.5  # every element of a nested array
    src[0] = arr[i]


@needs_nvrtc
def test_whole_records_and_nested_arrays_assign():
    t = types.from_dtype(REC)
    cuda.compile_ptx(copy_records, (t[:], t[:], types.uint8[:], types.int64, types.int64))
    with __import__("pytest").raises(cuda.pyjit.KernelTypeError, match="is assigned a"):
        cuda.compile_ptx(copy_records, (t[:], types.from_dtype(INNER)[:], types.uint8[:], types.int64, types.int64))


@requires_gpu
def test_whole_records_and_nested_arrays_assign_on_the_gpu():
    arr = np.zeros(3, dtype=REC)
    arr[2]["a"], arr[2]["n"]["y"] = 9, 2.5
    src = np.zeros(1, dtype=REC)
    cuda.jit(copy_records)[1, 1](arr, src, np.array([7, 8, 9], dtype=np.uint8), 0, 2)
    assert arr[0]["a"] == 9 and arr[0]["n"]["y"] == 2.5 and src[0]["a"] == 9
    assert list(arr[2]["d"]) == [7, 8, 9] and (arr[2]["m"] == 1.5).all()


def test_aligned_and_packed_records_of_equal_layout_are_two_types():
    # NumPy's dtype == ignores align=True; numba types the two apart (and so compiles each its own kernel)
    from numba_cuda_c.pyjit.dispatcher import typeof

    packed = np.dtype([("x", np.float16), ("y", np.float16)])
    aligned = np.dtype([("x", np.float16), ("y", np.float16)], align=True)
    assert packed == aligned
    first, second = typeof(np.zeros(1, packed)), typeof(np.zeros(1, aligned))
    assert first != second and typeof(np.zeros(1, aligned)) == second
