"""Constant strings in kernels, as numba-cuda's cudapy/test_const_string.py uses them: bytes and str assigned to the
elements of S12 and U12 arrays and to record fields of those dtypes (numba's CharSeq and UnicodeCharSeq), cut or
padded with zeros as NumPy stores them; one such string copied to another. Translation, NVRTC compilation and errors
in CI; on the GPU, results against NumPy's and numba-cuda's."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, numba_cuda_or_skip, rebind, requires_gpu
from numba_cuda_c import types
from numba_cuda_c.pyjit import KernelTypeError
from numba_cuda_c.pyjit.translate import translate_kernel

UNICODE_RECORD = np.dtype([("x", np.int32), ("y", np.dtype("<U12"))])
BYTES_RECORD = np.dtype([("x", np.float32), ("y", np.dtype("S12"))])


def str_assign(arr):
    i = cuda.grid(1)
    if i < len(arr):
        arr[i] = "XYZ"


def bytes_assign(arr):
    i = cuda.grid(1)
    if i < len(arr):
        arr[i] = b"XYZ"


def strings_in_records(a):
    a[0]["x"] = 1
    a[0]["y"] = "ABC"
    a[1]["x"] = 2
    a[1]["y"] = "XYZ"


def strings_in_record_attributes(a):
    a[0].y = "ABC"  # numba-cuda 0.30 cannot lower a constant stored through the attribute: we can
    a[1].y = "XYZ"


def bytes_in_records(a):
    a[0]["x"] = 1
    a[0]["y"] = b"ABC"
    a[1]["x"] = 2
    a[1]["y"] = b"XYZ"


def cut_and_copied(arr):
    arr[0] = "ABCDEFGHIJKLMNOPQRSTU"  # longer than 12 characters: its first 12, as NumPy stores it
    arr[1] = arr[0]
    name = "QR"
    arr[2] = name
    arr[3] = "é∂"  # any unicode character: UCS-4


def non_ascii_bytes(arr):
    arr[0] = "é"


def a_number(arr):
    arr[0] = 5


def array_of(dtype):
    return types.Array(types.from_dtype(np.dtype(dtype)), 1, "A")


def test_string_dtypes_are_numbas_char_sequences():
    assert str(types.from_dtype("S12")) == "[char x 12]" and types.from_dtype("S12").size == 12
    assert str(types.from_dtype("<U12")) == "[unichr x 12]" and types.from_dtype("<U12").size == 48
    assert isinstance(types.from_dtype(UNICODE_RECORD).fields["y"][0], types.CharSeq)


def test_the_bytes_written_are_the_strings_padded_with_zeros():
    source = translate_kernel(bytes_assign, [array_of("S12")], "k")
    assert r'"\130\131\132\000\000\000\000\000\000\000\000\000", 12);' in source  # XYZ and 9 NULs
    source = translate_kernel(str_assign, [array_of("<U12")], "k")
    assert r'"\130\000\000\000\131\000\000\000\132\000\000\000' in source and ", 48);" in source  # UCS-4


@needs_nvrtc
@pytest.mark.parametrize(
    "kernel, dtype",
    [
        (str_assign, "<U12"),
        (bytes_assign, "S12"),
        (strings_in_records, UNICODE_RECORD),
        (strings_in_record_attributes, UNICODE_RECORD),
        (bytes_in_records, BYTES_RECORD),
        (cut_and_copied, "<U12"),
    ],
    ids=["unicode", "bytes", "unicode-records", "unicode-record-attributes", "bytes-records", "cut-and-copied"],
)
def test_kernels_compile(kernel, dtype):
    ptx, _ = cuda.compile_ptx(kernel, (array_of(dtype),))
    assert "st.global" in ptx or "st.u8" in ptx or "st.global.u8" in ptx


@needs_nvrtc
def test_strings_that_do_not_fit_are_refused():
    with pytest.raises(KernelTypeError, match="cannot be stored in a \\[char x 4\\]"):
        cuda.compile_ptx(non_ascii_bytes, (array_of("S4"),))
    with pytest.raises(KernelTypeError, match="is assigned a constant string"):
        cuda.compile_ptx(a_number, (array_of("S4"),))


# -- on the GPU: numba-cuda's cudapy/test_const_string.py cases, against numba-cuda ---------------------------------
def run_both(kernel, make, launch):
    """The kernel's result from ours and (where it is installed) numba-cuda's, on arrays made by make()."""
    ours = make()
    cuda.jit(kernel)[launch](ours)
    theirs = None
    try:
        numba_cuda = numba_cuda_or_skip()
    except pytest.skip.Exception:
        return ours, None
    theirs = make()
    numba_cuda.jit(rebind(kernel, cuda=numba_cuda))[launch](theirs)
    return ours, theirs


@requires_gpu
@pytest.mark.parametrize(
    "kernel, dtype, value",
    [(str_assign, "<U12", "XYZ"), (bytes_assign, "S12", b"XYZ")],
    ids=["unicode", "bytes"],
)
def test_constant_strings_into_arrays(kernel, dtype, value):
    n = 8
    ours, theirs = run_both(kernel, lambda: np.zeros(n + 1, dtype=dtype), (1, n))
    expected = np.zeros(n + 1, dtype=dtype)
    expected[:-1] = value
    np.testing.assert_equal(ours, expected)
    if theirs is not None:
        np.testing.assert_equal(ours, theirs)


@requires_gpu
@pytest.mark.parametrize(
    "kernel, dtype, reference",
    [
        (strings_in_records, UNICODE_RECORD, [(1, "ABC"), (2, "XYZ")]),
        (bytes_in_records, BYTES_RECORD, [(1, b"ABC"), (2, b"XYZ")]),
    ],
    ids=["unicode", "bytes"],
)
def test_constant_strings_into_records(kernel, dtype, reference):
    ours, theirs = run_both(kernel, lambda: np.zeros(2, dtype), (1, 1))
    np.testing.assert_array_equal(ours, np.asarray(reference, dtype=dtype))
    if theirs is not None:
        np.testing.assert_array_equal(ours, theirs)


@requires_gpu
def test_constant_strings_into_record_attributes():
    out = np.zeros(2, UNICODE_RECORD)
    cuda.jit(strings_in_record_attributes)[1, 1](out)
    np.testing.assert_array_equal(out, np.asarray([(0, "ABC"), (0, "XYZ")], dtype=UNICODE_RECORD))


@requires_gpu
def test_strings_cut_and_copied_as_numpy_stores_them():
    out = np.zeros(4, "<U12")
    cuda.jit(cut_and_copied)[1, 1](out)
    expected = np.zeros(4, "<U12")
    cut_and_copied(expected)  # NumPy's own assignment, on the host
    np.testing.assert_equal(out, expected)


@requires_gpu
def test_strings_of_two_sizes_get_two_kernels():
    kernel = cuda.jit(bytes_assign)
    long, short = np.zeros(2, "S12"), np.zeros(4, "S2")
    kernel[1, 2](long)
    kernel[1, 4](short)
    assert list(long) == [b"XYZ"] * 2 and list(short) == [b"XY"] * 4
